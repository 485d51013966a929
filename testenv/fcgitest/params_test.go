// This file is the differential test of the CGI params: nginx and edge,
// with one configuration text and edge's fastcgi_params, in front of one
// php-fpm pool, receive the same raw requests for env.php, which prints
// every $_SERVER entry; every entry must be equal, except the few that
// must differ (the client's port, the request time) and the differences
// edge keeps on purpose, each listed with its reason.

package fcgitest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"
)

// paramsSite passes PHP the PATH_INFO way (fastcgi_split_path_info) and
// falls back to env.php as a front controller, so that SCRIPT_NAME,
// PATH_INFO, DOCUMENT_URI and REQUEST_URI all part ways somewhere.
const paramsSite = `
server {
    listen {{LISTEN}};
    server_name localhost example.test;
    root {{ROOT}};
    index index.php;

    location / {
        try_files $uri $uri/ /env.php?$args;
    }
    location ~ [^/]\.php(/|$) {
        fastcgi_split_path_info ^(.+?\.php)(/.*)$;
        # try_files resets $fastcgi_path_info (nginx ticket #321): keep it.
        set $path_info $fastcgi_path_info;
        try_files $fastcgi_script_name =404;
        fastcgi_pass {{PASS}};
        fastcgi_index index.php;
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        fastcgi_param PATH_INFO $path_info;
        fastcgi_param PATH_TRANSLATED $document_root$path_info;
    }
}
`

// paramCase is one raw request; {{HOST}} becomes "127.0.0.1:port" of the
// server it is sent to.
type paramCase struct {
	name string
	raw  string
}

func rawGet(name, target string, headers ...string) paramCase {
	return paramCase{name, rawRequest("GET", target, "", headers)}
}

