package cache

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

// fakeClock is the injected clock of the zone tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// logRecorder collects what the zone reports.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *logRecorder) Logf(format string, args ...any) {
	r.mu.Lock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *logRecorder) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

type testZone struct {
	*Zone
	clock *fakeClock
	log   *logRecorder
}

func openZone(t testing.TB, cfg ZoneConfig) *testZone {
	t.Helper()
	if cfg.Path == "" {
		cfg.Path = t.TempDir()
	}
	if cfg.KeysZoneSize == 0 {
		cfg.KeysZoneSize = 1 << 20
	}
	if cfg.Name == "" {
		cfg.Name = "one"
	}
	if cfg.Levels == nil {
		cfg.Levels = []int{1, 2}
	}
	tz := &testZone{clock: &fakeClock{t: time.Unix(1_800_000_000, 0)}, log: &logRecorder{}}
	z, err := Open(cfg, Options{Now: tz.clock.Now, Logf: tz.log.Logf, ManagerInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { z.Close() })
	<-z.Loaded()
	tz.Zone = z
	return tz
}

var valid10m, _ = ValidRules(nil, 10*time.Minute)

var basePolicy = Policy{Valid: valid10m}

// fill runs a lookup for key that must miss and stores body.
func (tz *testZone) fill(t testing.TB, req Request, pol Policy, body string, fields ...Field) {
	t.Helper()
	l := tz.Lookup(context.Background(), req, pol)
	defer l.Done()
	defer l.Entry.Close()
	if l.Status == StatusHit {
		t.Fatalf("fill %q: already a HIT", req.Key)
	}
	commit(t, l, body, fields...)
}

// commit stores body as l's 200 response; the test fails when the lookup
// may not store.
func commit(t testing.TB, l *Lookup, body string, fields ...Field) {
	t.Helper()
	w := l.Store(200, fields, l.Decide(200, fields), StoreOptions{})
	if w == nil {
		t.Fatalf("%q (%v): not storable", l.req.Key, l.Status)
	}
	io.WriteString(w, body)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// want checks a lookup's status and body.
func (tz *testZone) want(t testing.TB, req Request, pol Policy, st Status, body string) {
	t.Helper()
	if gotSt, gotBody := tz.get(t, req, pol); gotSt != st || gotBody != body {
		t.Fatalf("%q: %v %q, want %v %q", req.Key, gotSt, gotBody, st, body)
	}
}

// get looks a key up and returns its status and, when there is an entry
// to send, its identity body.
func (tz *testZone) get(t testing.TB, req Request, pol Policy) (Status, string) {
	t.Helper()
	l := tz.Lookup(context.Background(), req, pol)
	defer l.Done()
	defer l.Entry.Close()
	if l.Entry == nil {
		return l.Status, ""
	}
	b, err := l.Entry.ReadBody(l.Entry.Identity)
	if err != nil {
		t.Fatal(err)
	}
	return l.Status, string(b)
}

func key(k string) Request { return Request{Key: k} }

func TestFilePath(t *testing.T) {
	// nginx's documentation example for levels=1:2.
	var h Hash
	copy(h[:], mustHex(t, "b7f54b2df7773722d382f4809d65029c"))
	if got := filePath("/data/nginx/cache", []int{1, 2}, h); got != "/data/nginx/cache/c/29/b7f54b2df7773722d382f4809d65029c" {
		t.Errorf("1:2: %s", got)
	}
	if got := filePath("/c", []int{2}, h); got != "/c/9c/b7f54b2df7773722d382f4809d65029c" {
		t.Errorf("2: %s", got)
	}
	if got := filePath("/c", []int{1, 1, 2}, h); got != "/c/c/9/02/b7f54b2df7773722d382f4809d65029c" {
		t.Errorf("1:1:2: %s", got)
	}
	if got := filePath("/c", nil, h); got != "/c/b7f54b2df7773722d382f4809d65029c" {
		t.Errorf("none: %s", got)
	}
	// Where nginx 1.22.1 stored this key with levels=1:2 (run here with
	// fastcgi_cache_key "$scheme$request_method$host$request_uri").
	if got := filePath("/c", []int{1, 2}, HashKey("httpGET127.0.0.1/a?x=1")); got != "/c/2/06/3f94f9a5fe285728692c197ac5830062" {
		t.Errorf("nginx's file: %s", got)
	}
}

func mustHex(t *testing.T, s string) []byte {
	var b []byte
	for i := 0; i < len(s); i += 2 {
		var v byte
		fmt.Sscanf(s[i:i+2], "%02x", &v)
		b = append(b, v)
	}
	return b
}

func TestMissStoreHit(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	req := key("httpGETexample.com/")
	if st, _ := tz.get(t, req, basePolicy); st != StatusMiss {
		t.Fatalf("first: %v", st)
	}
	tz.fill(t, req, basePolicy, "hello", Field{"Content-Type", "text/html"}, Field{"X-A", "1"})
	l := tz.Lookup(context.Background(), req, basePolicy)
	defer l.Done()
	defer l.Entry.Close()
	if l.Status != StatusHit || l.Entry.Status != 200 {
		t.Fatalf("got %v %d", l.Status, l.Entry.Status)
	}
	if len(l.Entry.Header) != 2 || l.Entry.Header[1] != (Field{"X-A", "1"}) {
		t.Fatalf("header %v", l.Entry.Header)
	}
	// The body is a section of the entry's file, in memory here.
	s, enc := l.Entry.Body(true)
	if enc || s.Len != 5 {
		t.Fatalf("section %+v %v", s, enc)
	}
	if b := l.Entry.Bytes(s); string(b) != "hello" || l.Entry.File != nil {
		t.Fatalf("body %q, file %v", b, l.Entry.File)
	}
	if _, err := os.Stat(filePath(tz.Config().Path, []int{1, 2}, HashKey(req.Key))); err != nil {
		t.Fatalf("entry not at its levels path: %v", err)
	}
}

// TestWholeSecondFreshness: spec "valid 2s is HIT at 2.5 s, EXPIRED at 3.0 s".
func TestWholeSecondFreshness(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	v2, _ := ValidRules(nil, 2*time.Second)
	pol := Policy{Valid: v2}
	tz.fill(t, key("k"), pol, "x")
	tz.clock.Add(2500 * time.Millisecond)
	if st, _ := tz.get(t, key("k"), pol); st != StatusHit {
		t.Fatalf("2.5 s: %v", st)
	}
	tz.clock.Add(500 * time.Millisecond)
	tz.want(t, key("k"), pol, StatusExpired, "x")
}

func TestSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	tz := openZone(t, ZoneConfig{Path: dir})
	tz.fill(t, key("a"), basePolicy, "A")
	tz.fill(t, key("b"), basePolicy, "B")
	tz.Close()
	// A temporary file of a writer that died, and a foreign file.
	os.WriteFile(filepath.Join(dir, tempPrefix+"dead"), []byte("half"), 0o600)
	os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o600)

	tz2 := openZone(t, ZoneConfig{Path: dir})
	if n := tz2.Len(); n != 2 {
		t.Fatalf("loaded %d keys, want 2", n)
	}
	if tz2.Size() <= 0 {
		t.Fatalf("size %d", tz2.Size())
	}
	for k, want := range map[string]string{"a": "A", "b": "B"} {
		if st, body := tz2.get(t, key(k), basePolicy); st != StatusHit || body != want {
			t.Errorf("%s: %v %q", k, st, body)
		}
	}
}

