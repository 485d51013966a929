// This file tests the built-in site's cached-page setup (issue 16): the
// cache zone and the locations both servers get, the cached WordPress
// server, each server's own cache directory, and the 45 KB page.

package ab

import (
	"bytes"
	"compress/gzip"
	"path/filepath"
	"strings"
	"testing"

	"edge/conf"
)

// TestBuiltinCachedPages: the built-in site declares one zone, caches
// the page at gzip levels 1 and 6 in exact-match locations of the plain
// server (the TLS servers cache nothing), and with a WordPress docroot
// adds a second WordPress server that caches with the skip rules.
func TestBuiltinCachedPages(t *testing.T) {
	dir := t.TempDir()
	site, plan, err := func() (*Site, *conf.Plan, error) {
		s, err := builtinSite(dir, "/wp", "127.0.0.1:9")
		if err != nil {
			return nil, nil, err
		}
		_, p, err := loadSite(s.Path, dir)
		return s, p, err
	}()
	if err != nil {
		t.Fatal(err)
	}
	if p := plan.HTTP.CachePaths[cacheZone]; p == nil || p.Path != filepath.Join(dir, "cache", "ab") {
		t.Fatalf("zone %s: %+v", cacheZone, p)
	}
	for ep, want := range map[Endpoint]map[string]int{
		EndpointHTTP:  {pageCached: 1, pageCachedGz6: 6},
		EndpointHTTPS: {},
	} {
		srv := serverOf(t, plan, site.Endpoints[ep])
		cached := map[string]int{}
		for _, l := range srv.Loc.Prefixes {
			if l.FastCGICache.Zone != "" {
				if l.Kind != conf.LocExact || l.FastCGICache.Zone != cacheZone {
					t.Errorf("%s: location %s caches in %q, kind %v", ep, l.Name, l.FastCGICache.Zone, l.Kind)
				}
				if !l.Gzip.On {
					t.Errorf("%s: location %s: gzip off", ep, l.Name)
				}
				cached[strings.TrimPrefix(l.Name, "/"+testDir+"/")] = l.Gzip.CompLevel
			}
		}
		if len(cached) != len(want) || cached[pageCached] != want[pageCached] || cached[pageCachedGz6] != want[pageCachedGz6] {
			t.Errorf("%s: cached locations and gzip levels %v, want %v", ep, cached, want)
		}
	}
	wp, wpCached := serverOf(t, plan, site.Endpoints[EndpointWordPress]), serverOf(t, plan, site.Endpoints[EndpointWordPressCached])
	php := func(srv *conf.Server) *conf.Location {
		for _, l := range srv.Loc.Regexes {
			if l.Name == `\.php$` {
				return l
			}
		}
		t.Fatalf("no PHP location")
		return nil
	}
	if z := php(wp).FastCGICache.Zone; z != "" {
		t.Errorf("the uncached WordPress server caches in %q", z)
	}
	if c := php(wpCached).FastCGICache; c.Zone != cacheZone || len(c.Bypass) == 0 || len(c.NoCache) == 0 {
		t.Errorf("the cached WordPress server: zone %q, %d bypass and %d no_cache predicates", c.Zone, len(c.Bypass), len(c.NoCache))
	}
}

// serverOf is the default server of an endpoint's listen address.
func serverOf(t *testing.T, plan *conf.Plan, ep SiteEndpoint) *conf.Server {
	t.Helper()
	for _, g := range plan.HTTP.Listens {
		if planListenKey(g.Listen) == ep.Listen {
			return g.Default
		}
	}
	t.Fatalf("no server listens on %q", ep.Listen)
	return nil
}

// TestRewriteCachePaths: each server's copy puts every cache path in its
// own directory, named by the keys zone, so edge and nginx never read
// each other's cache files; the rest of the directive stays.
func TestRewriteCachePaths(t *testing.T) {
	text := `http {
    fastcgi_cache_path /var/cache/nginx/wp levels=1:2 keys_zone=WP:32m inactive=1d;
    proxy_cache_path cache/p keys_zone=P:1m;
    server { listen 80; location / { fastcgi_cache WP; fastcgi_pass 127.0.0.1:9000; } }
}`
	tree, err := conf.ParseBytes("site.conf", []byte(text), conf.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"/out/edge", "/out/nginx"} {
		sc := sideConfig{Ports: map[string]int{"80": 40080}, LogDir: side + "/logs", CacheDir: side + "/cache"}
		got := conf.Format(rewriteSite(tree.Main, sc), false)
		for _, want := range []string{
			"fastcgi_cache_path " + side + "/cache/fastcgi_cache_path-WP levels=1:2 keys_zone=WP:32m inactive=1d;",
			"proxy_cache_path " + side + "/cache/proxy_cache_path-P keys_zone=P:1m;",
			"fastcgi_cache WP;",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: rewritten config lacks %q:\n%s", side, want, got)
			}
		}
		if strings.Contains(got, "/var/cache") {
			t.Errorf("%s: the site's cache path is still there:\n%s", side, got)
		}
	}
}

// TestPageHTML: the page is issue 16's 45 KB of HTML and compresses as
// markup does, neither a trivial run nor incompressible.
func TestPageHTML(t *testing.T) {
	if len(pageHTML) != pageBytes || !strings.HasPrefix(pageHTML, "<!doctype html>") || !strings.HasSuffix(pageHTML, "</html>\n") {
		t.Fatalf("page: %d bytes, starts %.20q, ends %q", len(pageHTML), pageHTML, pageHTML[len(pageHTML)-10:])
	}
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, 6)
	w.Write([]byte(pageHTML))
	w.Close()
	if r := float64(len(pageHTML)) / float64(b.Len()); r < 2.5 || r > 8 {
		t.Errorf("compression ratio %.1f, want that of HTML (2.5-8)", r)
	}
}
