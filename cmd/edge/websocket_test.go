// This file runs WebSocket traffic through the edge binary (issue 17):
// a Go echo backend that speaks RFC 6455 with the minimal framer below,
// edge proxying with the usual Upgrade/Connection map, 100 connections
// at once each sending 1,000 messages while it reads their 1,000
// echoes, every echo checked in order, and both ways of ending: the
// client's close frame and the backend's.
package main

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// WebSocket opcodes (RFC 6455 section 5.2).
const (
	wsText  = 0x1
	wsClose = 0x8
)

// wsFrame is one unfragmented frame.
type wsFrame struct {
	op      byte
	payload []byte
}

// writeWSFrame writes a final frame, masked as a client's must be.
func writeWSFrame(w io.Writer, op byte, payload []byte, masked bool) error {
	hdr := []byte{0x80 | op}
	maskBit := byte(0)
	if masked {
		maskBit = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, maskBit|byte(n))
	case n < 1<<16:
		hdr = append(hdr, maskBit|126)
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(n))
	default:
		hdr = append(hdr, maskBit|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	body := payload
	if masked {
		var key [4]byte
		_, _ = rand.Read(key[:])
		hdr = append(hdr, key[:]...)
		body = make([]byte, len(payload))
		for i, b := range payload {
			body[i] = b ^ key[i%4]
		}
	}
	_, err := w.Write(append(hdr, body...))
	return err
}

// readWSFrame reads one frame; masked says whether it must be masked.
func readWSFrame(r *bufio.Reader, masked bool) (wsFrame, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return wsFrame{}, err
	}
	if h[0]&0x80 == 0 {
		return wsFrame{}, errors.New("ws: fragmented frame")
	}
	if (h[1]&0x80 != 0) != masked {
		return wsFrame{}, fmt.Errorf("ws: frame masked=%v, want %v", h[1]&0x80 != 0, masked)
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return wsFrame{}, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return wsFrame{}, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	var key [4]byte
	if masked {
		if _, err := io.ReadFull(r, key[:]); err != nil {
			return wsFrame{}, err
		}
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return wsFrame{}, err
	}
	if masked {
		for i := range p {
			p[i] ^= key[i%4]
		}
	}
	return wsFrame{op: h[0] & 0x0f, payload: p}, nil
}

// wsAccept is the Sec-WebSocket-Accept for a key (RFC 6455 section 4.2.2).
func wsAccept(key string) string {
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(h[:])
}

// startWSBackend serves the echo: every text frame comes back; a close
// frame is answered with one and the connection closed; on
// "/close-after/N" the backend sends its own close after N echoes and
// waits for the client's. It records how each connection ended.
func startWSBackend(t *testing.T) (string, func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ends []string
	end := func(s string) { mu.Lock(); ends = append(ends, s); mu.Unlock() }
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || !strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade") {
			http.Error(w, "not an upgrade: "+r.Header.Get("Upgrade")+"/"+r.Header.Get("Connection"), 400)
			return
		}
		closeAfter := -1
		fmt.Sscanf(r.URL.Path, "/close-after/%d", &closeAfter)
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", wsAccept(r.Header.Get("Sec-WebSocket-Key")))
		if err := brw.Flush(); err != nil {
			return
		}
		for n := 0; ; n++ {
			if n == closeAfter {
				_ = writeWSFrame(c, wsClose, []byte{0x03, 0xe8}, false)
				f, err := readWSFrame(brw.Reader, true)
				if err != nil || f.op != wsClose {
					end(fmt.Sprintf("server close: no close from the client: %v", err))
					return
				}
				end("server close: answered")
				return
			}
			f, err := readWSFrame(brw.Reader, true)
			if err != nil {
				end("read: " + err.Error())
				return
			}
			if f.op == wsClose {
				_ = writeWSFrame(c, wsClose, f.payload, false)
				end("client close")
				return
			}
			if err := writeWSFrame(c, f.op, f.payload, false); err != nil {
				end("write: " + err.Error())
				return
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), ends...)
	}
}

// wsDial opens a WebSocket through edge at addr.
func wsDial(addr, path string) (net.Conn, *bufio.Reader, error) {
	c, err := net.DialTimeout("tcp", addr, waitTimeout)
	if err != nil {
		return nil, nil, err
	}
	var k [16]byte
	_, _ = rand.Read(k[:])
	key := base64.StdEncoding.EncodeToString(k[:])
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", path, key)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	if resp.StatusCode != 101 || resp.Header.Get("Sec-WebSocket-Accept") != wsAccept(key) {
		c.Close()
		return nil, nil, fmt.Errorf("handshake: %s, accept %q", resp.Status, resp.Header.Get("Sec-WebSocket-Accept"))
	}
	return c, br, nil
}

