package httpproxy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// backend is a loopback server speaking raw HTTP/1.x, so that a test
// controls the framing byte for byte. serve runs once per accepted
// connection.
type backend struct {
	ln       net.Listener
	accepted atomic.Int32
	mu       sync.Mutex
	requests []string // each request's head and body, as received
	conns    []net.Conn
	wg       sync.WaitGroup
}

func newBackend(t testing.TB, network, addr string, serve func(b *backend, c net.Conn, br *bufio.Reader)) *backend {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	return startBackend(t, ln, serve)
}

func startBackend(t testing.TB, ln net.Listener, serve func(b *backend, c net.Conn, br *bufio.Reader)) *backend {
	b := &backend{ln: ln}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.accepted.Add(1)
			b.mu.Lock()
			b.conns = append(b.conns, c)
			b.mu.Unlock()
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer c.Close()
				serve(b, c, bufio.NewReader(c))
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		b.mu.Lock()
		for _, c := range b.conns {
			c.Close()
		}
		b.mu.Unlock()
		b.wg.Wait()
	})
	return b
}

func (b *backend) upstream() *Upstream {
	return &Upstream{Network: b.ln.Addr().Network(), Address: b.ln.Addr().String()}
}

func (b *backend) got() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

// readRequest reads one request (head, then a body by Content-Length or
// chunked encoding, de-chunked) and records it; ok is false at EOF.
func (b *backend) readRequest(br *bufio.Reader) (head string, body []byte, ok bool) {
	var h strings.Builder
	length, chunked := int64(0), false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return "", nil, false
		}
		h.WriteString(line)
		if line == "\r\n" {
			break
		}
		name, value, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ": ")
		switch strings.ToLower(name) {
		case "content-length":
			length, _ = strconv.ParseInt(value, 10, 64)
		case "transfer-encoding":
			chunked = value == "chunked"
		}
	}
	if chunked {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return "", nil, false
			}
			n, _ := strconv.ParseInt(strings.TrimRight(line, "\r\n"), 16, 64)
			chunk := make([]byte, n+2)
			if _, err := io.ReadFull(br, chunk); err != nil {
				return "", nil, false
			}
			if n == 0 {
				break
			}
			body = append(body, chunk[:n]...)
		}
	} else if length > 0 {
		body = make([]byte, length)
		if _, err := io.ReadFull(br, body); err != nil {
			return "", nil, false
		}
	}
	b.mu.Lock()
	b.requests = append(b.requests, h.String()+string(body))
	b.mu.Unlock()
	return h.String(), body, true
}

// respond answers every request on the connection with resp.
func respond(resp string) func(b *backend, c net.Conn, br *bufio.Reader) {
	return func(b *backend, c net.Conn, br *bufio.Reader) {
		for {
			if _, _, ok := b.readRequest(br); !ok {
				return
			}
			if _, err := io.WriteString(c, resp); err != nil {
				return
			}
		}
	}
}

// respondOnce answers one request with resp and closes the connection.
func respondOnce(resp string) func(b *backend, c net.Conn, br *bufio.Reader) {
	return func(b *backend, c net.Conn, br *bufio.Reader) {
		if _, _, ok := b.readRequest(br); ok {
			io.WriteString(c, resp)
		}
	}
}

func get(uri string) *Request {
	return &Request{Method: "GET", URI: uri, ProxyHost: "backend", BodyLength: -1}
}

// fetch does req and reads the whole body.
func fetch(t *testing.T, u *Upstream, req *Request) (*Response, string, error) {
	t.Helper()
	resp, err := u.Do(context.Background(), req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Close()
	var buf bytes.Buffer
	err = resp.Stream(&buf, nil)
	return resp, buf.String(), err
}
