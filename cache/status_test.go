package cache

import "testing"

func TestStatusString(t *testing.T) {
	want := []string{"", "MISS", "BYPASS", "EXPIRED", "STALE", "UPDATING", "REVALIDATED", "HIT"}
	for i, w := range want {
		if got := Status(i).String(); got != w {
			t.Errorf("%d: %q, want %q", i, got, w)
		}
	}
}

func TestParseUseStale(t *testing.T) {
	// WordOps' list (spec).
	u, err := ParseUseStale([]string{"error", "timeout", "invalid_header", "updating", "http_500", "http_503"}, false)
	if err != nil || u != StaleError|StaleTimeout|StaleInvalidHeader|StaleUpdating|StaleHTTP500|StaleHTTP503 {
		t.Fatalf("got %b %v", u, err)
	}
	if _, err := ParseUseStale([]string{"http_502"}, false); err == nil {
		t.Error("fastcgi accepted http_502")
	}
	if u, err := ParseUseStale([]string{"http_502", "http_504"}, true); err != nil || u != StaleHTTP502|StaleHTTP504 {
		t.Errorf("proxy http_502: %b %v", u, err)
	}
	if u, err := ParseUseStale([]string{"off"}, false); err != nil || u != 0 {
		t.Errorf("off: %b %v", u, err)
	}
	if _, err := ParseUseStale([]string{"off", "error"}, false); err == nil {
		t.Error("off with others accepted")
	}
}

func TestServeStale(t *testing.T) {
	wordops := StaleError | StaleTimeout | StaleInvalidHeader | StaleUpdating | StaleHTTP500 | StaleHTTP503
	cases := []struct {
		name   string
		use    UseStale
		f      Failure
		status int
		window bool
		want   bool
	}{
		{"error listed", wordops, FailError, 0, false, true},
		{"timeout listed", wordops, FailTimeout, 0, false, true},
		{"http_500 listed", wordops, FailNone, 500, false, true},
		{"http_404 not listed", wordops, FailNone, 404, false, false},
		{"200 is never a failure", wordops, FailNone, 200, true, false},
		{"off", 0, FailError, 0, false, false},
		{"stale-if-error window covers error", 0, FailError, 0, true, true},
		{"stale-if-error window covers timeout", 0, FailTimeout, 0, true, true},
		{"stale-if-error window not for 503 (1.19.3)", 0, FailNone, 503, true, false},
		{"stale-if-error window, 503 listed", StaleHTTP503, FailNone, 503, true, true},
	}
	for _, c := range cases {
		if got := ServeStale(c.use, c.f, c.status, c.window); got != c.want {
			t.Errorf("%s: got %v", c.name, got)
		}
	}
}

func TestParseLevels(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		ok   bool
	}{
		{"", nil, true}, {"1", []int{1}, true}, {"1:2", []int{1, 2}, true}, {"2:2:2", []int{2, 2, 2}, true},
		{"1:2:2:1", nil, false}, {"3", nil, false}, {"1:", nil, false}, {"01", nil, false},
	}
	for _, c := range cases {
		got, err := ParseLevels(c.in)
		if (err == nil) != c.ok || len(got) != len(c.want) {
			t.Errorf("%q: %v %v", c.in, got, err)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: %v", c.in, got)
			}
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	cases := []struct {
		ae   string
		want bool
	}{
		{"gzip, deflate, br", true},
		{"br;q=1.0, GZIP;q=0.5", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"identity", false},
		{"x-gzip", false},
		{"", false},
		{"*", false}, // nginx looks for gzip itself
	}
	for _, c := range cases {
		if got := AcceptsGzip(c.ae); got != c.want {
			t.Errorf("%q: got %v", c.ae, got)
		}
	}
}

func TestAnyTrue(t *testing.T) {
	cases := []struct {
		values []string
		want   bool
	}{
		{nil, false},
		{[]string{""}, false},
		{[]string{"0"}, false},
		{[]string{"", "0"}, false},
		{[]string{"1"}, true},
		{[]string{"0", "yes"}, true},
		{[]string{"00"}, true},
		{[]string{" 0"}, true},
	}
	for _, c := range cases {
		if got := AnyTrue(c.values...); got != c.want {
			t.Errorf("%q: %v", c.values, got)
		}
	}
}
