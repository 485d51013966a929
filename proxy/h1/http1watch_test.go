// This file tests the head watch's following of a connection's requests
// (http1watch.go): pipelined heads with bare LFs, bodies by their framing,
// what it leaves alone, whatever the reads the bytes come in.
package h1

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// watchSizes are the engine buffer sizes and read sizes each case runs
// with: from byte by byte to all at once.
var watchSizes = []struct{ buf, chunk int }{
	{1, 1}, {2, 1}, {3, 2}, {5, 3}, {64, 1}, {64, 7}, {64, 64}, {32 << 10, 1}, {32 << 10, 5}, {32 << 10, 1 << 20},
}

// TestWatchPipelined: every head of a stream of requests reaches the
// engine with CRLFs, and so do a chunked body's lines, while bodies' data
// and what follows a request the watch does not follow stay as sent.
func TestWatchPipelined(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		heads          int        // heads the watch saw end
		phase          watchPhase // where it ends
	}{
		{"two LF heads",
			"GET /a HTTP/1.1\nHost: x\n\nGET /b HTTP/1.1\nHost: x\n\n",
			"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", 2, watchHead},
		{"mixed",
			"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\nHost: x\r\n\nGET /c HTTP/1.1\r\nHost: x\n\r\n",
			"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n", 3, watchHead},
		{"length body then LF head",
			"POST /a HTTP/1.1\nHost: x\nContent-Length: 6\n\na\nb\n\nGET /b HTTP/1.1\nHost: x\n\n",
			"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\na\nb\n\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", 2, watchHead},
		{"length any case, spaces",
			"PUT /a HTTP/1.1\ncontent-LENGTH:\t 2 \n\n\n\nGET /b HTTP/1.1\n\n",
			"PUT /a HTTP/1.1\r\ncontent-LENGTH:\t 2 \r\n\r\n\n\nGET /b HTTP/1.1\r\n\r\n", 2, watchHead},
		{"chunked LF lines then LF head",
			"POST /a HTTP/1.1\nTransfer-Encoding: chunked\n\n3;x=1\na\nb\n2 \n\n\n\nA\n0123456789\r\n0\nT: 1\n\nGET /b HTTP/1.1\nHost: x\n\n",
			"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\na\nb\r\n2 \r\n\n\n\r\nA\r\n0123456789\r\n0\r\nT: 1\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", 2, watchHead},
		{"chunked CRLF then LF head",
			"POST /a HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n1\r\n\n\r\n0\r\n\r\nGET /b HTTP/1.1\nHost: x\n\n",
			"POST /a HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n1\r\n\n\r\n0\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", 2, watchHead},
		{"HTTP/1.0 then LF head",
			"GET /a HTTP/1.0\nConnection: keep-alive\n\nGET /b HTTP/1.0\n\n",
			"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.0\r\n\r\n", 2, watchHead},
		{"100-continue",
			"POST /a HTTP/1.1\nExpect: 100-continue\nContent-Length: 1\n\n\nGET /b HTTP/1.1\n\n",
			"POST /a HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n\nGET /b HTTP/1.1\r\n\r\n", 2, watchHead},
		{"names that only start like the framing ones",
			"GET /a HTTP/1.1\nContent-Lengthy: 5\nTransfer-Encodings: chunked\nUpgrade-Insecure-Requests: 1\nConnection: x\n\nGET /b HTTP/1.1\n\n",
			"GET /a HTTP/1.1\r\nContent-Lengthy: 5\r\nTransfer-Encodings: chunked\r\nUpgrade-Insecure-Requests: 1\r\nConnection: x\r\n\r\nGET /b HTTP/1.1\r\n\r\n", 2, watchHead},
		{"empty lines between requests",
			"GET /a HTTP/1.1\n\n\r\n\nGET /b HTTP/1.1\n\n",
			"GET /a HTTP/1.1\r\n\r\n\r\n\nGET /b HTTP/1.1\r\n\r\n", 2, watchHead},
		{"upgrade: the rest untouched",
			"GET /ws HTTP/1.1\nUpgrade: websocket\nConnection: Upgrade\n\n\x81\x05a\nb\nGET / HTTP/1.1\n\n",
			"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x05a\nb\nGET / HTTP/1.1\n\n", 1, watchOff},
		{"CONNECT: the rest untouched",
			"CONNECT a:443 HTTP/1.1\nHost: a:443\n\nx\ny\n",
			"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\nx\ny\n", 1, watchOff},
		{"bad length: the rest untouched",
			"POST /a HTTP/1.1\nContent-Length: 1x\n\nGET /b HTTP/1.1\n\n",
			"POST /a HTTP/1.1\r\nContent-Length: 1x\r\n\r\nGET /b HTTP/1.1\n\n", 1, watchPaused},
		{"two lengths: the rest untouched",
			"POST /a HTTP/1.1\nContent-Length: 1\nContent-Length: 1\n\naGET /b HTTP/1.1\n\n",
			"POST /a HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\naGET /b HTTP/1.1\n\n", 1, watchPaused},
		{"length and chunked: the rest untouched",
			"POST /a HTTP/1.1\nContent-Length: 1\nTransfer-Encoding: chunked\n\n0\n\n",
			"POST /a HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\n\n", 1, watchPaused},
		{"another coding: the rest untouched",
			"POST /a HTTP/1.1\nTransfer-Encoding: gzip, chunked\n\n0\n\n",
			"POST /a HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\n\n", 1, watchPaused},
		{"a broken chunk: the rest untouched",
			"POST /a HTTP/1.1\nTransfer-Encoding: chunked\n\nz\n\nGET /b HTTP/1.1\n\n",
			"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nz\n\nGET /b HTTP/1.1\n\n", 1, watchOff},
		{"not a head: untouched",
			"GET /a HTTP/1.1\n\n\x16\x03\x01\nGET /b HTTP/1.1\n\n",
			"GET /a HTTP/1.1\r\n\r\n\x16\x03\x01\nGET /b HTTP/1.1\n\n", 1, watchOff},
	} {
		for _, sz := range watchSizes {
			var w headWatch
			w.begin()
			got, err := feedHead(&w, []byte(tc.in), sz.buf, sz.chunk)
			if err != nil {
				t.Errorf("%s, buffer %d, reads of %d: %v", tc.name, sz.buf, sz.chunk, err)
				continue
			}
			if string(got) != tc.want {
				t.Errorf("%s, buffer %d, reads of %d: the engine reads\n%q, want\n%q", tc.name, sz.buf, sz.chunk, got, tc.want)
			}
			if w.heads != tc.heads || w.phase != tc.phase {
				t.Errorf("%s, buffer %d, reads of %d: %d heads, phase %d; want %d, %d", tc.name, sz.buf, sz.chunk, w.heads, w.phase, tc.heads, tc.phase)
			}
			if w.total != int64(len(got)) || w.out != w.total {
				t.Errorf("%s: total %d, out %d, %d bytes given", tc.name, w.total, w.out, len(got))
			}
		}
	}
}

