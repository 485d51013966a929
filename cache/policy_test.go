package cache

import (
	"testing"
	"time"

	"edge/conf"
)

func TestExpiresHeaders(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	lm := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	cases := []struct {
		name        string
		e           conf.Expires
		lm          time.Time
		wantExpires string
		wantCC      string
		wantOK      bool
	}{
		{"off", conf.Expires{Mode: conf.ExpiresOff}, lm, "", "", false},
		{"30d seed 004", conf.Expires{Mode: conf.ExpiresAccess, Time: 30 * day}, lm, "Wed, 30 Dec 2026 12:00:00 GMT", "max-age=2592000", true},
		{"epoch", conf.Expires{Mode: conf.ExpiresEpoch}, lm, "Thu, 01 Jan 1970 00:00:01 GMT", "no-cache", true},
		{"max", conf.Expires{Mode: conf.ExpiresMax}, lm, "Thu, 31 Dec 2037 23:55:55 GMT", "max-age=315360000", true},
		{"negative", conf.Expires{Mode: conf.ExpiresAccess, Time: -time.Hour}, lm, "Mon, 30 Nov 2026 11:00:00 GMT", "no-cache", true},
		{"zero", conf.Expires{Mode: conf.ExpiresAccess}, lm, "Mon, 30 Nov 2026 12:00:00 GMT", "max-age=0", true},
		{"modified", conf.Expires{Mode: conf.ExpiresModified, Time: 2 * day}, lm, "Tue, 01 Dec 2026 12:00:00 GMT", "max-age=86400", true},
		{"modified past", conf.Expires{Mode: conf.ExpiresModified, Time: time.Hour}, lm, "Sun, 29 Nov 2026 13:00:00 GMT", "no-cache", true},
		{"modified without Last-Modified", conf.Expires{Mode: conf.ExpiresModified, Time: time.Hour}, time.Time{}, "Mon, 30 Nov 2026 13:00:00 GMT", "max-age=3600", true},
		{"daily later today", conf.Expires{Mode: conf.ExpiresDaily, Time: 15*time.Hour + 30*time.Minute}, lm, "Mon, 30 Nov 2026 15:30:00 GMT", "max-age=12600", true},
		{"modified zero is now", conf.Expires{Mode: conf.ExpiresModified}, lm, "Mon, 30 Nov 2026 12:00:00 GMT", "max-age=0", true},
		{"modified negative, Last-Modified ahead", conf.Expires{Mode: conf.ExpiresModified, Time: -time.Hour}, now.Add(2 * time.Hour), "Mon, 30 Nov 2026 13:00:00 GMT", "no-cache", true},
		// From a variable nginx's configured time is 0: the max-age alone decides.
		{"variable modified negative, Last-Modified ahead", conf.Expires{Mode: conf.ExpiresModified, Time: -time.Hour, Var: conf.StaticScript("$e")}, now.Add(2 * time.Hour), "Mon, 30 Nov 2026 13:00:00 GMT", "max-age=3600", true},
		{"daily 24h is next midnight", conf.Expires{Mode: conf.ExpiresDaily, Time: 24 * time.Hour}, lm, "Tue, 01 Dec 2026 00:00:00 GMT", "max-age=43200", true},
		{"daily tomorrow", conf.Expires{Mode: conf.ExpiresDaily, Time: 6 * time.Hour}, lm, "Tue, 01 Dec 2026 06:00:00 GMT", "max-age=64800", true},
	}
	for _, c := range cases {
		e, cc, ok := ExpiresHeaders(c.e, now, c.lm)
		if e != c.wantExpires || cc != c.wantCC || ok != c.wantOK {
			t.Errorf("%s: got %q %q %v, want %q %q %v", c.name, e, cc, ok, c.wantExpires, c.wantCC, c.wantOK)
		}
	}
}

