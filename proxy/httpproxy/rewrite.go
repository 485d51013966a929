// rewrite.go holds the response-header rewrites of the proxy module as
// pure functions: proxy_redirect on Location and Refresh, and
// proxy_cookie_domain, proxy_cookie_path and proxy_cookie_flags on
// Set-Cookie (nginx 1.22's ngx_http_proxy_rewrite_* handlers).

package httpproxy

import "strings"

// Rule is one proxy_redirect, proxy_cookie_domain or proxy_cookie_path
// with its variables evaluated. Regex, when set (a "~" or "~*" pattern),
// is tried instead of From: it is given the value and returns the
// replacement of the whole value with its captures expanded.
type Rule struct {
	From, To string
	Regex    func(value string) (replacement string, ok bool)
}

// DefaultRedirect is "proxy_redirect default" for a proxy_pass URL as
// written (without variables, where nginx refuses the default) and the
// location's name: a URL with a URI part becomes the location's name,
// one without becomes "/" after the URL and a "/".
func DefaultRedirect(passURL string, t *Target, location string) Rule {
	if t.URI != "" {
		return Rule{From: passURL, To: location}
	}
	return Rule{From: passURL + "/", To: "/"}
}

// RewriteLocation applies the first matching rule to a Location value;
// ok is false when none matched and the value stays.
func RewriteLocation(rules []Rule, value string) (string, bool) {
	return rewritePrefix(rules, value, 0)
}

// RewriteRefresh applies the rules to the URL of a Refresh value, the
// text after "url=" (in any case); ok is false when there is none or no
// rule matched.
func RewriteRefresh(rules []Rule, value string) (string, bool) {
	i := indexFold(value, "url=")
	if i < 0 {
		return value, false
	}
	return rewritePrefix(rules, value, i+4)
}

// rewritePrefix is ngx_http_proxy_rewrite_complex_handler (a
// case-sensitive prefix) and _regex_handler (the rest of the value) on
// value[prefix:].
func rewritePrefix(rules []Rule, value string, prefix int) (string, bool) {
	rest := value[prefix:]
	for _, r := range rules {
		if r.Regex != nil {
			if rep, ok := r.Regex(rest); ok {
				return value[:prefix] + rep, true
			}
			continue
		}
		if strings.HasPrefix(rest, r.From) {
			return value[:prefix] + r.To + rest[len(r.From):], true
		}
	}
	return value, false
}

// indexFold is the index of lower in s, in any case; -1 when absent.
func indexFold(s, lower string) int {
	for i := 0; i+len(lower) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(lower)], lower) {
			return i
		}
	}
	return -1
}

// CookieFlags is one proxy_cookie_flags entry: the cookie's name (in
// any case) or Regex on it, and its flags ("secure", "nosecure",
// "httponly", "nohttponly", "samesite=strict", "samesite=lax",
// "samesite=none", "nosamesite"; others are ignored, as nginx does at
// run time).
type CookieFlags struct {
	Cookie string
	Regex  func(name string) bool
	Flags  []string
}

// CookieRewrite is a location's proxy_cookie_* settings.
type CookieRewrite struct {
	Domains, Paths []Rule
	Flags          []CookieFlags
}

type cookieAttr struct {
	key, value string
	hasValue   bool
	dropped    bool
}

