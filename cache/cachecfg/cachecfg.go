// Package cachecfg holds the small value types of the cache directives
// and their parsers (fastcgi_ignore_headers, fastcgi_cache_valid,
// fastcgi_cache_use_stale, fastcgi_cache_path's levels=). It imports
// nothing of edge's, so that conf can check those directives while
// reading a file and store what cache uses: cache itself cannot be
// imported by conf, since its expires policy reads conf's types.
package cachecfg

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// Ignore is the set of headers fastcgi_ignore_headers / proxy_ignore_headers
// names; the zero value ignores nothing.
type Ignore uint8

const (
	IgnoreXAccelExpires Ignore = 1 << iota
	IgnoreExpires
	IgnoreCacheControl
	IgnoreSetCookie
	IgnoreVary
)

// ParseIgnore reads fastcgi_ignore_headers' words. Names nginx accepts but
// that do not change caching (X-Accel-Redirect, X-Accel-Limit-Rate,
// X-Accel-Buffering, X-Accel-Charset) are accepted and return no bit.
func ParseIgnore(words []string) (Ignore, error) {
	var ig Ignore
	for _, w := range words {
		switch strings.ToLower(w) {
		case "x-accel-expires":
			ig |= IgnoreXAccelExpires
		case "expires":
			ig |= IgnoreExpires
		case "cache-control":
			ig |= IgnoreCacheControl
		case "set-cookie":
			ig |= IgnoreSetCookie
		case "vary":
			ig |= IgnoreVary
		case "x-accel-redirect", "x-accel-limit-rate", "x-accel-buffering", "x-accel-charset":
		default:
			return 0, errors.New("cache: invalid value \"" + w + "\"")
		}
	}
	return ig, nil
}

// ValidRule is one status of a fastcgi_cache_valid line. Status 0 stands
// for "any".
type ValidRule struct {
	Status int
	TTL    time.Duration
}

// ValidRules turns one fastcgi_cache_valid line (its status words and its
// already parsed time) into rules: no status means 200 301 302 (spec:
// "no code = 200 301 302"), "any" matches every status, other words must be
// codes from 100 to 599 as in ngx_http_file_cache_valid_set_slot.
func ValidRules(codes []string, ttl time.Duration) ([]ValidRule, error) {
	if len(codes) == 0 {
		return []ValidRule{{200, ttl}, {301, ttl}, {302, ttl}}, nil
	}
	rules := make([]ValidRule, 0, len(codes))
	for _, c := range codes {
		if c == "any" {
			rules = append(rules, ValidRule{0, ttl})
			continue
		}
		n, err := strconv.Atoi(c)
		if err != nil || n < 100 || n > 599 {
			return nil, errors.New("cache: invalid status \"" + c + "\"")
		}
		rules = append(rules, ValidRule{n, ttl})
	}
	return rules, nil
}

// UseStale is the set fastcgi_cache_use_stale names; zero is "off".
type UseStale uint16

const (
	StaleError UseStale = 1 << iota
	StaleTimeout
	StaleInvalidHeader
	StaleUpdating
	StaleHTTP500
	StaleHTTP502
	StaleHTTP503
	StaleHTTP504
	StaleHTTP403
	StaleHTTP404
	StaleHTTP429
)

// ParseUseStale reads fastcgi_cache_use_stale's words (proxyCache false) or
// proxy_cache_use_stale's (true): http_502 and http_504 exist only for the
// proxy module, FastCGI refuses them (spec: "http_502/504 are config
// errors"). "off" must stand alone.
func ParseUseStale(words []string, proxyCache bool) (UseStale, error) {
	var u UseStale
	for _, w := range words {
		switch w {
		case "off":
			if len(words) != 1 {
				return 0, errors.New("cache: \"off\" must be the only value")
			}
			return 0, nil
		case "error":
			u |= StaleError
		case "timeout":
			u |= StaleTimeout
		case "invalid_header":
			u |= StaleInvalidHeader
		case "updating":
			u |= StaleUpdating
		case "http_500":
			u |= StaleHTTP500
		case "http_503":
			u |= StaleHTTP503
		case "http_403":
			u |= StaleHTTP403
		case "http_404":
			u |= StaleHTTP404
		case "http_429":
			u |= StaleHTTP429
		case "http_502", "http_504":
			if !proxyCache {
				return 0, errors.New("cache: invalid value \"" + w + "\"")
			}
			if w == "http_502" {
				u |= StaleHTTP502
			} else {
				u |= StaleHTTP504
			}
		default:
			return 0, errors.New("cache: invalid value \"" + w + "\"")
		}
	}
	return u, nil
}

// ParseLevels reads the value of fastcgi_cache_path's levels= ("1:2"):
// one to three levels of one or two hex digits each
// (ngx_http_file_cache_set_slot); "" gives no levels.
func ParseLevels(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return nil, errors.New("cache: invalid levels \"" + s + "\"")
	}
	levels := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || (n != 1 && n != 2) || len(p) != 1 {
			return nil, errors.New("cache: invalid levels \"" + s + "\"")
		}
		levels[i] = n
	}
	return levels, nil
}

// String is the rule as fastcgi_cache_valid writes it ("404 1m0s",
// "any 10s"), for edge -T's dump.
func (r ValidRule) String() string {
	code := "any"
	if r.Status != 0 {
		code = strconv.Itoa(r.Status)
	}
	return code + " " + r.TTL.String()
}

var staleNames = []struct {
	bit  UseStale
	name string
}{{StaleError, "error"}, {StaleTimeout, "timeout"}, {StaleInvalidHeader, "invalid_header"}, {StaleUpdating, "updating"},
	{StaleHTTP500, "http_500"}, {StaleHTTP502, "http_502"}, {StaleHTTP503, "http_503"}, {StaleHTTP504, "http_504"},
	{StaleHTTP403, "http_403"}, {StaleHTTP404, "http_404"}, {StaleHTTP429, "http_429"}}

// String is the set as fastcgi_cache_use_stale writes it.
func (u UseStale) String() string {
	if u == 0 {
		return "off"
	}
	var words []string
	for _, s := range staleNames {
		if u&s.bit != 0 {
			words = append(words, s.name)
		}
	}
	return strings.Join(words, " ")
}
