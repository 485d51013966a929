package conf

import (
	"testing"

	"edge/cache/cachecfg"
)

// TestIgnoreHeadersParsedOnce: fastcgi_ignore_headers and
// proxy_ignore_headers give the cache its bits at load (not at every
// lookup), and the bits inherit with the names: a location that writes
// its own list replaces its parent's, one that writes none keeps it.
func TestIgnoreHeadersParsedOnce(t *testing.T) {
	body := `
server {
    listen 8080;
    fastcgi_ignore_headers Cache-Control Set-Cookie X-Accel-Redirect;
    proxy_ignore_headers Expires;
    location /inherit/ { }
    location /own/ { fastcgi_ignore_headers Vary; proxy_ignore_headers X-Accel-Expires X-Accel-Buffering; }
}
`
	locs := prefixLocations(t, body)
	for _, tc := range []struct {
		path           string
		fastcgi, proxy cachecfg.Ignore
		fastcgiNames   int
	}{
		{"/inherit/", cachecfg.IgnoreCacheControl | cachecfg.IgnoreSetCookie, cachecfg.IgnoreExpires, 3},
		{"/own/", cachecfg.IgnoreVary, cachecfg.IgnoreXAccelExpires, 1},
	} {
		l := locs[tc.path]
		if l == nil {
			t.Fatalf("no location %s", tc.path)
		}
		if l.FastCGI.IgnoreCache != tc.fastcgi || len(l.FastCGI.IgnoreHeaders) != tc.fastcgiNames {
			t.Errorf("%s: fastcgi %b %v, want %b and %d names", tc.path, l.FastCGI.IgnoreCache, l.FastCGI.IgnoreHeaders, tc.fastcgi, tc.fastcgiNames)
		}
		if l.Proxy.IgnoreCache != tc.proxy {
			t.Errorf("%s: proxy %b, want %b", tc.path, l.Proxy.IgnoreCache, tc.proxy)
		}
	}
}

// prefixLocations loads an http{} body and returns its first server's
// prefix locations by name.
func prefixLocations(t *testing.T, body string) map[string]*Location {
	t.Helper()
	plan, err := LoadText("edge.conf", []byte("events {}\nhttp {\n"+body+"}\n"), LoadOptions{Prefix: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	locs := map[string]*Location{}
	for _, l := range plan.HTTP.Servers[0].Loc.Prefixes {
		locs[l.Name] = l
	}
	return locs
}
