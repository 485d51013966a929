// This file holds the benchmarks of the request path: the location search
// of a realistic WordPress-style server, and a GET of a cached 1 KiB file
// through the whole pipeline, once called directly and once through the
// HTTP/1.1 engine over an in-memory connection. Sub-benchmark names are
// fixed so benchstat lines runs up.
package proxy

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"edge/conf"
)

// benchSiteConf is a WordPress-style server with the locations such sites
// carry: exact, prefix, "^~", regexes for assets, dot files and PHP.
const benchSiteConf = `events {}
http {
    include mime.types;
    error_log {{ROOT}}/logs/error.log;
    access_log {{ROOT}}/logs/access.log;
    server {
        listen 127.0.0.1:8080;
        server_name example.com;
        root {{ROOT}}/html;
        index index.php index.html;
        location / { try_files $uri $uri/ /index.php?$args; }
        location = /favicon.ico { log_not_found off; access_log off; }
        location = /robots.txt { access_log off; }
        location ^~ /wp-content/uploads/ { expires 30d; }
        location /wp-admin/ { }
        location /api/v1/ { }
        location /static/ { expires 7d; }
        location ~* \.(jpg|jpeg|gif|png|css|js|ico|xml|svg|woff2?)$ { expires 30d; access_log off; }
        location ~ /\.ht { deny all; }
        location ~ \.php$ { fastcgi_pass 127.0.0.1:9000; include fastcgi_params; }
        location @fallback { return 404; }
    }
}
`

// benchSite compiles benchSiteConf in a temporary directory holding a
// 1 KiB html/1k.txt.
func benchSite(b *testing.B) (*conf.Plan, string) {
	b.Helper()
	root := b.TempDir()
	for _, d := range []string{"html", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "html", "1k.txt"), []byte(strings.Repeat("x", 1023)+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return loadTestPlan(b, root, strings.ReplaceAll(benchSiteConf, "{{ROOT}}", root)), root
}

func BenchmarkFindLocation(b *testing.B) {
	plan, _ := benchSite(b)
	srv := plan.HTTP.Servers[0]
	tests := []struct {
		name, uri, want string // want: the name of the location found
	}{
		{"exact", "/favicon.ico", "/favicon.ico"},
		{"prefix", "/wp-admin/options-general", "/wp-admin/"},
		{"noregex", "/wp-content/uploads/2024/01/photo.jpg", "/wp-content/uploads/"},
		{"regex-asset", "/wp-includes/js/jquery/jquery.min.js", `\.(jpg|jpeg|gif|png|css|js|ico|xml|svg|woff2?)$`},
		{"regex-php", "/wp-login.php", `\.php$`},
		{"fallback", "/2024/01/hello-world/", "/"},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			r := &Request{}
			r.uri = tt.uri
			if got, _, _ := findLocation(r, srv.Loc); got.Name != tt.want {
				b.Fatalf("%s: found location %q, want %q", tt.uri, got.Name, tt.want)
			}
			b.ReportAllocs()
			for b.Loop() {
				r.caps = r.caps[:0]
				findLocation(r, srv.Loc)
			}
		})
	}
}

// benchPCREConf has two servers that differ in one location: the dot-file
// rule as older configs write it (`/\.ht`, which RE2 runs) and as
// Laravel's and h5bp's write it (a lookahead, which the backtracking
// engine runs), each before a capturing route and the PHP location.
const benchPCREConf = `events {}
http {
    server {
        listen 127.0.0.1:8080;
        server_name plain;
        location / { }
        location ~ /\.ht { deny all; }
        location ~ "^/(?<section>[^/]+)/(\d+)$" { }
        location ~ \.php$ { }
    }
    server {
        listen 127.0.0.1:8080;
        server_name lookahead;
        location / { }
        location ~ /\.(?!well-known).* { deny all; }
        location ~ "^/(?<section>[^/]+)/(\d+)$" { }
        location ~ \.php$ { }
    }
}
`

// BenchmarkFindLocationPCRE: the location search with a plain regex and
// with a lookahead in front of the same locations, for a request that the
// dot-file rule refuses, one it lets past to PHP, one to the capturing
// route, and one to that route with a UTF-8 path, which it hands to the
// backtracking engine ("[^/]" reads a UTF-8 character byte by byte).
func BenchmarkFindLocationPCRE(b *testing.B) {
	plan := loadTestPlan(b, b.TempDir(), benchPCREConf)
	tests := []struct {
		name, uri, want string
	}{
		{"dotfile", "/.htaccess", ""},
		{"php", "/wp-login.php", `\.php$`},
		{"route", "/blog/42", `^/(?<section>[^/]+)/(\d+)$`},
		{"route-utf8", "/caf\xc3\xa9/42", `^/(?<section>[^/]+)/(\d+)$`},
	}
	for i, engine := range []string{"re2", "lookahead"} {
		srv := plan.HTTP.Servers[i]
		for _, tt := range tests {
			b.Run(engine+"/"+tt.name, func(b *testing.B) {
				r := &Request{}
				r.uri = tt.uri
				want := tt.want
				if want == "" {
					want = srv.Loc.Regexes[0].Name
				}
				if got, _, _ := findLocation(r, srv.Loc); got.Name != want {
					b.Fatalf("%s: found location %q, want %q", tt.uri, got.Name, want)
				}
				b.ReportAllocs()
				for b.Loop() {
					r.caps = r.caps[:0]
					findLocation(r, srv.Loc)
				}
			})
		}
	}
}

