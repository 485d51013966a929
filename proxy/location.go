// This file finds the location{} for a URI with nginx's precedence
// (ngx_http_core_find_location): the longest matching prefix is
// remembered; an "=" location that equals the URI wins at once; the
// prefix's nested locations are searched; then, unless the prefix was
// "^~", the regex locations of this level are tried in file order and the
// first match wins; otherwise the remembered prefix is used.
package proxy

import (
	"edge/conf"
)

type findResult int

const (
	findDeclined findResult = iota // nothing matched at this level
	findAgain                      // a prefix matched; nested search may refine it
	findOK                         // final: an exact or regex match
	findError                      // a regex ran out of its match budget
)

// findLocation returns the location for r.uri under parent (a server's
// implicit location), setting captures when a regex matched. The error
// is a regex that ran out of its match budget (nginx answers 500).
func findLocation(r *Request, parent *conf.Location) (*conf.Location, error) {
	loc := parent
	if findIn(r, parent, &loc) == findError {
		return parent, conf.ErrMatchLimit
	}
	return loc, nil
}

// findIn searches one level; *loc holds the best location so far.
func findIn(r *Request, parent *conf.Location, loc **conf.Location) findResult {
	rc := findDeclined
	noregex := false
	if p, exact := findPrefix(r.uri, parent.Prefixes); p != nil {
		*loc = p
		if exact {
			return findOK
		}
		noregex = p.Kind == conf.LocNoRegex
		rc = findAgain
		if len(p.Prefixes) > 0 || len(p.Regexes) > 0 {
			if res := findIn(r, p, loc); res == findOK || res == findError {
				return res
			}
		}
	}
	if noregex {
		return rc
	}
	for _, re := range parent.Regexes {
		ok, err := matchRegex(r, re.Regex, r.uri)
		if err != nil {
			return findError
		}
		if ok {
			*loc = re
			if len(re.Prefixes) > 0 || len(re.Regexes) > 0 {
				if findIn(r, re, loc) == findError {
					return findError
				}
			}
			return findOK
		}
	}
	return rc
}

// findPrefix returns the longest prefix location matching uri, or an exact
// location equal to it. list is sorted longest first.
func findPrefix(uri string, list []*conf.Location) (loc *conf.Location, exact bool) {
	for _, l := range list {
		n := l.Name
		if len(n) > len(uri) {
			continue
		}
		if l.Kind == conf.LocExact {
			if uri == n {
				return l, true
			}
			continue
		}
		if uri[:len(n)] == n {
			return l, false
		}
	}
	return nil, false
}

// matchRegex runs a regex against s and, on a match, makes its captures
// the current ones ($1..$9 and named captures), as nginx does for every
// successful regex match (ngx_http_regex_exec). A match that ran out of
// its budget is logged in nginx's words and returned as an error; what
// it means depends on the caller, as in nginx.
func matchRegex(r *Request, re *conf.Regex, s string) (bool, error) {
	caps, ok, err := re.Exec(s, r.caps)
	if err != nil {
		logMatchLimit(r, re, s)
		return false, err
	}
	if !ok {
		return false, nil
	}
	r.capSubject = s
	r.caps = caps
	for _, nc := range re.Names() {
		v := ""
		if 2*nc.Group < len(caps) && caps[2*nc.Group] >= 0 {
			v = s[caps[2*nc.Group]:caps[2*nc.Group+1]]
		}
		r.setSlot(nc.Slot, v)
	}
	return true, nil
}

// logMatchLimit logs a match out of its budget as nginx logs PCRE2's match
// limit, so that log watchers see the same line.
func logMatchLimit(r *Request, re *conf.Regex, s string) {
	if r.rt != nil {
		r.rt.log.alertf(r, "pcre2_match() failed: -47 on \"%s\" using \"%s\"", s, re.Source)
	}
}

// capture returns $n of the last match ("" when absent).
func (r *Request) capture(n int) string {
	if 2*n+1 >= len(r.caps) || r.caps[2*n] < 0 {
		return ""
	}
	return r.capSubject[r.caps[2*n]:r.caps[2*n+1]]
}
