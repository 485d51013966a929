package listen_test

import (
	"bufio"
	"edge/proxy/internal/plantest"
	"edge/proxy/listen"
	"edge/testenv"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestReloadClosesIdleUpstreamConnections: the upstream connections an
// upstream{} with keepalive kept idle are closed when a reload replaces
// the configuration (nginx's old workers close theirs), and the new
// configuration opens its own.
func TestReloadClosesIdleUpstreamConnections(t *testing.T) {
	closed := make(chan int, 16) // the number of the connection that ended
	addr := plantest.Loopback(t, func(c net.Conn, n int) {
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				closed <- n
				return
			}
			if line == "\r\n" {
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n%d", n)
			}
		}
	})
	port := testenv.FreePort(t)
	text := fmt.Sprintf(`error_log stderr emerg;
events {}
http {
    access_log off;
    upstream up { server %s; keepalive 4; }
    server {
        listen 127.0.0.1:%d;
        location / { proxy_http_version 1.1; proxy_set_header Connection ""; proxy_pass http://up; }
    }
}
`, addr, port)
	s := listen.NewServer(listen.Options{ErrorLog: plantest.SilentLog()})
	if err := s.Apply(plantest.Load(t, t.TempDir(), text)); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func() string {
		t.Helper()
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(body)
	}
	if a, b := get(), get(); a != "1" || b != "1" {
		t.Fatalf("answers from connections %s and %s, want 1 and 1 (kept alive)", a, b)
	}
	select {
	case n := <-closed:
		t.Fatalf("connection %d closed before the reload", n)
	default:
	}
	if err := s.Apply(plantest.Load(t, t.TempDir(), text)); err != nil {
		t.Fatalf("reload: %v", err)
	}
	select {
	case n := <-closed:
		if n != 1 {
			t.Fatalf("connection %d closed, want 1", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the old configuration's idle upstream connection is still open after the reload")
	}
	if c := get(); c != "2" {
		t.Fatalf("after the reload: connection %s, want a new one (2)", c)
	}
	// Stopping closes the current configuration's too.
	s.Close()
	select {
	case n := <-closed:
		if n != 2 {
			t.Fatalf("connection %d closed at stop, want 2", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the idle upstream connection is still open after Close")
	}
}