// benchHeaders are the request headers of a browser's GET.
type benchHeaders [][2]string

func (h benchHeaders) get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f[0], name) {
			return f[1]
		}
	}
	return ""
}

func (h benchHeaders) appendAll(dst []headerKV) []headerKV {
	for _, f := range h {
		dst = append(dst, headerKV{f[0], f[1]})
	}
	return dst
}

var browserHeaders = benchHeaders{
	{"Host", "example.com"},
	{"User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"},
	{"Accept", "text/plain,*/*;q=0.8"},
	{"Accept-Language", "en-US,en;q=0.5"},
	{"Accept-Encoding", "gzip, deflate, br"},
}

// BenchmarkStatic1K is a GET of a cached 1 KiB file with an access log
// line: "pipeline" calls the engine-neutral entry directly (server
// selection to log phase); "http1" adds fasthttp's parsing and writing
// over in-memory keep-alive connections, with parallel clients.
func BenchmarkStatic1K(b *testing.B) {
	b.Run("pipeline", benchStaticPipeline)
	b.Run("http1", benchStaticHTTP1)
}

func benchStaticPipeline(b *testing.B) {
	plan, _ := benchSite(b)
	rt := testSite(b, plan)
	get := pipelineGet(rt, plan, "/1k.txt")
	r := get()
	if r.resp.Status != 200 || len(r.resp.Bytes) != 1024 {
		b.Fatalf("GET /1k.txt: status %d, %d bytes in memory", r.resp.Status, len(r.resp.Bytes))
	}
	releaseRequest(r)
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		r := get()
		rt.done(r, r.resp.Length)
		releaseRequest(r)
	}
}

// pipelineGet returns a function that serves a browser's GET of target
// through rt's pipeline, on one keep-alive connection to the plan's first
// listen address; the caller releases the request.
func pipelineGet(rt *site, plan *conf.Plan, target string) func() *Request {
	info := &connInfo{
		id:     1,
		start:  time.Now(),
		remote: netip.MustParseAddrPort("127.0.0.1:50000"),
		local:  netip.MustParseAddrPort("127.0.0.1:8080"),
		port:   "8080",
		group:  plan.HTTP.Listens[0],
	}
	return func() *Request {
		r := acquireRequest()
		r.conn = info
		r.start = time.Now()
		r.Method, r.RawTarget, r.Proto = "GET", target, "HTTP/1.1"
		r.HostHeader = "example.com"
		r.Header = browserHeaders
		rt.serve(r)
		return r
	}
}

func benchStaticHTTP1(b *testing.B) {
	plan, _ := benchSite(b)
	ln := fasthttputil.NewInmemoryListener()
	s := NewServer(Options{
		ErrorLog:  silentLog(),
		Listeners: map[string]net.Listener{"tcp 127.0.0.1:8080": ln},
	})
	if err := s.Apply(plan); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	client := &fasthttp.HostClient{
		Addr:     "127.0.0.1:8080",
		Dial:     func(string) (net.Conn, error) { return ln.Dial() },
		MaxConns: 256,
	}
	do := func(req *fasthttp.Request, resp *fasthttp.Response) bool {
		if err := client.Do(req, resp); err != nil {
			b.Errorf("GET /1k.txt: %v", err)
			return false
		}
		if resp.StatusCode() != 200 || len(resp.Body()) != 1024 {
			b.Errorf("GET /1k.txt: status %d, %d bytes", resp.StatusCode(), len(resp.Body()))
			return false
		}
		return true
	}
	newRequest := func() *fasthttp.Request {
		req := fasthttp.AcquireRequest()
		req.SetRequestURI("http://example.com/1k.txt")
		for _, h := range browserHeaders[1:] {
			req.Header.Set(h[0], h[1])
		}
		return req
	}
	req, resp := newRequest(), fasthttp.AcquireResponse()
	if !do(req, resp) {
		b.FailNow()
	}
	b.SetBytes(1024)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		req, resp := newRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		for pb.Next() {
			if !do(req, resp) {
				return
			}
		}
	})
}