// TestWatchFacts: what the watch tells the engine's side of each request
// (handled), and its comparison with the engine's framing.
func TestWatchFacts(t *testing.T) {
	var w headWatch
	w.begin()
	in := "GET /a HTTP/1.1\n\nPOST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nabPOST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
	if _, err := feedHead(&w, []byte(in), 32<<10, 1<<20); err != nil {
		t.Fatal(err)
	}
	for i, length := range []int64{-2, 2, -1} {
		if !w.handled(length) {
			t.Errorf("request %d: the watch disagrees with length %d", i, length)
		}
		if want := i == 0; w.servingLF != want {
			t.Errorf("request %d: servingLF %v", i, w.servingLF)
		}
		w.next()
	}
	// The engine found another length than the watch: it stops.
	w = headWatch{}
	w.begin()
	feedHead(&w, []byte("POST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nab"), 32<<10, 1<<20)
	if w.handled(3) || w.phase != watchOff {
		t.Errorf("a length the engine reads otherwise: handled, phase %d", w.phase)
	}
}

// TestWatchPause: after a request the watch does not follow (an Upgrade
// the application declined), it starts again with the next head if the
// engine's bytes ended with that request, and stops for good otherwise.
func TestWatchPause(t *testing.T) {
	head := "GET /ws HTTP/1.1\nUpgrade: websocket\n\n"
	var w headWatch
	w.begin()
	feedHead(&w, []byte(head), 32<<10, 1<<20)
	if w.phase != watchPaused || !w.handled(-2) {
		t.Fatalf("phase %d after an upgrade head", w.phase)
	}
	w.next()
	got, _ := feedHead(&w, []byte("GET / HTTP/1.1\n\n"), 32<<10, 1<<20)
	if string(got) != "GET / HTTP/1.1\r\n\r\n" || w.heads != 2 {
		t.Errorf("the head after a declined upgrade reads %q (%d heads)", got, w.heads)
	}

	// A next request sent with the upgrade's is held back until the
	// engine decided, then scanned as a head, or let through untouched
	// after an upgrade.
	for _, upgraded := range []bool{false, true} {
		w = headWatch{}
		w.begin()
		buf := make([]byte, 1024)
		n := w.crlf(buf, copy(w.readSpace(buf), head+"GET / HTTP/1.1\n\n"))
		if string(buf[:n]) != strings.ReplaceAll(head, "\n", "\r\n") || string(w.held) != "GET / HTTP/1.1\n\n" {
			t.Fatalf("the read with the upgrade head gives %q, holds %q", buf[:n], w.held)
		}
		w.saw(buf[:n])
		w.handled(-2)
		want := "GET / HTTP/1.1\r\n\r\n"
		if upgraded {
			w.stop()
			want = "GET / HTTP/1.1\n\n"
		} else {
			w.next()
		}
		got, _ := feedHead(&w, nil, 1024, 1024)
		if string(got) != want {
			t.Errorf("upgraded %v: the held bytes read %q, want %q", upgraded, got, want)
		}
	}
}