// RewriteSetCookie applies c to a Set-Cookie value as nginx does: the
// value is split into attributes at ';' with spaces trimmed; Domain is
// replaced by the first rule equal to it (case-insensitively, a leading
// '.' kept aside), Path by the first rule that prefixes it, then the
// flags of the first entry for the cookie's name are set or removed. When
// anything applied, the attributes are joined again with "; ". ok is
// false when nothing applied (the value is returned as it came).
func RewriteSetCookie(c *CookieRewrite, value string) (string, bool) {
	if len(c.Domains) == 0 && len(c.Paths) == 0 && len(c.Flags) == 0 {
		return value, false
	}
	attrs := parseCookie(value)
	if !attrs[0].hasValue {
		return value, false
	}
	changed := false
	for i := 1; i < len(attrs); i++ {
		a := &attrs[i]
		if !a.hasValue {
			continue
		}
		switch {
		case len(c.Domains) > 0 && strings.EqualFold(a.key, "domain"):
			if v, ok := rewriteDomain(c.Domains, a.value); ok {
				a.value, changed = v, true
			}
		case len(c.Paths) > 0 && strings.EqualFold(a.key, "path"):
			if v, ok := rewritePrefix(c.Paths, a.value, 0); ok {
				a.value, changed = v, true
			}
		}
	}
	if len(c.Flags) > 0 {
		var ok bool
		if attrs, ok = editFlags(c.Flags, attrs); ok {
			changed = true
		}
	}
	if !changed {
		return value, false
	}
	var b strings.Builder
	for i, a := range attrs {
		if a.dropped {
			continue
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(a.key)
		if a.hasValue {
			b.WriteByte('=')
			b.WriteString(a.value)
		}
	}
	return b.String(), true
}

// parseCookie is ngx_http_proxy_parse_cookie.
func parseCookie(v string) []cookieAttr {
	var attrs []cookieAttr
	for {
		part := v
		semi := strings.IndexByte(v, ';')
		if semi >= 0 {
			part = v[:semi]
		}
		part = strings.TrimLeft(part, " ")
		a := cookieAttr{}
		if eq := strings.IndexByte(part, '='); eq >= 0 {
			a.key = strings.TrimRight(part[:eq], " ")
			a.value = strings.Trim(part[eq+1:], " ")
			a.hasValue = true
		} else {
			a.key = strings.TrimRight(part, " ")
		}
		attrs = append(attrs, a)
		if semi < 0 {
			return attrs
		}
		v = v[semi+1:]
	}
}

// rewriteDomain is ngx_http_proxy_rewrite_domain_handler: the whole
// domain must equal the rule's (its leading dot, if any, left out of
// both and kept in the value).
func rewriteDomain(rules []Rule, v string) (string, bool) {
	for _, r := range rules {
		if r.Regex != nil {
			if rep, ok := r.Regex(v); ok {
				return rep, true
			}
			continue
		}
		dot, rest := "", v
		if strings.HasPrefix(rest, ".") {
			dot, rest = ".", rest[1:]
		}
		if strings.EqualFold(rest, strings.TrimPrefix(r.From, ".")) {
			return dot + r.To, true
		}
	}
	return v, false
}

const (
	flagSecureOn = 1 << iota
	flagSecureOff
	flagHTTPOnlyOn
	flagHTTPOnlyOff
	flagStrict
	flagLax
	flagNone
	flagSameSiteOff
)

var flagMasks = []struct {
	name string
	mask int
}{
	{"secure", flagSecureOn}, {"nosecure", flagSecureOff},
	{"httponly", flagHTTPOnlyOn}, {"nohttponly", flagHTTPOnlyOff},
	{"samesite=strict", flagStrict}, {"samesite=lax", flagLax},
	{"samesite=none", flagNone}, {"nosamesite", flagSameSiteOff},
}

// editFlags is ngx_http_proxy_rewrite_cookie_flags and
// _edit_cookie_flags.
func editFlags(entries []CookieFlags, attrs []cookieAttr) ([]cookieAttr, bool) {
	name := attrs[0].key
	var e *CookieFlags
	for i := range entries {
		if entries[i].Regex != nil {
			if entries[i].Regex(name) {
				e = &entries[i]
				break
			}
			continue
		}
		if strings.EqualFold(entries[i].Cookie, name) {
			e = &entries[i]
			break
		}
	}
	if e == nil {
		return attrs, false
	}
	f := 0
	for _, fl := range e.Flags {
		for _, m := range flagMasks {
			if strings.EqualFold(m.name, fl) {
				f |= m.mask
				break
			}
		}
	}
	if f == 0 {
		return attrs, false
	}
	for i := 1; i < len(attrs); i++ {
		a := &attrs[i]
		switch {
		case strings.EqualFold(a.key, "secure"):
			if f&flagSecureOn != 0 {
				f &^= flagSecureOn
			} else if f&flagSecureOff != 0 {
				a.dropped = true
			}
		case strings.EqualFold(a.key, "httponly"):
			if f&flagHTTPOnlyOn != 0 {
				f &^= flagHTTPOnlyOn
			} else if f&flagHTTPOnlyOff != 0 {
				a.dropped = true
			}
		case strings.EqualFold(a.key, "samesite"):
			switch {
			case f&flagStrict != 0:
				f &^= flagStrict
				setSameSite(a, "Strict")
			case f&flagLax != 0:
				f &^= flagLax
				setSameSite(a, "Lax")
			case f&flagNone != 0:
				f &^= flagNone
				setSameSite(a, "None")
			case f&flagSameSiteOff != 0:
				a.dropped = true
			}
		}
	}
	if f&flagSecureOn != 0 {
		attrs = append(attrs, cookieAttr{key: "Secure"})
	}
	if f&flagHTTPOnlyOn != 0 {
		attrs = append(attrs, cookieAttr{key: "HttpOnly"})
	}
	switch {
	case f&flagStrict != 0:
		attrs = append(attrs, cookieAttr{key: "SameSite", value: "Strict", hasValue: true})
	case f&flagLax != 0:
		attrs = append(attrs, cookieAttr{key: "SameSite", value: "Lax", hasValue: true})
	case f&flagNone != 0:
		attrs = append(attrs, cookieAttr{key: "SameSite", value: "None", hasValue: true})
	}
	return attrs, true
}

// setSameSite keeps a SameSite attribute that already has the value
// (in any case) as written, and rewrites it otherwise.
func setSameSite(a *cookieAttr, v string) {
	if !a.hasValue || !strings.EqualFold(a.value, v) {
		a.key, a.value, a.hasValue = "SameSite", v, true
	}
}
