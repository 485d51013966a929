package h1_test

import (
	"bufio"
	"edge/conf"
	"edge/proxy/h1"
	"edge/proxy/internal/plantest"
	"edge/proxy/internal/servetest"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMoreIsFollowed checks that a write sent with MSG_MORE is never the
// last of its response: the kernel holds such a write until the next one
// (or for 200 ms), so a response ending with it would reach its client
// late. Responses on both sides of the write buffer, from memory and by
// sendfile, GET and HEAD, plain and gzipped, on one kept connection.
func TestMoreIsFollowed(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"html", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sizes := []int{100, h1.WriteBuffer - 200, h1.WriteBuffer, h1.WriteBuffer + 1, 100_000, 3 << 20}
	for _, n := range sizes {
		data := strings.Repeat(fmt.Sprintf("line %d\n", n), n/8+1)[:n]
		if err := os.WriteFile(filepath.Join(root, "html", fmt.Sprintf("f%d.txt", n)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plan := plantest.Load(t, root, `events {}
http {
    include mime.types;
    error_log `+root+`/logs/error.log;
    access_log off;
    gzip on;
    gzip_min_length 1000;
    gzip_types text/plain;
    server {
        listen 127.0.0.1:8080;
        root `+root+`/html;
    }
}
`)
	var mu sync.Mutex
	var writes []bool // MSG_MORE or not, in order (one connection)
	h1.SetWriteHook(func(_ *net.TCPConn, more bool) {
		mu.Lock()
		writes = append(writes, more)
		mu.Unlock()
	})
	defer h1.SetWriteHook(nil)
	c, br := dialServed(t, plan, 30*time.Second)
	mores := 0
	for _, n := range sizes {
		gz := "Accept-Encoding: gzip\r\n"
		for _, req := range []struct{ method, extra string }{{"GET", ""}, {"HEAD", ""}, {"GET", gz}, {"HEAD", gz}} {
			path := fmt.Sprintf("/f%d.txt", n)
			fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: x\r\n%s\r\n", req.method, path, req.extra)
			resp, err := http.ReadResponse(br, &http.Request{Method: req.method})
			if err != nil {
				t.Fatalf("%s %s: %v", req.method, path, err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s %s %q: %d (%v)", req.method, path, req.extra, resp.StatusCode, err)
			}
			if n >= 1000 && req.extra == gz {
				// nginx's framing of what gzip makes: chunked, and for
				// HEAD neither a length nor chunks.
				te := []string{"chunked"}
				if req.method == "HEAD" {
					te = nil
				}
				if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Length") != "" || !slices.Equal(resp.TransferEncoding, te) {
					t.Errorf("%s %s gzip: %q, Content-Length %q, Transfer-Encoding %q; want gzip, none, %q", req.method, path,
						resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Length"), resp.TransferEncoding, te)
				}
			}
			mu.Lock()
			last := len(writes) > 0 && writes[len(writes)-1]
			for _, m := range writes {
				if m {
					mores++
				}
			}
			writes = writes[:0]
			mu.Unlock()
			if last {
				t.Errorf("%s %s %q: the response's last write carried MSG_MORE", req.method, path, req.extra)
			}
		}
	}
	if mores == 0 {
		t.Error("no response went out with MSG_MORE")
	}
}

// TestLastResponseGoesWithTheFIN checks that the response the connection
// closes after (an HTTP/1.0 request, Connection: close) is written with
// MSG_MORE, to leave with the close's FIN, and that it reaches the client
// whole, followed by the close.
func TestLastResponseGoesWithTheFIN(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"html", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sizes := []int{100, h1.WriteBuffer + 1, 100_000}
	for _, n := range sizes {
		data := strings.Repeat("x", n)
		if err := os.WriteFile(filepath.Join(root, "html", fmt.Sprintf("f%d.txt", n)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plan := plantest.Load(t, root, `events {}
http {
    error_log `+root+`/logs/error.log;
    access_log off;
    server {
        listen 127.0.0.1:8080;
        root `+root+`/html;
    }
}
`)
	var mu sync.Mutex
	var writes []bool
	h1.SetWriteHook(func(_ *net.TCPConn, more bool) {
		mu.Lock()
		writes = append(writes, more)
		mu.Unlock()
	})
	defer h1.SetWriteHook(nil)
	addr := servetest.Serve(t, plan)
	for _, n := range sizes {
		for _, req := range []string{
			"GET /f%d.txt HTTP/1.0\r\n\r\n",
			"GET /f%d.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		} {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(30 * time.Second))
			fmt.Fprintf(c, req, n)
			got, err := io.ReadAll(c) // to the close
			c.Close()
			if err != nil {
				t.Fatalf("%q: %v", req, err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(got))), nil)
			if err != nil {
				t.Fatalf("%q: %v", req, err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 || len(body) != n {
				t.Fatalf("%q: %d, %d bytes (%v)", req, resp.StatusCode, len(body), err)
			}
			mu.Lock()
			first := len(writes) > 0 && writes[0]
			writes = writes[:0]
			mu.Unlock()
			if !first {
				t.Errorf("%q: the last response's first write went without MSG_MORE", fmt.Sprintf(req, n))
			}
		}
	}
}

// dialServed serves plan and returns a connection to it, closed when the
// test ends, with a reader of its responses; d bounds the whole test's
// use of it.
func dialServed(t *testing.T, plan *conf.Plan, d time.Duration) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", servetest.Serve(t, plan))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(d))
	return c, bufio.NewReader(c)
}
