package cache

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLockOneFiller: spec "Lock on, 10 concurrent on a new key: 1 PHP hit,
// 9 HIT". The filler holds the lock until the others have looked up.
func TestLockOneFiller(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	pol := basePolicy
	pol.Lock = true
	first := tz.Lookup(context.Background(), key("k"), pol)
	if first.Status != StatusMiss {
		t.Fatalf("first: %v", first.Status)
	}
	var wg sync.WaitGroup
	var hits, misses atomic.Int32
	for i := 0; i < 9; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, body := tz.get(t, key("k"), pol)
			switch {
			case st == StatusHit && body == "filled":
				hits.Add(1)
			default:
				misses.Add(1)
			}
		}()
	}
	for tz.Waiting() < 9 {
		time.Sleep(time.Millisecond) // until all nine wait for the lock
	}
	commit(t, first, "filled")
	first.Done()
	wg.Wait()
	if hits.Load() != 9 || misses.Load() != 0 {
		t.Fatalf("%d HIT, %d other, want 9 HIT", hits.Load(), misses.Load())
	}
}

// TestLockFillerFails: a filler that stores nothing lets the next waiter
// fill.
func TestLockFillerFails(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	pol := basePolicy
	pol.Lock = true
	first := tz.Lookup(context.Background(), key("k"), pol)
	got := make(chan *Lookup)
	go func() { got <- tz.Lookup(context.Background(), key("k"), pol) }()
	for tz.Waiting() < 1 {
		time.Sleep(time.Millisecond)
	}
	first.Done() // e.g. PHP answered with Set-Cookie
	second := <-got
	defer second.Done()
	if second.Status != StatusMiss || second.Store(200, nil, second.Decide(200, nil), StoreOptions{}) == nil {
		t.Fatalf("second: %v, not a filler", second.Status)
	}
}

// TestLockTimeout: spec "Lock timeout: waiters go to PHP uncached, status
// MISS". The wait is real time (30 ms), as nginx's is.
func TestLockTimeout(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.Zone.now = time.Now
	pol := basePolicy
	pol.Lock, pol.LockTimeout, pol.LockAge = true, 30*time.Millisecond, time.Hour
	first := tz.Lookup(context.Background(), key("k"), pol)
	defer first.Done()
	second := tz.Lookup(context.Background(), key("k"), pol)
	defer second.Done()
	if second.Status != StatusMiss {
		t.Fatalf("second: %v", second.Status)
	}
	if w := second.Store(200, nil, second.Decide(200, nil), StoreOptions{}); w != nil {
		t.Fatal("a request past the lock timeout may store")
	}
}

// TestLockAge: spec "lock_age: one extra PHP request per interval,
// cacheable".
func TestLockAge(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.Zone.now = time.Now
	pol := basePolicy
	pol.Lock, pol.LockAge = true, 30*time.Millisecond
	first := tz.Lookup(context.Background(), key("k"), pol)
	defer first.Done()
	second := tz.Lookup(context.Background(), key("k"), pol)
	if second.Status != StatusMiss {
		t.Fatalf("second: %v", second.Status)
	}
	w := second.Store(200, nil, second.Decide(200, nil), StoreOptions{})
	if w == nil {
		t.Fatal("the request after lock_age may not store")
	}
	io.WriteString(w, "second")
	w.Commit()
	second.Done()
	// The first filler's end does not disturb the second's result.
	first.Done()
	tz.want(t, key("k"), pol, StatusHit, "second")
}

// TestLockContextEnds: a client that goes away stops waiting.
func TestLockContextEnds(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.Zone.now = time.Now
	pol := basePolicy
	pol.Lock = true
	first := tz.Lookup(context.Background(), key("k"), pol)
	defer first.Done()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l := tz.Lookup(ctx, key("k"), pol)
	defer l.Done()
	if l.Status != StatusMiss || l.Store(200, nil, l.Decide(200, nil), StoreOptions{}) != nil {
		t.Fatalf("%v", l.Status)
	}
}

// expired stores k and moves the clock past its validity.
func expired(t *testing.T, pol Policy, fields ...Field) *testZone {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), pol, "old", fields...)
	tz.clock.Add(11 * time.Minute)
	return tz
}

// TestNoLockForExpired: spec "Expired, no use_stale updating: every
// concurrent request EXPIRED -> PHP", and the lock only applies to new
// elements.
func TestNoLockForExpired(t *testing.T) {
	pol := basePolicy
	pol.Lock = true
	tz := expired(t, pol)
	a := tz.Lookup(context.Background(), key("k"), pol)
	b := tz.Lookup(context.Background(), key("k"), pol)
	for _, l := range []*Lookup{a, b} {
		if l.Status != StatusExpired || l.Store(200, nil, l.Decide(200, nil), StoreOptions{}) == nil {
			t.Fatalf("%v or not storable", l.Status)
		}
		l.Entry.Close()
		l.Done()
	}
}

