// Package cache holds edge's HTTP caching policy: the Expires and
// Cache-Control headers the expires directive produces, and the answer to
// conditional requests (304 Not Modified, 412 Precondition Failed), as
// small functions over plain values so each rule has its own table test.
package cache

import (
	"strconv"
	"strings"
	"time"

	"edge/conf"
)

// httpTime is the IMF-fixdate of RFC 9110 5.6.7.
const httpTime = "Mon, 02 Jan 2006 15:04:05 GMT"

// ExpiresHeaders computes the Expires and Cache-Control values for one
// response, following nginx's ngx_http_set_expires:
//   - epoch: Expires at 1970-01-01 00:00:01, "no-cache";
//   - max: Expires 2037-12-31 23:55:55, max-age of 10 years;
//   - a time: now + t; "modified": Last-Modified + t (now + t when the
//     response has no Last-Modified); "@15h30m": the next such time of day;
//   - a time of 0 (not daily): Expires now and "max-age=0", even after
//     "modified";
//   - a negative configured time or a negative max-age gives "no-cache".
//
// e is resolved: when the directive held variables the caller has parsed
// their value into Mode and Time and left Var set, which tells that the
// configured time was 0 (nginx tests conf->expires_time, not the parsed
// value, so a variable's negative time alone is not "no-cache" after
// "modified"). ok is false when expires is off (headers stay as they are).
func ExpiresHeaders(e conf.Expires, now, lastModified time.Time) (expires, cacheControl string, ok bool) {
	switch e.Mode {
	case conf.ExpiresOff:
		return "", "", false
	case conf.ExpiresEpoch:
		return "Thu, 01 Jan 1970 00:00:01 GMT", "no-cache", true
	case conf.ExpiresMax:
		return "Thu, 31 Dec 2037 23:55:55 GMT", "max-age=315360000", true
	}
	now = now.Truncate(time.Second)
	if e.Time == 0 && e.Mode != conf.ExpiresDaily {
		return now.UTC().Format(httpTime), "max-age=0", true
	}
	var at time.Time
	var maxAge time.Duration
	switch {
	case e.Mode == conf.ExpiresDaily:
		at = nextTimeOfDay(now, e.Time)
		maxAge = at.Sub(now)
	case e.Mode == conf.ExpiresAccess || lastModified.IsZero():
		maxAge = e.Time
		at = now.Add(e.Time)
	default:
		at = lastModified.Add(e.Time)
		maxAge = at.Sub(now)
	}
	expires = at.UTC().Format(httpTime)
	if (e.Time < 0 && e.Var == nil) || maxAge < 0 {
		return expires, "no-cache", true
	}
	return expires, "max-age=" + strconv.FormatInt(int64(maxAge/time.Second), 10), true
}

// nextTimeOfDay is nginx's ngx_next_time: the next moment, in local time,
// at the given offset from midnight.
func nextTimeOfDay(now time.Time, offset time.Duration) time.Time {
	y, m, d := now.Date()
	t := time.Date(y, m, d, 0, 0, 0, 0, now.Location()).Add(offset)
	if !t.After(now) {
		t = time.Date(y, m, d+1, 0, 0, 0, 0, now.Location()).Add(offset)
	}
	return t
}

// CondResult is the outcome of the conditional request headers.
type CondResult int

const (
	CondNone               CondResult = iota // send the full response
	CondNotModified                          // 304
	CondPreconditionFailed                   // 412
)

// CondRequest holds the conditional headers of a request.
type CondRequest struct {
	IfModifiedSince   string
	IfUnmodifiedSince string
	IfMatch           string
	IfNoneMatch       string
}

// IMSMode is if_modified_since: "exact", "before" or "off".
type IMSMode string