func TestHalfEntryNeverReadable(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	l := tz.Lookup(context.Background(), key("k"), basePolicy)
	w := l.Store(200, nil, l.Decide(200, nil), StoreOptions{})
	io.WriteString(w, "first half ")
	if st, _ := tz.get(t, key("k"), basePolicy); st != StatusMiss {
		t.Fatalf("during write: %v", st)
	}
	io.WriteString(w, "second half")
	w.Commit()
	l.Done()
	tz.want(t, key("k"), basePolicy, StatusHit, "first half second half")
	// An aborted write leaves the old entry as it was and no file behind.
	tz.clock.Add(11 * time.Minute)
	l = tz.Lookup(context.Background(), key("k"), basePolicy)
	w = l.Store(200, nil, l.Decide(200, nil), StoreOptions{})
	io.WriteString(w, "new")
	w.Abort()
	l.Entry.Close()
	l.Done()
	tz.want(t, key("k"), basePolicy, StatusExpired, "first half second half")
	ents, _ := os.ReadDir(tz.Config().Path)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// TestUncacheableKeepsOldEntry: spec "Uncacheable response with an old
// entry: old entry stays, every request EXPIRED and reaches PHP".
func TestUncacheableKeepsOldEntry(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "old")
	tz.clock.Add(11 * time.Minute)
	for i := 0; i < 2; i++ {
		l := tz.Lookup(context.Background(), key("k"), basePolicy)
		fields := []Field{{"Set-Cookie", "s=1"}}
		if w := l.Store(200, fields, l.Decide(200, fields), StoreOptions{}); w != nil || l.Status != StatusExpired {
			t.Fatalf("%d: %v stored %v", i, l.Status, w != nil)
		}
		l.Entry.Close()
		l.Done()
	}
}

