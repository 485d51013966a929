// This file holds the HTTP backend of the proxy scenario (issue 17): a
// small Go server in the harness's own process that both servers'
// proxy_pass reach through one upstream{} with the same keepalive, so
// the upstream's cost is the same for both and is not counted in either
// server's CPU (edge ab counts the server processes and php-fpm only).

package ab

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

// proxyUpstream is the built-in site's upstream{} for the backend, and
// proxyKeepalive its keepalive (per nginx worker; edge is one process).
const (
	proxyUpstream  = "ab_backend"
	proxyKeepalive = 32
	// proxied1k is the proxy scenario's path: a 1 KiB answer.
	proxied1k = "proxied-1k"
)

// httpBackend is the running backend.
type httpBackend struct {
	addr string
	srv  *http.Server
}

// startHTTPBackend serves GET /1k (1 KiB of text, with a Content-Length,
// kept alive) on a free loopback port until stop.
func startHTTPBackend() (*httpBackend, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("ab: proxy backend: %w", err)
	}
	body := testBytes(1024)
	length := strconv.Itoa(len(body))
	mux := http.NewServeMux()
	mux.HandleFunc("/1k", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"text/plain"}
		h["Content-Length"] = []string{length}
		_, _ = w.Write(body)
	})
	b := &httpBackend{addr: ln.Addr().String(), srv: &http.Server{Handler: mux, IdleTimeout: 5 * time.Minute}}
	go func() { _ = b.srv.Serve(ln) }()
	return b, nil
}

func (b *httpBackend) stop() { _ = b.srv.Close() }

// proxyConfig is the built-in site's upstream{} for the backend at addr.
func proxyConfig(addr string) string {
	return fmt.Sprintf(`    # issue 17: the backend of the proxy scenario, the same keepalive
    # for both servers
    upstream %s {
        server %s;
        keepalive %d;
    }
`, proxyUpstream, addr, proxyKeepalive)
}

// proxyLocation is the plain server's location that proxies to it.
func proxyLocation() string {
	return fmt.Sprintf(`        location = /%s/%s {
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_pass http://%s/1k;
        }
`, testDir, proxied1k, proxyUpstream)
}