// Check applies RFC 9110 13.2.2's order as nginx implements it
// (ngx_http_not_modified_header_filter): If-Unmodified-Since and If-Match
// can fail with 412; then If-Modified-Since and If-None-Match give 304 only
// when every one present says "not modified". lastModified is zero and etag
// "" when the response has none.
func Check(req CondRequest, lastModified time.Time, etag string, mode IMSMode) CondResult {
	if req.IfUnmodifiedSince != "" && !unmodifiedSince(req.IfUnmodifiedSince, lastModified) {
		return CondPreconditionFailed
	}
	if req.IfMatch != "" && !ETagMatch(req.IfMatch, etag, false) {
		return CondPreconditionFailed
	}
	if req.IfModifiedSince == "" && req.IfNoneMatch == "" {
		return CondNone
	}
	if req.IfModifiedSince != "" && modifiedSince(req.IfModifiedSince, lastModified, mode) {
		return CondNone
	}
	if req.IfNoneMatch != "" && !ETagMatch(req.IfNoneMatch, etag, true) {
		return CondNone
	}
	return CondNotModified
}

// unmodifiedSince is nginx's ngx_http_test_if_unmodified: a response
// without Last-Modified, or a date that does not parse, fails the
// precondition (nginx compares the parse error, -1, with the file's time).
func unmodifiedSince(ius string, lastModified time.Time) bool {
	if lastModified.IsZero() {
		return false
	}
	t, err := parseHTTPTime(ius)
	return err == nil && t.Unix() >= lastModified.Unix()
}

// modifiedSince is nginx's ngx_http_test_if_modified: with "exact" only an
// equal date is "not modified"; with "before" any date at or after the
// file's.
func modifiedSince(ims string, lastModified time.Time, mode IMSMode) bool {
	if lastModified.IsZero() || mode == "off" {
		return true
	}
	t, err := parseHTTPTime(ims)
	if err != nil {
		return true
	}
	if t.Unix() == lastModified.Unix() {
		return false
	}
	if mode == "exact" || t.Unix() < lastModified.Unix() {
		return true
	}
	return false
}

// ETagMatch reports whether an If-Match/If-None-Match list names etag
// ("*" matches any entity). weak selects the weak comparison of RFC 9110
// 8.8.3.2 (If-None-Match); If-Match uses the strong one, where a weak tag
// never matches.
func ETagMatch(list, etag string, weak bool) bool {
	// "*" matches even a response without an ETag, as in nginx's
	// ngx_http_test_if_match.
	list = strings.TrimSpace(list)
	if list == "*" {
		return true
	}
	if etag == "" {
		return false
	}
	if !weak && strings.HasPrefix(etag, "W/") {
		return false
	}
	want := etag
	if weak {
		want = strings.TrimPrefix(want, "W/")
	}
	for list != "" {
		var tag string
		tag, list, _ = strings.Cut(list, ",")
		tag = strings.TrimSpace(tag)
		if weak {
			tag = strings.TrimPrefix(tag, "W/")
		} else if strings.HasPrefix(tag, "W/") {
			continue
		}
		if tag == want {
			return true
		}
	}
	return false
}

// parseHTTPTime reads the three date formats of RFC 9110 5.6.7.
func parseHTTPTime(s string) (time.Time, error) {
	for _, layout := range []string{httpTime, time.RFC850, time.ANSIC} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errBadDate
}

type dateError struct{}

func (dateError) Error() string { return "cache: bad HTTP date" }

var errBadDate error = dateError{}

// IfRangeMatches reports whether an If-Range value allows a partial
// response (RFC 9110 13.1.5): an entity tag must match strongly, a date
// must equal Last-Modified exactly.
func IfRangeMatches(v string, lastModified time.Time, etag string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return true
	}
	if strings.HasPrefix(v, "\"") || strings.HasPrefix(v, "W/") {
		return etag != "" && !strings.HasPrefix(v, "W/") && v == etag
	}
	t, err := parseHTTPTime(v)
	return err == nil && !lastModified.IsZero() && t.Unix() == lastModified.Unix()
}