// TestUpdating: spec "use_stale updating: updater EXPIRED, others UPDATING
// (stale body)".
func TestUpdating(t *testing.T) {
	pol := basePolicy
	pol.UseStale = StaleUpdating
	tz := expired(t, pol)
	updater := tz.Lookup(context.Background(), key("k"), pol)
	if updater.Status != StatusExpired {
		t.Fatalf("updater: %v", updater.Status)
	}
	tz.want(t, key("k"), pol, StatusUpdating, "old")
	commit(t, updater, "new")
	updater.Entry.Close()
	updater.Done()
	tz.want(t, key("k"), pol, StatusHit, "new")
}

// TestBackgroundUpdate: spec "Background update: STALE immediately,
// UPDATING during, then HIT (new)".
func TestBackgroundUpdate(t *testing.T) {
	pol := basePolicy
	pol.UseStale, pol.BackgroundUpdate = StaleUpdating, true
	tz := expired(t, pol)
	l := tz.Lookup(context.Background(), key("k"), pol)
	if l.Status != StatusStale || !l.Background || l.Entry == nil {
		t.Fatalf("first: %v background %v", l.Status, l.Background)
	}
	l.Entry.Close() // the client got the stale page
	if st, _ := tz.get(t, key("k"), pol); st != StatusUpdating {
		t.Fatalf("during: %v", st)
	}
	commit(t, l, "new")
	l.Done()
	tz.want(t, key("k"), pol, StatusHit, "new")
}

// TestStaleWhileRevalidate: the Cache-Control window allows UPDATING
// without use_stale updating.
func TestStaleWhileRevalidate(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	cc := Field{"Cache-Control", "max-age=10, stale-while-revalidate=60"}
	tz.fill(t, key("k"), basePolicy, "old", cc)
	tz.clock.Add(30 * time.Second)
	a := tz.Lookup(context.Background(), key("k"), basePolicy)
	defer a.Done()
	defer a.Entry.Close()
	if st, _ := tz.get(t, key("k"), basePolicy); a.Status != StatusExpired || st != StatusUpdating {
		t.Fatalf("%v, %v", a.Status, st)
	}
	tz.clock.Add(time.Minute) // past the window
	if st, _ := tz.get(t, key("k"), basePolicy); st != StatusExpired {
		t.Fatalf("past window: %v", st)
	}
}

// TestStaleOnError: spec "use_stale error / http_500 with an entry: STALE;
// without entry: error passes".
func TestStaleOnError(t *testing.T) {
	pol := basePolicy
	pol.UseStale = StaleError | StaleHTTP500
	tz := expired(t, pol)
	cases := []struct {
		f      Failure
		status int
		want   bool
	}{
		{FailError, 0, true}, {FailNone, 500, true}, {FailTimeout, 0, false}, {FailNone, 404, false},
	}
	for _, c := range cases {
		l := tz.Lookup(context.Background(), key("k"), pol)
		got := l.Stale(c.f, c.status)
		if got != c.want || (got && l.Status != StatusStale) {
			t.Errorf("%v %d: %v %v", c.f, c.status, got, l.Status)
		}
		l.Entry.Close()
		l.Done()
	}
	l := tz.Lookup(context.Background(), key("new"), pol)
	if l.Stale(FailError, 0) {
		t.Error("stale without an entry")
	}
	l.Done()
}

// TestStaleIfError: the Cache-Control window allows STALE for failures
// use_stale does not list.
func TestStaleIfError(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "old", Field{"Cache-Control", "max-age=10, stale-if-error=60"})
	tz.clock.Add(30 * time.Second)
	l := tz.Lookup(context.Background(), key("k"), basePolicy)
	if !l.Stale(FailTimeout, 0) {
		t.Error("inside stale-if-error: no stale")
	}
	l.Entry.Close()
	l.Done()
	tz.clock.Add(time.Minute)
	l = tz.Lookup(context.Background(), key("k"), basePolicy)
	if l.Stale(FailTimeout, 0) {
		t.Error("past stale-if-error: stale")
	}
	l.Entry.Close()
	l.Done()
	// stale-while-revalidate alone opens the window too: nginx 1.22.1, run
	// here with "max-age=1, stale-while-revalidate=100", no use_stale and
	// php-fpm stopped, answered STALE after 2 s.
	tz.fill(t, key("swr"), basePolicy, "old", Field{"Cache-Control", "max-age=1, stale-while-revalidate=100"})
	tz.clock.Add(2 * time.Second)
	l = tz.Lookup(context.Background(), key("swr"), basePolicy)
	if l.Status != StatusExpired || !l.Stale(FailError, 0) {
		t.Errorf("swr window: %v", l.Status)
	}
	l.Entry.Close()
	l.Done()
}

