// This file holds FuzzRequestPath: arbitrary request targets go through
// parseTarget/normalizePath, the location search and the URI-to-file
// mapping of a fixed plan with root, alias, exact, "^~", regex and nested
// locations. Nothing may panic; a normalized path is absolute with no "."
// or ".." segment; and every file path edge would open stays under the
// document roots: no request target may climb out of them.
package proxy

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/conf"
	"edge/proxy/internal/plantest"
	"edge/proxy/logs"
)

// fuzzConf is the fixed plan; {{ROOT}} is a temporary directory that every
// root and alias is under.
const fuzzConf = `events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080;
        root {{ROOT}}/html;
        location / { }
        location = /exact { }
        location ^~ /static/ { root {{ROOT}}/static-root; }
        location /files/ { alias {{ROOT}}/files/; }
        location = /one { alias {{ROOT}}/one.txt; }
        location ~ ^/img/(?<name>[^/]+)$ { alias {{ROOT}}/img/$name; }
        location ~* \.php$ { root {{ROOT}}/php; }
        location /nested/ {
            location ~ \.txt$ { root {{ROOT}}/nested-txt; }
        }
    }
}
`

// loadTestPlan compiles a configuration text written into dir.
func loadTestPlan(tb testing.TB, dir, text string) *conf.Plan { return plantest.Load(tb, dir, text) }

// silentLog is an error log with no destination.
func silentLog() *logs.ErrorLog { return plantest.SilentLog() }

// testSite builds the site of a plan without a Server: no listener,
// a silent error log.
func testSite(tb testing.TB, plan *conf.Plan) *Site {
	tb.Helper()
	sh := &Shared{
		files:    newFileCache(time.Second, time.Now),
		logFiles: logs.NewFiles(time.Now),
		errLog:   silentLog(),
		now:      time.Now,
		stats:    &Stats{},
	}
	rt, err := NewSite(plan, sh)
	if err != nil {
		tb.Fatalf("site: %v", err)
	}
	tb.Cleanup(sh.logFiles.Close)
	return rt
}

func FuzzRequestPath(f *testing.F) {
	for _, s := range []string{
		"/", "/index.html", "/exact", "/exact/", "/static/a.css", "/files/a/b.txt",
		"/files/../../etc/passwd", "/files/%2e%2e/%2e%2e/etc/passwd", "/one", "/one/..",
		"/img/cat.png", "/img/..%2f..%2fsecret", "/img/%2e%2e", "/a.php", "/A.PHP?x=1",
		"/nested/x.txt", "/nested/../x.txt", "//double//slash", "/./a/./b/", "/a/b/../../..",
		"/%00", "/a%2", "/%zz", "http://example.com/files/x", "HTTP://Example.COM:80?q",
		"*", "", "/files", "/files../x", "/static/../files/../one",
	} {
		f.Add(s)
	}
	root := f.TempDir()
	plan := loadTestPlan(f, root, strings.ReplaceAll(fuzzConf, "{{ROOT}}", root))
	rt := testSite(f, plan)
	srv := plan.HTTP.Servers[0]
	f.Fuzz(func(t *testing.T, target string) {
		for _, merge := range []bool{true, false} {
			pt, err := parseTarget(target, merge)
			if err != nil {
				continue
			}
			checkNormalized(t, target, pt.path, merge)
			r := &Request{Method: "GET", RawTarget: target, Proto: "HTTP/1.1", rt: rt, srv: srv}
			r.uri, r.args, r.exten = pt.path, pt.args, pt.exten
			r.loc, _, _ = findLocation(r, srv.Loc)
			path, _ := rt.mapURIToPath(r, r.uri)
			checkUnderRoot(t, target, r.loc, path, root)
		}
	})
}

// checkNormalized: $uri starts with "/", holds no NUL, no "." or ".."
// segment, and with merge_slashes no empty segment before the last.
func checkNormalized(t *testing.T, target, uri string, merge bool) {
	t.Helper()
	if !strings.HasPrefix(uri, "/") || strings.IndexByte(uri, 0) >= 0 {
		t.Fatalf("target %q: $uri %q", target, uri)
	}
	segs := strings.Split(uri[1:], "/")
	for i, seg := range segs {
		if seg == "." || seg == ".." {
			t.Fatalf("target %q: $uri %q keeps a %q segment", target, uri, seg)
		}
		if merge && seg == "" && i < len(segs)-1 {
			t.Fatalf("target %q: $uri %q keeps \"//\" with merge_slashes on", target, uri)
		}
	}
}

// checkUnderRoot: the mapped file path has no NUL and no ".." segment, and
// cleaned it is the root itself or a path below it.
func checkUnderRoot(t *testing.T, target string, loc *conf.Location, path, root string) {
	t.Helper()
	if strings.IndexByte(path, 0) >= 0 {
		t.Fatalf("target %q (location %q): path %q holds NUL", target, loc.Name, path)
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == ".." {
			t.Fatalf("target %q (location %q): path %q has a \"..\" segment", target, loc.Name, path)
		}
	}
	clean := filepath.Clean(path)
	if clean != root && !strings.HasPrefix(clean, root+string(filepath.Separator)) {
		t.Fatalf("target %q (location %q): path %q is outside %s", target, loc.Name, path, root)
	}
}