func TestCheck(t *testing.T) {
	lm := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	lmText := "Sun, 29 Nov 2026 12:00:00 GMT"
	later := "Mon, 30 Nov 2026 12:00:00 GMT"
	earlier := "Sat, 28 Nov 2026 12:00:00 GMT"
	etag := `"6b0d04f0-6"`
	cases := []struct {
		name string
		req  CondRequest
		mode IMSMode
		want CondResult
	}{
		{"none", CondRequest{}, "exact", CondNone},
		{"ims equal", CondRequest{IfModifiedSince: lmText}, "exact", CondNotModified},
		{"ims later exact", CondRequest{IfModifiedSince: later}, "exact", CondNone},
		{"ims later before", CondRequest{IfModifiedSince: later}, "before", CondNotModified},
		{"ims earlier before", CondRequest{IfModifiedSince: earlier}, "before", CondNone},
		{"ims off", CondRequest{IfModifiedSince: lmText}, "off", CondNone},
		{"ims garbage", CondRequest{IfModifiedSince: "yesterday"}, "exact", CondNone},
		{"inm match", CondRequest{IfNoneMatch: etag}, "exact", CondNotModified},
		{"inm weak match", CondRequest{IfNoneMatch: `W/"6b0d04f0-6"`}, "exact", CondNotModified},
		{"inm list", CondRequest{IfNoneMatch: `"x", "6b0d04f0-6"`}, "exact", CondNotModified},
		{"inm star", CondRequest{IfNoneMatch: `*`}, "exact", CondNotModified},
		{"inm other", CondRequest{IfNoneMatch: `"x"`}, "exact", CondNone},
		{"inm match but ims says modified", CondRequest{IfNoneMatch: etag, IfModifiedSince: earlier}, "exact", CondNone},
		{"ius before lm", CondRequest{IfUnmodifiedSince: earlier}, "exact", CondPreconditionFailed},
		{"ius equal", CondRequest{IfUnmodifiedSince: lmText}, "exact", CondNone},
		{"if-match other", CondRequest{IfMatch: `"x"`}, "exact", CondPreconditionFailed},
		{"if-match weak never", CondRequest{IfMatch: `W/"6b0d04f0-6"`}, "exact", CondPreconditionFailed},
		{"if-match ok", CondRequest{IfMatch: etag}, "exact", CondNone},
	}
	for _, c := range cases {
		if got := Check(c.req, lm, etag, c.mode); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

// TestCheckWithoutValidators covers responses with no Last-Modified or
// ETag (a "return 200 text", for example) and unparsable dates, where
// nginx fails If-Match/If-Unmodified-Since and lets "*" match.
func TestCheckWithoutValidators(t *testing.T) {
	lm := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	later := "Mon, 30 Nov 2026 12:00:00 GMT"
	cases := []struct {
		name string
		req  CondRequest
		lm   time.Time
		etag string
		want CondResult
	}{
		{"ius without last-modified", CondRequest{IfUnmodifiedSince: later}, time.Time{}, "", CondPreconditionFailed},
		{"ius garbage", CondRequest{IfUnmodifiedSince: "garbage"}, lm, `"a"`, CondPreconditionFailed},
		{"ius later", CondRequest{IfUnmodifiedSince: later}, lm, `"a"`, CondNone},
		{"if-match without etag", CondRequest{IfMatch: `"a"`}, lm, "", CondPreconditionFailed},
		{"if-match star without etag", CondRequest{IfMatch: "*"}, time.Time{}, "", CondNone},
		{"inm star without etag", CondRequest{IfNoneMatch: "*"}, time.Time{}, "", CondNotModified},
		{"inm without etag", CondRequest{IfNoneMatch: `"a"`}, time.Time{}, "", CondNone},
		{"ims without last-modified", CondRequest{IfModifiedSince: later}, time.Time{}, "", CondNone},
	}
	for _, c := range cases {
		if got := Check(c.req, c.lm, c.etag, "exact"); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

func TestIfRange(t *testing.T) {
	lm := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	etag := `"a-1"`
	cases := []struct {
		v    string
		want bool
	}{
		{"", true},
		{`"a-1"`, true},
		{`"b-1"`, false},
		{`W/"a-1"`, false},
		{"Sun, 29 Nov 2026 12:00:00 GMT", true},
		{"Sun, 29 Nov 2026 12:00:01 GMT", false},
		{"garbage", false},
	}
	for _, c := range cases {
		if got := IfRangeMatches(c.v, lm, etag); got != c.want {
			t.Errorf("If-Range %q: got %v want %v", c.v, got, c.want)
		}
	}
}
