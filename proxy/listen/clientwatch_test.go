package listen_test

import (
	"edge/proxy"
	"edge/proxy/internal/plantest"
	"edge/proxy/internal/servetest"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClientCloseWhileWaiting: an HTTP/1 client that closes its
// connection while its request waits for the upstream ends the request,
// as nginx's ngx_http_upstream_check_broken_connection does: the upstream
// connection is closed and the access log says 499. With
// *_ignore_client_abort on, the request waits for the upstream.
func TestClientCloseWhileWaiting(t *testing.T) {
	for _, c := range []struct{ name, pass, ignore string }{
		{"proxy_pass", "proxy_pass http://UP;", ""},
		{"fastcgi_pass", "fastcgi_pass UP;", ""},
		{"proxy_pass ignoring", "proxy_pass http://UP;", "proxy_ignore_client_abort on;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The upstream reads the request and never answers; it reports
			// when edge closes its connection.
			up, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer up.Close()
			closed := make(chan struct{}, 1)
			go func() {
				uc, err := up.Accept()
				if err != nil {
					return
				}
				defer uc.Close()
				uc.SetDeadline(time.Now().Add(time.Minute))
				io.Copy(io.Discard, uc)
				closed <- struct{}{}
			}()
			root := plantest.Root(t, nil)
			logPath := filepath.Join(root, "logs", "access.log")
			plan := plantest.Load(t, root, `events {}
http {
    error_log `+root+`/logs/error.log;
    log_format st $status;
    access_log `+logPath+` st;
    server {
        listen 127.0.0.1:8080;
        location / { `+strings.Replace(c.pass, "UP", up.Addr().String(), 1)+` `+c.ignore+` }
    }
}
`)
			cc, err := net.Dial("tcp", servetest.Serve(t, plan))
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(cc, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
			time.Sleep(3 * proxy.ClientWatchAfter) // the request reaches the upstream, the watch starts
			cc.Close()
			if c.ignore != "" {
				select {
				case <-closed:
					t.Fatal("the upstream connection was closed although the client's abort is ignored")
				case <-time.After(500 * time.Millisecond):
				}
				return
			}
			select {
			case <-closed:
			case <-time.After(20 * time.Second):
				t.Fatal("the upstream connection stayed open after the client closed")
			}
			for end := time.Now().Add(10 * time.Second); ; {
				b, _ := os.ReadFile(logPath)
				if strings.TrimSpace(string(b)) == "499" {
					break
				}
				if time.Now().After(end) {
					t.Fatalf("access log %q, want 499", b)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
