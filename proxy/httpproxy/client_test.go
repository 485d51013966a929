package httpproxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func kindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

func TestRoundTrip(t *testing.T) {
	b := newBackend(t, "tcp", "127.0.0.1:0", respondOnce(
		"HTTP/1.1 200 OK\r\nServer: up\r\nDate: x\r\nContent-Type: text/plain\r\nX-Accel-Buffering: no\r\n"+
			"Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello"))
	req := get("/a?b")
	req.Client = []Header{{"Accept", "*/*"}, {"Connection", "keep-alive"}}
	resp, body, err := fetch(t, b.upstream(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || resp.Reason != "OK" || !resp.HTTP11 || body != "hello" || resp.ContentLength != 5 {
		t.Fatalf("got %d %q %v %q %d", resp.Status, resp.Reason, resp.HTTP11, body, resp.ContentLength)
	}
	if resp.Accel.Buffering != "no" {
		t.Errorf("X-Accel-Buffering: %q", resp.Accel.Buffering)
	}
	var names []string
	for _, h := range resp.ClientHeaders(nil, nil) {
		names = append(names, h.Name+"="+h.Value)
	}
	if got := strings.Join(names, ","); got != "Content-Type=text/plain,Set-Cookie=a=1,Set-Cookie=b=2" {
		t.Errorf("client headers: %s", got)
	}
	if got := b.got(); len(got) != 1 || got[0] != "GET /a?b HTTP/1.0\r\nHost: backend\r\nConnection: close\r\nAccept: */*\r\n\r\n" {
		t.Errorf("request: %q", got)
	}
}

// TestResponseFraming feeds responses byte for byte and checks what the
// caller gets: nginx's framing, its 502s and its HTTP/0.9 fallback.
func TestResponseFraming(t *testing.T) {
	tests := []struct {
		name    string
		method  string
		resp    string
		status  int
		body    string
		kind    Kind // of Do's error, or of the body's
		trailer string
		http09  bool
	}{
		{name: "content-length", resp: "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabcdef", status: 200, body: "abc"},
		{name: "chunked with trailers", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Sum: 7\r\n\r\n",
			status: 200, body: "abc0123456789", trailer: "X-Sum=7"},
		{name: "close-delimited", resp: "HTTP/1.1 200 OK\r\n\r\nuntil the end", status: 200, body: "until the end"},
		{name: "LF only", resp: "HTTP/1.1 201 Created\nContent-Length: 2\n\nok", status: 201, body: "ok"},
		{name: "HEAD ignores the length", method: "HEAD", resp: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", status: 200},
		{name: "204 has no body", resp: "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", status: 204},
		{name: "304 has no body", resp: "HTTP/1.1 304 Not Modified\r\n\r\n", status: 304},
		{name: "IIS's repeated status line is skipped", resp: "HTTP/1.1 200 OK\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", status: 200, body: "x"},
		{name: "HTTP/0.9", resp: "no status line\r\nat all", status: 200, body: "no status line\r\nat all", http09: true},
		{name: "invalid status code: HTTP/0.9 as in nginx", resp: "HTTP/1.1 2x0 OK\r\n\r\nbody", status: 200, body: "HTTP/1.1 2x0 OK\r\n\r\nbody", http09: true},
		{name: "space in a header name", resp: "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", kind: KindInvalidHeader},
		{name: "bare CR in a header", resp: "HTTP/1.1 200 OK\r\nBad\rHeader\r\n\r\n", kind: KindInvalidHeader},
		{name: "NUL in a value", resp: "HTTP/1.1 200 OK\r\nX: a\x00b\r\n\r\n", kind: KindInvalidHeader},
		{name: "empty name", resp: "HTTP/1.1 200 OK\r\n: x\r\n\r\n", kind: KindInvalidHeader},
		{name: "bad content-length", resp: "HTTP/1.1 200 OK\r\nContent-Length: abcd\r\n\r\n", kind: KindInvalidHeader},
		{name: "two lengths", resp: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", kind: KindInvalidHeader},
		{name: "length and chunked", resp: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", kind: KindInvalidHeader},
		{name: "unknown transfer-encoding", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", kind: KindInvalidHeader},
		{name: "too big header", resp: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n", kind: KindInvalidHeader},
		{name: "closed in the header", resp: "HTTP/1.1 200 OK\r\nContent", kind: KindClosed},
		{name: "closed before anything", resp: "", kind: KindClosed},
		{name: "short body", resp: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", status: 200, body: "abc", kind: KindBody},
		{name: "bad chunk", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", status: 200, kind: KindBody},
		{name: "chunked cut short", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", status: 200, body: "ab", kind: KindBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBackend(t, "tcp", "127.0.0.1:0", respondOnce(tt.resp))
			req := get("/")
			if tt.method != "" {
				req.Method = tt.method
			}
			resp, body, err := fetch(t, b.upstream(), req)
			if got := kindOf(err); got != tt.kind {
				t.Fatalf("error %v (kind %v), want kind %v", err, got, tt.kind)
			}
			if resp == nil {
				if tt.status != 0 {
					t.Fatalf("no response")
				}
				var e *Error
				errors.As(err, &e)
				if e.Status() != 502 {
					t.Errorf("status for %v: %d", err, e.Status())
				}
				return
			}
			if resp.Status != tt.status || body != tt.body || resp.HTTP09 != tt.http09 {
				t.Errorf("got %d %q http09=%v", resp.Status, body, resp.HTTP09)
			}
			var tr []string
			for _, h := range resp.Trailer {
				tr = append(tr, h.Name+"="+h.Value)
			}
			if strings.Join(tr, ",") != tt.trailer {
				t.Errorf("trailer %v", tr)
			}
		})
	}
}

// keepaliveBackend answers each request with a body of the request
// number on that connection, keeping the connection.
func keepaliveBackend(status, extra string) func(b *backend, c net.Conn, br *bufio.Reader) {
	return func(b *backend, c net.Conn, br *bufio.Reader) {
		for n := 1; ; n++ {
			if _, _, ok := b.readRequest(br); !ok {
				return
			}
			body := strings.Repeat("x", n)
			if _, err := io.WriteString(c, status+"\r\n"+extra+"Content-Length: "+strconv.Itoa(n)+"\r\n\r\n"+body); err != nil {
				return
			}
		}
	}
}

func keepaliveGet() *Request {
	r := get("/")
	r.HTTP11 = true
	r.Set = []Header{{"Connection", ""}}
	return r
}

func TestKeepalive(t *testing.T) {
	t.Run("reused", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", keepaliveBackend("HTTP/1.1 200 OK", ""))
		u := b.upstream()
		u.Keepalive = &Keepalive{Max: 2}
		for i := 0; i < 5; i++ {
			if _, _, err := fetch(t, u, keepaliveGet()); err != nil {
				t.Fatal(err)
			}
		}
		if n := b.accepted.Load(); n != 1 {
			t.Errorf("%d connections for 5 requests", n)
		}
		if got := b.got()[0]; got != "GET / HTTP/1.1\r\nHost: backend\r\n\r\n" {
			t.Errorf("request %q", got)
		}
		if u.Keepalive.Idle() != 1 {
			t.Errorf("idle %d", u.Keepalive.Idle())
		}
		u.Keepalive.CloseIdle()
	})
	t.Run("proxy_socket_keepalive", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", keepaliveBackend("HTTP/1.1 200 OK", ""))
		for _, on := range []bool{false, true} {
			u := b.upstream()
			u.Keepalive = &Keepalive{Max: 1}
			u.SocketKeepalive = on
			if _, _, err := fetch(t, u, keepaliveGet()); err != nil {
				t.Fatal(err)
			}
			raw, err := u.Keepalive.idle[0].nc.(*net.TCPConn).SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			var v int
			var gerr error
			_ = raw.Control(func(fd uintptr) { v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE) })
			if gerr != nil || (v != 0) != on {
				t.Errorf("proxy_socket_keepalive %v: SO_KEEPALIVE %d (%v)", on, v, gerr)
			}
			u.Keepalive.CloseIdle()
		}
	})
	t.Run("keepalive_requests", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", keepaliveBackend("HTTP/1.1 200 OK", ""))
		u := b.upstream()
		u.Keepalive = &Keepalive{Max: 2, Requests: 2}
		for i := 0; i < 5; i++ {
			if _, _, err := fetch(t, u, keepaliveGet()); err != nil {
				t.Fatal(err)
			}
		}
		if n := b.accepted.Load(); n != 3 {
			t.Errorf("%d connections for 5 requests at 2 each", n)
		}
	})
	t.Run("keepalive_timeout", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", keepaliveBackend("HTTP/1.1 200 OK", ""))
		u := b.upstream()
		now := time.Unix(1000, 0)
		u.Keepalive = &Keepalive{Max: 2, Timeout: 10 * time.Second, Now: func() time.Time { return now }}
		fetch(t, u, keepaliveGet())
		now = now.Add(5 * time.Second)
		fetch(t, u, keepaliveGet())
		now = now.Add(10 * time.Second)
		fetch(t, u, keepaliveGet())
		if n := b.accepted.Load(); n != 2 {
			t.Errorf("%d connections, want 2 (one expired idle)", n)
		}
	})
	notKept := []struct {
		name, status, extra string
		partial             bool
	}{
		{name: "Connection: close from the upstream", status: "HTTP/1.1 200 OK", extra: "Connection: close\r\n"},
		{name: "an HTTP/1.0 response", status: "HTTP/1.0 200 OK", extra: "Connection: keep-alive\r\n"},
		{name: "body not read to its end", status: "HTTP/1.1 200 OK", partial: true},
	}
	for _, tt := range notKept {
		t.Run(tt.name, func(t *testing.T) {
			b := newBackend(t, "tcp", "127.0.0.1:0", keepaliveBackend(tt.status, tt.extra))
			u := b.upstream()
			u.Keepalive = &Keepalive{Max: 2}
			for i := 0; i < 3; i++ {
				resp, err := u.Do(context.Background(), keepaliveGet())
				if err != nil {
					t.Fatal(err)
				}
				if !tt.partial {
					io.Copy(io.Discard, resp)
				}
				resp.Close()
			}
			if n := b.accepted.Load(); n != 3 {
				t.Errorf("%d connections, want 3", n)
			}
		})
	}
}

// TestStaleRetry: the upstream closes a kept-alive connection between
// two requests; an idempotent request goes again on a new connection, a
// POST does not unless proxy_next_upstream non_idempotent.
func TestStaleRetry(t *testing.T) {
	closer := func(b *backend, c net.Conn, br *bufio.Reader) {
		if _, _, ok := b.readRequest(br); !ok {
			return
		}
		// Answer as if keeping the connection, then close it.
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	}
	for _, tt := range []struct {
		method        string
		nonIdempotent bool
		noRetry       bool
		ok            bool
		body          string // "big": 50 KB that seeks, "stream": 50 KB that does not
	}{
		{"GET", false, false, true, ""},
		{"POST", false, false, false, ""},
		{"POST", true, false, true, ""},
		{"GET", false, true, false, ""},
		{"PUT", false, false, true, "big"},
		{"PUT", false, false, false, "stream"},
	} {
		b := newBackend(t, "tcp", "127.0.0.1:0", closer)
		u := b.upstream()
		u.Keepalive = &Keepalive{Max: 4}
		mk := func() *Request {
			r := keepaliveGet()
			r.Method = tt.method
			r.NonIdempotent, r.NoRetry = tt.nonIdempotent, tt.noRetry
			switch {
			case tt.body == "big":
				r.Body, r.BodyLength = strings.NewReader(strings.Repeat("b", 50000)), 50000
			case tt.body == "stream":
				r.Body, r.BodyLength = io.MultiReader(strings.NewReader(strings.Repeat("s", 50000))), 50000
			case tt.method == "POST":
				r.Body, r.BodyLength = strings.NewReader("a=1"), 3
			}
			return r
		}
		if _, _, err := fetch(t, u, mk()); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, u)
		_, body, err := fetch(t, u, mk())
		if tt.ok && (err != nil || body != "ok") {
			t.Errorf("%s nonIdempotent=%v: %v %q", tt.method, tt.nonIdempotent, err, body)
		}
		if !tt.ok {
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindClosed || !e.Sent {
				t.Errorf("%s nonIdempotent=%v noRetry=%v: %v", tt.method, tt.nonIdempotent, tt.noRetry, err)
			} else if Retryable(err, tt.method, tt.nonIdempotent) != Idempotent(tt.method) {
				t.Errorf("Retryable(%v, %s)", err, tt.method)
			}
		}
		if tt.ok {
			got := b.got()
			if len(got) != 2 || got[0] != got[1] {
				t.Errorf("the resent request differs: %q", got)
			}
		}
	}
}

// waitClosed waits until the upstream closes the idle connection in u's
// pool: a read on it returns once the upstream's FIN arrives (bounded by
// ReadTimeout). The connection stays in the pool, closed on the far side.
func waitClosed(t *testing.T, u *Upstream) {
	t.Helper()
	k := u.Keepalive
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.idle) != 1 {
		t.Fatalf("%d idle connections", len(k.idle))
	}
	if _, err := k.idle[0].br.Peek(1); err == nil {
		t.Fatal("the upstream sent bytes on an idle connection")
	}
}

func testEventually(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition never held")
}

func TestRequestBody(t *testing.T) {
	big := strings.Repeat("0123456789", 5000) // past the inline part
	tests := []struct {
		name   string
		http11 bool
		length int64
		body   string
		head   string // expected framing header
	}{
		{"buffered, small", false, 5, "hello", "Content-Length: 5\r\n"},
		{"buffered, large", false, int64(len(big)), big, "Content-Length: 50000\r\n"},
		{"Content-Length: 0", false, 0, "", "Content-Length: 0\r\n"},
		{"streamed, HTTP/1.1: chunked", true, -1, big, "Transfer-Encoding: chunked\r\n"},
		{"streamed, HTTP/1.0: read whole, then its length", false, -1, big, "Content-Length: 50000\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBackend(t, "tcp", "127.0.0.1:0", respondOnce("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
			req := get("/up")
			req.Method, req.HTTP11, req.BodyLength = "POST", tt.http11, tt.length
			req.Body = io.MultiReader(strings.NewReader(tt.body)) // no WriterTo, no Len
			if _, _, err := fetch(t, b.upstream(), req); err != nil {
				t.Fatal(err)
			}
			got := b.got()[0]
			head, body, _ := strings.Cut(got, "\r\n\r\n")
			if !strings.Contains(head+"\r\n", tt.head) || body != tt.body {
				t.Errorf("head %q, body of %d bytes", head, len(body))
			}
		})
	}
	t.Run("client body shorter than its length", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", respondOnce("HTTP/1.1 200 OK\r\n\r\n"))
		req := get("/")
		req.Method, req.Body, req.BodyLength = "POST", strings.NewReader(big[:30000]), 40000
		_, err := b.upstream().Do(context.Background(), req)
		if kindOf(err) != KindClient {
			t.Errorf("got %v", err)
		}
	})
}

