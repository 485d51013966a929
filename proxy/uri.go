// This file normalizes request targets the way nginx does
// (ngx_http_parse_request_line + ngx_http_parse_complex_uri): the path is
// percent-decoded, "." and ".." segments are resolved with decoded dots
// counted as dots, duplicate slashes are merged when merge_slashes is on,
// and a path that climbs above "/" or holds a NUL byte is a 400. Both HTTP
// engines go through this one function over the raw target, so $uri and
// $request_uri mean the same on HTTP/1.x and HTTP/2.
package proxy

import (
	"errors"
	"strings"
)

// errBadURI is a request target nginx answers with 400.
var errBadURI = errors.New("proxy: invalid request target")

// parsedTarget is a request target split into its parts.
type parsedTarget struct {
	host string // from an absolute-form target, lowercased; "" otherwise
	path string // decoded, normalized: $uri
	args string // raw query string: $args
	// exten is the extension of the last path segment (after the last
	// "."), used to pick the MIME type.
	exten string
}

// parseTarget splits and normalizes a raw request target.
func parseTarget(raw string, mergeSlashes bool) (parsedTarget, error) {
	var t parsedTarget
	// A raw "#" ends the target: the fragment is neither path nor args
	// (nginx's parser stops there; $request_uri keeps it).
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i]
	}
	if raw == "" {
		return t, errBadURI
	}
	if raw[0] != '/' {
		// absolute-form: scheme://host[:port]/path?query (RFC 9112 3.2.2)
		i := strings.Index(raw, "://")
		if i <= 0 || !isScheme(raw[:i]) {
			return t, errBadURI
		}
		hostport, rest, ok := splitAuthority(raw[i+3:])
		if !ok || hostport == "" {
			return t, errBadURI
		}
		if rest == "" {
			rest = "/"
		} else if rest[0] == '?' {
			rest = "/" + rest
		}
		h, ok := validateHost(hostport)
		if !ok {
			return t, errBadURI
		}
		t.host = h
		raw = rest
	}
	path, args, _ := strings.Cut(raw, "?")
	t.args = args
	p, err := normalizePath(path, mergeSlashes)
	if err != nil {
		return t, err
	}
	t.path = p
	t.exten = extension(p)
	return t, nil
}

// splitAuthority splits the authority of an absolute-form target from
// what follows ("/...", "?..." or nothing) with the grammar of nginx's
// request line parser (sw_host and on): a name of letters, digits, "."
// and "-", or a bracketed IP literal, then ":" and digits. Anything else
// is refused, userinfo among it: "http://u:p@evil.example/" would
// otherwise give the host "u" (RFC 9112 3.2.2 has no userinfo in a
// request target).
func splitAuthority(s string) (hostport, rest string, ok bool) {
	i := 0
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", false
		}
		for i = 1; i < end; i++ {
			if !ipLiteralByte(s[i]) {
				return "", "", false
			}
		}
		i = end + 1
	} else {
		for i < len(s) && hostByte(s[i]) {
			i++
		}
	}
	if i < len(s) && s[i] == ':' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
	}
	if i < len(s) && s[i] != '/' && s[i] != '?' {
		return "", "", false
	}
	return s[:i], s[i:], true
}

func hostByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
}

// ipLiteralByte: nginx's sw_host_ip_literal takes unreserved and
// sub-delims bytes and ":".
func ipLiteralByte(c byte) bool {
	return hostByte(c) || strings.IndexByte(":_~!$&'()*+,;=", c) >= 0
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if (c < 'a' || c > 'z') && (i == 0 || (s[i] < '0' || s[i] > '9') && s[i] != '+' && s[i] != '-' && s[i] != '.') {
			return false
		}
	}
	return true
}

// needsWork reports whether a path has anything normalizePath would
// change; most paths do not, and then no copy is made.
func needsWork(p string, mergeSlashes bool) bool {
	prev := byte(0)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%' || c == 0:
			return true
		case c == '.' && prev == '/':
			return true
		case c == '/' && prev == '/' && mergeSlashes:
			return true
		}
		prev = c
	}
	return false
}

// normalizePath decodes and resolves a path that starts with "/".
func normalizePath(p string, mergeSlashes bool) (string, error) {
	if p == "" || p[0] != '/' {
		return "", errBadURI
	}
	if !needsWork(p, mergeSlashes) {
		return p, nil
	}
	// Decode first, then resolve segments: nginx's state machine treats a
	// decoded "/" or "." like a literal one, so "/%2e%2e/" climbs too.
	dec := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' {
			if i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]) {
				c = unhex(p[i+1])<<4 | unhex(p[i+2])
				i += 2
			} else {
				return "", errBadURI
			}
		}
		if c == 0 {
			return "", errBadURI
		}
		dec = append(dec, c)
	}
	out := make([]byte, 0, len(dec))
	for i := 0; i < len(dec); {
		// dec[i] is '/' here
		j := i + 1
		for j < len(dec) && dec[j] != '/' {
			j++
		}
		seg := dec[i+1 : j]
		switch {
		case len(seg) == 0 && mergeSlashes && j < len(dec):
			// "//": skip the empty segment
		case len(seg) == 1 && seg[0] == '.':
			if j >= len(dec) {
				out = append(out, '/')
			}
		case len(seg) == 2 && seg[0] == '.' && seg[1] == '.':
			k := len(out) - 1
			for k >= 0 && out[k] != '/' {
				k--
			}
			if k < 0 {
				return "", errBadURI
			}
			out = out[:k]
			if j >= len(dec) {
				out = append(out, '/')
			}
		default:
			out = append(out, '/')
			out = append(out, seg...)
		}
		i = j
	}
	if len(out) == 0 {
		out = append(out, '/')
	}
	return string(out), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// extension returns what follows the last "." of the last path segment.
func extension(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		switch p[i] {
		case '.':
			return p[i+1:]
		case '/':
			return ""
		}
	}
	return ""
}

// validateHost applies nginx's ngx_http_validate_host: lowercase, drop
// the port and one trailing dot, refuse "..", "/" and NUL, and refuse a
// name that ends up empty ("." alone). Brackets only delimit an IPv6
// literal when "[" comes first; nothing else is checked, so "a\b" or an
// unclosed "[::1" pass as nginx lets them. An empty h is valid here (the
// caller tells a missing Host from an empty one).
func validateHost(h string) (string, bool) {
	if h == "" {
		return "", true
	}
	const (
		usual = iota
		literal
		rest
	)
	state := usual
	dotPos := len(h)
	hostLen := len(h)
	lower := true
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '.':
			if dotPos == i-1 {
				return "", false
			}
			dotPos = i
		case c == ':':
			if state == usual {
				hostLen = i
				state = rest
			}
		case c == '[':
			if i == 0 {
				state = literal
			}
		case c == ']':
			if state == literal {
				hostLen = i + 1
				state = rest
			}
		case c == 0 || c == '/':
			return "", false
		case c >= 'A' && c <= 'Z':
			lower = false
		}
	}
	if dotPos == hostLen-1 {
		hostLen--
	}
	if hostLen <= 0 {
		return "", false
	}
	h = h[:hostLen]
	if !lower {
		h = strings.ToLower(h)
	}
	return h, true
}