func TestVaryVariants(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	cookie := func(v string) Request {
		return Request{Key: "k", Header: func(n string) string {
			if strings.EqualFold(n, "Cookie") {
				return v
			}
			return ""
		}}
	}
	tz.fill(t, cookie("a=1"), basePolicy, "for a", Field{"Vary", "Cookie"})
	if st, _ := tz.get(t, cookie("b=2"), basePolicy); st != StatusMiss {
		t.Fatalf("other variant: %v", st)
	}
	tz.fill(t, cookie("b=2"), basePolicy, "for b", Field{"Vary", "Cookie"})
	for v, want := range map[string]string{"a=1": "for a", "b=2": "for b"} {
		if st, body := tz.get(t, cookie(v), basePolicy); st != StatusHit || body != want {
			t.Errorf("%s: %v %q", v, st, body)
		}
	}
	// Purging the key removes every variant.
	if n := tz.Purge("k"); n != 2 {
		t.Fatalf("purged %d, want 2", n)
	}
	if st, _ := tz.get(t, cookie("b=2"), basePolicy); st != StatusMiss {
		t.Fatalf("after purge: %v", st)
	}
}

func TestVariantHashAccept(t *testing.T) {
	p := HashKey("k")
	get := func(v string) func(string) string { return func(string) string { return v } }
	// Accept-* whitespace is normalised, order is not.
	if variantHash(p, "Accept-Language", get("en, de"), false) != variantHash(p, "Accept-Language", get("en,de"), false) {
		t.Error("whitespace changed the variant")
	}
	if variantHash(p, "Accept-Language", get("en,de"), false) == variantHash(p, "Accept-Language", get("de,en"), false) {
		t.Error("order did not change the variant")
	}
	if variantHash(p, "Accept-Encoding", get("gzip"), true) != variantHash(p, "Accept-Encoding", get(""), true) {
		t.Error("folded Accept-Encoding still splits")
	}
}

// ae is a request for key "k" with an Accept-Encoding of v.
func ae(v string) Request {
	return Request{Key: "k", Header: func(n string) string {
		if strings.EqualFold(n, "Accept-Encoding") {
			return v
		}
		return ""
	}}
}

// TestGzipVariant: the compressed body is stored once with the entry; a
// client that takes gzip gets it, the others the identity body, and with
// Vary: Accept-Encoding both share one entry.
func TestGzipVariant(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	body := strings.Repeat("<p>cached page</p>\n", 2000)
	fields := []Field{{"Content-Type", "text/html"}, {"Vary", "Accept-Encoding"}}
	l := tz.Lookup(context.Background(), ae("gzip"), basePolicy)
	w := l.Store(200, fields, l.Decide(200, fields), StoreOptions{GzipLevel: 1})
	io.WriteString(w, body)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	l.Done()

	l = tz.Lookup(context.Background(), ae("identity"), basePolicy)
	if l.Status != StatusHit {
		t.Fatalf("identity client: %v", l.Status)
	}
	s, enc := l.Entry.Body(AcceptsGzip("identity"))
	if enc || s.Len != int64(len(body)) {
		t.Fatalf("identity section %+v %v", s, enc)
	}
	s, enc = l.Entry.Body(AcceptsGzip("gzip, br"))
	if !enc || s.Len == 0 || s.Len >= int64(len(body)) {
		t.Fatalf("gzip section %+v %v", s, enc)
	}
	zr, err := gzip.NewReader(l.Entry.Section(s))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || string(plain) != body {
		t.Fatalf("gzip body does not decompress to the page: %v", err)
	}
	l.Entry.Close()
	l.Done()

	// A response PHP already encoded gets no second variant.
	encFields := []Field{{"Content-Encoding", "br"}}
	l = tz.Lookup(context.Background(), key("enc"), basePolicy)
	w = l.Store(200, encFields, l.Decide(200, encFields), StoreOptions{GzipLevel: 1})
	io.WriteString(w, "xx")
	w.Commit()
	l.Done()
	l = tz.Lookup(context.Background(), key("enc"), basePolicy)
	if _, enc := l.Entry.Body(true); enc {
		t.Error("an encoded response got a gzip variant")
	}
	l.Entry.Close()
	l.Done()
}

