package cache

import (
	"testing"
	"time"
)

func TestValidRules(t *testing.T) {
	r, err := ValidRules(nil, 10*time.Minute)
	if err != nil || len(r) != 3 || r[0].Status != 200 || r[1].Status != 301 || r[2].Status != 302 {
		t.Fatalf("default codes: %v %v", r, err)
	}
	r, err = ValidRules([]string{"404", "any"}, time.Minute)
	if err != nil || len(r) != 2 || r[0].Status != 404 || r[1].Status != 0 {
		t.Fatalf("404 any: %v %v", r, err)
	}
	for _, bad := range []string{"99", "600", "20x", ""} {
		if _, err := ValidRules([]string{bad}, time.Minute); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestValidFor(t *testing.T) {
	// WordOps' list (spec: "WordPress skip rules in practice").
	var rules []ValidRule
	for _, l := range []struct {
		codes []string
		ttl   time.Duration
	}{
		{[]string{"200"}, 24 * time.Hour},
		{[]string{"301", "302"}, 30 * time.Minute},
		{[]string{"499", "502", "503"}, time.Minute},
		{[]string{"404"}, time.Hour},
		{[]string{"any"}, time.Hour},
		{[]string{"200"}, time.Second}, // never reached: first match wins
	} {
		r, err := ValidRules(l.codes, l.ttl)
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r...)
	}
	cases := []struct {
		status int
		want   time.Duration
	}{
		{200, 24 * time.Hour}, {301, 30 * time.Minute}, {503, time.Minute}, {404, time.Hour}, {418, time.Hour},
	}
	for _, c := range cases {
		if got := ValidFor(rules, c.status); got != c.want {
			t.Errorf("%d: got %v, want %v", c.status, got, c.want)
		}
	}
	if got := ValidFor(nil, 200); got != 0 {
		t.Errorf("no rules: %v", got)
	}
}

func TestParseIgnore(t *testing.T) {
	ig, err := ParseIgnore([]string{"Cache-Control", "Expires", "Set-Cookie", "X-Accel-Buffering"})
	if err != nil || ig != IgnoreCacheControl|IgnoreExpires|IgnoreSetCookie {
		t.Fatalf("got %b %v", ig, err)
	}
	if _, err := ParseIgnore([]string{"Content-Type"}); err == nil {
		t.Fatal("Content-Type accepted")
	}
}

// TestDecide follows the spec's "Cacheability and TTL" list and the
// conformance checklist items named in each case.
func TestDecide(t *testing.T) {
	now := time.Unix(1_800_000_000, 500_000_000) // x.5 s: whole seconds count
	sec := now.Unix()
	def, _ := ValidRules(nil, 10*time.Second)
	only404, _ := ValidRules([]string{"404"}, 0)
	future := time.Unix(sec+100, 0).UTC().Format(httpTime)
	past := time.Unix(sec-100, 0).UTC().Format(httpTime)
	h := func(kv ...string) []Field {
		var f []Field
		for i := 0; i < len(kv); i += 2 {
			f = append(f, Field{kv[i], kv[i+1]})
		}
		return f
	}
	cases := []struct {
		name   string
		status int
		fields []Field
		valid  []ValidRule
		ig     Ignore
		reason Reason
		until  int64
	}{
		{"default valid codes: 200 by valid", 200, nil, def, 0, Cacheable, sec + 10},
		{"default valid codes: 404 not listed", 404, nil, def, 0, NoTTL, 0},
		{"no valid, no header: not cached", 200, nil, nil, 0, NoTTL, 0},
		{"valid 0 is not cached", 404, nil, only404, 0, ZeroValid, 0},
		{"header TTL beats valid", 200, h("Cache-Control", "max-age=30"), def, 0, Cacheable, sec + 30},
		{"header TTL caches 404 + max-age=30", 404, h("Cache-Control", "max-age=30"), def, 0, Cacheable, sec + 30},
		{"Set-Cookie never cacheable", 200, h("Set-Cookie", "a=b", "X-Accel-Expires", "60"), def, 0, SetCookie, 0},
		{"Set-Cookie ignored", 200, h("Set-Cookie", "a=b"), def, IgnoreSetCookie, Cacheable, sec + 10},
		{"CC substring no-cache", 200, h("Cache-Control", "public, NO-CACHE=\"x\""), def, 0, CacheControlNo, 0},
		{"CC private", 200, h("Cache-Control", "private, max-age=60"), def, 0, CacheControlNo, 0},
		{"CC no-store", 200, h("Cache-Control", "no-store"), def, 0, CacheControlNo, 0},
		{"CC ignored", 200, h("Cache-Control", "no-store"), def, IgnoreCacheControl, Cacheable, sec + 10},
		{"s-maxage > max-age", 200, h("Cache-Control", "max-age=5, s-maxage=50"), def, 0, Cacheable, sec + 50},
		{"max-age=0", 200, h("Cache-Control", "max-age=0"), def, 0, CacheControlNo, 0},
		{"max-age non-numeric", 200, h("Cache-Control", "max-age=abc"), def, 0, CacheControlNo, 0},
		// nginx 1.22.1, run here: "max-age=1x" then X-Accel-Expires: 30 is MISS, MISS.
		{"max-age non-numeric is final", 200, h("Cache-Control", "max-age=1x", "X-Accel-Expires", "20"), def, 0, CacheControlNo, 0},
		{"max-age= empty is 0, clearable", 200, h("Cache-Control", "max-age=, public", "X-Accel-Expires", "20"), def, 0, Cacheable, sec + 20},
		{"max-age then semicolon", 200, h("Cache-Control", "max-age=40;x"), def, 0, Cacheable, sec + 40},
		{"public alone sets no TTL", 200, h("Cache-Control", "public"), def, 0, Cacheable, sec + 10},
		{"public alone, no valid", 200, h("Cache-Control", "public"), nil, 0, NoTTL, 0},
		{"XAE relative", 200, h("X-Accel-Expires", "20"), def, 0, Cacheable, sec + 20},
		{"XAE @ absolute", 200, h("X-Accel-Expires", "@1800000300"), def, 0, Cacheable, 1800000300},
		{"XAE @ past", 200, h("X-Accel-Expires", "@1700000000"), def, 0, ExpiresPast, 0},
		{"XAE 0 never", 200, h("X-Accel-Expires", "0", "Cache-Control", "max-age=60"), def, 0, XAccelExpiresNo, 0},
		{"XAE invalid ignored", 200, h("X-Accel-Expires", "soon"), def, 0, Cacheable, sec + 10},
		{"XAE beats CC (CC first)", 200, h("Cache-Control", "max-age=60", "X-Accel-Expires", "20"), def, 0, Cacheable, sec + 20},
		{"XAE beats CC (XAE first)", 200, h("X-Accel-Expires", "20", "Cache-Control", "max-age=60"), def, 0, Cacheable, sec + 20},
		{"later XAE clears no-cache (>=1.23)", 200, h("Cache-Control", "no-cache", "X-Accel-Expires", "20"), def, 0, Cacheable, sec + 20},
		{"XAE ignored", 200, h("X-Accel-Expires", "20"), def, IgnoreXAccelExpires, Cacheable, sec + 10},
		{"Expires future", 200, h("Expires", future), def, 0, Cacheable, sec + 100},
		{"Expires past", 200, h("Expires", past), def, 0, ExpiresPast, 0},
		{"Expires garbage", 200, h("Expires", "0"), def, 0, ExpiresPast, 0},
		{"Expires only without TTL", 200, h("Cache-Control", "max-age=30", "Expires", past), def, 0, Cacheable, sec + 30},
		{"CC after Expires wins", 200, h("Expires", future, "Cache-Control", "max-age=30"), def, 0, Cacheable, sec + 30},
		{"Expires past cleared by XAE", 200, h("Expires", past, "X-Accel-Expires", "20"), def, 0, Cacheable, sec + 20},
		{"Expires ignored", 200, h("Expires", past), def, IgnoreExpires, Cacheable, sec + 10},
		{"Vary * blocks", 200, h("Vary", "*"), def, 0, VaryStar, 0},
		{"Vary X, * does not", 200, h("Vary", "Accept, *"), def, 0, Cacheable, sec + 10},
		{"Vary over 128 blocks", 200, h("Vary", string(make([]byte, 129))), def, 0, VaryStar, 0},
		{"Vary * ignored", 200, h("Vary", "*"), def, IgnoreVary, Cacheable, sec + 10},
		{"WordPress ignore set", 200, h("Cache-Control", "no-cache, must-revalidate", "Expires", past, "Set-Cookie", "x=1"), def, IgnoreCacheControl | IgnoreExpires | IgnoreSetCookie, Cacheable, sec + 10},
	}
	for _, c := range cases {
		f := Decide(now, c.status, c.fields, c.valid, c.ig)
		if f.Reason != c.reason || (c.reason == Cacheable && f.ValidUntil != c.until) {
			t.Errorf("%s: got %v until %d, want %v until %d", c.name, f.Reason, f.ValidUntil, c.reason, c.until)
		}
	}
}

func TestDecideWindowsAndVary(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	f := Decide(now, 200, []Field{
		{"Cache-Control", "max-age=10, stale-while-revalidate=30, stale-if-error=60"},
		{"Vary", "Accept-Encoding"}, {"vary", "Cookie"},
	}, nil, 0)
	if !f.OK() || f.StaleWhileRevalidate != 30 || f.StaleIfError != 60 {
		t.Fatalf("windows: %+v", f)
	}
	// stale-while-revalidate opens both windows; after X-Accel-Expires
	// only the windows of Cache-Control are read.
	xae := Decide(now, 200, []Field{{"X-Accel-Expires", "5"}, {"Cache-Control", "no-store, stale-while-revalidate=7"}}, nil, 0)
	if !xae.OK() || xae.ValidUntil != now.Unix()+5 || xae.StaleWhileRevalidate != 7 || xae.StaleIfError != 7 {
		t.Fatalf("after XAE: %+v", xae)
	}
	// >= 1.23 joins all Vary lines (spec: Vary).
	if f.Vary != "Accept-Encoding, Cookie" {
		t.Fatalf("vary %q", f.Vary)
	}
}

// TestFieldValue: the first line of a name, in any case, and "" for a
// name that is absent (one helper for cache and proxy alike).
func TestFieldValue(t *testing.T) {
	fields := []Field{{"Content-Type", "text/html"}, {"set-cookie", "a=1"}, {"Set-Cookie", "b=2"}}
	for _, tc := range []struct{ name, want string }{
		{"content-type", "text/html"}, {"SET-COOKIE", "a=1"}, {"ETag", ""},
	} {
		if got := FieldValue(fields, tc.name); got != tc.want {
			t.Errorf("FieldValue(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
