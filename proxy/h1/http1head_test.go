// This file tests the HTTP/1 head rules of http1head.go: FuzzRequestHead
// runs arbitrary heads through fasthttp's parser, checkRequestHead, the
// header view and the head watch; the table tests pin each rule, and
// BenchmarkRequestHead their cost per request.
package h1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"edge/conf"
	"edge/proxy"
)

// headServer is a default server with nginx's defaults.
func headServer(ignoreInvalid, underscores bool) *conf.Server {
	return &conf.Server{LargeHeaderBuffers: 4, LargeHeaderBufferSize: 8 << 10, MaxHeaders: 1000,
		IgnoreInvalidHeaders: ignoreInvalid, UnderscoresInHeaders: underscores}
}

// atServer makes srv the server r is served by.
func atServer(r *proxy.Request, srv *conf.Server) {
	var rt *proxy.Site // AtDefault sets only r's fields
	rt.AtDefault(r, srv)
}

// parseHead reads data as fasthttp's server does and applies
// checkRequestHead; ok is false when either refuses the head.
func parseHead(data []byte, srv *conf.Server) (r *proxy.Request, status int, ok bool) {
	r = &proxy.Request{}
	atServer(r, srv)
	h, err := ReadHeader(bufio.NewReaderSize(bytes.NewReader(data), 32<<10))
	if err != nil {
		return r, 400, false
	}
	r.Method, r.RawTarget, r.Proto = string(h.Method()), string(h.RequestURI()), string(h.Protocol())
	fh := &fastHeaders{h: h, r: r}
	r.Header = fh
	status = checkRequestHead(r, nil, fh, srv)
	return r, status, status == 0
}

// FuzzRequestHead: no head makes fasthttp's parser, checkRequestHead,
// the header view or the head watch panic; a head that nginx refuses for
// its names (a byte <= 0x20 or DEL in a name, a folded line) is never
// accepted; the header view, with ignore_invalid_headers on, never shows
// a name nginx finds invalid; and the watch reports a bare CR only where
// a CR is followed by something else than LF.
func FuzzRequestHead(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /info.php HTTP/1.1\r\nHost: a\r\nX Forwarded For: 6.6.6.6\r\n\r\n",
		"GET / HTTP/1.1\r\nHo st: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX\x7fY: 1\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX-A: a\r\n b\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX.Forwarded-For: 6.6.6.6\r\nX_Under: 1\r\n\r\n",
		"TRACE / HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET http://u:p@evil.example/ HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /" + strings.Repeat("a", 9000) + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\n\r\r",
		"GET / HTTP/1.1\r\nHost: a\r\nX-A: a\rb\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X-A: 1\r\n", 1001) + "\r\n",
	} {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	on := headServer(true, false)
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		r, _, ok := parseHead(data, on)
		if ok {
			checkAcceptedNames(t, r.Header.(*fastHeaders).h.RawHeaders())
			for _, h := range r.Header.AppendAll(nil) {
				if proxy.InvalidHeaderName(h.Name, false) {
					t.Fatalf("head %q: the header view shows %q", data, h.Name)
				}
			}
			fh := r.Header.(*fastHeaders)
			_ = fh.TooManyHeaders(on, r.Server(), false)
			// The names filter answers as the engine would, for every
			// name the head has.
			plain := *fh
			plain.names = 0
			for _, line := range bytes.Split(fh.h.RawHeaders(), []byte("\n")) {
				if name, _, _ := bytes.Cut(line, []byte(":")); len(name) > 0 {
					if got, want := fh.Get(string(name)), plain.Get(string(name)); got != want {
						t.Fatalf("head %q: Get(%q) = %q with the names filter, %q without", data, name, got, want)
					}
				}
			}
		}
		for _, srv := range []*conf.Server{headServer(false, false), headServer(true, true)} {
			if r, _, ok := parseHead(data, srv); ok {
				r.Header.AppendAll(nil)
			}
		}
		var w headWatch
		w.begin()
		if _, err := feedHead(&w, data, 32<<10, max(1, int(split))); err != nil {
			if !errors.Is(err, errBareCR) || !hasBareCR(data) {
				t.Fatalf("head %q in reads of %d: %v", data, split, err)
			}
		}
		w.lineTooLong(len(data), 8<<10)
	})
}

// checkAcceptedNames fails for a head nginx refuses for its names.
func checkAcceptedNames(t *testing.T, raw []byte) {
	t.Helper()
	for _, line := range bytes.Split(raw, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		name, _, _ := bytes.Cut(line, []byte(":"))
		if len(name) == 0 {
			t.Fatalf("accepted a line without a name: %q", line)
		}
		for _, c := range name {
			if c <= 0x20 || c == 0x7f {
				t.Fatalf("accepted the header name %q", name)
			}
		}
	}
}

