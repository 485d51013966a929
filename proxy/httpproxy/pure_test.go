package httpproxy

import (
	"regexp"
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		url                                         string
		network, address, proxyHost, proxyPort, uri string
	}{
		{"http://127.0.0.1:8081", "tcp", "127.0.0.1:8081", "127.0.0.1:8081", "8081", ""},
		{"http://127.0.0.1:8081/", "tcp", "127.0.0.1:8081", "127.0.0.1:8081", "8081", "/"},
		{"http://backend", "tcp", "backend:80", "backend", "80", ""},
		{"http://backend:80/x/", "tcp", "backend:80", "backend", "80", "/x/"},
		{"https://example.com", "tcp", "example.com:443", "example.com", "443", ""},
		{"https://example.com:8443/a?b", "tcp", "example.com:8443", "example.com:8443", "8443", "/a?b"},
		{"HTTP://h?x=1", "tcp", "h:80", "h", "80", "/?x=1"},
		{"http://[::1]:8080/u", "tcp", "[::1]:8080", "[::1]:8080", "8080", "/u"},
		{"http://[::1]", "tcp", "[::1]:80", "[::1]", "80", ""},
		{"http://unix:/tmp/s.sock", "unix", "/tmp/s.sock", "localhost", "", ""},
		{"http://unix:/tmp/s.sock:/uri/", "unix", "/tmp/s.sock", "localhost", "", "/uri/"},
	}
	for _, tt := range tests {
		got, err := ParseTarget(tt.url)
		if err != nil {
			t.Errorf("%s: %v", tt.url, err)
			continue
		}
		if got.Network != tt.network || got.Address != tt.address || got.ProxyHost != tt.proxyHost ||
			got.ProxyPort != tt.proxyPort || got.URI != tt.uri {
			t.Errorf("%s: got %+v", tt.url, got)
		}
	}
	for _, bad := range []string{"ftp://x", "http://", "http://:80", "http://h:0", "http://h:65536", "http://h:8x", "http://[::1", "http://unix:"} {
		if _, err := ParseTarget(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestUpstreamURI follows the proxy_pass section of nginx's documentation
// (ngx_http_proxy_module.html#proxy_pass) case by case.
func TestUpstreamURI(t *testing.T) {
	tests := []struct {
		name string
		r    URIRequest
		want string
	}{
		{"URI part replaces the location prefix",
			URIRequest{PassURI: "/remote/", Location: "/name/", URI: "/name/a/b", RequestURI: "/name/a/b", RequestURIValid: true},
			"/remote/a/b"},
		{"URI part, arguments appended",
			URIRequest{PassURI: "/", Location: "/name/", URI: "/name/x", Args: "a=1&b", RequestURI: "/name/x?a=1&b", RequestURIValid: true},
			"/x?a=1&b"},
		{"URI part, the normalized URI is sent, not the raw one",
			URIRequest{PassURI: "/r/", Location: "/name/", URI: "/name/c", RequestURI: "/name//./b/../c", RequestURIValid: true},
			"/r/c"},
		{"URI part, a decoded URI is escaped again when the target was",
			URIRequest{PassURI: "/r/", Location: "/n/", URI: "/n/a b#?%\x7f\xc3\xa9", RequestURI: "/n/a%20b%23%3F%25%7F%C3%A9", RequestURIValid: true, Escape: true},
			"/r/a%20b%23%3F%25%7F%C3%A9"},
		{"URI part, no escape when the target had none",
			URIRequest{PassURI: "/r/", Location: "/n/", URI: "/n/a+b", RequestURI: "/n/a+b", RequestURIValid: true},
			"/r/a+b"},
		{"no URI part: the request target as the client sent it",
			URIRequest{Location: "/name/", URI: "/name/c", RequestURI: "/name//./b/../c?x=%41", RequestURIValid: true},
			"/name//./b/../c?x=%41"},
		{"no URI part after a rewrite: the changed URI, escaped",
			URIRequest{Location: "/", URI: "/new path", Args: "q=1", RequestURI: "/old", Escape: true},
			"/new%20path?q=1"},
		{"URI part after rewrite ... break: the whole changed URI, the URI part ignored",
			URIRequest{PassURI: "/link/", Location: "/name/", LocationChanged: true, URI: "/users/7", Args: "a=b", Escape: true},
			"/users/7?a=b"},
		{"URI part, the location is the whole URI (= location)",
			URIRequest{PassURI: "/x", Location: "/exact", URI: "/exact", RequestURI: "/exact", RequestURIValid: true},
			"/x"},
		{"URI part with '=' location and arguments",
			URIRequest{PassURI: "/x", Location: "/exact", URI: "/exact", Args: "y", RequestURI: "/exact?y", RequestURIValid: true},
			"/x?y"},
		{"variables with a URI part: that URI as is, arguments not added",
			URIRequest{PassURI: "/a/b?c=d", Variables: true, Location: "/n/", URI: "/n/z", Args: "q", RequestURI: "/n/z?q", RequestURIValid: true},
			"/a/b?c=d"},
		{"variables without a URI part: the original target",
			URIRequest{Variables: true, Location: "/n/", URI: "/n/z", Args: "q", RequestURI: "/n/z?q", RequestURIValid: true},
			"/n/z?q"},
		{"regex location (no prefix), no URI part",
			URIRequest{URI: "/a.php", RequestURI: "/a.php?x", RequestURIValid: true},
			"/a.php?x"},
		{"named location after try_files: the current URI",
			URIRequest{URI: "/index.php", Args: "q=/x", Escape: true},
			"/index.php?q=/x"},
	}
	for _, tt := range tests {
		if got := UpstreamURI(&tt.r); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	if err := CheckURIPart("/x", false, true); err == nil || !strings.Contains(err.Error(), "cannot have URI part") {
		t.Errorf("URI part in a regex location: %v", err)
	}
	if err := CheckURIPart("/x", true, true); err != nil {
		t.Errorf("URI part through variables: %v", err)
	}
	if err := CheckURIPart("", false, true); err != nil {
		t.Errorf("no URI part: %v", err)
	}
}

func regexRule(pattern, repl string) func(string) (string, bool) {
	re := regexp.MustCompile(pattern)
	return func(v string) (string, bool) {
		m := re.FindStringSubmatchIndex(v)
		if m == nil {
			return "", false
		}
		return string(re.ExpandString(nil, repl, v, m)), true
	}
}

// TestRedirect follows nginx's proxy_redirect documentation and
// nginx-tests' proxy_redirect.t.
func TestRedirect(t *testing.T) {
	tgt, _ := ParseTarget("http://localhost:8000/two/")
	def := DefaultRedirect("http://localhost:8000/two/", &tgt, "/one/")
	noURI, _ := ParseTarget("http://127.0.0.1:8081")
	defNoURI := DefaultRedirect("http://127.0.0.1:8081", &noURI, "/any/")
	tests := []struct {
		name  string
		rules []Rule
		in    string
		want  string
		ok    bool
	}{
		{"default: the proxied URL becomes the location", []Rule{def}, "http://localhost:8000/two/some/uri/", "/one/some/uri/", true},
		{"default: other hosts stay", []Rule{def}, "http://other/two/x", "http://other/two/x", false},
		{"default: case matters", []Rule{def}, "http://LOCALHOST:8000/two/x", "http://LOCALHOST:8000/two/x", false},
		{"default without URI part", []Rule{defNoURI}, "http://127.0.0.1:8081/x?y", "/x?y", true},
		{"explicit with a host", []Rule{{From: "http://localhost:8000/two/", To: "http://frontend/one/"}}, "http://localhost:8000/two/a", "http://frontend/one/a", true},
		{"relative from", []Rule{{From: "/", To: "/"}}, "/x", "/x", true},
		{"first match wins", []Rule{{From: "/a/", To: "/1/"}, {From: "/a/b", To: "/2/"}}, "/a/b", "/1/b", true},
		{"regex", []Rule{{Regex: regexRule(`^http://[^:]+:\d+(/.+)$`, "http://frontend$1")}}, "http://u:9/x/y", "http://frontend/x/y", true},
		{"regex no match", []Rule{{Regex: regexRule(`^https://`, "x")}}, "http://u/x", "http://u/x", false},
	}
	for _, tt := range tests {
		got, ok := RewriteLocation(tt.rules, tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: got %q %v, want %q %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	got, ok := RewriteRefresh([]Rule{def}, "5; URL=http://localhost:8000/two/z")
	if got != "5; URL=/one/z" || !ok {
		t.Errorf("Refresh: got %q %v", got, ok)
	}
	if got, ok := RewriteRefresh([]Rule{def}, "5"); got != "5" || ok {
		t.Errorf("Refresh without url: got %q %v", got, ok)
	}
}

func TestRewriteSetCookie(t *testing.T) {
	tests := []struct {
		name string
		c    CookieRewrite
		in   string
		want string
		ok   bool
	}{
		{"domain, the dot kept",
			CookieRewrite{Domains: []Rule{{From: "localhost", To: "example.org"}}},
			"a=b; Domain=.localhost; Path=/", "a=b; Domain=.example.org; Path=/", true},
		{"domain, case-insensitive, whole value",
			CookieRewrite{Domains: []Rule{{From: ".LocalHost", To: "x.org"}}},
			"a=b; domain=localhost", "a=b; domain=x.org", true},
		{"domain, a longer one does not match",
			CookieRewrite{Domains: []Rule{{From: "localhost", To: "x"}}},
			"a=b; domain=sub.localhost", "a=b; domain=sub.localhost", false},
		{"domain regex",
			CookieRewrite{Domains: []Rule{{Regex: regexRule(`^\.?([a-z]+)\.internal$`, "$1.example.org")}}},
			"a=b;domain=app.internal", "a=b; domain=app.example.org", true},
		{"path prefix, spaces normalized",
			CookieRewrite{Paths: []Rule{{From: "/two/", To: "/"}}},
			"a=b ;  Path = /two/some ; HttpOnly", "a=b; Path=/some; HttpOnly", true},
		{"path is case-sensitive",
			CookieRewrite{Paths: []Rule{{From: "/two/", To: "/"}}},
			"a=b; path=/TWO/x", "a=b; path=/TWO/x", false},
		{"no cookie value: left alone",
			CookieRewrite{Paths: []Rule{{From: "/", To: "/x"}}},
			"novalue; path=/", "novalue; path=/", false},
		{"flags added",
			CookieRewrite{Flags: []CookieFlags{{Cookie: "SID", Flags: []string{"secure", "httponly", "samesite=strict"}}}},
			"sid=1; path=/", "sid=1; path=/; Secure; HttpOnly; SameSite=Strict", true},
		{"flags already there are not repeated",
			CookieRewrite{Flags: []CookieFlags{{Cookie: "sid", Flags: []string{"secure", "samesite=lax"}}}},
			"sid=1; secure; samesite=LAX", "sid=1; secure; samesite=LAX", true},
		{"samesite replaced",
			CookieRewrite{Flags: []CookieFlags{{Cookie: "sid", Flags: []string{"samesite=none"}}}},
			"sid=1; SameSite=Lax", "sid=1; SameSite=None", true},
		{"flags removed",
			CookieRewrite{Flags: []CookieFlags{{Cookie: "sid", Flags: []string{"nosecure", "nohttponly", "nosamesite"}}}},
			"sid=1; Secure; path=/; HttpOnly; SameSite=Strict", "sid=1; path=/", true},
		{"other cookie untouched",
			CookieRewrite{Flags: []CookieFlags{{Cookie: "sid", Flags: []string{"secure"}}}},
			"other=1", "other=1", false},
		{"regex on the cookie name, first entry wins",
			CookieRewrite{Flags: []CookieFlags{{Regex: regexp.MustCompile(`^s`).MatchString, Flags: []string{"httponly"}}, {Cookie: "sid", Flags: []string{"secure"}}}},
			"sid=1", "sid=1; HttpOnly", true},
		{"unknown flags only: nothing applied",
			CookieRewrite{Flags: []CookieFlags{{Cookie: "sid", Flags: []string{"bogus"}}}},
			"sid=1 ;x", "sid=1 ;x", false},
	}
	for _, tt := range tests {
		got, ok := RewriteSetCookie(&tt.c, tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: got %q %v, want %q %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAppendHead(t *testing.T) {
	r := &Request{
		Method: "POST", URI: "/x?y", ProxyHost: "backend:8080",
		Set: []Header{{"X-Real-IP", "192.0.2.1"}, {"Host", "front"}, {"Accept-Encoding", ""}},
		Client: []Header{
			{"host", "client"}, {"Connection", "keep-alive"}, {"Keep-Alive", "300"},
			{"TE", "trailers"}, {"Expect", "100-continue"}, {"Upgrade", "websocket"},
			{"Content-Length", "3"}, {"Transfer-Encoding", "chunked"}, {"accept-encoding", "gzip"},
			{"Cookie", "a=1"}, {"cookie", "b=2"}, {"Proxy-Connection", "x"},
		},
	}
	got := string(appendHead(nil, r, 3, false))
	want := "POST /x?y HTTP/1.0\r\nX-Real-IP: 192.0.2.1\r\nHost: front\r\nConnection: close\r\nContent-Length: 3\r\n" +
		"Cookie: a=1\r\ncookie: b=2\r\nProxy-Connection: x\r\n\r\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	r = &Request{Method: "GET", URI: "/", HTTP11: true, ProxyHost: "h", Set: []Header{{"Connection", ""}}, NoClientHeaders: true,
		Client: []Header{{"Cookie", "a"}}}
	got = string(appendHead(nil, r, -1, true))
	want = "GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestParseStatusLine(t *testing.T) {
	tests := []struct {
		line   string
		code   int
		http11 bool
		reason string
		ok     bool
	}{
		{"HTTP/1.1 200 OK\r\n", 200, true, "OK", true},
		{"HTTP/1.0 404 Not Found\n", 404, false, "Not Found", true},
		{"HTTP/1.1 204\r\n", 204, true, "", true},
		{"HTTP/2.0 200 X\r\n", 200, true, "X", true},
		{"HTTP/1.1 200 \r\n", 200, true, "", true},
		{"HTTP/0.9 200 OK\r\n", 0, false, "", false},
		{"HTTP/1.1 20 OK\r\n", 0, false, "", false},
		{"HTTP/1.1 2000 OK\r\n", 0, false, "", false},
		{"HTTP/1.1 abc OK\r\n", 0, false, "", false},
		{"HTTP/1 200 OK\r\n", 0, false, "", false},
		{"http/1.1 200 OK\r\n", 0, false, "", false},
		{"HTTP/1.1 200 O\rK\r\n", 0, false, "", false},
		{"ICY 200 OK\r\n", 0, false, "", false},
	}
	for _, tt := range tests {
		code, http11, reason, ok := parseStatusLine([]byte(tt.line))
		if code != tt.code || http11 != tt.http11 || string(reason) != tt.reason || ok != tt.ok {
			t.Errorf("%q: got %d %v %q %v", tt.line, code, http11, reason, ok)
		}
	}
}

func TestHideHeaders(t *testing.T) {
	h := NewHideHeaders([]string{"X-Powered-By"}, []string{"server", "x-powered-by"})
	for name, hidden := range map[string]bool{
		"Date": true, "Server": false, "X-Pad": true, "X-Accel-Redirect": true,
		"X-Powered-By": false, "Content-Type": false,
	} {
		if h.Hidden(name) != hidden {
			t.Errorf("%s: hidden %v", name, !hidden)
		}
	}
	if !DefaultHide.Hidden("server") || DefaultHide.Hidden("Location") {
		t.Error("DefaultHide")
	}
}

func TestAddXForwardedFor(t *testing.T) {
	if got := AddXForwardedFor(nil, "192.0.2.1"); got != "192.0.2.1" {
		t.Errorf("none: %q", got)
	}
	client := []Header{{"X-Forwarded-For", "10.0.0.1"}, {"Accept", "*/*"}, {"x-forwarded-for", "10.0.0.2, 10.0.0.3"}}
	if got := AddXForwardedFor(client, "192.0.2.1"); got != "10.0.0.1, 10.0.0.2, 10.0.0.3, 192.0.2.1" {
		t.Errorf("two headers: %q", got)
	}
}
