// This file holds the benchmarks of the request path: the location search
// of a realistic WordPress-style server, and a GET of a cached 1 KiB file
// through the whole pipeline, once called directly and once through the
// HTTP/1.1 engine over an in-memory connection. Sub-benchmark names are
// fixed so benchstat lines runs up.
package proxy

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"edge/conf"
	"edge/proxy/internal/plantest"
)

// benchSite is plantest.BenchSite: a WordPress-like site with a 1 KiB
// html/1k.txt.
func benchSite(b *testing.B) (*conf.Plan, string) { return plantest.BenchSite(b) }

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

func (h benchHeaders) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f[0], name) {
			return f[1]
		}
	}
	return ""
}

func (h benchHeaders) AppendAll(dst []HeaderKV) []HeaderKV {
	for _, f := range h {
		dst = append(dst, HeaderKV{f[0], f[1]})
	}
	return dst
}

var browserHeaders = benchHeaders(plantest.BrowserHeaders)

// BenchmarkStatic1K is a GET of a cached 1 KiB file with an access log
// line: "pipeline" calls the engine-neutral entry directly (server
// selection to log phase); proxy/listen's BenchmarkStatic1K/http1 adds
// fasthttp's parsing and writing.
func BenchmarkStatic1K(b *testing.B) {
	b.Run("pipeline", benchStaticPipeline)
}

func benchStaticPipeline(b *testing.B) {
	plan, _ := benchSite(b)
	rt := testSite(b, plan)
	get := pipelineGet(rt, plan, "/1k.txt")
	r := get()
	if r.resp.Status != 200 || len(r.resp.Bytes) != 1024 {
		b.Fatalf("GET /1k.txt: status %d, %d bytes in memory", r.resp.Status, len(r.resp.Bytes))
	}
	ReleaseRequest(r)
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		r := get()
		rt.Done(r, r.resp.Length)
		ReleaseRequest(r)
	}
}

// pipelineGet returns a function that serves a browser's GET of target
// through rt's pipeline, on one keep-alive connection to the plan's first
// listen address; the caller releases the request.
func pipelineGet(rt *Site, plan *conf.Plan, target string) func() *Request {
	info := &ConnInfo{
		ID:     1,
		Start:  time.Now(),
		Remote: netip.MustParseAddrPort("127.0.0.1:50000"),
		Local:  netip.MustParseAddrPort("127.0.0.1:8080"),
		Port:   "8080",
		Group:  plan.HTTP.Listens[0],
	}
	return func() *Request {
		r := AcquireRequest()
		r.Conn = info
		r.Start = time.Now()
		r.Method, r.RawTarget, r.Proto = "GET", target, "HTTP/1.1"
		r.HostHeader = "example.com"
		r.Header = browserHeaders
		rt.Serve(r)
		return r
	}
}