func hasBareCR(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] != '\n' {
			return true
		}
	}
	return false
}

func TestCheckRequestHead(t *testing.T) {
	long := strings.Repeat("a", 9000)
	for _, tc := range []struct {
		name, head string
		srv        *conf.Server
		status     int
	}{
		{"plain", "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n\r\n", nil, 0},
		{"space in name", "GET / HTTP/1.1\r\nHost: a\r\nX Forwarded For: 6.6.6.6\r\n\r\n", nil, 400},
		{"folded line", "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\r\n b\r\n\r\n", nil, 400},
		{"invalid names pass", "GET / HTTP/1.1\r\nHost: a\r\nX.A: 1\r\nX_B: 1\r\n\r\n", nil, 0},
		{"long request line", "GET /" + long + " HTTP/1.1\r\nHost: a\r\n\r\n", nil, 414},
		{"long header line", "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + long + "\r\n\r\n", nil, 494},
		{"lowercase method", "get / HTTP/1.1\r\nHost: a\r\n\r\n", nil, 400},
		{"version", "GET / HTTP/1.9\r\nHost: a\r\n\r\n", nil, 0},
		{"chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:  Chunked \r\n\r\n", nil, 0},
		{"chunked and a length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", nil, 400},
		{"a length and chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n", nil, 400},
		{"identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\nContent-Length: 5\r\n\r\n", nil, 501},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv
			if srv == nil {
				srv = headServer(true, false)
			}
			_, status, _ := parseHead([]byte(tc.head), srv)
			if status != tc.status {
				t.Errorf("status %d, want %d", status, tc.status)
			}
		})
	}
}

// TestHeaderViewDropsInvalid: with ignore_invalid_headers on, names with
// "." (and "_" without underscores_in_headers) are left out; with it off,
// they are kept.
func TestHeaderViewDropsInvalid(t *testing.T) {
	head := "GET / HTTP/1.1\r\nHost: a\r\nX.Forwarded-For: 6.6.6.6\r\nX_Under: 1\r\nX-Test: 1\r\n\r\n"
	for _, tc := range []struct {
		ignore, underscores bool
		want                string
	}{
		{true, false, "Host,X-Test"},
		{true, true, "Host,X_under,X-Test"},
		{false, false, "Host,X.forwarded-For,X_under,X-Test"},
	} {
		srv := headServer(tc.ignore, tc.underscores)
		r, status, _ := parseHead([]byte(head), srv)
		if status != 0 {
			t.Fatalf("status %d", status)
		}
		var names []string
		for _, h := range r.Header.AppendAll(nil) {
			names = append(names, h.Name)
		}
		if got := strings.Join(names, ","); !strings.EqualFold(got, tc.want) {
			t.Errorf("ignore %v underscores %v: headers %s, want %s", tc.ignore, tc.underscores, got, tc.want)
		}
	}
}

// TestTooManyHeaders pins which server's max_headers applies: the
// default's up to the Host line, the named server's after it.
func TestTooManyHeaders(t *testing.T) {
	def := headServer(true, false)
	def.MaxHeaders = 3
	big := headServer(true, false)
	big.MaxHeaders = 10
	lines := func(n int) string { return strings.Repeat("X-A: 1\r\n", n) }
	for _, tc := range []struct {
		name, head string
		srv        *conf.Server
		absolute   bool
		want       bool
	}{
		{"default at limit", "Host: a\r\n" + lines(2), def, false, false},
		{"default over", "Host: a\r\n" + lines(3), def, false, true},
		{"host first", "Host: b\r\n" + lines(8), big, false, false},
		{"host late", lines(3) + "Host: b\r\n", big, false, true},
		{"host third", lines(2) + "Host: b\r\n" + lines(7), big, false, false},
		{"invalid not counted", "Host: a\r\n" + lines(2) + "X.A: 1\r\nX_B: 1\r\n", def, false, false},
		{"absolute form", lines(5) + "Host: a\r\n", big, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, status, _ := parseHead([]byte("GET / HTTP/1.1\r\n"+tc.head+"\r\n"), def)
			if status != 0 {
				t.Fatalf("status %d", status)
			}
			if got := r.Header.(*fastHeaders).TooManyHeaders(def, tc.srv, tc.absolute); got != tc.want {
				t.Errorf("tooManyHeaders %v, want %v", got, tc.want)
			}
		})
	}
}