// TestBrotliVariant: with brotli options an entry keeps a br body after
// the gzip one; both decode to the page, a client of either encoding finds
// the one entry (Accept-Encoding in Vary folded), and a response already
// encoded gets neither.
func TestBrotliVariant(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	body := strings.Repeat("<p>cached page, for brotli</p>\n", 2000)
	fields := []Field{{"Content-Type", "text/html"}, {"Vary", "Accept-Encoding"}}
	opts := StoreOptions{GzipLevel: 1, Brotli: &BrotliOptions{Level: 5, Window: 19}}
	l := tz.Lookup(context.Background(), ae("gzip, br"), basePolicy)
	w := l.Store(200, fields, l.Decide(200, fields), opts)
	io.WriteString(w, body)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	l.Done()

	l = tz.Lookup(context.Background(), ae("br"), basePolicy)
	if l.Status != StatusHit {
		t.Fatalf("br client: %v", l.Status)
	}
	e := l.Entry
	if e.Gzip.Len == 0 || e.Brotli.Len == 0 || e.Brotli.Off != e.Gzip.Off+e.Gzip.Len {
		t.Fatalf("sections: gzip %+v brotli %+v", e.Gzip, e.Brotli)
	}
	plain, err := io.ReadAll(brotli.NewReader(e.Section(e.Brotli)))
	if err != nil || string(plain) != body {
		t.Fatalf("br body does not decompress to the page: %v", err)
	}
	zr, err := gzip.NewReader(e.Section(e.Gzip))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err = io.ReadAll(zr); err != nil || string(plain) != body {
		t.Fatalf("gzip body does not decompress to the page: %v", err)
	}
	e.Close()
	l.Done()

	encFields := []Field{{"Content-Encoding", "gzip"}}
	l = tz.Lookup(context.Background(), key("enc"), basePolicy)
	w = l.Store(200, encFields, l.Decide(200, encFields), opts)
	io.WriteString(w, "xx")
	w.Commit()
	l.Done()
	l = tz.Lookup(context.Background(), key("enc"), basePolicy)
	if l.Entry.Brotli.Len != 0 || l.Entry.Gzip.Len != 0 {
		t.Error("an encoded response got a compressed variant")
	}
	l.Entry.Close()
	l.Done()
}

// TestMinUses: spec "fastcgi_cache_min_uses N: N MISSes before storing".
func TestMinUses(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	pol := basePolicy
	pol.MinUses = 3
	for i := 1; i <= 3; i++ {
		l := tz.Lookup(context.Background(), key("k"), pol)
		w := l.Store(200, nil, l.Decide(200, nil), StoreOptions{})
		if l.Status != StatusMiss || (w != nil) != (i == 3) {
			t.Fatalf("request %d: %v stored %v", i, l.Status, w != nil)
		}
		if w != nil {
			io.WriteString(w, "x")
			w.Commit()
		}
		l.Done()
	}
	if st, _ := tz.get(t, key("k"), pol); st != StatusHit {
		t.Fatalf("fourth: %v", st)
	}
}

// TestBypassStores: spec "fastcgi_cache_bypass (status BYPASS; response
// still stored unless no_cache)".
func TestBypassStores(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "old")
	tz.clock.Add(time.Second)
	req := key("k")
	req.Bypass = true
	l := tz.Lookup(context.Background(), req, basePolicy)
	if l.Status != StatusBypass || l.Entry != nil {
		t.Fatalf("%v", l.Status)
	}
	commit(t, l, "new")
	l.Done()
	tz.want(t, key("k"), basePolicy, StatusHit, "new")
}

