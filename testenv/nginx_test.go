// This file tests StartNginx and RawHTTP against Debian's nginx serving a
// temporary document root.

package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startStaticNginx serves docroot on a free port with a conf built from
// this package's helpers.
func startStaticNginx(t *testing.T, docroot string) *Nginx {
	t.Helper()
	port := FreePort(t)
	conf := NginxMain(1) + "http {\n" + NginxHTTPTemps("") + NginxHTTPLogs("") +
		fmt.Sprintf("    server {\n        listen 127.0.0.1:%d;\n        root %s;\n    }\n}\n", port, docroot)
	return StartNginx(t, conf, port)
}

func TestNginxServesFile(t *testing.T) {
	docroot := t.TempDir()
	const body = "hello from a temp docroot\n"
	if err := os.WriteFile(filepath.Join(docroot, "hello.txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	n := startStaticNginx(t, docroot)

	tests := []struct {
		name, raw  string
		wantStatus int
		wantBody   string
	}{
		{"get", "GET /hello.txt HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 200, body},
		// A HEAD response carries Content-Length but no body: reading one
		// would hang or swallow the next response.
		{"head", "HEAD /hello.txt HTTP/1.1\r\nHost: a\r\n\r\n", 200, ""},
		{"missing", "GET /nope HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 404, ""},
		// The request line reaches nginx unmodified: a path climbing above
		// the root is a 400, which a client library would have cleaned up.
		{"dot-dot", "GET /../hello.txt HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 400, ""},
		{"http/1.0", "GET /hello.txt HTTP/1.0\r\n\r\n", 200, body},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := RawHTTP(t, n.Addr(), tt.raw)
			if resp.Status != tt.wantStatus {
				t.Fatalf("status %d, want %d", resp.Status, tt.wantStatus)
			}
			if tt.wantBody != "" && string(resp.Body) != tt.wantBody {
				t.Errorf("body %q, want %q", resp.Body, tt.wantBody)
			}
			if tt.name == "head" {
				if len(resp.Body) != 0 || resp.Header.Get("Content-Length") != fmt.Sprint(len(body)) {
					t.Errorf("HEAD: body %q, Content-Length %q", resp.Body, resp.Header.Get("Content-Length"))
				}
			}
			if !strings.HasPrefix(resp.Header.Get("Server"), "nginx") {
				t.Errorf("Server %q: not nginx", resp.Header.Get("Server"))
			}
		})
	}
	waitFileContains(t, n.AccessLog(), "GET /hello.txt")
}

func TestNginxStopLeavesNoProcess(t *testing.T) {
	n := startStaticNginx(t, t.TempDir())
	master := n.Proc.PID()
	// The port accepts as soon as the master binds it, which is before it
	// forks the workers.
	var workers []int
	poll(t, "nginx workers", func() bool {
		workers = childPIDs(t, master)
		return len(workers) == 1
	})
	n.Proc.Stop()
	for _, pid := range append(workers, master) {
		waitGone(t, pid)
	}
}

func TestNginxBadConfFailsFast(t *testing.T) {
	ft := newFakeTB(t)
	port := FreePort(t)
	// daemon is set on the command line too: nginx must refuse this conf,
	// and StartNginx must fail without waiting out the readiness timeout.
	conf := NginxMain(1) + "daemon off;\nhttp {\n" + NginxHTTPTemps("") +
		fmt.Sprintf("    server { listen 127.0.0.1:%d; }\n}\n", port)
	if ft.run(func() { StartNginx(ft, conf, port) }) {
		t.Fatal("StartNginx returned for a conf nginx rejects")
	}
	ft.runCleanups()
	if logs := ft.logText(); !strings.Contains(logs, "exited before listening") || !strings.Contains(logs, "duplicate") {
		t.Errorf("failure does not show nginx's complaint:\n%s", logs)
	}
}

func TestNginxMain(t *testing.T) {
	main := NginxMain(3)
	for _, want := range []string{"worker_processes 3;", "worker_connections 1024;"} {
		if !strings.Contains(main, want) {
			t.Errorf("NginxMain lacks %q:\n%s", want, main)
		}
	}
	if wantUser := os.Geteuid() == 0; strings.Contains(main, "user root;") != wantUser {
		t.Errorf("NginxMain as euid %d:\n%s", os.Geteuid(), main)
	}
}

func TestNginxHTTPTemps(t *testing.T) {
	tests := []struct{ prefix, want string }{
		{"", "fastcgi_temp_path fastcgi_temp;"},
		{"/p", "fastcgi_temp_path /p/fastcgi_temp;"},
	}
	for _, tt := range tests {
		got := NginxHTTPTemps(tt.prefix)
		if !strings.Contains(got, tt.want) || strings.Count(got, "_temp_path ") != len(tempPathDirectives) {
			t.Errorf("NginxHTTPTemps(%q) =\n%s", tt.prefix, got)
		}
	}
}
