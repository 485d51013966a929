// This file tests the pipeline without a process or a socket: a
// configuration text is compiled and a request, as an engine would hand
// it over, is served by the site built from it; the tables check the
// location chosen, rewrites, byte ranges and gzip's eligibility.
package proxy

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"edge/conf"
	"edge/proxy/internal/plantest"
)

// testPipeline compiles text (with {{ROOT}} replaced by a temporary
// directory, which holds html/ and logs/) and returns its site and root.
func testPipeline(t testing.TB, text string, files map[string]string) (*Site, string) {
	t.Helper()
	root := testRoot(t, files)
	return testSite(t, loadTestPlan(t, root, strings.ReplaceAll(text, "{{ROOT}}", root))), root
}

// testRoot makes a temporary directory holding logs/ and html/ with
// files (names relative to html/), and returns it.
func testRoot(t testing.TB, files map[string]string) string { return plantest.Root(t, files) }

// fakeRequest is a request as an engine hands it to the pipeline: from
// 192.0.2.10:50000 to the plan's first listen address (port 8080), over
// HTTP/1.1, with Host example.com unless headers name one.
func fakeRequest(rt *Site, method, target string, headers benchHeaders) *Request {
	r := AcquireRequest()
	r.Conn = &ConnInfo{ID: 1, Start: time.Now(), Remote: netip.MustParseAddrPort("192.0.2.10:50000"),
		Local: netip.MustParseAddrPort("127.0.0.1:8080"), Port: "8080", Group: rt.plan.HTTP.Listens[0],
		RemoteText: "192.0.2.10", LocalText: "127.0.0.1"}
	r.Start = time.Now()
	r.Method, r.RawTarget, r.Proto = method, target, "HTTP/1.1"
	r.HostHeader = "example.com"
	if h := headers.Get("Host"); h != "" {
		r.HostHeader = h
	}
	r.Header = headers
	return r
}

// serveFake serves a fake request through the whole pipeline and returns
// it with its Response (status, headers, body) filled in.
func serveFake(t *testing.T, rt *Site, method, target string, headers benchHeaders) *Request {
	t.Helper()
	r := fakeRequest(rt, method, target, headers)
	rt.Serve(r)
	t.Cleanup(func() {
		if r.resp.Kind == BodyFile && r.resp.File != nil {
			r.resp.File.Close()
		}
	})
	return r
}

// routeFake runs a fake request through server selection, the rewrites
// and the location search, and stops before the content phase: r.loc,
// r.uri and r.args are what the content handler would see.
func routeFake(t *testing.T, rt *Site, method, target string, headers benchHeaders) *Request {
	t.Helper()
	r := fakeRequest(rt, method, target, headers)
	r.rt = rt
	pt, err := parseTarget(target, true)
	if err != nil {
		t.Fatalf("target %q: %v", target, err)
	}
	host, _ := validateHost(r.HostHeader)
	r.host = host
	srv, err := rt.plan.HTTP.Listens[0].Lookup(host, func(re *conf.Regex) (bool, error) { return matchRegex(r, re, host) })
	if err != nil {
		t.Fatal(err)
	}
	r.srv, r.loc = srv, srv.Loc
	r.uri, r.args, r.exten = pt.path, pt.args, pt.exten
	r.uriChanges = maxURIChanges + 1
	for next := stepServerRewrite; next != stepAfterRewrite; {
		var status int
		if next, status = rt.phase(r, next); status != 0 || next == stepDone {
			t.Fatalf("%s %s: ended before the content phase (status %d)", method, target, status)
		}
	}
	return r
}