// TestHeadWatch feeds heads in pieces, as reads deliver them.
func TestHeadWatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reads  []string
		bareCR bool
		line   int64 // the request line's length with its LF; 0: not seen
	}{
		// A finished head is behind the watch, which waits for the next.
		{"one read", []string{"GET / HTTP/1.1\r\nHost: a\r\n\r\n"}, false, 0},
		{"split CRLF CRLF", []string{"GET / HTTP/1.1\r\nHost: a\r\n\r", "\n"}, false, 0},
		{"split CRLF", []string{"GET / HTTP/1.1\r", "\nHost: a\r\n\r"}, false, 16},
		{"bare CR, blank line", []string{"GET / HTTP/1.1\r\nHost: a\r\n\r\r"}, true, 16},
		{"bare CR across reads", []string{"GET / HTTP/1.1\r\nHost: a\r\nX: a\r", "b"}, true, 16},
		{"bare CR in value", []string{"GET / HTTP/1.1\r\nX: a\rb"}, true, 16},
		{"bare CR after the head", []string{"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nab\rcd"}, false, 0},
		{"leading empty lines", []string{"\r\n\r\nGET / HTTP/1.1\r\n"}, false, 16},
		{"long line", []string{"GET /" + strings.Repeat("a", 100)}, false, 0},
		{"not a head", []string{"body\rbytes"}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w headWatch
			w.begin()
			var err error
			for _, p := range tc.reads {
				if _, err = feedHead(&w, []byte(p), 32<<10, len(p)); err != nil {
					break
				}
			}
			if got := err != nil; got != tc.bareCR {
				t.Errorf("bare CR reported: %v, want %v", got, tc.bareCR)
			}
			var line int64
			if w.lineEnd >= 0 {
				line = w.lineEnd + 1 - w.lineStart
			}
			if line != tc.line {
				t.Errorf("request line %d bytes, want %d", line, tc.line)
			}
		})
	}
}

// TestLineTooLong: the 414 decision when the read buffer fills.
func TestLineTooLong(t *testing.T) {
	const buf, lineMax = 64, 16
	var w headWatch
	w.begin()
	feedHead(&w, []byte("GET /"+strings.Repeat("a", buf-5)), 2*buf, buf)
	if !w.lineTooLong(buf, lineMax) {
		t.Error("a buffer of request line: not too long")
	}
	w = headWatch{}
	w.begin()
	feedHead(&w, []byte("GET / HTTP/1.1\r\nX: "+strings.Repeat("b", buf-19)), 2*buf, buf)
	if w.lineTooLong(buf, lineMax) {
		t.Error("a short request line and a long header: too long")
	}
	// The head began before the bytes the engine holds: no answer.
	w = headWatch{}
	w.begin()
	feedHead(&w, []byte("GET /"+strings.Repeat("a", buf-5)), 2*buf, buf)
	w.start -= 10
	if w.lineTooLong(buf, lineMax) {
		t.Error("a watch that did not begin at the buffer: too long")
	}
}

// TestLingeringClose: a client that goes on sending after the server has
// answered and closed still reads the whole answer, and no reset.
func TestLingeringClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		var buf [16]byte
		_, _ = io.ReadFull(c, buf[:])
		_, _ = c.Write([]byte("HTTP/1.1 414 Request-URI Too Large\r\n\r\n"))
		_ = lingeringClose(c)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	go func() {
		_, _ = c.Write(bytes.Repeat([]byte("a"), 4<<20))
		_ = c.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil || !bytes.HasPrefix(got, []byte("HTTP/1.1 414")) {
		t.Fatalf("read %q, %v; want the 414 and EOF", got, err)
	}
}

// BenchmarkRequestHead is the per-request cost of the head rules for a
// browser's GET: checkRequestHead's pass over the head fasthttp parsed,
// and the head watch over the read that brought it.
func BenchmarkRequestHead(b *testing.B) {
	head := []byte("GET /1k.txt HTTP/1.1\r\nHost: example.com\r\n" +
		"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n" +
		"Accept: text/plain,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n")
	b.Run("check", func(b *testing.B) {
		srv := headServer(true, false)
		r, status, _ := parseHead(head, srv)
		if status != 0 {
			b.Fatalf("status %d", status)
		}
		fh := r.Header.(*fastHeaders)
		h := fh.h
		b.SetBytes(int64(len(head)))
		b.ReportAllocs()
		for b.Loop() {
			*fh = fastHeaders{h: h, r: r}
			checkRequestHead(r, nil, fh, srv)
		}
	})
	b.Run("watch", func(b *testing.B) {
		var w headWatch
		b.SetBytes(int64(len(head)))
		b.ReportAllocs()
		for b.Loop() {
			w.begin()
			_ = w.saw(head[:w.crlf(head, len(head))])
		}
	})
}

