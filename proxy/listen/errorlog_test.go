package listen_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
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
// level. A subrequest logs where its main request does, and a
// connection accepted before a reload logs where the new plan's same
// level does. Messages of no request stay in the main level's.
func TestErrorLogPerLevel(t *testing.T) {
	root := plantest.Root(t, map[string]string{"index.html": "x", "ssi/page.html": `<!--# include virtual="/inc/missing" -->`})
	logs := filepath.Join(root, "logs")
	text := `error_log ` + logs + `/main.log;
events {}
http {
    access_log off;
    error_log ` + logs + `/http.log;
    server {
        listen 127.0.0.1:8080;
        server_name a;
        root ` + root + `/html;
        error_log ` + logs + `/server.log info;
        location /loc/ {
            error_log ` + logs + `/loc.log;
            error_log ` + logs + `/loc-crit.log crit;
        }
        location /quiet/ {
            log_not_found off;
        }
        location /ssi/ {
            ssi on;
        }
        location /inc/ {
            error_log ` + logs + `/inc.log;
        }
    }
    server {
        listen 127.0.0.1:8080;
        server_name b;
        root ` + root + `/html;
    }
}
`
	s, addr := servetest.Start(t, plantest.Load(t, root, text))
	// A connection of the first plan, used after the reload below.
	early, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	if _, err := early.Write([]byte("GET /kept HTTP/1.1\r\nHost: a\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	// Its answer is read before the other requests go, so that its line
	// comes first in server.log (under the race detector it was once
	// served after them).
	early.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(early)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("GET /kept: %d, want 404", resp.StatusCode)
	}
	if err := s.Apply(plantest.Load(t, root, text)); err != nil {
		t.Fatal(err)
	}
	for _, req := range []string{
		"GET /loc/missing HTTP/1.0\r\nHost: a\r\n\r\n",
		"GET /server-missing HTTP/1.0\r\nHost: a\r\n\r\n",
		"GET /quiet/missing HTTP/1.0\r\nHost: a\r\n\r\n",
		"GET /http-missing HTTP/1.0\r\nHost: b\r\n\r\n",
		"GET /ssi/page.html HTTP/1.0\r\nHost: a\r\n\r\n",
	} {
		received(t, addr, req)
	}
	// The kept connection's next request is served by the new plan; one
	// its head names a bad length for is refused before its server is
	// found, and is logged at its connection's default server's.
	if _, err := early.Write([]byte("GET /again HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	early.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.Copy(io.Discard, br)
	want := map[string][]string{
		"loc.log":    {"GET /loc/missing "},
		"server.log": {"GET /kept ", "GET /server-missing ", `subrequest: "/inc/missing"`, "client sent invalid request"},
		"http.log":   {"GET /http-missing "},
	}
	for file, parts := range want {
		lines := logLines(t, filepath.Join(logs, file), len(parts))
		if len(lines) != len(parts) {
			t.Errorf("%s holds %q, want %d lines", file, lines, len(parts))
			continue
		}
		for i, part := range parts {
			if !strings.Contains(lines[i], part) || !strings.Contains(lines[i], "[") {
				t.Errorf("%s line %d is %q, want %q in it", file, i+1, lines[i], part)
			}
		}
	}
	// No request's error reached the main log, nor a crit-only one, nor
	// the log of the subrequest's location.
	for _, file := range []string{"main.log", "loc-crit.log", "inc.log"} {
		b, _ := os.ReadFile(filepath.Join(logs, file))
		if strings.Contains(string(b), "[error]") {
			t.Errorf("%s holds a request's error: %q", file, b)
		}
	}
}