// TestWatchBareCRPipelined: a bare CR in a head that came while the
// engine served the request before fails the engine's first read after
// its wait for that head, not the read that brought it.
func TestWatchBareCRPipelined(t *testing.T) {
	var w headWatch
	w.begin()
	if _, err := feedHead(&w, []byte("GET /a HTTP/1.1\n\nGET /b HTTP/1.1\nX: a\rb"), 32<<10, 1<<20); err != nil {
		t.Fatalf("the read with a pipelined bare CR: %v", err)
	}
	w.handled(-2)
	if w.failed() != nil {
		t.Fatal("failing before the engine's wait")
	}
	w.next()
	if err := w.failed(); !errors.Is(err, errBareCR) {
		t.Errorf("after the wait: %v, want errBareCR", err)
	}
	// A pipelined head that ended after all is the engine's to judge.
	w = headWatch{}
	w.begin()
	feedHead(&w, []byte("GET /a HTTP/1.1\n\nGET /b HTTP/1.1\nX: a\rb"), 32<<10, 1<<20)
	feedHead(&w, []byte("\n\n"), 32<<10, 1<<20)
	w.handled(-2)
	w.next()
	w.handled(-2)
	w.next()
	if w.failed() != nil {
		t.Error("failing after a finished head")
	}
}

// crlfRequests makes of fuzz bytes a stream of requests as a browser or
// a library sends them: CRLF line ends, any bytes in bodies, bodies by
// Content-Length or in chunks, pipelined.
func crlfRequests(data []byte) []byte {
	var out bytes.Buffer
	take := func(n int) []byte {
		n = min(n, len(data))
		b := data[:n]
		data = data[n:]
		return b
	}
	text := func(n int) string {
		return strings.Map(func(r rune) rune {
			if r == '\r' || r == '\n' {
				return 'x'
			}
			return r
		}, string(take(n)))
	}
	for len(data) > 0 {
		k := int(take(1)[0])
		method := [...]string{"GET", "POST", "PUT", "HEAD"}[k%4]
		fmt.Fprintf(&out, "%s /%s HTTP/1.%d\r\nHost: a\r\n", method, url.PathEscape(text(k/4%8)), k/32%2)
		for range k / 64 {
			fmt.Fprintf(&out, "X-%d: %s\r\n", len(data), text(len(data)%16))
		}
		if len(data) == 0 {
			out.WriteString("\r\n")
			break
		}
		n := int(take(1)[0])
		body := take(n % 40)
		if n%3 != 2 {
			fmt.Fprintf(&out, "Content-Length: %d\r\n\r\n%s", len(body), body)
			continue
		}
		out.WriteString("Transfer-Encoding: chunked\r\n\r\n")
		for len(body) > 0 {
			c := min(len(body), 1+n%7)
			fmt.Fprintf(&out, "%x", c)
			if c%2 == 0 {
				out.WriteString(";a=b")
			}
			fmt.Fprintf(&out, "\r\n%s\r\n", body[:c])
			body = body[c:]
		}
		out.WriteString("0\r\n")
		if n%5 == 0 {
			out.WriteString("X-Trailer: 1\r\n")
		}
		out.WriteString("\r\n")
	}
	return out.Bytes()
}

