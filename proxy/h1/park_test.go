//go:build linux

package h1_test

import (
	"bufio"
	"context"
	"edge/proxy/h1"
	"edge/proxy/internal/plantest"
	"edge/proxy/internal/servetest"
	"edge/proxy/listen"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// parkServer serves dir's a.txt and $connection_requests under cfg's
// keep-alive settings; it returns the server and its address.
func parkServer(t *testing.T, keepalive string) (*listen.Server, string) {
	t.Helper()
	dir := plantest.Root(t, map[string]string{"a.txt": "a"})
	plan := plantest.Load(t, dir, `events {}
http {
    access_log off;
    `+keepalive+`
    server {
        listen 127.0.0.1:8080;
        location / { root `+dir+`/html; add_header X-Requests $connection_requests; }
    }
}
`)
	return servetest.Start(t, plan)
}

// waitFor polls cond until it holds or a generous bound passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("%s: not after 20 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dialParked opens a connection to addr, makes one request on it and
// waits until s has parked it, the only one parked; the connection closes
// with the test.
func dialParked(t *testing.T, s *listen.Server, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(60 * time.Second))
	br := bufio.NewReader(c)
	getOn(t, c, br)
	waitFor(t, "parking", func() bool { return s.HTTP1().Parked() == 1 })
	return c, br
}

func getOn(t *testing.T, c net.Conn, br *bufio.Reader) *http.Response {
	t.Helper()
	if _, err := io.WriteString(c, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestParkedConnections: a kept connection that waits for its next request
// leaves the engine and parks (issue 20: it then holds no goroutine or
// buffer); its next request is served as on an unparked connection, with
// the connection's request count going on, so keepalive_requests still
// ends it at the configured count.
func TestParkedConnections(t *testing.T) {
	s, addr := parkServer(t, "keepalive_requests 3;")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	br := bufio.NewReader(c)
	for i := 1; i <= 3; i++ {
		resp := getOn(t, c, br)
		if resp.StatusCode != 200 || resp.Header.Get("X-Requests") != string(rune('0'+i)) {
			t.Fatalf("request %d: %d, X-Requests %q", i, resp.StatusCode, resp.Header.Get("X-Requests"))
		}
		if i == 3 {
			if !resp.Close {
				t.Fatalf("request 3 of keepalive_requests 3 kept the connection")
			}
			break
		}
		waitFor(t, "parking", func() bool { return s.HTTP1().Parked() == 1 })
		if n := s.HTTP1().ParkedViews(); n != 0 {
			t.Fatalf("request %d: the parked connection keeps the request's views", i)
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after the last request: %v, want EOF", err)
	}
	waitFor(t, "the connection's end", func() bool { return s.Stats().Active.Load() == 0 })
}

// TestParkedTimeout: keepalive_timeout closes a parked connection, as the
// engine's wait would have, and its accounting ends.
func TestParkedTimeout(t *testing.T) {
	s, addr := parkServer(t, "keepalive_timeout 1s;")
	_, br := dialParked(t, s, addr)
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("a parked connection past keepalive_timeout: %v, want EOF", err)
	}
	waitFor(t, "the connection's end", func() bool { return s.Stats().Active.Load() == 0 && s.HTTP1().Parked() == 0 })
}

// TestParkedClientCloses: a client that closes a parked connection ends
// it; one that starts a head and pauses is not parked mid-head.
func TestParkedClientCloses(t *testing.T) {
	s, addr := parkServer(t, "")
	c, br := dialParked(t, s, addr)
	c.Close()
	waitFor(t, "the connection's end", func() bool { return s.Stats().Active.Load() == 0 && s.HTTP1().Parked() == 0 })

	c, br = dialParked(t, s, addr)
	io.WriteString(c, "GET /a.txt HTTP/1.1\r\n")
	waitFor(t, "the resumed connection", func() bool { return s.HTTP1().Parked() == 0 })
	time.Sleep(2 * h1.ParkAfter) // a head in progress must not park
	if n := s.HTTP1().Parked(); n != 0 {
		t.Fatalf("a connection parked in the middle of a head")
	}
	io.WriteString(c, "Host: x\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("X-Requests") != "2" {
		t.Fatalf("the request completed after a pause: %v %v", resp, err)
	}
}

// TestParkedShutdown: a graceful stop closes parked connections, as idle
// ones, and returns.
func TestParkedShutdown(t *testing.T) {
	s, addr := parkServer(t, "")
	var conns []net.Conn
	for range 5 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(60 * time.Second))
		getOn(t, c, bufio.NewReader(c))
		conns = append(conns, c)
	}
	waitFor(t, "parking", func() bool { return s.HTTP1().Parked() == 5 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with parked connections: %v", err)
	}
	for i, c := range conns {
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("connection %d after Shutdown: %v, want EOF", i, err)
		}
	}
	// The parker's loop closed its epoll set and pipe, and parks no more.
	waitFor(t, "the parker's descriptors closed", s.HTTP1().ParkerClosed)
	if s.HTTP1().ParksAfterStop() {
		t.Error("a connection parked after Shutdown")
	}
}

