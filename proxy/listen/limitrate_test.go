package listen_test

import (
	"bufio"
	"edge/proxy/internal/plantest"
	"edge/proxy/internal/servetest"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPacedHeaderAtOnce: under limit_rate the header leaves at once, as
// nginx's write filter sends it, not behind the first pause (limit_rate.t
// measured the upstream's time to its header as a whole paced body), and
// the log phase waits for the last byte.
func TestPacedHeaderAtOnce(t *testing.T) {
	root := plantest.Root(t, map[string]string{"paced.bin": strings.Repeat("x", 1000)})
	logPath := filepath.Join(root, "logs", "access.log")
	plan := plantest.Load(t, root, `events {}
http {
    error_log `+root+`/logs/error.log;
    access_log `+logPath+`;
    server {
        listen 127.0.0.1:8080;
        root `+root+`/html;
        limit_rate 100;
        limit_rate_after 0;
    }
}
`)
	c, err := net.Dial("tcp", servetest.Serve(t, plan))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(c, "GET /paced.bin HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 || resp.ContentLength != 1000 {
		t.Fatalf("paced response: %v %v", resp, err)
	}
	// 1000 bytes at 100 bytes a second after a header that already spent
	// the first budget: the body cannot be whole yet.
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := io.ReadFull(resp.Body, make([]byte, 1000)); err == nil {
		t.Fatalf("the whole paced body (%d bytes) came with its header: the header waited for it", n)
	}
	if b, _ := os.ReadFile(logPath); len(b) != 0 {
		t.Errorf("logged before the paced body was out: %q", b)
	}
}

// TestAccessLogLineAtOnce: an access log line is in the file when the
// client has its response, as with nginx's unbuffered log, also for
// requests that come back to back (edge once held such lines for up to a
// millisecond, and nginx-tests' limit_rate.t read the log a line short).
func TestAccessLogLineAtOnce(t *testing.T) {
	addr, logPath := serveURILog(t, "")
	get := func(path string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	lines := func() []string {
		b, _ := os.ReadFile(logPath)
		return strings.Fields(string(b))
	}
	for i := 1; i <= 50; i++ {
		path := "/a.txt"
		if i%2 == 0 {
			path = "/missing"
		}
		get(path)
		if got := lines(); len(got) != i || got[i-1] != path {
			t.Fatalf("after response %d, the log holds %d lines, the last %q; want %d, the last %q",
				i, len(got), got[len(got)-1], i, path)
		}
	}
}

// TestAccessLogBufferSize: with buffer=size, lines wait until the next
// one would not fit, as nginx's do: 7-byte lines in a 100-byte buffer
// go out 14 at a time (flush= is an hour, so its timer plays no part).
func TestAccessLogBufferSize(t *testing.T) {
	addr, logPath := serveURILog(t, " buffer=100 flush=1h")
	for i := 1; i <= 30; i++ {
		resp, err := http.Get("http://" + addr + "/a.txt")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		b, _ := os.ReadFile(logPath)
		want := (i - 1) / 14 * 14 // the lines of the batches the i-th pushed out
		if got := strings.Count(string(b), "/a.txt\n"); got != want {
			t.Fatalf("after %d requests the log holds %d lines, want %d", i, got, want)
		}
	}
}

// serveURILog serves a.txt with an access log of $uri lines, the
// access_log's options given, and returns the address and the log's path.
func serveURILog(t *testing.T, options string) (string, string) {
	root := plantest.Root(t, map[string]string{"a.txt": "a"})
	logPath := filepath.Join(root, "logs", "access.log")
	plan := plantest.Load(t, root, `events {}
http {
    error_log `+root+`/logs/error.log;
    log_format uri $uri;
    access_log `+logPath+` uri`+options+`;
    server {
        listen 127.0.0.1:8080;
        root `+root+`/html;
    }
}
`)
	return servetest.Serve(t, plan), logPath
}
