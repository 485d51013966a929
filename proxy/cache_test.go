package proxy

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/cache"
)

// TestCacheZonesAcrossReloads: a zone is kept by name while a reload
// keeps its path and levels (its settings change in place), a changed
// path fails the reload as in nginx, and a zone a reload drops is closed
// and opened anew when it comes back.
func TestCacheZonesAcrossReloads(t *testing.T) {
	dir := t.TempDir()
	plan := func(path, extra string) string {
		return "events { }\nhttp {\nfastcgi_cache_path " + filepath.Join(dir, path) + " levels=1:2 keys_zone=Z:1m " + extra + ";\n" +
			"server { listen 127.0.0.1:8080; location / { fastcgi_pass 127.0.0.1:9; fastcgi_cache Z; } }\n}\n"
	}
	var cz cacheZones
	defer cz.closeAll()
	log := silentLog()
	open := func(text string) (map[string]bool, error) {
		t.Helper()
		zones, err := cz.open(loadTestPlan(t, t.TempDir(), text), log)
		names := map[string]bool{}
		for n := range zones {
			names[n] = true
		}
		return names, err
	}
	if _, err := open(plan("a", "")); err != nil {
		t.Fatal(err)
	}
	first := cz.zones["Z"]
	if _, err := open(plan("a", "max_size=1m")); err != nil {
		t.Fatal(err)
	}
	if cz.zones["Z"] != first || first.Config().MaxSize != 1<<20 {
		t.Errorf("a reload with the same path made a new zone or kept the old max_size: %v", first.Config().MaxSize)
	}
	if _, err := open(plan("b", "")); err == nil || !strings.Contains(err.Error(), "cache path while previously it used") {
		t.Errorf("a reload moving the zone: %v, want nginx's refusal", err)
	}
	if cz.zones["Z"] != first {
		t.Errorf("a refused reload changed the zones")
	}
	if _, err := open("events { }\nhttp { server { listen 127.0.0.1:8080; } }\n"); err != nil {
		t.Fatal(err)
	}
	if len(cz.zones) != 0 {
		t.Errorf("a reload without the zone kept it")
	}
	if _, err := open(plan("b", "")); err != nil || cz.zones["Z"] == first {
		t.Errorf("the zone back on another path: %v", err)
	}
}

// TestCachePurgeForms: the purge forms answer before any backend is
// asked: 404 when nothing is cached, 403 from an address the method form
// does not list (fake requests come from 192.0.2.10), 204 for NGINX
// Plus's form.
func TestCachePurgeForms(t *testing.T) {
	rt, _ := testPipeline(t, `events { }
http {
    fastcgi_cache_path {{ROOT}}/cache keys_zone=Z:1m;
    server {
        listen 127.0.0.1:8080;
        fastcgi_cache Z;
        fastcgi_cache_key $uri;
        location /near/ { fastcgi_pass 127.0.0.1:9; fastcgi_cache_purge PURGE from 192.0.2.0/24; }
        location /far/  { fastcgi_pass 127.0.0.1:9; fastcgi_cache_purge PURGE from 127.0.0.1; }
        location /all/  { fastcgi_pass 127.0.0.1:9; fastcgi_cache_purge on; }
        location /plus/ { fastcgi_pass 127.0.0.1:9; fastcgi_cache_purge $http_x_purge; }
        location /p/    { fastcgi_cache_purge Z $uri; }
    }
}
`, nil)
	for _, c := range []struct {
		method, target string
		headers        benchHeaders
		status         int
	}{
		{"PURGE", "/near/x", nil, 404},
		{"PURGE", "/far/x", nil, 403},
		{"PURGE", "/all/x", nil, 404},
		{"GET", "/plus/x", benchHeaders{{"X-Purge", "1"}}, 204},
		{"GET", "/p/x", nil, 404},
		{"GET", "/p/x*", nil, 404},
	} {
		r := serveFake(t, rt, c.method, c.target, c.headers)
		if r.resp.Status != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.target, r.resp.Status, c.status)
		}
	}
}

