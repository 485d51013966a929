package proxy

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestCacheHitMirror: a HIT on an entry the zone keeps in memory names
// the entry's open file as its mirror, and the body's offset there holds
// the body (so a sendfile of it sends what memory holds); a short body
// has none worth sending that way.
func TestCacheHitMirror(t *testing.T) {
	body := strings.Repeat("cached page 0123456789\n", 2000) // 46 KB
	be := startRecordingBackend(t, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+
		"\r\nCache-Control: max-age=60\r\nConnection: close\r\n\r\n"+body)
	rt, _ := testPipeline(t, strings.ReplaceAll(`
events {}
http {
    proxy_cache_path {{ROOT}}/cache keys_zone=P:1m;
    server {
        listen 8080;
        proxy_cache P;
        location / { proxy_pass http://BACKEND; }
    }
}
`, "BACKEND", be.addr), nil)
	if r := serveFake(t, rt, "GET", "/page", nil); r.cache.status.String() != "MISS" {
		t.Fatalf("first GET: %s, want MISS", r.cache.status)
	}
	r := serveFake(t, rt, "GET", "/page", nil)
	if r.cache.status.String() != "HIT" || r.resp.Kind != BodyBytes || string(r.resp.Bytes) != body {
		t.Fatalf("second GET: %s, kind %d, %d bytes; want a HIT of the page from memory", r.cache.status, r.resp.Kind, len(r.resp.Bytes))
	}
	off, ok := r.resp.Mirror.Offset(r.resp.Bytes)
	if !ok {
		t.Fatal("the HIT has no mirror")
	}
	got := make([]byte, len(body))
	if _, err := r.resp.Mirror.File.ReadAt(got, off); err != nil || !bytes.Equal(got, []byte(body)) {
		t.Fatalf("the mirror's file at %d does not hold the body (%v)", off, err)
	}
	if _, ok := r.resp.Mirror.Offset(r.resp.Bytes[:MirrorMin-1]); ok {
		t.Error("a body shorter than MirrorMin is to be sent from the file")
	}
	if _, ok := r.resp.Mirror.Offset([]byte(body)); ok {
		t.Error("bytes that are not the mirror's are to be sent from its file")
	}
}
