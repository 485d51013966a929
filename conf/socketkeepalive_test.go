package conf

import "testing"

// TestSocketKeepalive: proxy_socket_keepalive and
// fastcgi_socket_keepalive are off by default, as nginx's, and inherit
// into locations that do not set them.
func TestSocketKeepalive(t *testing.T) {
	body := `
server {
    listen 8080;
    proxy_socket_keepalive on;
    location /inherit/ { }
    location /own/ { proxy_socket_keepalive off; fastcgi_socket_keepalive on; }
}
`
	locs := prefixLocations(t, body)
	for _, tc := range []struct {
		path           string
		proxy, fastcgi bool
	}{{"/inherit/", true, false}, {"/own/", false, true}} {
		l := locs[tc.path]
		if l == nil {
			t.Fatalf("no location %s", tc.path)
		}
		if l.Proxy.SocketKeepalive != tc.proxy || l.FastCGI.SocketKeepalive != tc.fastcgi {
			t.Errorf("%s: proxy %v fastcgi %v, want %v and %v", tc.path, l.Proxy.SocketKeepalive, l.FastCGI.SocketKeepalive, tc.proxy, tc.fastcgi)
		}
	}
	if _, err := LoadText("edge.conf", []byte("events {}\nhttp {\nproxy_socket_keepalive maybe;\n}\n"), LoadOptions{Prefix: t.TempDir()}); err == nil {
		t.Error("proxy_socket_keepalive maybe: accepted")
	}
}