func TestTimeouts(t *testing.T) {
	t.Run("read timeout is 504", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", func(b *backend, c net.Conn, br *bufio.Reader) {
			b.readRequest(br)
			io.WriteString(c, "HTTP/1.1 200 OK\r\n")
			io.Copy(io.Discard, br) // never answers more
		})
		u := b.upstream()
		u.ReadTimeout = 100 * time.Millisecond
		_, err := u.Do(context.Background(), get("/"))
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindTimeout || e.Status() != 504 || !e.Sent {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("read timeout in the body", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", func(b *backend, c net.Conn, br *bufio.Reader) {
			b.readRequest(br)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
			io.Copy(io.Discard, br)
		})
		u := b.upstream()
		u.ReadTimeout = 100 * time.Millisecond
		_, body, err := fetch(t, u, get("/"))
		if kindOf(err) != KindTimeout || body != "abc" {
			t.Fatalf("got %v %q", err, body)
		}
	})
	t.Run("send timeout", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", func(b *backend, c net.Conn, br *bufio.Reader) {
			time.Sleep(2 * time.Second) // reads nothing
		})
		u := b.upstream()
		u.SendTimeout = 100 * time.Millisecond
		req := get("/")
		req.Method, req.BodyLength = "PUT", 64<<20
		req.Body = io.LimitReader(zeros{}, 64<<20)
		_, err := u.Do(context.Background(), req)
		if kindOf(err) != KindTimeout {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("connect refused", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		u := &Upstream{Network: "tcp", Address: addr}
		_, err := u.Do(context.Background(), get("/"))
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindConnect || e.Sent || e.Status() != 502 || !Retryable(err, "POST", false) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", func(b *backend, c net.Conn, br *bufio.Reader) {
			b.readRequest(br)
			io.Copy(io.Discard, br)
		})
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			testEventually(t, func() bool { return len(b.got()) == 1 })
			cancel()
		}()
		_, err := b.upstream().Do(ctx, get("/"))
		if kindOf(err) != KindCanceled {
			t.Fatalf("got %v", err)
		}
	})
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "up.sock")
	newBackend(t, "unix", path, respondOnce("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nunix"))
	tgt, err := ParseTarget("http://unix:" + path + ":/x/")
	if err != nil {
		t.Fatal(err)
	}
	u := &Upstream{Network: tgt.Network, Address: tgt.Address}
	req := get(tgt.URI)
	req.ProxyHost = tgt.ProxyHost
	resp, body, err := fetch(t, u, req)
	if err != nil || resp.Status != 200 || body != "unix" {
		t.Fatalf("got %v %q", err, body)
	}
}