// crlfHead is what headWatch.crlf should make of a stream that starts
// with a head (its first byte after empty lines can start a method): each bare LF from the request line to the first empty line
// after it becomes CRLF; the empty lines before the request line and
// everything after the head stay as they are.
func crlfHead(data []byte) []byte {
	i := 0
	for i < len(data) && (data[i] == '\r' || data[i] == '\n') {
		i++
	}
	if i < len(data) && !methodStart(data[i]) {
		return data // not a head: the watch stops (findRequestLine)
	}
	out := append([]byte(nil), data[:i]...)
	lineStart := -1 // where the current line started in out; -1: the request line
	for ; i < len(data); i++ {
		c := data[i]
		if c != '\n' {
			out = append(out, c)
			continue
		}
		if len(out) == 0 || out[len(out)-1] != '\r' {
			out = append(out, '\r')
		}
		out = append(out, '\n')
		if lineStart >= 0 && len(out)-lineStart == 2 {
			return append(out, data[i+1:]...)
		}
		lineStart = len(out)
	}
	return out
}

// feedHead passes data to a head watch the way the wrappers' Read does
// (h1conn.read): the engine's buffer holds bufSize bytes, and the client
// sends chunk bytes at a time. It returns what the engine reads, up to
// the watch's error (a bare CR), which ends the connection.
func feedHead(w *headWatch, data []byte, bufSize, chunk int) ([]byte, error) {
	var got []byte
	buf := make([]byte, bufSize)
	for len(data) > 0 || len(w.pend) > 0 || len(w.held) > 0 {
		n := w.pending(buf)
		if n == 0 && len(w.held) > 0 {
			n = w.fromHeld(buf)
		} else if n == 0 {
			n = copy(w.readSpace(buf), data[:min(chunk, len(data))])
			data = data[n:]
			n = w.crlf(buf, n)
		}
		got = append(got, buf[:n]...)
		if err := w.saw(buf[:n]); err != nil {
			return got, err
		}
	}
	return got, nil
}

// TestHeadCRLF: a head whose lines end in bare LFs reaches the engine with
// CRLFs, whatever the reads it comes in, and its end is where nginx finds
// it; the body after it is not touched.
func TestHeadCRLF(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"CRLF", "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\n\r\n"},
		{"bare LF", "GET / HTTP/1.0\nHost: a\n\n", "GET / HTTP/1.0\r\nHost: a\r\n\r\n"},
		{"no headers", "GET / HTTP/1.0\n\n", "GET / HTTP/1.0\r\n\r\n"},
		{"mixed", "GET / HTTP/1.1\r\nHost: a\nX: b\r\n\n", "GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n\r\n"},
		{"LF then CRLF", "GET / HTTP/1.1\nHost: a\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\n\r\n"},
		{"empty lines first", "\n\r\n\nGET / HTTP/1.0\n\n", "\n\r\n\nGET / HTTP/1.0\r\n\r\n"},
		{"body kept", "POST / HTTP/1.0\nContent-Length: 5\n\na\nb\n\n", "POST / HTTP/1.0\r\nContent-Length: 5\r\n\r\na\nb\n\n"},
		{"bare CR kept", "GET / HTTP/1.1\nX: a\rb\n\n", "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n"},
	} {
		if got := string(crlfHead([]byte(tc.in))); got != tc.want {
			t.Fatalf("%s: the reference gives %q, want %q", tc.name, got, tc.want)
		}
		for _, bufSize := range []int{1, 2, 3, 5, 64, 32 << 10} {
			for _, chunk := range []int{1, 2, 3, 7, 1 << 20} {
				var w headWatch
				w.begin()
				got, err := feedHead(&w, []byte(tc.in), bufSize, chunk)
				if err != nil {
					if !errors.Is(err, errBareCR) || !hasBareCR([]byte(tc.in)) || !strings.HasPrefix(tc.want, string(got)) {
						t.Errorf("%s, buffer %d, reads of %d: %v after %q", tc.name, bufSize, chunk, err, got)
					}
					continue
				}
				if string(got) != tc.want {
					t.Errorf("%s, buffer %d, reads of %d: the engine reads %q, want %q", tc.name, bufSize, chunk, got, tc.want)
				}
				if w.heads != 1 {
					t.Errorf("%s, buffer %d, reads of %d: the watch did not see the head end", tc.name, bufSize, chunk)
				}
			}
		}
	}
}

