// This file holds the rules of nginx's HTTP/1 request parser that fasthttp
// does not apply (issue 20): checkRequestHead, one pass over a head that
// fasthttp parsed; servableAuthority, for a valid host that fasthttp
// refuses; and the lingering close that lets an error answer reach a
// client that is still sending. The answers nginx gives before a head is
// complete, and its bare LF line ends, are the head watch's
// (http1watch.go).
package h1

import (
	"bytes"
	"net"
	"strings"
	"time"

	"edge/conf"
	"edge/proxy"
)

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
// drop invalid names and for max_headers (TooManyHeaders), and makes the
// filter of the names the lines have (fastHeaders.names). It allocates
// nothing.
func checkRequestHead(r *proxy.Request, info *h1conn, f *fastHeaders, def *conf.Server) int {
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
	line := len(r.Method) + len(r.RawTarget) + len(r.Proto) + 4 // with its CRLF
	if info != nil && info.head.servingLF {
		line-- // the client sent a bare LF
	}
	if bufSize > 0 && line > bufSize {
		return 414
	}
	raw := f.h.RawHeaders()
	lines, invalid, underscore := 0, 0, 0
	names := uint64(namesMade)
	var te []byte // a Transfer-Encoding's value
	cl := false   // a Content-Length came
	for len(raw) > 0 && raw[0] != '\r' && raw[0] != '\n' {
		var class byte
		i := 0
		for ; i < len(raw); i++ {
			c := proxy.NameClass[raw[i]]
			if c == proxy.NameColon {
				break
			}
			class |= c
		}
		if class&proxy.NameRefused != 0 {
			return 400
		}
		end := len(raw)
		if j := bytes.IndexByte(raw[i:], '\n'); j >= 0 {
			end = i + j
		}
		if bufSize > 0 && end+1 > bufSize { // the line and its LF
			return 494
		}
		switch {
		case f.hostAt == 0 && i == len("host") && strings.EqualFold(b2s(raw[:i]), "host"):
			f.lines, f.invalid, f.underscore = lines, invalid, underscore
			f.hostAt = f.kept(def) + 1
		case i == len("transfer-encoding") && strings.EqualFold(b2s(raw[:i]), "transfer-encoding"):
			te = bytes.TrimSpace(raw[min(i+1, end):end])
		case i == len("content-length") && strings.EqualFold(b2s(raw[:i]), "content-length"):
			cl = true
		}
		if i > 0 {
			names |= nameBit(b2s(raw[:i]))
		}
		raw = raw[min(end+1, len(raw)):]
		lines++
		switch {
		case class&proxy.NameInvalid != 0:
			invalid++
		case class != 0:
			underscore++
		}
	}
	f.lines, f.invalid, f.underscore, f.names, f.chunked = lines, invalid, underscore, names, te != nil
	if te != nil {
		// ngx_http_process_request_header: chunked alone, or nothing.
		// Both framings at once would let two servers in a chain see two
		// different requests (RFC 9112 6.3).
		switch {
		case !strings.EqualFold(b2s(te), "chunked"):
			return 501 // client sent unknown "Transfer-Encoding"
		case cl:
			return 400 // client sent "Content-Length" and "Transfer-Encoding" headers at the same time
		}
	}
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
	if f.invalid == 0 && f.underscore == 0 || f.r == nil || f.r.Server() == nil {
		return false, false
	}
	s := f.r.Server()
	return f.kept(s) < f.lines, s.UnderscoresInHeaders
}

// TooManyHeaders applies max_headers (nginx 1.29.8, and Debian's 1.22.1
// since deb12u11: a flood of tiny header lines costs a server far more
// than their bytes) to an HTTP/1 request once its server srv is known.
// nginx checks each line against the server chosen so far: def, the
// default one, up to the Host line and the one it names after it, or all
// along the one an absolute-form request line named. Lines a server
// drops as invalid do not count.
func (f *fastHeaders) TooManyHeaders(def, srv *conf.Server, absolute bool) bool {
	n := f.kept(srv)
	if absolute || f.hostAt == 0 && srv == def {
		return n > srv.MaxHeaders
	}
	if f.hostAt == 0 {
		return f.kept(def) > def.MaxHeaders
	}
	return f.hostAt > def.MaxHeaders || n > f.hostAt && n > srv.MaxHeaders
}

// nginx's defaults for lingering_time and lingering_timeout, which edge
// does not make configurable.
const (
	lingeringTime    = 30 * time.Second
	lingeringTimeout = 5 * time.Second
)

// lingeringClose closes c after an error response the way nginx does
// when the client may still be sending (ngx_http_set_lingering_close):
// it stops writing, then reads and discards what comes until the client
// closes, no byte comes for lingeringTimeout, or lingeringTime has
// passed. Closing with unread bytes would make the kernel answer them
// with a reset, which can destroy the response before the client has
// read it.
func lingeringClose(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	var buf [4096]byte
	deadline := time.Now().Add(lingeringTime)
	for {
		t := time.Now().Add(lingeringTimeout)
		if t.After(deadline) {
			t = deadline
		}
		if c.SetReadDeadline(t) != nil {
			break
		}
		if _, err := c.Read(buf[:]); err != nil {
			break
		}
		if !time.Now().Before(deadline) {
			break
		}
	}
	return c.Close()
}

// servableAuthority reports whether a head whose authority fasthttp
// refused is to be served all the same: the authority (the absolute
// target's, else the Host header) is an IPvFuture literal, which RFC 3986
// 3.2.2 allows and nginx takes (nginx-tests http_host.t 57-58) but
// fasthttp checks as an IPv6 address; and the request announces no body,
// which the engine did not read, and no Upgrade, whose tunnel its error
// path cannot hand over. Malformed hosts stay refused
// (docs/nginx-differences.md).
func servableAuthority(h Header) bool {
	if n := h.ContentLength(); n > 0 || n == -1 && h.IsHTTP11() || len(h.Peek("Upgrade")) > 0 {
		return false
	}
	authority := string(h.Host())
	target := string(h.RequestURI())
	if i := strings.Index(target, "://"); i > 0 && !strings.HasPrefix(target, "/") {
		authority = target[i+3:]
		if j := strings.IndexAny(authority, "/?#"); j >= 0 {
			authority = authority[:j]
		}
	}
	return ipvFuture(authority)
}

// ipvFuture reports whether s is "[" IPvFuture "]" with an optional
// ":port": IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
// (RFC 3986 3.2.2).
func ipvFuture(s string) bool {
	end := strings.IndexByte(s, ']')
	if len(s) < 2 || s[0] != '[' || s[1] != 'v' && s[1] != 'V' || end < 0 {
		return false
	}
	lit, port := s[2:end], s[end+1:]
	if port != "" && (port[0] != ':' || strings.Trim(port[1:], "0123456789") != "") {
		return false
	}
	dot := strings.IndexByte(lit, '.')
	if dot < 1 || dot == len(lit)-1 {
		return false
	}
	for i := 0; i < dot; i++ {
		if !isHex(lit[i]) {
			return false
		}
	}
	for i := dot + 1; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=:", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