const wsConf = `error_log logs/error.log;
events {}
http {
    access_log logs/access.log;
    map $http_upgrade $connection_upgrade {
        default upgrade;
        ''      close;
    }
    server {
        listen 127.0.0.1:{{PORT}};
        location / {
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_read_timeout 30s;
            proxy_pass http://{{BACKEND}};
        }
    }
}
`

func TestWebSocketEcho(t *testing.T) {
	backend, ends := startWSBackend(t)
	s := newSite(t, strings.ReplaceAll(wsConf, "{{BACKEND}}", backend))
	s.start("-g", "daemon off;")

	const conns, messages = 100, 1000
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- wsEchoConn(s.addr, i, messages)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	// The backend saw each client's close frame.
	if !pollEnds(ends, conns, "client close") {
		t.Fatalf("backend's ends: %v", summarize(ends()))
	}

	// The backend closes: the client gets its close frame, answers, and
	// then the connection ends.
	c, br, err := wsDial(s.addr, "/close-after/3")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(waitTimeout))
	for i := range 3 {
		msg := []byte(fmt.Sprintf("m%d", i))
		if err := writeWSFrame(c, wsText, msg, true); err != nil {
			t.Fatal(err)
		}
		if f, err := readWSFrame(br, false); err != nil || string(f.payload) != string(msg) {
			t.Fatalf("echo %d: %q %v", i, f.payload, err)
		}
	}
	f, err := readWSFrame(br, false)
	if err != nil || f.op != wsClose {
		t.Fatalf("want the backend's close frame, got op %d %v", f.op, err)
	}
	if err := writeWSFrame(c, wsClose, f.payload, true); err != nil {
		t.Fatal(err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after the close handshake: %v, want EOF (edge closes the client's connection)", err)
	}
	if !pollEnds(ends, 1, "server close: answered") {
		t.Fatalf("backend's ends: %v", summarize(ends()))
	}
}

// wsEchoConn sends messages on one connection while it reads and checks
// their echoes in order, then closes with a close frame and expects the
// backend's close frame and the end of the connection.
func wsEchoConn(addr string, id, messages int) error {
	c, br, err := wsDial(addr, fmt.Sprintf("/echo/%d", id))
	if err != nil {
		return fmt.Errorf("conn %d: %w", id, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Minute))
	sent := make(chan error, 1)
	go func() {
		bw := bufio.NewWriter(c)
		for i := range messages {
			// Sizes cross the 126-byte length boundary now and then.
			msg := fmt.Sprintf("c%d-m%d-%s", id, i, strings.Repeat("x", i%200))
			if err := writeWSFrame(bw, wsText, []byte(msg), true); err != nil {
				sent <- err
				return
			}
			if i%50 == 49 {
				if err := bw.Flush(); err != nil {
					sent <- err
					return
				}
			}
		}
		sent <- bw.Flush()
	}()
	for i := range messages {
		f, err := readWSFrame(br, false)
		if err != nil {
			return fmt.Errorf("conn %d: echo %d: %w", id, i, err)
		}
		if want := fmt.Sprintf("c%d-m%d-%s", id, i, strings.Repeat("x", i%200)); f.op != wsText || string(f.payload) != want {
			return fmt.Errorf("conn %d: echo %d is %q, want %q (lost or reordered)", id, i, f.payload, want)
		}
	}
	if err := <-sent; err != nil {
		return fmt.Errorf("conn %d: send: %w", id, err)
	}
	if err := writeWSFrame(c, wsClose, []byte{0x03, 0xe8}, true); err != nil {
		return err
	}
	f, err := readWSFrame(br, false)
	if err != nil || f.op != wsClose {
		return fmt.Errorf("conn %d: want the close frame back, got op %d %v", id, f.op, err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return fmt.Errorf("conn %d: after the close handshake: %v, want EOF", id, err)
	}
	return nil
}

// pollEnds waits until want of the backend's connections ended as how.
func pollEnds(ends func() []string, want int, how string) bool {
	return poll(func() bool {
		n := 0
		for _, e := range ends() {
			if e == how {
				n++
			}
		}
		return n >= want
	})
}

func summarize(ends []string) map[string]int {
	m := map[string]int{}
	for _, e := range ends {
		m[e]++
	}
	return m
}
