// This file holds the rules of nginx's HTTP/1 request parser that fasthttp
// does not apply (issue 20): checkRequestHead, one pass over a head that
// fasthttp parsed, and the header names nginx drops.
package proxy

import (
	"bytes"
	"strings"

	"edge/conf"
)

// The classes of a header name's bytes, as ngx_http_parse_header_line
// sorts them: letters, digits and "-" make a valid name, "_" makes one
// only with underscores_in_headers, any other byte an invalid one (which
// ignore_invalid_headers, on by default, drops), and a byte <= 0x20 or DEL
// a request nginx refuses with 400 (since 1.21.1). They are flags, so
// that the classes of a name are the OR of its bytes'.
const (
	nameValid      byte = 0
	nameUnderscore byte = 1 << iota
	nameInvalid
	nameRefused
	nameColon
)

var nameClass = func() (t [256]byte) {
	for c := range t {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
			t[c] = nameValid
		case c == '_':
			t[c] = nameUnderscore
		case c == ':':
			t[c] = nameColon
		case c <= 0x20 || c == 0x7f:
			t[c] = nameRefused
		default:
			t[c] = nameInvalid
		}
	}
	return t
}()

// invalidName reports whether nginx would find a header name invalid.
func invalidName(name string, underscores bool) bool {
	var class byte
	for i := 0; i < len(name); i++ {
		class |= nameClass[name[i]]
	}
	return class&^nameUnderscore != 0 || class != 0 && !underscores
}

// checkRequestHead applies nginx's rules that fasthttp does not, with the
// limits of def, the default server (nginx reads a head with them before
// it knows the server), and returns the status to refuse the request
// with, or 0:
//   - the method is letters, "_" or "-"; the version HTTP/1.x (else 505);
//   - the request line fits one large_client_header_buffers buffer (else
//     414), and so does every header line (else 494, sent as 400 "Request
//     Header Or Cookie Too Large");
//   - no header name holds a byte <= 0x20 or DEL, and no line starts with
//     a space or tab, which nginx does not unfold (else 400). fasthttp
//     takes "X Forwarded For: ..." as a header, which PHP would see as
//     HTTP_X_FORWARDED_FOR: a client could forge what a proxy in front
//     set.
//
// The pass also counts in f the header lines, those whose name nginx
// finds invalid, and the place of the Host line, for the header view to
// drop invalid names and for max_headers (tooManyHeaders). It allocates
// nothing.
func checkRequestHead(r *Request, f *fastHeaders, def *conf.Server) int {
	for i := 0; i < len(r.Method); i++ {
		c := r.Method[i]
		if (c < 'A' || c > 'Z') && c != '_' && c != '-' {
			return 400
		}
	}
	if r.Proto != "HTTP/1.1" && r.Proto != "HTTP/1.0" {
		if !strings.HasPrefix(r.Proto, "HTTP/1.") {
			return 505
		}
		r.Proto = "HTTP/1.1"
	}
	bufSize := def.LargeHeaderBufferSize
	if bufSize > 0 && len(r.Method)+len(r.RawTarget)+len(r.Proto)+4 > bufSize {
		return 414
	}
	raw := f.h.RawHeaders()
	lines, invalid, underscore := 0, 0, 0
	for len(raw) > 0 && raw[0] != '\r' && raw[0] != '\n' {
		var class byte
		i := 0
		for ; i < len(raw); i++ {
			c := nameClass[raw[i]]
			if c == nameColon {
				break
			}
			class |= c
		}
		if class&nameRefused != 0 {
			return 400
		}
		end := len(raw)
		if j := bytes.IndexByte(raw[i:], '\n'); j >= 0 {
			end = i + j
		}
		if bufSize > 0 && end > bufSize {
			return 494
		}
		if f.hostAt == 0 && i == len("host") && strings.EqualFold(b2s(raw[:i]), "host") {
			f.lines, f.invalid, f.underscore = lines, invalid, underscore
			f.hostAt = f.kept(def) + 1
		}
		raw = raw[min(end+1, len(raw)):]
		lines++
		switch {
		case class&nameInvalid != 0:
			invalid++
		case class != 0:
			underscore++
		}
	}
	f.lines, f.invalid, f.underscore = lines, invalid, underscore
	return 0
}

// kept is how many of the header lines the server s keeps: with
// ignore_invalid_headers on, those with an invalid name are dropped.
func (f *fastHeaders) kept(s *conf.Server) int {
	if !s.IgnoreInvalidHeaders {
		return f.lines
	}
	if s.UnderscoresInHeaders {
		return f.lines - f.invalid
	}
	return f.lines - f.invalid - f.underscore
}

// dropsInvalid reports whether the header view must leave out some of the
// request's headers, as the serving server ignores invalid ones, and with
// which underscores_in_headers.
func (f *fastHeaders) dropsInvalid() (drop, underscores bool) {
	if f.invalid == 0 && f.underscore == 0 || f.r == nil || f.r.srv == nil {
		return false, false
	}
	s := f.r.srv
	return f.kept(s) < f.lines, s.UnderscoresInHeaders
}

// tooManyHeaders applies max_headers (nginx 1.29.8, and Debian's 1.22.1
// since deb12u11: a flood of tiny header lines costs a server far more
// than their bytes) to an HTTP/1 request once its server r.srv is known.
// nginx checks each line against the server chosen so far: def, the
// default one, up to the Host line and the one it names after it, or all
// along the one an absolute-form request line named. Lines a server
// drops as invalid do not count.
func (r *Request) tooManyHeaders(def *conf.Server, absolute bool) bool {
	if r.Header != headerSource(&r.fh) {
		return false
	}
	f := &r.fh
	n := f.kept(r.srv)
	if absolute || f.hostAt == 0 && r.srv == def {
		return n > r.srv.MaxHeaders
	}
	if f.hostAt == 0 {
		return f.kept(def) > def.MaxHeaders
	}
	return f.hostAt > def.MaxHeaders || n > f.hostAt && n > r.srv.MaxHeaders
}
