// This file tests the HTTP/1 head rules of http1head.go: the table tests
// pin each rule, and BenchmarkRequestHead their cost per request.
package proxy

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"edge/conf"
)

// headServer is a default server with nginx's defaults.
func headServer(ignoreInvalid, underscores bool) *conf.Server {
	return &conf.Server{LargeHeaderBuffers: 4, LargeHeaderBufferSize: 8 << 10, MaxHeaders: 1000,
		IgnoreInvalidHeaders: ignoreInvalid, UnderscoresInHeaders: underscores}
}

// parseHead reads data as fasthttp's server does and applies
// checkRequestHead; ok is false when either refuses the head.
func parseHead(data []byte, srv *conf.Server) (r *Request, status int, ok bool) {
	r = &Request{srv: srv}
	h := &fasthttp.RequestHeader{}
	if h.Read(bufio.NewReaderSize(bytes.NewReader(data), 32<<10)) != nil {
		return r, 400, false
	}
	r.Method, r.RawTarget, r.Proto = string(h.Method()), string(h.RequestURI()), string(h.Protocol())
	r.fh.h, r.fh.r = h, r
	r.Header = &r.fh
	status = checkRequestHead(r, &r.fh, srv)
	return r, status, status == 0
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
		for _, h := range r.Header.appendAll(nil) {
			names = append(names, h.name)
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
			r.srv = tc.srv
			if got := r.tooManyHeaders(def, tc.absolute); got != tc.want {
				t.Errorf("tooManyHeaders %v, want %v", got, tc.want)
			}
		})
	}
}

// BenchmarkRequestHead is the per-request cost of the head rules for a
// browser's GET: checkRequestHead's pass over the head fasthttp parsed.
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
		h := r.fh.h
		b.SetBytes(int64(len(head)))
		b.ReportAllocs()
		for b.Loop() {
			r.fh = fastHeaders{h: h, r: r}
			checkRequestHead(r, &r.fh, srv)
		}
	})
}
