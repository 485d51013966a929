// This file holds the cacheability and freshness decision for one response
// (nginx's ngx_http_upstream_process_{cache_control,expires,accel_expires,
// set_cookie,vary} and ngx_http_file_cache_valid), as pure functions over
// the response's status and ordered header fields. Item references
// ("spec: ...") are to ../shared/research/fastcgi-cache-spec.md, which
// measured nginx 1.22.1 and 1.31.4; where the two differ edge follows the
// newer one (1.23.0 changed several rules).
package cache

import (
	"edge/cache/cachecfg"
	"strconv"
	"strings"
	"time"
)

// Field is one response header line, in the order the upstream sent it.
type Field struct {
	Name, Value string
}

// FieldValue is the first value of the field name (any case) in fields,
// "" when absent.
func FieldValue(fields []Field, name string) string {
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Ignore, ValidRule and their parsers live in cache/cachecfg, which conf
// imports to check fastcgi_ignore_headers and fastcgi_cache_valid (conf
// cannot import cache, whose expires policy reads conf's types).
type (
	Ignore    = cachecfg.Ignore
	ValidRule = cachecfg.ValidRule
)

const (
	IgnoreXAccelExpires = cachecfg.IgnoreXAccelExpires
	IgnoreExpires       = cachecfg.IgnoreExpires
	IgnoreCacheControl  = cachecfg.IgnoreCacheControl
	IgnoreSetCookie     = cachecfg.IgnoreSetCookie
	IgnoreVary          = cachecfg.IgnoreVary
)

// ParseIgnore is cachecfg.ParseIgnore.
func ParseIgnore(words []string) (Ignore, error) { return cachecfg.ParseIgnore(words) }

// ValidRules is cachecfg.ValidRules.
func ValidRules(codes []string, ttl time.Duration) ([]ValidRule, error) {
	return cachecfg.ValidRules(codes, ttl)
}

// ValidFor is ngx_http_file_cache_valid: the first rule in config order
// that names the status or "any" wins (spec: "first match in config order
// wins"); 0 means not cached.
func ValidFor(rules []ValidRule, status int) time.Duration {
	for _, r := range rules {
		if r.Status == 0 || r.Status == status {
			return r.TTL
		}
	}
	return 0
}

// Reason says why a response is not cacheable (Freshness.Reason).
type Reason uint8

const (
	Cacheable       Reason = iota
	NoTTL                  // no header TTL and no fastcgi_cache_valid rule for the status
	SetCookie              // a Set-Cookie header that is not ignored
	CacheControlNo         // no-cache, no-store, private, or max-age=0
	ExpiresPast            // Expires in the past or unparsable
	XAccelExpiresNo        // X-Accel-Expires: 0
	VaryStar               // Vary: * or a Vary value over 128 bytes
	ZeroValid              // the fastcgi_cache_valid rule for the status is 0
)

var reasonNames = [...]string{"cacheable", "no ttl", "set-cookie", "cache-control", "expires", "x-accel-expires", "vary", "valid 0"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown"
}

// Freshness is the outcome of Decide.
type Freshness struct {
	// Reason is Cacheable or why the response must not be stored.
	Reason Reason
	// ValidUntil is the last second (Unix time) at which the entry is
	// fresh: nginx compares whole seconds, so "valid 2s" stored at t is a
	// HIT until t+2 inclusive (spec: "HIT at 2.5 s, EXPIRED at 3.0 s").
	ValidUntil int64
	// StaleWhileRevalidate and StaleIfError are Cache-Control's windows
	// after ValidUntil, in seconds (RFC 5861), 0 when absent.
	StaleWhileRevalidate, StaleIfError int64
	// Vary is the joined Vary value ("" when none or ignored).
	Vary string
}

// OK reports whether the response may be stored.
func (f Freshness) OK() bool { return f.Reason == Cacheable }

// varyMax is NGX_HTTP_CACHE_VARY_LEN.
const varyMax = 128

// Decide applies nginx's header rules to one response, headers in the
// order they came (order matters: spec "Cacheability and TTL"):
//   - Set-Cookie makes the response uncacheable unless ignored, and nothing
//     clears that;
//   - Cache-Control: no-cache/no-store/private (case-insensitive substring)
//     or a zero s-maxage/max-age make it uncacheable, but a later valid
//     X-Accel-Expires clears that (>= 1.23); a non-numeric one makes it
//     uncacheable for good; s-maxage beats max-age; `public` alone sets
//     nothing; after an X-Accel-Expires only the stale-while-revalidate and
//     stale-if-error windows are read;
//   - Expires counts only when no TTL was set before it; a past or
//     unparsable date makes the response uncacheable (clearable as above);
//   - X-Accel-Expires: 0 is never cacheable, n is n seconds, @t is the Unix
//     time t, anything else is ignored; it beats Cache-Control in either
//     order;
//   - Vary: exactly "*" or a joined value over 128 bytes is uncacheable;
//   - without a header TTL, fastcgi_cache_valid for the status decides, and
//     a header TTL caches statuses the list does not name.
func Decide(now time.Time, status int, fields []Field, valid []ValidRule, ig Ignore) Freshness {
	var (
		f         Freshness
		validSec  int64
		xae       bool // an X-Accel-Expires header was seen
		noCache   bool // clearable by a later X-Accel-Expires
		expired   bool // clearable likewise
		hardStop  Reason
		softStop  Reason
		varyParts []string
	)
	sec := now.Unix()
	for _, h := range fields {
		switch {
		case strings.EqualFold(h.Name, "Set-Cookie"):
			if ig&IgnoreSetCookie == 0 {
				hardStop = firstReason(hardStop, SetCookie)
			}
		case strings.EqualFold(h.Name, "Cache-Control"):
			if ig&IgnoreCacheControl != 0 {
				continue
			}
			v := strings.ToLower(h.Value)
			// After a valid X-Accel-Expires only the stale extensions
			// count (ngx_http_upstream_process_cache_control's
			// "extensions" label, >= 1.23).
			if validSec == 0 || !xae {
				if strings.Contains(v, "no-cache") || strings.Contains(v, "no-store") || strings.Contains(v, "private") {
					noCache, softStop = true, CacheControlNo
					continue
				}
				n, found, bad := ccNumber(v, "s-maxage=")
				if !found {
					n, found, bad = ccNumber(v, "max-age=")
				}
				switch {
				case bad:
					// A character other than a digit before , ; or space:
					// nginx clears u->cacheable, which nothing undoes.
					hardStop = firstReason(hardStop, CacheControlNo)
					continue
				case found && n == 0:
					noCache, softStop = true, CacheControlNo
					continue
				case found:
					validSec, expired = sec+n, false
				}
			}
			// stale-while-revalidate also opens the stale-if-error window;
			// an explicit stale-if-error then sets its own.
			if n, found, bad := ccNumber(v, "stale-while-revalidate="); bad {
				hardStop = firstReason(hardStop, CacheControlNo)
				continue
			} else if found {
				f.StaleWhileRevalidate, f.StaleIfError = n, n
			}
			if n, found, bad := ccNumber(v, "stale-if-error="); bad {
				hardStop = firstReason(hardStop, CacheControlNo)
				continue
			} else if found {
				f.StaleIfError = n
			}
		case strings.EqualFold(h.Name, "Expires"):
			if ig&IgnoreExpires != 0 || validSec != 0 {
				continue
			}
			t, err := parseHTTPTime(strings.TrimSpace(h.Value))
			if err != nil || t.Unix() <= sec {
				expired, softStop = true, ExpiresPast
				continue
			}
			validSec = t.Unix()
		case strings.EqualFold(h.Name, "X-Accel-Expires"):
			if ig&IgnoreXAccelExpires != 0 {
				continue
			}
			xae = true
			v := strings.TrimSpace(h.Value)
			if at, ok := strings.CutPrefix(v, "@"); ok {
				if n, ok := atoi(at); ok {
					validSec, noCache, expired = n, false, false
				}
				continue
			}
			n, ok := atoi(v)
			if !ok {
				continue
			}
			if n == 0 {
				hardStop = firstReason(hardStop, XAccelExpiresNo)
				continue
			}
			validSec, noCache, expired = sec+n, false, false
		case strings.EqualFold(h.Name, "Vary"):
			if ig&IgnoreVary == 0 {
				varyParts = append(varyParts, h.Value)
			}
		}
	}
	f.Vary = strings.Join(varyParts, ", ")
	switch {
	case hardStop != Cacheable:
		f.Reason = hardStop
	case noCache || expired:
		f.Reason = softStop
	case f.Vary == "*" || len(f.Vary) > varyMax:
		f.Reason = VaryStar
	case validSec != 0:
		f.ValidUntil = validSec
	default:
		ttl := ValidFor(valid, status)
		if ttl <= 0 {
			f.Reason = NoTTL
			if ttl == 0 && hasRule(valid, status) {
				f.Reason = ZeroValid
			}
			break
		}
		f.ValidUntil = sec + int64(ttl/time.Second)
	}
	if validSec != 0 && validSec < sec && f.Reason == Cacheable {
		// X-Accel-Expires: @t in the past.
		f.Reason = ExpiresPast
	}
	return f
}

func hasRule(rules []ValidRule, status int) bool {
	for _, r := range rules {
		if r.Status == 0 || r.Status == status {
			return true
		}
	}
	return false
}

// firstReason keeps the first hard refusal seen.
func firstReason(have, r Reason) Reason {
	if have != Cacheable {
		return have
	}
	return r
}

// ccNumber finds name (e.g. "max-age=") in a lower-cased Cache-Control
// value and reads the number after it as nginx does: digits up to a ",",
// ";", space or the end (none is 0); bad reports any other character.
func ccNumber(v, name string) (n int64, found, bad bool) {
	i := strings.Index(v, name)
	if i < 0 {
		return 0, false, false
	}
	for _, c := range []byte(v[i+len(name):]) {
		if c == ',' || c == ';' || c == ' ' {
			break
		}
		if c < '0' || c > '9' {
			return 0, true, true
		}
		n = n*10 + int64(c-'0')
	}
	return n, true, false
}

// atoi is ngx_atoi: digits only, no sign, no spaces.
func atoi(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
