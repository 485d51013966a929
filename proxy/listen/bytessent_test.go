package listen_test

import (
	"bufio"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"edge/proxy/internal/plantest"
	"edge/proxy/internal/servetest"
)

// TestBytesSentIsWhatWasSent: $bytes_sent is what the connection sent
// for the request, status line and header included, as nginx counts it:
// for each kind of HTTP/1 response, the logged figure is the bytes the
// client read. $sent_http_connection is "close" in the log, as nginx's
// is whether or not the connection stays open.
func TestBytesSentIsWhatWasSent(t *testing.T) {
	root := plantest.Root(t, map[string]string{"a.txt": "hello\n", "index.html": strings.Repeat("x", 3000)})
	logPath := filepath.Join(root, "logs", "access.log")
	plan := plantest.Load(t, root, `events {}
http {
    error_log `+root+`/logs/error.log;
    log_format sent "$request $sent_http_connection $bytes_sent";
    access_log `+logPath+` sent;
    keepalive_requests 3;
    server {
        listen 127.0.0.1:8080;
        root `+root+`/html;
        location = /text { return 200 "text"; }
        location = /moved { return 301 /a.txt; }
        location = /teapot { return 418; }
        location = /empty { return 204; }
    }
}
`)
	addr := servetest.Serve(t, plan)
	requests := []string{
		"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /missing HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /moved HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD /a.txt HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /text HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /teapot HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /empty HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /a.txt HTTP/1.0\r\n\r\n",
		"GET /a.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
		"GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"GET /a.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=1-2\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nIf-None-Match: *\r\n\r\n",
	}
	var got []int
	for _, req := range requests {
		got = append(got, received(t, addr, req))
	}
	// The third request on one connection is its last (keepalive_requests).
	got = append(got, keptReceived(t, addr, requests[0], 3)...)
	lines := logLines(t, logPath, len(got))
	for i, line := range lines {
		cut := strings.LastIndexByte(line, ' ')
		if sent := line[cut+1:]; sent != strconv.Itoa(got[i]) {
			t.Errorf("%q: $bytes_sent %s, the client read %d bytes", line[:cut], sent, got[i])
		}
		if !strings.HasSuffix(line[:cut], " close") {
			t.Errorf("%q: $sent_http_connection is not close", line)
		}
	}
}

// received sends req alone on a connection it then half-closes, and
// returns the bytes that came back.
func received(t *testing.T, addr, req string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, req)
	c.(*net.TCPConn).CloseWrite()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// keptReceived sends req n times on one connection, each after the last
// response, and returns the bytes of each response.
func keptReceived(t *testing.T, addr, req string, n int) []int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	var out []int
	for range n {
		io.WriteString(c, req)
		head, err := plantest.ReadHead(br)
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(strings.ToLower(head), "content-length: ")
		if i < 0 {
			t.Fatalf("no Content-Length in %q", head)
		}
		value := head[i+len("content-length: "):]
		length, _ := strconv.Atoi(value[:strings.Index(value, "\r\n")])
		if _, err := io.CopyN(io.Discard, br, int64(length)); err != nil {
			t.Fatal(err)
		}
		out = append(out, len(head)+length)
	}
	return out
}

// logLines waits for n lines in a log file and returns them.
func logLines(t *testing.T, path string, n int) []string {
	t.Helper()
	var lines []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if lines = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); len(b) > 0 && len(lines) >= n {
			return lines
		}
	}
	t.Fatalf("%s holds %d lines, want %d: %q", filepath.Base(path), len(lines), n, lines)
	return nil
}