// FuzzWatchCRLF: requests whose every line ends in CRLF (every browser's)
// reach the engine byte for byte as sent, whatever the reads.
func FuzzWatchCRLF(f *testing.F) {
	f.Add([]byte("\x01abc\x02\r\n\x05"), uint16(32<<10), uint16(3))
	f.Add([]byte("\x41abc\x00\x05\r\n\r\n\r\x01"), uint16(5), uint16(1))
	f.Add([]byte("\xc2abc\xff\x80x\r\n\r"), uint16(64), uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, bufSize, chunk uint16) {
		if bufSize == 0 || chunk == 0 {
			return
		}
		data = crlfRequests(data)
		var w headWatch
		w.begin()
		got, err := feedHead(&w, data, int(bufSize), int(chunk))
		if err != nil {
			t.Fatalf("%q (buffer %d, reads of %d): %v after %q", data, bufSize, chunk, err, got)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%q (buffer %d, reads of %d): the engine reads %q", data, bufSize, chunk, got)
		}
		if w.phase != watchHead {
			t.Fatalf("%q: the watch ends in phase %d", data, w.phase)
		}
	})
}

// FuzzWatchSplit: for any bytes, what the engine reads does not depend on
// the reads they come in or on the buffer, and it is what was sent with a
// CR put before some LFs that had none.
func FuzzWatchSplit(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.0\nHost: a\n\nbody\n\n",
		"POST / HTTP/1.1\nContent-Length: 3\n\na\nbGET / HTTP/1.1\n\n",
		"POST / HTTP/1.1\nTransfer-Encoding: chunked\n\n3;a\nabc\n0\nT: 1\n\nGET / HTTP/1.1\n\n",
		"\r\n\nGET / HTTP/1.1\r\nHost: a\n\r\n",
		"GET / HTTP/1.1\r\nX: a\r\r\n\n",
	} {
		f.Add([]byte(s), uint16(5), uint16(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, bufSize, chunk uint16) {
		if bufSize == 0 || chunk == 0 {
			return
		}
		var one headWatch
		one.begin()
		want, wantErr := feedHead(&one, data, 64<<10, 1<<20)
		var w headWatch
		w.begin()
		got, err := feedHead(&w, data, int(bufSize), int(chunk))
		if wantErr == nil && err == nil && !bytes.Equal(got, want) {
			t.Fatalf("%q: in reads of %d into %d bytes the engine reads %q, in one read %q", data, chunk, bufSize, got, want)
		}
		if !bytes.HasPrefix(want, got) && !bytes.HasPrefix(got, want) {
			t.Fatalf("%q: %q and %q", data, got, want)
		}
		i := 0
		for j := 0; j < len(got); j++ {
			switch {
			case i < len(data) && got[j] == data[i]:
				i++
			case got[j] == '\r' && i < len(data) && data[i] == '\n' && (i == 0 || data[i-1] != '\r'):
			default:
				t.Fatalf("%q: the engine reads %q, byte %d is not the client's", data, got, j)
			}
		}
		if err == nil && i != len(data) {
			t.Fatalf("%q: the engine reads %q, short of what was sent", data, got)
		}
	})
}

// BenchmarkWatchPipelined is the head watch's cost for 16 pipelined
// browser GETs in one read, CRLF-terminated and with bare LFs.
func BenchmarkWatchPipelined(b *testing.B) {
	head := "GET /1k.txt HTTP/1.1\r\nHost: example.com\r\n" +
		"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n" +
		"Accept: text/plain,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n"
	for _, tc := range []struct{ name, head string }{{"crlf", head}, {"lf", strings.ReplaceAll(head, "\r\n", "\n")}} {
		b.Run(tc.name, func(b *testing.B) {
			in := []byte(strings.Repeat(tc.head, 16))
			buf := make([]byte, 4*len(in))
			var w headWatch
			w.begin()
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				n := copy(w.readSpace(buf), in)
				_ = w.saw(buf[:w.crlf(buf, n)])
			}
		})
	}
}

// TestWatchNotBegun: a connection whose watch was never begun (h2c after
// its peeked preface) has nothing of its bytes touched.
func TestWatchNotBegun(t *testing.T) {
	var w headWatch
	in := "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x04\x08\n\n"
	got, err := feedHead(&w, []byte(in), 32<<10, 3)
	if err != nil || string(got) != in || w.heads != 0 {
		t.Errorf("an unbegun watch gives %q, %v, %d heads", got, err, w.heads)
	}
}
