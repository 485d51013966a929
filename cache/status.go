// This file holds the small decisions around a lookup: the
// $upstream_cache_status values, which failures may be answered from a
// stale entry (fastcgi_cache_use_stale, stale-if-error), the levels=
// syntax, and whether a client takes the stored gzip variant.
package cache

import (
	"edge/cache/cachecfg"
	"strconv"
	"strings"
)

// Status is $upstream_cache_status. StatusNone is the empty value nginx
// logs when caching was not attempted (spec: "empty when caching was not
// attempted (e.g. POST)").
type Status uint8

const (
	StatusNone Status = iota
	StatusMiss
	StatusBypass
	StatusExpired
	StatusStale
	StatusUpdating
	StatusRevalidated
	StatusHit
)

var statusNames = [...]string{"", "MISS", "BYPASS", "EXPIRED", "STALE", "UPDATING", "REVALIDATED", "HIT"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return ""
}

// UseStale and its parser live in cache/cachecfg (see ttl.go).
type UseStale = cachecfg.UseStale

const (
	StaleError         = cachecfg.StaleError
	StaleTimeout       = cachecfg.StaleTimeout
	StaleInvalidHeader = cachecfg.StaleInvalidHeader
	StaleUpdating      = cachecfg.StaleUpdating
	StaleHTTP500       = cachecfg.StaleHTTP500
	StaleHTTP502       = cachecfg.StaleHTTP502
	StaleHTTP503       = cachecfg.StaleHTTP503
	StaleHTTP504       = cachecfg.StaleHTTP504
	StaleHTTP403       = cachecfg.StaleHTTP403
	StaleHTTP404       = cachecfg.StaleHTTP404
	StaleHTTP429       = cachecfg.StaleHTTP429
)

// ParseUseStale is cachecfg.ParseUseStale.
func ParseUseStale(words []string, proxyCache bool) (UseStale, error) {
	return cachecfg.ParseUseStale(words, proxyCache)
}

// ParseLevels is cachecfg.ParseLevels.
func ParseLevels(s string) ([]int, error) { return cachecfg.ParseLevels(s) }

// Failure is what went wrong with the upstream request.
type Failure uint8

const (
	FailNone          Failure = iota // a response arrived; its status decides
	FailError                        // connect or read error
	FailTimeout                      // a timeout
	FailInvalidHeader                // the response head was invalid
)

// staleFor maps a failure, or a response status, to the use_stale item
// that allows a stale answer for it; 0 when none could.
func staleFor(f Failure, status int) UseStale {
	switch f {
	case FailError:
		return StaleError
	case FailTimeout:
		return StaleTimeout
	case FailInvalidHeader:
		return StaleInvalidHeader
	}
	switch status {
	case 500:
		return StaleHTTP500
	case 502:
		return StaleHTTP502
	case 503:
		return StaleHTTP503
	case 504:
		return StaleHTTP504
	case 403:
		return StaleHTTP403
	case 404:
		return StaleHTTP404
	case 429:
		return StaleHTTP429
	}
	return 0
}

// ServeStale decides whether an expired entry answers instead of the
// upstream's failure (ngx_http_upstream_next and the intercept of error
// statuses): the failure's item must be in use_stale (spec: "use_stale
// error / http_500 with an entry: STALE; without entry: error passes").
// The entry's stale-if-error window (inErrorWindow) also allows it, but
// only for errors, timeouts and invalid headers, never for a status: nginx
// 1.19.3 stopped it from keeping an entry over 4xx/5xx responses ("Cache:
// ignore stale-if-error for 4xx and 5xx codes").
func ServeStale(use UseStale, f Failure, status int, inErrorWindow bool) bool {
	item := staleFor(f, status)
	if item == 0 {
		return false
	}
	return use&item != 0 || (inErrorWindow && f != FailNone)
}

// AcceptsGzip is ngx_http_gzip_accept_encoding: the Accept-Encoding value
// names "gzip" as a whole token whose quality is not zero (RFC 9110
// 12.5.3). "x-gzip" does not count, as in nginx, which wants a separator
// before "gzip".
func AcceptsGzip(ae string) bool {
	for ae != "" {
		var item string
		item, ae, _ = strings.Cut(ae, ",")
		name, params, _ := strings.Cut(item, ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		return !zeroQuality(params)
	}
	return false
}

// zeroQuality reports whether params holds q=0 (or 0.0, 0.00, 0.000).
func zeroQuality(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		q, err := strconv.ParseFloat(v, 64)
		return err == nil && q == 0
	}
	return false
}

// AnyTrue is ngx_http_test_predicates, the test of fastcgi_cache_bypass
// and fastcgi_no_cache: true when any evaluated value is non-empty and not
// exactly "0" (spec: `"" and "0" false`; "00" and " 0" are true).
func AnyTrue(values ...string) bool {
	for _, v := range values {
		if v != "" && v != "0" {
			return true
		}
	}
	return false
}
