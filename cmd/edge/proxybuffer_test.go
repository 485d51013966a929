package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// proxyBufferConf proxies to a keep-alive upstream with nginx's default
// buffering: what the memory buffers do not hold goes to a temporary
// file (proxy_max_temp_file_size 1024m).
const proxyBufferConf = `
daemon off;
error_log logs/error.log warn;
events {}
http {
    access_log off;
    upstream up {
        server {{UP}};
        keepalive 1;
    }
    server {
        listen 127.0.0.1:{{PORT}};
        location / {
            proxy_pass http://up;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`

// TestProxyBufferedFreesUpstream (issue 17): with proxy_buffering on, a
// response far larger than the socket buffers is taken from the upstream
// whole while its client reads nothing, and the upstream connection goes
// back to the keep-alive pool: a later client's request reaches the
// upstream on that same connection while the first has read no byte.
// The first client then gets every byte. As nginx: a slow client holds a
// temporary file, not an upstream connection (or a PHP worker).
func TestProxyBufferedFreesUpstream(t *testing.T) {
	const size = 32 << 20 // far more than loopback's socket buffers hold
	body := bytes.Repeat([]byte("0123456789abcdef"), size/16)

	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	var mu sync.Mutex
	var log []string             // the paths asked for, in order
	sent := make(chan string, 1) // the first path whose whole response is written
	go func() {
		for n := 1; ; n++ {
			c, err := up.Accept()
			if err != nil {
				return
			}
			go func(n int, c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					mu.Lock()
					log = append(log, req.URL.Path)
					mu.Unlock()
					b := []byte("small")
					if req.URL.Path == "/big" {
						b = body
					}
					if n != 1 {
						// Only the connection /big came on answers: the
						// others close, and never wait in edge's pool.
						io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
						return
					}
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(b))
					if _, err := c.Write(b); err != nil {
						return
					}
					select {
					case sent <- req.URL.Path:
					default:
					}
				}
			}(n, c)
		}
	}()

	s := newSite(t, "")
	s.writeConf(strings.Replace(proxyBufferConf, "{{UP}}", up.Addr().String(), 1))
	s.start()

	// The first client asks for the big response and reads nothing.
	slow, err := net.DialTimeout("tcp", s.addr, waitTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.(*net.TCPConn).SetReadBuffer(16 << 10)
	io.WriteString(slow, "GET /big HTTP/1.1\r\nHost: localhost\r\n\r\n")
	select {
	case p := <-sent:
		if p != "/big" {
			t.Fatalf("the upstream finished %s first", p)
		}
	case <-time.After(4 * waitTimeout):
		t.Fatal("the upstream could not write the whole response while the client read nothing: edge did not buffer it")
	}

	// Other clients: once edge has read the whole response (the upstream
	// wrote it into socket buffers first), the upstream connection it came
	// on answers them, which no other does. Held until the first client
	// reads, it never would.
	onFirst := poll(func() bool {
		resp := s.get("/small")
		return resp.Status == 200 && string(resp.Body) == "small"
	})
	if !onFirst {
		mu.Lock()
		t.Fatalf("upstream saw %d requests, none after /big on its connection, while /big's client read nothing", len(log))
	}
	// The first client reads it all now.
	slow.SetDeadline(time.Now().Add(4 * waitTimeout))
	r, err := http.ReadResponse(bufio.NewReader(slow), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil || !bytes.Equal(b, body) {
		t.Fatalf("the slow client read %d bytes (%v), want the %d sent", len(b), err, size)
	}
	if r.Header.Get("Content-Length") != strconv.Itoa(size) {
		t.Errorf("Content-Length %q", r.Header.Get("Content-Length"))
	}
}
