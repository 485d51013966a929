// This file tests, on a real Server over loopback, when the HTTP/1
// adapter reads a request's body: no part of it is waited for before the
// handler runs (headRead), as in nginx.
package h1_test

import (
	"bufio"
	"edge/proxy/internal/servetest"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// dialKept opens a connection to addr that the test closes, with a
// deadline that ends a hung read.
func dialKept(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

func readBody(t *testing.T, br *bufio.Reader) (int, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading a response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAnswerBeforeBody: a location that does not read the body answers
// a head whose body has not come yet, where the engine used to wait for
// up to 8 KiB of it first; the body the client sends after the answer is
// skipped, and the next request on the connection is served. Both for a
// body that was all still to come and one whose first bytes came with
// the head.
func TestAnswerBeforeBody(t *testing.T) {
	addr := servetest.Config(t, `location / { return 200 "early $request_method\n"; }`)
	for _, first := range []string{"", "01234"} {
		c, br := dialKept(t, addr)
		io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n"+first)
		if status, body := readBody(t, br); status != 200 || body != "early POST\n" {
			t.Fatalf("with %q of the body: %d %q before the body came", first, status, body)
		}
		io.WriteString(c, "0123456789"[len(first):])
		io.WriteString(c, "GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
		if status, body := readBody(t, br); status != 200 || body != "early GET\n" {
			t.Fatalf("with %q of the body: the next request got %d %q", first, status, body)
		}
	}
	// A larger body, skipped in reads of many bytes (the engine's wait
	// for the next request reads one).
	c, br := dialKept(t, addr)
	io.WriteString(c, "PUT /up HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n")
	if status, body := readBody(t, br); status != 200 || body != "early PUT\n" {
		t.Fatalf("a 200000-byte body: %d %q before it came", status, body)
	}
	io.WriteString(c, strings.Repeat("GET / HTTP/1.1\r\n\r\n", 200000/18)+strings.Repeat("x", 200000%18))
	io.WriteString(c, "GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
	if status, body := readBody(t, br); status != 200 || body != "early GET\n" {
		t.Fatalf("after a skipped 200000-byte body (made of request heads): %d %q", status, body)
	}
	c.(*net.TCPConn).CloseWrite()
	if _, err := http.ReadResponse(br, nil); err == nil {
		t.Errorf("a head inside the skipped body was answered")
	}
}

// TestUnbufferedBodyStreams: with proxy_request_buffering off, the
// upstream gets the request's head before the client sent its body, and
// each part of the body as it comes; the head goes with what of the body
// came with the client's head (nginx-tests proxy_request_buffering.t,
// "no preread" and "preread"). The upstream's answer then reaches the
// client.
func TestUnbufferedBodyStreams(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := servetest.Config(t, `location / { proxy_request_buffering off; proxy_pass http://`+ln.Addr().String()+`; }`)
	for _, first := range []string{"", "01234"} {
		c, br := dialKept(t, addr)
		io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 10\r\n\r\n"+first)
		up, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		up.SetDeadline(time.Now().Add(10 * time.Second))
		ubr := bufio.NewReader(up)
		req, err := http.ReadRequest(ubr)
		if err != nil {
			t.Fatalf("the upstream reading the head: %v", err)
		}
		if req.ContentLength != 10 {
			t.Errorf("the upstream got Content-Length %d, want 10", req.ContentLength)
		}
		got := make([]byte, len(first))
		if _, err := io.ReadFull(req.Body, got); err != nil || string(got) != first {
			t.Fatalf("the upstream got %q (%v) of the body that came with the head, want %q", got, err, first)
		}
		parts := []string{"01234", "56789"}
		if first != "" {
			parts = []string{"567", "89"}
		}
		for _, part := range parts {
			io.WriteString(c, part)
			got := make([]byte, len(part))
			if _, err := io.ReadFull(req.Body, got); err != nil || string(got) != part {
				t.Fatalf("the upstream got %q (%v), want the part just sent, %q", got, err, part)
			}
		}
		rest, _ := io.ReadAll(req.Body)
		if len(rest) != 0 {
			t.Errorf("the upstream got %q past the body", rest)
		}
		io.WriteString(up, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nOK\n")
		up.Close()
		if status, body := readBody(t, br); status != 200 || body != "OK\n" {
			t.Errorf("the client got %d %q", status, body)
		}
	}
}

// TestDirectBodyCut: a body of which nothing came with its head, cut
// by the client's close, is not taken for whole: nothing reaches the
// upstream as if it were (it sees a short body and the connection end).
func TestDirectBodyCut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := servetest.Config(t, `location / { proxy_request_buffering off; proxy_pass http://`+ln.Addr().String()+`; }`)
	c, _ := dialKept(t, addr)
	io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
	up, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	up.SetDeadline(time.Now().Add(10 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(up))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "0123")
	c.(*net.TCPConn).CloseWrite()
	b, err := io.ReadAll(req.Body)
	if err == nil || strings.Contains(string(b), "456") {
		t.Errorf("the upstream read %q, %v: want the 4 bytes sent and an unexpected end", b, err)
	}
}

// TestUnreadBodyLingers: an answer that closes the connection before
// the client has sent its body (more than the engine skips) drains what
// the client still sends, as nginx's lingering close does: the client
// sends its whole body without a reset and then sees the close.
func TestUnreadBodyLingers(t *testing.T) {
	addr := servetest.Config(t, `location / { return 200 "early\n"; }`)
	const size = 1000000
	c, br := dialKept(t, addr)
	io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
	if status, body := readBody(t, br); status != 200 || body != "early\n" {
		t.Fatalf("before the body: %d %q", status, body)
	}
	// Without the drain, the close with unread bytes sends a reset and
	// these writes fail once it comes.
	chunk := []byte(strings.Repeat("x", 64<<10))
	for sent := 0; sent < size; sent += len(chunk) {
		if _, err := c.Write(chunk[:min(len(chunk), size-sent)]); err != nil {
			t.Fatalf("sending the body after the answer, at %d bytes: %v", sent, err)
		}
	}
	c.(*net.TCPConn).CloseWrite()
	if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("after the body: read %d bytes, %v; want the close", n, err)
	}
}

// TestSkippedBodyDoesNotLinger: a small chunked body left unread is
// skipped and the connection kept; its later close is a plain one, as
// nginx's is: data the client sends after it is refused (a reset), where
// a lingering close would take it.
func TestSkippedBodyDoesNotLinger(t *testing.T) {
	addr := servetest.Config(t, `location / { return 200 "early\n"; }`)
	c, br := dialKept(t, addr)
	io.WriteString(c, "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
	if status, body := readBody(t, br); status != 200 || body != "early\n" {
		t.Fatalf("the chunked POST: %d %q", status, body)
	}
	io.WriteString(c, "GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	if status, body := readBody(t, br); status != 200 || body != "early\n" {
		t.Fatalf("the next request: %d %q", status, body)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after Connection: close: %v, want the close", err)
	}
	for range 200 {
		if _, err := c.Write([]byte("x")); err != nil {
			return // reset: the server closed the socket
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("the server still took data 2 s after its close: it lingered")
}