// body is a served response's body as text.
func body(t *testing.T, r *Request) string {
	t.Helper()
	switch r.resp.Kind {
	case BodyBytes:
		return string(r.resp.Bytes)
	case BodyFile:
		b := make([]byte, r.resp.Length)
		if _, err := r.resp.File.ReadAt(b, r.resp.Offset); err != nil {
			t.Fatal(err)
		}
		return string(b)
	case BodyStream:
		var buf strings.Builder
		if err := r.resp.Stream(&buf, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	return ""
}

// locationConf has one location of each kind; each answers with its name.
const locationConf = `events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080;
        server_name example.com;
        location / { return 200 "prefix /"; }
        location = / { return 200 "exact /"; }
        location /images/ { return 200 "prefix /images/"; }
        location ^~ /static/ { return 200 "^~ /static/"; }
        location ~* \.(gif|jpg)$ { return 200 "regex image"; }
        location ~ ^/static/.*\.css$ { return 200 "regex css"; }
        location ~ \.css$ { return 200 "regex any css"; }
        location /nested/ {
            location ~ \.txt$ { return 200 "nested regex"; }
            return 200 "prefix /nested/";
        }
        location = /exact/ { return 200 "exact /exact/"; }
        location /exact/ { return 200 "prefix /exact/"; }
        location /internal/ { internal; return 200 "internal"; }
    }
    server {
        listen 127.0.0.1:8080;
        server_name other.test *.wild.test;
        location / { return 200 "other server"; }
    }
}
`

// TestLocationChoice: nginx's search order (ngx_http_core_find_location):
// "=" ends it, the longest prefix is remembered, "^~" on it skips the
// regexps, else the first matching regexp in file order wins, else the
// prefix; nested locations are searched inside the prefix found. The
// server is chosen by Host first.
func TestLocationChoice(t *testing.T) {
	rt, _ := testPipeline(t, locationConf, nil)
	for _, tc := range []struct {
		target, host string
		status       int
		want         string
	}{
		{"/", "", 200, "exact /"},
		{"/index.html", "", 200, "prefix /"},
		{"/images/a.html", "", 200, "prefix /images/"},
		{"/images/a.gif", "", 200, "regex image"},
		{"/IMAGES/A.GIF", "", 200, "regex image"}, // ~* ignores case
		{"/static/a.gif", "", 200, "^~ /static/"}, // ^~ skips the regexps
		{"/static/a.css", "", 200, "^~ /static/"},
		{"/a.css", "", 200, "regex any css"},
		{"/nested/a.txt", "", 200, "nested regex"},
		{"/nested/a.html", "", 200, "prefix /nested/"},
		{"/exact/", "", 200, "exact /exact/"},
		{"/exact/x", "", 200, "prefix /exact/"},
		{"/%69mages/a.html", "", 200, "prefix /images/"}, // decoded before the search
		{"/images/../static/a.gif", "", 200, "^~ /static/"},
		{"/internal/x", "", 404, ""},
		{"/", "other.test", 200, "other server"},
		{"/", "a.wild.test", 200, "other server"},
		{"/", "unknown.test", 200, "exact /"}, // the default server
	} {
		h := benchHeaders{}
		if tc.host != "" {
			h = benchHeaders{{"Host", tc.host}}
		}
		r := serveFake(t, rt, "GET", tc.target, h)
		if got := body(t, r); r.resp.Status != tc.status || tc.want != "" && got != tc.want {
			t.Errorf("%s (Host %q): %d %q, want %d %q", tc.target, tc.host, r.resp.Status, got, tc.status, tc.want)
		}
	}
}

// rewriteConf exercises rewrite's flags, set, if and return.
const rewriteConf = `events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080;
        server_name example.com;
        rewrite ^/old/(.*)$ /new/$1 last;
        location /new/ { return 200 "new $uri $args"; }
        location /perm/ { rewrite ^/perm/(.*)$ /target/$1 permanent; }
        location /redir/ { rewrite ^ /target/?x=1 redirect; }
        location /args/ { rewrite ^ /new/x?b=2; }
        location /noargs/ { rewrite ^ /new/y? last; }
        location /loop/ { rewrite ^ /loop/ last; }
        location /set/ { set $v "v=$arg_q"; return 200 $v; }
        location /if/ { if ($arg_x = 1) { return 403; } return 200 ok; }
        location /named/ { try_files /nothing @back; }
        location @back { return 200 "named $uri"; }
        location /capture/ { rewrite ^/capture/(?<word>[a-z]+)/(\d+)$ /new/$2-$word last; }
    }
}
`

// TestRewrite: the rewrite module's answers for each flag, with args kept
// or dropped as nginx does, and its 10-change limit.
func TestRewrite(t *testing.T) {
	rt, _ := testPipeline(t, rewriteConf, nil)
	for _, tc := range []struct {
		target   string
		status   int
		body     string // when not empty
		location string // Location header's end, when not empty
	}{
		{"/old/a?z=1", 200, "new /new/a z=1", ""},
		{"/perm/a", 301, "", "/target/a"},
		{"/redir/a?y=2", 302, "", "/target/?x=1&y=2"},
		{"/args/?a=1", 200, "new /new/x b=2&a=1", ""},
		{"/noargs/?a=1", 200, "new /new/y ", ""},
		{"/loop/", 500, "", ""},
		{"/set/?q=7", 200, "v=7", ""},
		{"/if/?x=1", 403, "", ""},
		{"/if/?x=2", 200, "ok", ""},
		{"/named/", 200, "named /named/", ""},
		{"/capture/abc/42", 200, "new /new/42-abc ", ""},
	} {
		r := serveFake(t, rt, "GET", tc.target, nil)
		got := body(t, r)
		if r.resp.Status != tc.status || tc.body != "" && got != tc.body {
			t.Errorf("%s: %d %q, want %d %q", tc.target, r.resp.Status, got, tc.status, tc.body)
		}
		if loc := r.resp.Header.Get("Location"); !strings.HasSuffix(loc, tc.location) || tc.location != "" && loc == "" {
			t.Errorf("%s: Location %q, want one ending %q", tc.target, loc, tc.location)
		}
	}
}

// TestParseRanges: ngx_http_range_parse's answers for a 10-byte body;
// ends are exclusive.
func TestParseRanges(t *testing.T) {
	for _, tc := range []struct {
		set    string
		size   int64
		want   []byteRange
		status rangeStatus
	}{
		{"0-4", 10, []byteRange{{0, 5}}, rangeOK},
		{"0-0", 10, []byteRange{{0, 1}}, rangeOK},
		{"5-", 10, []byteRange{{5, 10}}, rangeOK},
		{"-3", 10, []byteRange{{7, 10}}, rangeOK},
		{"-20", 10, []byteRange{{0, 10}}, rangeOK},
		{"8-20", 10, []byteRange{{8, 10}}, rangeOK},
		{" 1 - 2 ", 10, []byteRange{{1, 3}}, rangeOK},
		{"0-1,3-4", 10, []byteRange{{0, 2}, {3, 5}}, rangeOK},
		{"0-1,10-12", 10, []byteRange{{0, 2}}, rangeOK}, // the unsatisfiable one is left out
		{"0-9,0-9", 10, nil, rangeDeclined},             // more than the body: sent whole
		{"0-", 0, nil, rangeDeclined},
		{"10-", 10, nil, rangeUnsatisfiable},
		{"-0", 10, nil, rangeUnsatisfiable},
		{"abc", 10, nil, rangeUnsatisfiable},
		{"1-2x", 10, nil, rangeUnsatisfiable},
		{"5", 10, nil, rangeUnsatisfiable},
		{"", 10, nil, rangeUnsatisfiable},
		{"99999999999999999999-", 10, nil, rangeUnsatisfiable}, // overflow
	} {
		got, status := parseRanges(tc.set, tc.size)
		if status != tc.status || !slices.Equal(got, tc.want) {
			t.Errorf("parseRanges(%q, %d) = %v, %d; want %v, %d", tc.set, tc.size, got, status, tc.want, tc.status)
		}
	}
}

// TestRangeResponses: a static file served with Range: one range is a
// 206 with Content-Range, an unsatisfiable one 416, several a multipart
// body; If-Range that does not match sends the whole file.
func TestRangeResponses(t *testing.T) {
	rt, _ := testPipeline(t, `events {}
http {
    include mime.types;
    access_log off;
    server { listen 127.0.0.1:8080; root {{ROOT}}/html; }
}
`, map[string]string{"ten.txt": "0123456789"})
	for _, tc := range []struct {
		rng, ifRange string
		status       int
		body         string // when not empty
		contentRange string
	}{
		{"bytes=2-4", "", 206, "234", "bytes 2-4/10"},
		{"bytes=-2", "", 206, "89", "bytes 8-9/10"},
		{"bytes=20-", "", 416, "", "bytes */10"},
		{"bytes=0-1,5-6", "", 206, "", ""},
		{"bytes=0-9,0-9", "", 200, "0123456789", ""},
		{"items=2-4", "", 200, "0123456789", ""},
		{"bytes=2-4", `"not-the-etag"`, 200, "0123456789", ""},
	} {
		h := benchHeaders{{"Range", tc.rng}}
		if tc.ifRange != "" {
			h = append(h, [2]string{"If-Range", tc.ifRange})
		}
		r := serveFake(t, rt, "GET", "/ten.txt", h)
		got := body(t, r)
		if r.resp.Status != tc.status || tc.body != "" && got != tc.body || r.resp.Header.Get("Content-Range") != tc.contentRange {
			t.Errorf("Range %q If-Range %q: %d %q Content-Range %q, want %d %q %q", tc.rng, tc.ifRange,
				r.resp.Status, got, r.resp.Header.Get("Content-Range"), tc.status, tc.body, tc.contentRange)
		}
		if tc.rng == "bytes=0-1,5-6" && !strings.HasPrefix(r.resp.Header.Get("Content-Type"), "multipart/byteranges; boundary=") {
			t.Errorf("two ranges: Content-Type %q", r.resp.Header.Get("Content-Type"))
		}
	}
}

// gzipConf compresses text/html (always) and text/css of at least 20 bytes,
// with gzip_vary, proxied responses whose Expires has passed, and not
// for MSIE 6.
const gzipConf = `events {}
http {
    include mime.types;
    access_log off;
    gzip on;
    gzip_min_length 20;
    gzip_types text/css;
    gzip_vary on;
    gzip_proxied expired;
    gzip_disable msie6;
    server {
        listen 127.0.0.1:8080;
        root {{ROOT}}/html;
        location /off/ { gzip off; }
        location /v10/ { gzip_http_version 1.0; }
        location /noproxy/ { gzip_proxied off; }
        location /expired/ { expires -1; }
        location /future/ { expires 1h; }
    }
}
`

// TestGzipEligibility: which responses the gzip filter compresses, as
// ngx_http_gzip_header_filter decides: the request (Accept-Encoding and
// its q, HTTP version, Via with gzip_proxied, gzip_disable) and the
// response (status, type, length, an existing Content-Encoding).
func TestGzipEligibility(t *testing.T) {
	text := strings.Repeat("some text to compress\n", 10)
	rt, _ := testPipeline(t, gzipConf, map[string]string{
		"a.html": text, "a.txt": text, "a.css": text, "a.png": text, "small.txt": "tiny",
		"off/a.html": text, "v10/a.html": text, "noproxy/a.html": text, "expired/a.html": text, "future/a.html": text,
	})
	gz := [2]string{"Accept-Encoding", "gzip, deflate"}
	via := [2]string{"Via", "1.1 cache"}
	for _, tc := range []struct {
		name, method, target, proto string
		headers                     benchHeaders
		gzip, vary                  bool
	}{
		{"text/html, always compressed", "GET", "/a.html", "", benchHeaders{gz}, true, true},
		{"text/plain, not in gzip_types", "GET", "/a.txt", "", benchHeaders{gz}, false, false},
		{"gzip_types adds text/css", "GET", "/a.css", "", benchHeaders{gz}, true, true},
		{"image/png is not listed", "GET", "/a.png", "", benchHeaders{gz}, false, false},
		{"shorter than gzip_min_length", "GET", "/small.txt", "", benchHeaders{gz}, false, false},
		{"no Accept-Encoding", "GET", "/a.html", "", nil, false, true},
		{"gzip;q=0", "GET", "/a.html", "", benchHeaders{{"Accept-Encoding", "gzip;q=0, deflate"}}, false, true},
		{"gzip;q=0.5", "GET", "/a.html", "", benchHeaders{{"Accept-Encoding", "gzip;q=0.5"}}, true, true},
		{"x-gzip is not gzip", "GET", "/a.html", "", benchHeaders{{"Accept-Encoding", "x-gzip"}}, false, true},
		{"HTTP/1.0 under gzip_http_version 1.1", "GET", "/a.html", "HTTP/1.0", benchHeaders{gz}, false, true},
		{"HTTP/1.0 under gzip_http_version 1.0", "GET", "/v10/a.html", "HTTP/1.0", benchHeaders{gz}, true, true},
		// With Via, gzip_proxied decides; with neither Expires nor
		// Cache-Control, nginx's check falls through to compressing.
		{"Via, gzip_proxied off", "GET", "/noproxy/a.html", "", benchHeaders{gz, via}, false, true},
		{"Via, no Expires", "GET", "/a.html", "", benchHeaders{gz, via}, true, true},
		{"Via, Expires past", "GET", "/expired/a.html", "", benchHeaders{gz, via}, true, true},
		{"Via, Expires to come", "GET", "/future/a.html", "", benchHeaders{gz, via}, false, true},
		{"MSIE 6", "GET", "/a.html", "", benchHeaders{gz, {"User-Agent", "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)"}}, false, true},
		{"MSIE 6 with SV1 is fine", "GET", "/a.html", "", benchHeaders{gz, {"User-Agent", "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)"}}, true, true},
		{"HEAD gets GET's headers", "HEAD", "/a.html", "", benchHeaders{gz}, true, true},
		{"gzip off", "GET", "/off/a.html", "", benchHeaders{gz}, false, false},
		{"a 404 is compressed too", "GET", "/missing.txt", "", benchHeaders{gz}, true, true},
	} {
		r := fakeRequest(rt, tc.method, tc.target, tc.headers)
		if tc.proto != "" {
			r.Proto = tc.proto
		}
		rt.Serve(r)
		if r.resp.Kind == BodyFile && r.resp.File != nil {
			r.resp.File.Close()
		}
		gzipped := r.resp.Header.Get("Content-Encoding") == "gzip"
		vary := r.resp.Header.Get("Vary") == "Accept-Encoding"
		if gzipped != tc.gzip || vary != tc.vary {
			t.Errorf("%s: %s %s: status %d, gzip %v vary %v, want gzip %v vary %v", tc.name, tc.method, tc.target,
				r.resp.Status, gzipped, vary, tc.gzip, tc.vary)
		}
	}
}

// TestExpiresVariable: expires with a variable is parsed per request as
// ngx_http_set_expires parses it (headers.t 18-28): epoch, max, off and a
// daily time from the value; after "modified" those are invalid, and an
// invalid or empty value leaves the headers alone.
func TestExpiresVariable(t *testing.T) {
	rt, root := testPipeline(t, `events {}
http {
    access_log off;
    map $arg_e $expires { default $arg_e; week 7d; }
    server {
        listen 127.0.0.1:8080;
        root {{ROOT}}/html;
        location /var { expires $expires; }
        location /mod { expires modified $arg_e; }
    }
}
`, map[string]string{"var": "", "mod": ""})
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rt.now = func() time.Time { return now }
	mtime := now.Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(root, "html", "mod"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ target, expires, cacheControl string }{
		{"/var?e=epoch", "Thu, 01 Jan 1970 00:00:01 GMT", "no-cache"},
		{"/var?e=max", "Thu, 31 Dec 2037 23:55:55 GMT", "max-age=315360000"},
		{"/var?e=off", "", ""},
		{"/var?e=2048", "Mon, 30 Nov 2026 12:34:08 GMT", "max-age=2048"},
		{"/var?e=week", "Mon, 07 Dec 2026 12:00:00 GMT", "max-age=604800"},
		{"/var?e=-2048", "Mon, 30 Nov 2026 11:25:52 GMT", "no-cache"},
		{"/var?e=0", "Mon, 30 Nov 2026 12:00:00 GMT", "max-age=0"},
		{"/var?e=bad", "", ""},
		{"/var?e=500ms", "", ""},
		{"/var", "", ""},
		// Last-Modified is an hour back: 2h from it is one hour ahead.
		{"/mod?e=2h", "Mon, 30 Nov 2026 13:00:00 GMT", "max-age=3600"},
		// The configured time is 0 with a variable, so only the
		// max-age's sign decides no-cache.
		{"/mod?e=-1s", "Mon, 30 Nov 2026 10:59:59 GMT", "no-cache"},
		{"/mod?e=0", "Mon, 30 Nov 2026 12:00:00 GMT", "max-age=0"},
		{"/mod?e=epoch", "", ""},
		{"/mod?e=max", "", ""},
		{"/mod?e=@10h", "", ""},
	} {
		r := serveFake(t, rt, "GET", tc.target, nil)
		if e, cc := r.resp.Header.Get("Expires"), r.resp.Header.Get("Cache-Control"); e != tc.expires || cc != tc.cacheControl {
			t.Errorf("%s: status %d, Expires %q Cache-Control %q, want %q %q", tc.target, r.resp.Status, e, cc, tc.expires, tc.cacheControl)
		}
	}
}

// TestAutoRedirect: a URI one "/" short of a fastcgi_pass or proxy_pass
// location is answered with a 301 to the location's name, before the
// regexps, unless a location is named the URI itself; and after an
// error_page the redirect's own status is the answer's (nginx's
// special response resets err_status).
func TestAutoRedirect(t *testing.T) {
	rt, _ := testPipeline(t, `events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080;
        server_name example.com;
        location / { return 200 "prefix /"; }
        location /app/ { fastcgi_pass 127.0.0.1:9; }
        location /own/ { proxy_pass http://127.0.0.1:9; }
        location /own { return 200 "prefix /own"; }
        location ~ ^/app { return 200 "regex"; }
        location "/a b/" { fastcgi_pass 127.0.0.1:9; }
        location /if/ { if ($arg_x) { fastcgi_pass 127.0.0.1:9; } return 200 "if"; }
        location /err/ { error_page 405 /app; return 405; }
    }
}
`, nil)
	for _, tc := range []struct {
		target   string
		status   int
		location string
	}{
		{"/app", 301, "/app/"},
		{"/app?x=1", 301, "/app/?x=1"},
		{"/own", 200, ""},
		{"/a%20b", 301, "/a%20b/"},
		{"/if", 200, ""},
		{"/appx", 200, ""},
		{"/err/", 301, "/app/"},
	} {
		r := serveFake(t, rt, "GET", tc.target, nil)
		if loc := r.resp.Header.Get("Location"); r.resp.Status != tc.status || !strings.HasSuffix(loc, tc.location) || tc.location == "" && loc != "" {
			t.Errorf("%s: %d Location %q, want %d %q", tc.target, r.resp.Status, loc, tc.status, tc.location)
		}
	}
}

// TestAliasPaths: where an alias maps a URI (ngx_http_map_uri_to_path and
// try_files): a nested location or an "if" keeps the length of the name
// of the location the alias was written in; in a regex location the alias
// is the whole path, and try_files appends the name it tries and serves
// the file it found (http_try_files.t 9-10).
func TestAliasPaths(t *testing.T) {
	rt, _ := testPipeline(t, `events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080;
        location /nest/ {
            alias {{ROOT}}/html/d/;
            location /nest/in/ { }
            location ~ html$ { try_files $uri =404; }
        }
        location /if/ {
            alias {{ROOT}}/html/d/;
            if ($arg_x) { }
        }
        location ~ ^/re/ {
            alias {{ROOT}}/html/d;
            try_files $uri =404;
        }
        location ~ ^/whole/ { alias {{ROOT}}/html/d/f.txt; }
    }
}
`, map[string]string{"d/f.txt": "f", "d/in/g.txt": "g", "d/p.html": "p", "d/re/r.txt": "r"})
	for _, tc := range []struct {
		target string
		status int
		body   string
	}{
		{"/nest/in/g.txt", 200, "g"}, // not d/g.txt: the parent's name is stripped
		{"/nest/p.html", 200, "p"},
		{"/if/f.txt?x=1", 200, "f"},
		{"/re/r.txt", 200, "r"}, // alias + $uri: d/re/r.txt
		{"/re/nope.txt", 404, ""},
		{"/whole/anything", 200, "f"},
	} {
		r := serveFake(t, rt, "GET", tc.target, nil)
		if got := body(t, r); r.resp.Status != tc.status || tc.body != "" && got != tc.body {
			t.Errorf("%s: %d %q, want %d %q", tc.target, r.resp.Status, got, tc.status, tc.body)
		}
	}
}