// TestRevalidate: spec "fastcgi_cache_revalidate: conditional request with
// stored validators; 304 -> REVALIDATED", and the renewed validity is on
// disk.
func TestRevalidate(t *testing.T) {
	pol := basePolicy
	pol.Revalidate = true
	lm := "Sun, 29 Nov 2026 12:00:00 GMT"
	tz := expired(t, pol, Field{"Last-Modified", lm}, Field{"ETag", `"v1"`})
	l := tz.Lookup(context.Background(), key("k"), pol)
	gotLM, gotETag, ok := l.Validators()
	if !ok || gotLM != lm || gotETag != `"v1"` {
		t.Fatalf("validators %q %q %v", gotLM, gotETag, ok)
	}
	if err := l.Revalidated(nil); err != nil {
		t.Fatal(err)
	}
	if l.Status != StatusRevalidated {
		t.Fatalf("%v", l.Status)
	}
	l.Entry.Close()
	l.Done()
	tz.want(t, key("k"), pol, StatusHit, "old")
	tz2 := openZone(t, ZoneConfig{Path: tz.Config().Path})
	tz2.clock.t = tz.clock.Now()
	if st, _ := tz2.get(t, key("k"), pol); st != StatusHit {
		t.Fatalf("after restart: %v", st)
	}
	// Without revalidate there are no validators to send.
	l = tz.Lookup(context.Background(), key("k"), basePolicy)
	if _, _, ok := l.Validators(); ok {
		t.Error("validators on a HIT")
	}
	l.Entry.Close()
	l.Done()
}

// TestEntrySurvivesReplace: a client sending the old file while a new
// entry is renamed over it keeps reading the old body.
func TestEntrySurvivesReplace(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "old body")
	old := tz.Lookup(context.Background(), key("k"), basePolicy)
	tz.clock.Add(11 * time.Minute)
	tz.fill(t, key("k"), basePolicy, "new body")
	b, err := old.Entry.ReadBody(old.Entry.Identity)
	if err != nil || string(b) != "old body" {
		t.Fatalf("%q %v", b, err)
	}
	old.Entry.Close()
	old.Done()
	tz.want(t, key("k"), basePolicy, StatusHit, "new body")
}

// TestCachedError: with "fastcgi_cache_valid 502 1m" a 502 edge answered
// itself is a HIT for a minute, even over an expired entry, and then the
// upstream is asked again.
func TestCachedError(t *testing.T) {
	rules, _ := ValidRules([]string{"502"}, time.Minute)
	pol := Policy{Valid: append(append([]ValidRule(nil), valid10m...), rules...)}
	tz := expired(t, pol)
	l := tz.Lookup(context.Background(), key("k"), pol)
	if l.Stale(FailError, 0) {
		t.Fatal("stale without use_stale")
	}
	l.Failed(502)
	l.Entry.Close()
	l.Done()
	l = tz.Lookup(context.Background(), key("k"), pol)
	if l.Status != StatusHit || l.ErrorStatus != 502 || l.Entry != nil {
		t.Fatalf("%v %d", l.Status, l.ErrorStatus)
	}
	l.Done()
	tz.clock.Add(61 * time.Second)
	tz.want(t, key("k"), pol, StatusExpired, "old")
	// A 504 no rule names is not remembered; a 502 for a new key is.
	l = tz.Lookup(context.Background(), key("new"), pol)
	l.Failed(504)
	l.Done()
	tz.want(t, key("new"), pol, StatusMiss, "")
	l = tz.Lookup(context.Background(), key("new"), pol)
	l.Failed(502)
	l.Done()
	l = tz.Lookup(context.Background(), key("new"), pol)
	if l.ErrorStatus != 502 {
		t.Fatalf("new key: %v %d", l.Status, l.ErrorStatus)
	}
	l.Done()
}

// TestInterceptedError: an error status an error_page answers is
// remembered as nginx's ngx_http_upstream_intercept_errors does (ticket
// #1382): for its Cache-Control max-age even when no
// fastcgi_cache_valid names it, for fastcgi_cache_valid's time without
// headers, and not at all when the response is not cacheable (no-cache),
// nor without a valid time.
func TestInterceptedError(t *testing.T) {
	rules, _ := ValidRules([]string{"401"}, time.Minute)
	pol := Policy{Valid: rules}
	tz := openZone(t, ZoneConfig{})
	intercept := func(k string, status int, fields ...Field) {
		t.Helper()
		l := tz.Lookup(context.Background(), key(k), pol)
		if l.Status != StatusMiss {
			t.Fatalf("%s: first lookup %v", k, l.Status)
		}
		l.Intercepted(status, fields)
		l.Done()
	}
	cached := func(k string, status int) {
		t.Helper()
		l := tz.Lookup(context.Background(), key(k), pol)
		defer l.Done()
		if l.Status != StatusHit || l.ErrorStatus != status || l.Entry != nil {
			t.Errorf("%s: %v %d, want HIT with %d", k, l.Status, l.ErrorStatus, status)
		}
	}
	intercept("maxage", 404, Field{"Cache-Control", "max-age=1"})
	cached("maxage", 404)
	intercept("valid", 401)
	cached("valid", 401)
	intercept("nocache", 401, Field{"Cache-Control", "no-cache"})
	tz.want(t, key("nocache"), pol, StatusMiss, "")
	intercept("novalid", 404)
	tz.want(t, key("novalid"), pol, StatusMiss, "")
	// max-age=1 ends after its second; the valid rule's minute does not.
	tz.clock.Add(2 * time.Second)
	tz.want(t, key("maxage"), pol, StatusMiss, "")
	cached("valid", 401)
}