// TestMissingKey: spec "missing key = one shared entry" (md5 of "").
func TestMissingKey(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, Request{}, basePolicy, "shared")
	tz.want(t, Request{}, basePolicy, StatusHit, "shared")
}

func TestKeyCollision(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("a"), basePolicy, "A")
	root := tz.Config().Path
	pb := filePath(root, []int{1, 2}, HashKey("b"))
	os.MkdirAll(filepath.Dir(pb), 0o700)
	b, _ := os.ReadFile(filePath(root, []int{1, 2}, HashKey("a")))
	os.WriteFile(pb, b, 0o600)
	tz2 := openZone(t, ZoneConfig{Path: root})
	if st, _ := tz2.get(t, key("b"), basePolicy); st != StatusMiss {
		t.Fatalf("another key's file answered: %v", st)
	}
	if lines := tz2.log.Lines(); len(lines) != 1 || !strings.Contains(lines[0], "md5 collision") {
		t.Fatalf("log %q", lines)
	}
}

func TestCorruptEntry(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "body")
	p := filePath(tz.Config().Path, []int{1, 2}, HashKey("k"))
	os.WriteFile(p, []byte("garbage"), 0o600)
	if st, _ := tz.get(t, key("k"), basePolicy); st != StatusMiss {
		t.Fatalf("corrupt file: %v", st)
	}
	tz2 := openZone(t, ZoneConfig{Path: tz.Config().Path})
	if tz2.Len() != 0 {
		t.Fatalf("loader indexed a corrupt file")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("loader kept the corrupt file: %v", err)
	}
}

func TestUseTempPath(t *testing.T) {
	tmp := t.TempDir()
	tz := openZone(t, ZoneConfig{UseTempPath: true, TempPath: tmp})
	tz.fill(t, key("k"), basePolicy, "x")
	if st, _ := tz.get(t, key("k"), basePolicy); st != StatusHit {
		t.Fatal(st)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("temp path not emptied: %v", ents)
	}
}

func TestOpenRefusesSmallZone(t *testing.T) {
	_, err := Open(ZoneConfig{Path: t.TempDir(), Name: "tiny", KeysZoneSize: 4096}, Options{ManagerInterval: -1})
	if err == nil || !strings.Contains(err.Error(), "too small") {
		t.Fatalf("got %v", err)
	}
}

func TestEncodeDecodeHead(t *testing.T) {
	fields := []Field{{"Content-Type", "text/html; charset=UTF-8"}, {"Link", "<a>; rel=x"}, {"X-Empty", ""}}
	got := decodeHead(encodeHead(fields))
	if len(got) != len(fields) {
		t.Fatalf("%v", got)
	}
	for i := range got {
		if got[i] != fields[i] {
			t.Errorf("%d: %v", i, got[i])
		}
	}
	if !bytes.Equal(magic[:], []byte("EDGECAC\x02")) {
		t.Error("magic changed: bump the version byte when the layout changes")
	}
}

// TestEntryReader: for an entry on its file (the zone keeps none in
// memory) the section reader is an *io.LimitedReader over the *os.File,
// the shape net.TCPConn.ReadFrom sends with sendfile.
func TestEntryReader(t *testing.T) {
	tz := openZone(t, ZoneConfig{MemoryBytes: -1})
	fields := []Field{{"Content-Type", "text/plain"}}
	tz.fill(t, key("k"), basePolicy, "0123456789", fields...)
	fields[0].Value = "changed by the caller after the request"
	l := tz.Lookup(context.Background(), key("k"), basePolicy)
	defer l.Done()
	defer l.Entry.Close()
	if l.Entry.Header[0].Value != "text/plain" {
		t.Fatalf("the stored head follows the caller's slice: %v", l.Entry.Header)
	}
	r, err := l.Entry.Reader(l.Entry.Identity)
	if err != nil {
		t.Fatal(err)
	}
	lr, ok := r.(*io.LimitedReader)
	if !ok {
		t.Fatalf("%T", r)
	}
	if _, ok := lr.R.(*os.File); !ok {
		t.Fatalf("%T", lr.R)
	}
	b, _ := io.ReadAll(r)
	if string(b) != "0123456789" {
		t.Fatalf("%q", b)
	}
}

