package proxy

import (
	"strings"
	"testing"
)

// TestProxyCache drives proxy_cache through the pipeline against a
// recording backend: the default key, proxy_cache_convert_head both ways,
// the conditional headers kept from the upstream, and $upstream_cache_status.
func TestProxyCache(t *testing.T) {
	be := startRecordingBackend(t, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nCache-Control: max-age=60\r\nConnection: close\r\n\r\nbody")
	text := strings.ReplaceAll(`
events {}
http {
    proxy_cache_path {{ROOT}}/cache keys_zone=P:1m;
    server {
        listen 8080;
        proxy_cache P;
        location /c/ { proxy_pass http://BACKEND/; proxy_cache_purge PURGE; }
        location /h/ { proxy_pass http://BACKEND/; proxy_cache_convert_head off; proxy_cache_key $request_method$request_uri; }
        location /m/ { proxy_pass http://BACKEND/; proxy_method POST; }
    }
}
`, "BACKEND", be.addr)
	rt, _ := testPipeline(t, text, nil)
	steps := []struct {
		name, method, target string
		headers              benchHeaders
		status               string // $upstream_cache_status
		sent                 string // the request line the backend got; "" when it got none
		body                 string
	}{
		{"HEAD goes as GET", "HEAD", "/c/x", nil, "MISS", "GET /x HTTP/1.0\r\n", "body"},
		{"its entry answers GET", "GET", "/c/x", nil, "HIT", "", "body"},
		{"conditional headers are not passed", "GET", "/c/y", benchHeaders{{"If-Modified-Since", "Tue, 01 Dec 2020 00:00:00 GMT"}, {"Range", "bytes=0-1"}}, "MISS", "GET /y HTTP/1.0\r\n", ""},
		{"convert_head off sends HEAD", "HEAD", "/h/x", nil, "MISS", "HEAD /x HTTP/1.0\r\n", ""},
		{"and GET has its own entry", "GET", "/h/x", nil, "MISS", "GET /x HTTP/1.0\r\n", "body"},
		{"convert_head wins over proxy_method", "HEAD", "/m/x", nil, "MISS", "GET /x HTTP/1.0\r\n", ""},
		{"proxy_method for a GET", "GET", "/m/z", nil, "MISS", "POST /z HTTP/1.0\r\n", ""},
		{"a PURGE finds the default key", "PURGE", "/c/x", nil, "", "", "Key : http" + be.addr + "/c/x"},
		{"after the purge", "GET", "/c/x", nil, "MISS", "GET /x HTTP/1.0\r\n", "body"},
	}
	for _, s := range steps {
		be.mu.Lock()
		before := len(be.heads)
		be.mu.Unlock()
		r := serveFake(t, rt, s.method, s.target, s.headers)
		if got := r.cache.status.String(); got != s.status {
			t.Errorf("%s: $upstream_cache_status %q, want %q", s.name, got, s.status)
		}
		be.mu.Lock()
		heads := append([]string(nil), be.heads[before:]...)
		be.mu.Unlock()
		switch {
		case s.sent == "" && len(heads) != 0:
			t.Errorf("%s: the backend got %q, want nothing", s.name, heads)
		case s.sent != "" && (len(heads) != 1 || !strings.HasPrefix(heads[0], s.sent)):
			t.Errorf("%s: the backend got %q, want %q", s.name, heads, s.sent)
		}
		if s.name == "conditional headers are not passed" && len(heads) == 1 &&
			(strings.Contains(heads[0], "If-Modified-Since") || strings.Contains(heads[0], "Range")) {
			t.Errorf("%s: the backend got %q", s.name, heads[0])
		}
		if s.body != "" && !strings.Contains(body(t, r), s.body) {
			t.Errorf("%s: body %q, want %q in it", s.name, body(t, r), s.body)
		}
	}
}
