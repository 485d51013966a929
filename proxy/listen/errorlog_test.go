package listen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/proxy/internal/plantest"
	"edge/proxy/internal/servetest"
)

// TestErrorLogPerLevel: a request's messages go to the error_log of its
// location, else of its server, else of http, else of the main level,
// as nginx moves a request's log to its location's; a level with its own
// error_log replaces its parent's, and each destination keeps its own
// level. Messages of no request stay in the main level's.
func TestErrorLogPerLevel(t *testing.T) {
	root := plantest.Root(t, map[string]string{"index.html": "x"})
	logs := filepath.Join(root, "logs")
	plan := plantest.Load(t, root, `error_log `+logs+`/main.log;
events {}
http {
    access_log off;
    error_log `+logs+`/http.log;
    server {
        listen 127.0.0.1:8080;
        server_name a;
        root `+root+`/html;
        error_log `+logs+`/server.log;
        location /loc/ {
            error_log `+logs+`/loc.log;
            error_log `+logs+`/loc-crit.log crit;
        }
        location /quiet/ {
            log_not_found off;
        }
    }
    server {
        listen 127.0.0.1:8080;
        server_name b;
        root `+root+`/html;
    }
}
`)
	addr := servetest.Serve(t, plan)
	for _, req := range []string{
		"GET /loc/missing HTTP/1.0\r\nHost: a\r\n\r\n",
		"GET /server-missing HTTP/1.0\r\nHost: a\r\n\r\n",
		"GET /quiet/missing HTTP/1.0\r\nHost: a\r\n\r\n",
		"GET /http-missing HTTP/1.0\r\nHost: b\r\n\r\n",
	} {
		received(t, addr, req)
	}
	want := map[string]string{
		"loc.log":    "/loc/missing",
		"server.log": "/server-missing",
		"http.log":   "/http-missing",
	}
	for file, uri := range want {
		lines := errorLines(t, filepath.Join(logs, file), 1)
		if len(lines) != 1 || !strings.Contains(lines[0], `"GET `+uri+` HTTP/1.0"`) || !strings.Contains(lines[0], "[error]") {
			t.Errorf("%s holds %q, want the one error of %s", file, lines, uri)
		}
	}
	// No request's error reached the main log, nor a crit-only one.
	for _, file := range []string{"main.log", "loc-crit.log"} {
		b, _ := os.ReadFile(filepath.Join(logs, file))
		if strings.Contains(string(b), "[error]") {
			t.Errorf("%s holds a request's error: %q", file, b)
		}
	}
}

// errorLines waits for n lines in an error log and returns them.
func errorLines(t *testing.T, path string, n int) []string {
	t.Helper()
	var lines []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if lines = strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' }); len(lines) >= n {
			return lines
		}
	}
	return lines
}