func TestConditionalFromEntry(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	lm := "Sun, 29 Nov 2026 12:00:00 GMT"
	tz.fill(t, key("k"), basePolicy, "x", Field{"Last-Modified", lm}, Field{"ETag", `"v1"`})
	l := tz.Lookup(context.Background(), key("k"), basePolicy)
	defer l.Done()
	defer l.Entry.Close()
	cases := []struct {
		req  CondRequest
		want CondResult
	}{
		{CondRequest{IfNoneMatch: `"v1"`}, CondNotModified},
		{CondRequest{IfModifiedSince: lm}, CondNotModified},
		{CondRequest{IfNoneMatch: `"v0"`}, CondNone},
		{CondRequest{IfMatch: `"v0"`}, CondPreconditionFailed},
	}
	for _, c := range cases {
		if got := l.Entry.Conditional(c.req, "exact"); got != c.want {
			t.Errorf("%+v: %v", c.req, got)
		}
	}
}

// TestColdLookup: while the loader runs, a key it has not indexed yet is
// looked for on disk (nginx's "cold" cache), and indexed by the lookup.
func TestColdLookup(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "on disk")
	tz.Close()
	tz2 := openZone(t, ZoneConfig{Path: tz.Config().Path})
	// As if the loader had not reached the file yet.
	tz2.mu.Lock()
	for h, n := range tz2.nodes {
		n.prev.next, n.next.prev = n.next, n.prev
		delete(tz2.nodes, h)
	}
	tz2.size = 0
	tz2.mu.Unlock()
	tz2.cold.Store(true)
	tz2.want(t, key("k"), basePolicy, StatusHit, "on disk")
	if tz2.Len() != 1 || tz2.Size() == 0 {
		t.Fatalf("the cold lookup did not index the entry: %d keys, %d bytes", tz2.Len(), tz2.Size())
	}
	tz2.cold.Store(false)
	tz2.want(t, key("k"), basePolicy, StatusHit, "on disk")
}

// TestGzipVariantBounded: a response whose compressed form outgrows the
// in-memory bound is stored without a gzip variant.
func TestGzipVariantBounded(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	l := tz.Lookup(context.Background(), key("big"), basePolicy)
	w := l.Store(200, nil, l.Decide(200, nil), StoreOptions{GzipLevel: 1})
	noise := make([]byte, 1<<20)
	for i := 0; i < 9; i++ {
		for j := range noise {
			noise[j] = byte((j*7919 + i*104729) ^ (j >> 3) ^ (j * j >> 11))
		}
		w.Write(noise)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	l.Done()
	l = tz.Lookup(context.Background(), key("big"), basePolicy)
	defer l.Done()
	defer l.Entry.Close()
	if s, enc := l.Entry.Body(true); enc || s.Len != 9<<20 {
		t.Fatalf("%+v %v", s, enc)
	}
}

// TestCorruptSections: a header whose body sections point outside the
// file is refused.
func TestCorruptSections(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "body")
	p := filePath(tz.Config().Path, []int{1, 2}, HashKey("k"))
	b, _ := os.ReadFile(p)
	for _, off := range []int{88, 96, 104} { // Identity.Len, Gzip.Off, Gzip.Len
		c := append([]byte(nil), b...)
		for i := 0; i < 8; i++ {
			c[off+i] = 0xff
		}
		c[off+7] = 0x7f
		os.WriteFile(p, c, 0o600)
		tz2 := openZone(t, ZoneConfig{Path: tz.Config().Path})
		tz2.want(t, key("k"), basePolicy, StatusMiss, "")
	}
}

// FuzzReadMeta: no file content makes the header reader panic or return
// sections outside the file.
func FuzzReadMeta(f *testing.F) {
	m := &Meta{Key: "k", Status: 200, Vary: "Cookie", ETag: `"e"`}
	head := encodeHead([]Field{{"Content-Type", "text/html"}})
	m.Identity = Section{headerLen(m, head), 4}
	f.Add(append(encodeHeader(m, head), "body"...))
	f.Add([]byte("EDGECAC\x02"))
	p := filepath.Join(f.TempDir(), "e")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		got, err := readMeta(file, int64(len(data)))
		if err != nil {
			return
		}
		if !within(got.Identity, int64(len(data))) || !within(got.Gzip, int64(len(data))) {
			t.Fatalf("sections outside the file: %+v %+v", got.Identity, got.Gzip)
		}
	})
}