// rawRequest builds an HTTP/1.1 request with Host, Connection: close, the
// headers and, if body is not empty, a Content-Length.
func rawRequest(method, target, body string, headers []string) string {
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\n")
	hasHost := false
	for _, h := range headers {
		if strings.HasPrefix(strings.ToLower(h), "host:") {
			hasHost = true
		}
	}
	if !hasHost {
		b.WriteString("Host: {{HOST}}\r\n")
	}
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	if body != "" {
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n" + body)
	return b.String()
}

var paramCases = []paramCase{
	rawGet("plain", "/env.php"),
	rawGet("query", "/env.php?a=1&b=%20x+y&c=%2F%3F&d=\xc3\xbc&e"),
	rawGet("path info", "/env.php/extra/path?q=1"),
	rawGet("path info slash", "/env.php/"),
	rawGet("path info encoded", "/env.php/a%20b/%C8%BA%C8%BA.jpg?x=%C8%BA"),
	rawGet("encoded script name", "/%65nv.php?x=1"),
	rawGet("dot segments", "/sub/dir/../../env.php"),
	rawGet("double slashes", "//env.php//x"),
	rawGet("front controller", "/blog/2024/post-name/?utm=1&x=%26"),
	rawGet("front controller encoded", "/blog/%C3%BCber%20uns/"),
	rawGet("directory index", "/pathinfo/?p=2"),
	rawGet("nested script", "/sub/dir/env.php?x"),
	{"head", rawRequest("HEAD", "/env.php?h=1", "", nil)},
	{"post form", rawRequest("POST", "/env.php?p=1", "a=1&b=two+words",
		[]string{"Content-Type: application/x-www-form-urlencoded"})},
	{"post chunked", "POST /env.php HTTP/1.1\r\nHost: {{HOST}}\r\nContent-Type: text/plain\r\n" +
		"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"},
	{"put json", rawRequest("PUT", "/env.php", `{"a":1}`, []string{"Content-Type: application/json; charset=utf-8"})},
	rawGet("headers", "/env.php", "User-Agent: edge-test/1.0", "Accept: */*", "Accept-Language: de-DE",
		"X-Forwarded-For: 10.0.0.1", "X-Forwarded-Proto: https", "Referer: http://example.test/a?b",
		"Authorization: Basic dXNlcjpwYXNz", "If-None-Match: \"abc\"", "X-Empty:"),
	rawGet("header with underscore", "/env.php", "X_Custom: under", "X-Custom: dash"),
	// httpoxy (CVE-2016-5385): edge never passes Proxy; nginx does, and
	// php-fpm 8.2 drops HTTP_PROXY itself, so PHP sees no difference.
	rawGet("proxy header", "/env.php", "Proxy: http://evil.example:8080"),
	rawGet("repeated header", "/env.php", "X-Multi: a", "X-Multi: b"),
	rawGet("repeated cookie", "/env.php", "Cookie: a=1", "Cookie: b=2"),
	rawGet("host with port", "/env.php", "Host: localhost:8080"),
	rawGet("other server name", "/env.php", "Host: example.test"),
	rawGet("unknown host", "/env.php", "Host: unknown.example"),
	rawGet("host upper case", "/env.php", "Host: LocalHost"),
	{"absolute form", "GET http://example.test/env.php?abs=1 HTTP/1.1\r\nHost: other.example\r\nConnection: close\r\n\r\n"},
	{"http 1.0 no host", "GET /env.php HTTP/1.0\r\n\r\n"},
	rawGet("missing script", "/missing.php"),
	rawGet("missing script with path info", "/missing.php/x"),
	rawGet("jpg with php path info", "/uploads/evil.jpg/x.php"),
	rawGet("case folding", "/uploads/%C8%BA%C8%BA%C8%BA%C8%BA.php.jpg/x.php"),
}

// knownEdgeBugs are differences where nginx is right and the fix lies
// outside the FastCGI handler; they are logged, not failed, until fixed,
// and the test fails once one no longer shows, so the entry is removed.
var knownEdgeBugs = map[string]map[string]string{}

// volatileParams change from one request to the next.
var volatileParams = map[string]bool{
	"REMOTE_PORT": true, "REQUEST_TIME": true, "REQUEST_TIME_FLOAT": true,
}

// intendedDiffs are the params edge sets differently from nginx 1.22 on
// purpose, by case name, with the reason. Each must show up: a listed
// difference that went away is reported too, so this list stays true.
var intendedDiffs = map[string]map[string]string{
	"repeated header": {
		"HTTP_X_MULTI": "nginx 1.22 sends one param per header line and PHP keeps the last; edge joins them with \", \" as RFC 9110 5.3 allows and as nginx 1.23 does",
	},
	"repeated cookie": {
		"HTTP_COOKIE": "nginx 1.22 sends one param per Cookie line and PHP keeps the last, losing cookies; edge joins them with \"; \" (RFC 6265 5.4) as nginx 1.23 does",
	},
}

func TestParamsMatchNginx(t *testing.T) {
	s := newSite(t, phpScripts, testenv.FPMOptions{})
	ng := s.startNginx(t, paramsSite)
	ed := s.startEdge(t, paramsSite)
	seen := map[string]map[string]bool{}
	same, buggy := 0, 0
	for _, c := range paramCases {
		t.Run(c.name, func(t *testing.T) {
			want, wantStatus := fetchEnv(t, ng, c.raw)
			got, gotStatus := fetchEnv(t, ed, c.raw)
			if gotStatus != wantStatus {
				t.Fatalf("status: edge %d, nginx %d\nrequest:\n%s", gotStatus, wantStatus, c.raw)
			}
			if want == nil {
				same++
				return
			}
			diffs, bugs := 0, 0
			for _, k := range unionKeys(want, got) {
				nv, nok := want[k]
				ev, eok := got[k]
				if volatileParams[k] || (nok == eok && nv == ev) {
					continue
				}
				if reason, ok := intendedDiffs[c.name][k]; ok {
					markSeen(seen, c.name, k)
					t.Logf("%s differs on purpose: nginx %s, edge %s: %s", k, show(nv, nok), show(ev, eok), reason)
					continue
				}
				if bug, ok := knownEdgeBugs[c.name][k]; ok {
					markSeen(seen, c.name, k)
					t.Logf("KNOWN BUG %s: nginx %s, edge %s: %s", k, show(nv, nok), show(ev, eok), bug)
					bugs++
					continue
				}
				diffs++
				t.Errorf("%s: nginx %s, edge %s", k, show(nv, nok), show(ev, eok))
			}
			switch {
			case diffs == 0 && bugs == 0:
				same++
			case diffs == 0:
				buggy++
			default:
				t.Logf("request:\n%s", c.raw)
			}
		})
	}
	for _, list := range []map[string]map[string]string{intendedDiffs, knownEdgeBugs} {
		for name, params := range list {
			for k := range params {
				if !seen[name][k] {
					t.Errorf("case %q: the listed difference in %s did not show up; update the list", name, k)
				}
			}
		}
	}
	t.Logf("PARAMS: %d of %d requests gave PHP the same params through edge as through nginx (intended differences aside), %d differed by a known edge bug",
		same, len(paramCases), buggy)
}

// fetchEnv sends raw to srv and returns env.php's params with srv's port
// replaced by {{PORT}}, or nil when the answer is not env.php's (an error
// status, or HEAD); and the status.
func fetchEnv(t *testing.T, srv *server, raw string) (map[string]string, int) {
	t.Helper()
	raw = strings.ReplaceAll(raw, "{{HOST}}", srv.addr)
	resp, err := testenv.DoRaw(srv.addr, raw)
	if err != nil {
		t.Fatalf("%s: %v", srv.name, err)
	}
	if resp.Status != 200 || len(resp.Body) == 0 {
		return nil, resp.Status
	}
	env := parseEnv(t, strings.ReplaceAll(string(resp.Body), strconv.Itoa(srv.port), "{{PORT}}"))
	return env, resp.Status
}

func markSeen(seen map[string]map[string]bool, name, key string) {
	if seen[name] == nil {
		seen[name] = map[string]bool{}
	}
	seen[name][key] = true
}

func unionKeys(a, b map[string]string) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func show(v string, ok bool) string {
	if !ok {
		return "(unset)"
	}
	return fmt.Sprintf("%q", v)
}

// responseHeaders are the response headers compared with nginx's; the
// rest (Date, Server, Connection, ...) name the server.
var responseHeaders = []string{"Content-Type", "Location", "Set-Cookie", "X-Big", "Cache-Control", "Expires"}

// TestResponsesMatchNginx compares what the client gets back from PHP
// through both servers: status, body and the headers PHP set, including
// a Location that PHP sent as "/..." (nginx leaves an upstream's
// relative Location as it is).
func TestResponsesMatchNginx(t *testing.T) {
	s := newSite(t, phpScripts, testenv.FPMOptions{})
	servers := []*server{s.startNginx(t, paramsSite), s.startEdge(t, paramsSite)}
	for _, c := range []paramCase{
		rawGet("hello", "/hello.php"),
		rawGet("cookies and redirect", "/cookie.php"),
		rawGet("redirect with host port", "/cookie.php", "Host: localhost:8080"),
		rawGet("not found from PHP", "/status.php?code=404"),
		rawGet("server error from PHP", "/status.php?code=503"),
		rawGet("response header 1KiB", "/respheader.php?n=1024"),
		rawGet("missing script", "/missing.php"),
		{"head", rawRequest("HEAD", "/hello.php", "", nil)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got [2]*testenv.RawResponse
			for i, srv := range servers {
				resp, err := testenv.DoRaw(srv.addr, strings.ReplaceAll(c.raw, "{{HOST}}", srv.addr))
				if err != nil {
					t.Fatalf("%s: %v", srv.name, err)
				}
				port := strconv.Itoa(srv.port)
				for _, name := range responseHeaders {
					for j, v := range resp.Header[name] {
						resp.Header[name][j] = strings.ReplaceAll(v, port, "{{PORT}}")
					}
				}
				got[i] = resp
			}
			ng, ed := got[0], got[1]
			if ng.Status != ed.Status {
				t.Errorf("status: nginx %d, edge %d", ng.Status, ed.Status)
			}
			if ng.Status == 200 && string(ng.Body) != string(ed.Body) {
				t.Errorf("body: nginx %.200q, edge %.200q", ng.Body, ed.Body)
			}
			for _, name := range responseHeaders {
				if !slices.Equal(ng.Header[name], ed.Header[name]) {
					t.Errorf("%s: nginx %q, edge %q", name, ng.Header[name], ed.Header[name])
				}
			}
		})
	}
}