// TestParkedKeepsConnection: what a connection's requests know of it
// survives a park, in which its net.TCPConn is closed and made again
// from the socket: the PROXY protocol's client address, $connection and
// the request count.
func TestParkedKeepsConnection(t *testing.T) {
	dir := plantest.Root(t, map[string]string{"a.txt": "a"})
	plan := plantest.Load(t, dir, `events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080 proxy_protocol;
        location / {
            root `+dir+`/html;
            add_header X-Conn "$connection $connection_requests $proxy_protocol_addr $remote_addr";
        }
    }
}
`)
	s, addr := servetest.Start(t, plan)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := io.WriteString(c, "PROXY TCP4 192.0.2.7 127.0.0.1 4000 8080\r\n"); err != nil {
		t.Fatal(err)
	}
	// The request apart from the header: one that came with it is served
	// off the bytes read with the header, and does not park.
	time.Sleep(100 * time.Millisecond)
	br := bufio.NewReader(c)
	first := getOn(t, c, br).Header.Get("X-Conn")
	waitFor(t, "parking", func() bool { return s.HTTP1().Parked() == 1 })
	second := getOn(t, c, br).Header.Get("X-Conn")
	var id string
	if n, _ := fmt.Sscanf(first, "%s 1 192.0.2.7 127.0.0.1", &id); n != 1 || second != id+" 2 192.0.2.7 127.0.0.1" {
		t.Fatalf("before the park %q, after it %q", first, second)
	}
}

// BenchmarkParkedRequest times a request on a connection that parked
// before it (the wake-up, the TCPConn and wrapper made again), against
// one on a connection kept in the engine after the same pause of the
// client (BenchmarkKeptRequest), under ParkAfter.
func BenchmarkParkedRequest(b *testing.B) { benchmarkRequest(b, true) }

func BenchmarkKeptRequest(b *testing.B) { benchmarkRequest(b, false) }

func benchmarkRequest(b *testing.B, parked bool) {
	t := &testing.T{}
	s, addr := parkServer(t, "keepalive_requests 100000;")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	req := []byte("GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n")
	get := func() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if parked {
			for s.HTTP1().Parked() != 1 {
				time.Sleep(time.Millisecond)
			}
		} else {
			time.Sleep(h1.ParkAfter / 5)
		}
		b.StartTimer()
		get()
	}
}

// TestResumedShutdown: a graceful stop closes a connection served again
// after a park, which its listener knows only through the HTTP/1
// adapter (its net.Conn was made again), whether it waits in the engine
// or parked again.
func TestResumedShutdown(t *testing.T) {
	s, addr := parkServer(t, "")
	c, br := dialParked(t, s, addr)
	getOn(t, c, br)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a resumed connection: %v", err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("the resumed connection after Shutdown: %v, want EOF", err)
	}
}
