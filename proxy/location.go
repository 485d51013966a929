// This file finds the location{} for a URI with nginx's precedence
// (ngx_http_core_find_location): the longest matching prefix is
// remembered; an "=" location that equals the URI wins at once; the
// prefix's nested locations are searched; then, unless the prefix was
// "^~", the regex locations of this level are tried in file order and the
// first match wins; otherwise the remembered prefix is used. Before the
// nested and regex searches, a URI that is the name of a passing location
// without its final "/" is redirected to it (auto_redirect).
package proxy

import (
	"edge/conf"
)

type findResult int

const (
	findDeclined findResult = iota // nothing matched at this level
	findAgain                      // a prefix matched; nested search may refine it
	findOK                         // final: an exact or regex match
	findRedirect                   // final: 301 to the location's name (auto_redirect)
	findError                      // a regex ran out of its match budget
)

// findLocation returns the location for r.uri under parent (a server's
// implicit location), setting captures when a regex matched. redirect
// reports an auto_redirect: the answer is a 301 to loc's name. The error
// is a regex that ran out of its match budget (nginx answers 500).
func findLocation(r *Request, parent *conf.Location) (loc *conf.Location, redirect bool, err error) {
	loc = parent
	switch findIn(r, parent, &loc) {
	case findError:
		return parent, false, conf.ErrMatchLimit
	case findRedirect:
		return loc, true, nil
	}
	return loc, false, nil
}

// findIn searches one level; *loc holds the best location so far.
func findIn(r *Request, parent *conf.Location, loc **conf.Location) findResult {
	rc := findDeclined
	noregex := false
	p, exact := findPrefix(r.uri, parent.Prefixes)
	if p != nil {
		*loc = p
		if exact {
			return findOK
		}
		noregex = p.Kind == conf.LocNoRegex
		rc = findAgain
	}
	// ngx_http_core_find_static_location answers NGX_DONE for a URI one
	// "/" short of an auto_redirect location unless a location of this
	// level is named the URI itself; that ends the search here.
	if p == nil || len(p.Name) < len(r.uri) {
		if a := findAutoRedirect(r.uri, parent.Prefixes); a != nil {
			*loc = a
			return findRedirect
		}
	}
	if p != nil && (len(p.Prefixes) > 0 || len(p.Regexes) > 0) {
		if res := findIn(r, p, loc); res == findOK || res == findRedirect || res == findError {
			return res
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
			// A regex location's nested search ends in its answer,
			// an auto_redirect found there included, as plain
			// NGX_OK: the location is taken and nothing redirects.
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

// findAutoRedirect returns the location of list that is marked
// AutoRedirect and named uri followed by "/"; list is sorted longest
// first, so the search stops at the shorter names.
func findAutoRedirect(uri string, list []*conf.Location) *conf.Location {
	for _, l := range list {
		if len(l.Name) <= len(uri) {
			return nil
		}
		if l.AutoRedirect && len(l.Name) == len(uri)+1 && l.Name[:len(uri)] == uri {
			return l
		}
	}
	return nil
}

// autoRedirectTarget is the Location of an auto_redirect: the location's
// name escaped as NGX_ESCAPE_URI escapes it (controls, space, "#", "%",
// "?" and bytes from 0x7f), then the request's arguments.
func autoRedirectTarget(name, args string) string {
	loc := escapeWith(name, func(c byte) bool {
		return c <= ' ' || c == '#' || c == '%' || c == '?' || c >= 0x7f
	})
	if args != "" {
		loc += "?" + args
	}
	return loc
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
