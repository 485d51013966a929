package listen_test

import (
	"edge/proxy/internal/plantest"
	"edge/proxy/listen"
	"edge/testenv"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// TestWildcardServesSpecificAddress: with "listen P" (every address) and
// "listen 127.0.0.1:P" in another server, nginx opens one socket, the
// wildcard's, and serves 127.0.0.1 by its own server; edge failed to bind
// the second address (98: Address already in use). A reload keeps both.
func TestWildcardServesSpecificAddress(t *testing.T) {
	port := testenv.FreePort(t)
	text := fmt.Sprintf(`error_log stderr emerg;
events {}
http {
    access_log off;
    server { listen %d; location / { return 200 "wild\n"; } }
    server { listen 127.0.0.1:%d; location / { return 200 "local\n"; } }
}
`, port, port)
	s := listen.NewServer(listen.Options{ErrorLog: plantest.SilentLog()})
	if err := s.Apply(plantest.Load(t, t.TempDir(), text)); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func() {
		t.Helper()
		for host, want := range map[string]string{"127.0.0.1": "local\n", "127.0.0.2": "wild\n"} {
			resp, err := http.Get(fmt.Sprintf("http://%s:%d/", host, port))
			if err != nil {
				t.Fatalf("%s: %v", host, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != want {
				t.Errorf("%s: %q, want %q", host, body, want)
			}
		}
	}
	check()
	if err := s.Apply(plantest.Load(t, t.TempDir(), text)); err != nil {
		t.Fatalf("reload: %v", err)
	}
	check()
}