// TestCacheHitFromMemory: a HIT on an entry the zone keeps in memory is
// answered with its bytes (no file for the adapter to send or close),
// the stored gzip variant to a client that takes it; once the key is
// purged, or replaced, the old bytes are never answered (the backend
// here is down: a MISS is a 502).
func TestCacheHitFromMemory(t *testing.T) {
	rt, _ := testPipeline(t, `events { }
http {
    fastcgi_cache_path {{ROOT}}/cache keys_zone=Z:1m;
    server {
        listen 127.0.0.1:8080;
        gzip on;
        location / { fastcgi_pass 127.0.0.1:9; fastcgi_cache Z; fastcgi_cache_key $uri; fastcgi_cache_valid 1m; }
    }
}
`, nil)
	z := rt.caches["Z"]
	<-z.Loaded()
	store := func(body string) { // as fastcgi_cache_bypass does, over a fresh entry too
		t.Helper()
		l := z.Lookup(context.Background(), cache.Request{Key: "/page", Bypass: true}, cache.Policy{})
		defer l.Done()
		head := []cache.Field{{Name: "Content-Type", Value: "text/html"}}
		w := l.Store(200, head, cache.Freshness{ValidUntil: time.Now().Add(time.Hour).Unix()}, cache.StoreOptions{GzipLevel: 1})
		if w == nil {
			t.Fatalf("%v: not storable", l.Status)
		}
		io.WriteString(w, body)
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	page := strings.Repeat("<p>cached text</p>\n", 100)
	store(page)
	r := serveFake(t, rt, "GET", "/page", nil)
	if r.resp.Status != 200 || r.resp.Kind != BodyBytes || string(r.resp.Bytes) != page || r.resp.File != nil {
		t.Fatalf("HIT: %d, kind %v, %d bytes, file %v", r.resp.Status, r.resp.Kind, len(r.resp.Bytes), r.resp.File)
	}
	var sent []*byte
	for range 2 {
		r = serveFake(t, rt, "GET", "/page", benchHeaders{{"Accept-Encoding", "gzip"}})
		if r.resp.Kind != BodyBytes || r.resp.Header.Get("Content-Encoding") != "gzip" || len(r.resp.Bytes) >= len(page) || !r.resp.Unsized {
			t.Fatalf("gzip HIT: kind %v, %q, %d bytes, unsized %v", r.resp.Kind, r.resp.Header.Get("Content-Encoding"), len(r.resp.Bytes), r.resp.Unsized)
		}
		sent = append(sent, &r.resp.Bytes[0])
	}
	if sent[0] != sent[1] {
		t.Errorf("the gzip HITs sent different memory: the variant was compressed again")
	}
	// A failed precondition answers nginx's 412 page, whole and not
	// compressed, in place of the variant.
	r = serveFake(t, rt, "GET", "/page", benchHeaders{{"Accept-Encoding", "gzip"}, {"If-Match", `"nope"`}})
	if r.resp.Status != 412 || r.resp.Unsized || r.resp.Header.Get("Content-Encoding") != "" || r.gzipVary ||
		!strings.Contains(string(r.resp.Bytes), "412 Precondition Failed") {
		t.Errorf("If-Match on a gzip HIT: %d, unsized %v, Content-Encoding %q, vary %v, %q",
			r.resp.Status, r.resp.Unsized, r.resp.Header.Get("Content-Encoding"), r.gzipVary, r.resp.Bytes)
	}
	if _, n := z.Memory(); n != 1 {
		t.Fatalf("%d entries in memory", n)
	}

	store("replaced")
	if r := serveFake(t, rt, "GET", "/page", nil); string(r.resp.Bytes) != "replaced" {
		t.Fatalf("after the replacement: %q", r.resp.Bytes)
	}
	z.Purge("/page")
	if r := serveFake(t, rt, "GET", "/page", nil); r.resp.Status != 502 || r.cache.status != cache.StatusMiss {
		t.Fatalf("after the purge: %d %v", r.resp.Status, r.cache.status)
	}
}