// TestIPvFuture: the IP-literals of RFC 3986 3.2.2 that fasthttp refuses
// and edge serves (servableAuthority), and the malformed ones that stay
// refused.
func TestIPvFuture(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"[v1.x]", true},
		{"[V1.x]", true},
		{"[v0123456789aBcDeF.!$&'()*+,;=-._~AbCd0123456789:]", true},
		{"[v1.x]:80", true},
		{"[v1.x]:", true}, // an empty port, as RFC 3986's *DIGIT
		{"[v1.x]:8x", false},
		{"[v1.x]x", false},
		{"[v.x]", false},  // 1*HEXDIG
		{"[vg.x]", false}, // not hex
		{"[v1.]", false},  // 1*( unreserved / sub-delims / ":" )
		{"[v1.a/b]", false},
		{"[v1.a%20]", false},
		{"[v1.x", false},
		{"[::1]", false}, // IPv6 is fasthttp's to check
		{"v1.x", false},
		{"", false},
	} {
		if got := ipvFuture(tc.s); got != tc.ok {
			t.Errorf("ipvFuture(%q) = %v, want %v", tc.s, got, tc.ok)
		}
	}
}

// The names filter (fastHeaders.names) answers only what the engine's
// Peek would: every name, present in any case or absent, and the names
// the engine answers without a line, reads the same with the filter made
// and without it. A chunked body's trailer fields are never headers, as
// nginx drops them, with the filter or without.
func TestHeaderNamesFilter(t *testing.T) {
	srv := headServer(true, false)
	r, status, ok := parseHead([]byte("POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nSec-Ch-Ua: x\r\n\r\n"), srv)
	if !ok {
		t.Fatalf("chunked head: status %d", status)
	}
	fh := r.Header.(*fastHeaders)
	trailer := "X-Trail: tv\r\nUser-Agent: uatrail\r\nReferer: http://r/\r\n\r\n"
	if err := fh.h.h.ReadTrailer(bufio.NewReader(strings.NewReader(trailer))); err != nil {
		t.Fatal(err)
	}
	plain := *fh
	plain.names = 0
	for _, name := range []string{"X-Trail", "User-Agent", "Referer", "Trailer"} {
		if got, engine := fh.Get(name), plain.Get(name); got != "" || engine != "" {
			t.Errorf("Get(%q) = %q with the filter, %q without, after the trailer: want none", name, got, engine)
		}
	}
	if got := fh.Get("Sec-Ch-Ua"); got != "x" {
		t.Errorf("Get(Sec-Ch-Ua) = %q, want the head's x", got)
	}
	// Nor are they listed (FastCGI's HTTP_* params, proxy_pass's lines).
	if all := fh.AppendArrived(nil); len(all) != 3 || all[0].Name != "Host" || all[1].Name != "Transfer-Encoding" || all[2].Name != "Sec-Ch-Ua" {
		t.Errorf("AppendArrived after the trailer: %q, want the head's Host, Transfer-Encoding, Sec-Ch-Ua", all)
	}

	for _, head := range []string{
		"GET /a HTTP/1.1\r\nHost: example.com\r\nUser-Agent: ua\r\nIf-None-Match: \"x\"\r\nX-Forwarded-For: 1.2.3.4\r\nx-lower: v\r\nCookie: a=1\r\n\r\n",
		"GET /a HTTP/1.0\r\n\r\n",
		"GET http://example.org/a HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n",
		"POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent-Type: text/plain\r\n\r\n",
	} {
		r, status, ok := parseHead([]byte(head), srv)
		if !ok {
			t.Fatalf("%q: status %d", head, status)
		}
		fh := r.Header.(*fastHeaders)
		if fh.names == 0 {
			t.Fatalf("%q: no names filter made", head)
		}
		plain := *fh
		plain.names = 0
		for _, name := range []string{"Host", "host", "User-Agent", "user-agent", "If-None-Match", "IF-NONE-MATCH",
			"If-Modified-Since", "If-Match", "Range", "X-Forwarded-For", "X-Lower", "Cookie", "Connection",
			"Content-Length", "Content-Type", "Accept", "Accept-Encoding", "Via", "Referer", "X"} {
			if got, want := fh.Get(name), plain.Get(name); got != want {
				t.Errorf("%q: Get(%q) = %q with the filter, %q without", head, name, got, want)
			}
		}
	}
}
