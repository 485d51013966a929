// This file holds the rules of nginx's HTTP/1 request parser that fasthttp
// does not apply (issue 20): checkRequestHead, one pass over a head that
// fasthttp parsed; headWatch, which follows a head as it arrives, for the
// answers nginx gives before a head is complete (414 for a request line
// longer than fasthttp's whole buffer, 400 for a bare CR that fasthttp
// would wait behind); servableAuthority, for a valid host that fasthttp
// refuses; and the lingering close that lets such an answer reach a
// client that is still sending.
package h1

import (
	"bytes"
	"errors"
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
// drop invalid names and for max_headers (TooManyHeaders). It allocates
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
	if info != nil && info.head.lineLF {
		line-- // the client sent a bare LF
	}
	if bufSize > 0 && line > bufSize {
		return 414
	}
	raw := f.h.RawHeaders()
	lines, invalid, underscore := 0, 0, 0
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
		if f.hostAt == 0 && i == len("host") && strings.EqualFold(b2s(raw[:i]), "host") {
			f.lines, f.invalid, f.underscore = lines, invalid, underscore
			f.hostAt = f.kept(def) + 1
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

// errBareCR fails the read of a head that holds a CR followed by something
// other than LF, which nginx refuses at once with 400; fasthttp would go
// on waiting for the line's LF.
var errBareCR = errors.New("client sent a bare CR in the request head")

// headWatch follows the bytes of a connection as the HTTP/1 engine reads
// them. From begin (the connection's start, and each wait for a next
// request) to the end of the head (CRLF CRLF), it notes where the request
// line ends and refuses a bare CR. The common head arrives in one read
// that ends with CRLF CRLF, and costs one search for the request line's LF.
type headWatch struct {
	total  int64 // bytes the client has sent
	active bool  // the bytes read now are those of a head
	start  int64 // total when the watch began
	// lineStart and lineEnd are where the request line starts (after the
	// empty lines nginx skips) and where its LF is; -1 until seen.
	lineStart, lineEnd int64
	// tail is how many bytes of CRLF CRLF the bytes read so far end with.
	tail int
	// complete is set when the head's CRLF CRLF arrived, end is then the
	// offset just past it.
	complete bool
	end      int64
	// off stops the watch for the rest of the connection (next).
	off bool
	// What crlf knows of the raw bytes of the head read so far: a byte
	// other than CR and LF came (text: the request line began), they end
	// with a CR (cr), and where they stand in their last line (eol).
	text, cr bool
	eol      lineEnd
	// lineLF: the request line ended in a bare LF, which crlf made two
	// bytes; the 414 check counts it as nginx does, as one.
	lineLF, lineSeen bool
	// pend is a byte crlf had no room for in the read that produced it;
	// the next read returns it (pended is then set).
	pend   byte
	pended bool
}

// lineEnd is where the raw bytes of a head stand in their last line.
type lineEnd uint8

const (
	eolText  lineEnd = iota // inside a line that has text
	eolStart                // at the start of a line
	eolCR                   // at the start of a line, after a CR
)

// begin starts watching a head from the next byte read.
func (w *headWatch) begin() {
	*w = headWatch{total: w.total, active: true, start: w.total, lineStart: -1, lineEnd: -1,
		pend: w.pend, pended: w.pended}
}

// readSpace is the part of p, the engine's buffer, that the next read of
// the socket may fill: while a head is coming, half of it, so that crlf
// has room to make each byte two. The common head comes in one read far
// smaller than either half.
func (w *headWatch) readSpace(p []byte) []byte {
	if w.active && len(p) > 1 {
		return p[:len(p)/2]
	}
	return p
}

// pending moves into p the byte crlf had no room for, and returns 1, or
// returns 0 when there is none.
func (w *headWatch) pending(p []byte) int {
	if !w.pended || len(p) == 0 {
		return 0
	}
	p[0], w.pended = w.pend, false
	return 1
}

// crlf rewrites in place each bare LF of the head in p[:n], bytes just
// read into the engine's buffer p, as CRLF, and returns their new length.
// nginx ends a head's lines at an LF with or without a CR before it
// (RFC 9112 section 2.2 lets a recipient do so; nginx's own test suite
// and many shell health checks send bare LFs), while fasthttp takes a
// head to end only at CRLF CRLF and would wait for one until the client
// gives up (issue 14). The rewrite stops at the head's end, the first
// empty line after the request line: a body goes on as it was sent. Empty
// lines before the request line, which both skip, are left alone.
//
// p holds room for the CRs when the read filled no more than readSpace;
// a byte that does not fit waits in w.pend.
func (w *headWatch) crlf(p []byte, n int) int {
	if !w.active || n == 0 {
		return n
	}
	from := 0
	if !w.text {
		for from < n && (p[from] == '\r' || p[from] == '\n') {
			from++
		}
		if from == n || !methodStart(p[from]) {
			return n // saw stops the watch at what is not a head
		}
		w.text, w.eol, w.cr = true, eolText, false
	}
	prevCR := w.cr
	head, bare, found := n, 0, false
	ls, eol := -1, w.eol // where the last line starts in p; the state before it
	for at := from; ; {
		j := bytes.IndexByte(p[at:n], '\n')
		if j < 0 {
			break
		}
		i := at + j
		isBare := i > 0 && p[i-1] != '\r' || i == 0 && !prevCR
		if isBare {
			bare++
		}
		if !w.lineSeen {
			w.lineSeen, w.lineLF = true, isBare
		}
		if emptyLine(p, ls, i, eol) {
			head, found = i+1, true
			break
		}
		ls, eol, at = i+1, eolStart, i+1
	}
	if !found {
		w.cr = p[n-1] == '\r'
		w.eol = lastLineEnd(p[:n], ls, eol)
	}
	if bare == 0 {
		return n
	}
	return w.insertCRs(p, from, n, head, bare, prevCR)
}

// emptyLine reports whether the LF at p[i] ends an empty line, or one
// holding just a CR. The line starts at p[ls], or, when ls is -1, in an
// earlier read, whose bytes left it at eol.
func emptyLine(p []byte, ls, i int, eol lineEnd) bool {
	if ls < 0 {
		ls = 0
		if eol == eolText {
			return false
		}
		if eol == eolCR {
			return i == 0
		}
	}
	return i == ls || i == ls+1 && p[ls] == '\r'
}

// lastLineEnd is where p leaves its last line, which starts at p[ls] (or,
// when ls is -1, in an earlier read that left it at eol).
func lastLineEnd(p []byte, ls int, eol lineEnd) lineEnd {
	rest := p
	if ls >= 0 {
		rest, eol = p[ls:], eolStart
	}
	switch {
	case len(rest) == 0:
		return eol
	case len(rest) == 1 && rest[0] == '\r' && eol == eolStart:
		return eolCR
	}
	return eolText
}

// insertCRs puts a CR before each of the bare bare LFs in p[from:head],
// moving what follows them along; it returns the new length. prevCR says
// that the byte before p[0] was a CR. A last byte past len(p) waits in
// w.pend.
func (w *headWatch) insertCRs(p []byte, from, n, head, bare int, prevCR bool) int {
	total := n + bare
	if total > len(p) {
		// Only a one-byte read can come to this (readSpace): its byte is
		// a bare LF, which becomes the CR here and the LF next read.
		w.pend, w.pended = p[n-1], true
		p[n-1] = '\r'
		return n
	}
	copy(p[head+bare:], p[head:n])
	j := head + bare
	for i := head - 1; i >= from; i-- {
		j--
		p[j] = p[i]
		if p[i] == '\n' && (i > 0 && p[i-1] != '\r' || i == 0 && !prevCR) {
			j--
			p[j] = '\r'
		}
	}
	return total
}

// requestEnd is where the request whose head the watch saw ends, given
// its body's length (-1 when unknown: chunked); -1 when it cannot be told.
func (w *headWatch) requestEnd(bodyLength int64) int64 {
	if !w.complete || w.off || bodyLength < 0 {
		return -1
	}
	return w.end + bodyLength
}

// saw notes p, bytes just read. It returns errBareCR when p leaves the head
// unfinished with a bare CR in it: the engine is about to wait for more.
func (w *headWatch) saw(p []byte) error {
	at := w.total
	w.total += int64(len(p))
	if !w.active || len(p) == 0 {
		return nil
	}
	if w.lineEnd < 0 {
		if w.findRequestLine(p, at); !w.active || w.lineStart < 0 {
			// Not a head, or only the empty lines before one so far,
			// which nginx skips whatever they hold.
			return nil
		}
	}
	// The head's end is after its request line's start: a CRLF CRLF among
	// the empty lines before it ends nothing.
	from := int(max(0, w.lineStart-at))
	if e := w.headEnd(p[from:]); e >= 0 {
		w.active, w.complete, w.end = false, true, at+int64(from+e)
		return nil
	}
	// The head goes on past p: a bare CR in it is final.
	if w.tail&1 == 1 && p[0] != '\n' {
		return errBareCR
	}
	for i := bytes.IndexByte(p, '\r'); i >= 0 && i < len(p)-1; {
		if p[i+1] != '\n' {
			return errBareCR
		}
		j := bytes.IndexByte(p[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	w.tail = crlfSuffix(p, w.tail)
	return nil
}

var crlfcrlf = []byte("\r\n\r\n")

// headEnd returns where in p the head ends (just past CRLF CRLF, which
// may have begun in the bytes before), or -1.
func (w *headWatch) headEnd(p []byte) int {
	if w.tail > 0 && bytes.HasPrefix(p, crlfcrlf[w.tail:]) {
		return len(crlfcrlf) - w.tail
	}
	if i := bytes.Index(p, crlfcrlf); i >= 0 {
		return i + len(crlfcrlf)
	}
	return -1
}

// next is called when the engine waits for the next request on a kept
// connection. The watch follows the next head only when the bytes read so
// far end exactly where the last request did (reqEnd: its head's end plus
// its Content-Length); otherwise the engine already holds bytes of a
// pipelined request, which the watch would take for a head's start, and
// it stops for the rest of the connection.
func (w *headWatch) next(reqEnd int64) {
	if w.off || reqEnd < 0 || w.total != reqEnd {
		w.off, w.active = true, false
		return
	}
	w.begin()
}

// crlfSuffix is how many bytes of CRLF CRLF p ends with; prev is the count
// for the bytes before p, which p may extend.
func crlfSuffix(p []byte, prev int) int {
	if prev > 0 && prev+len(p) < len(crlfcrlf) && bytes.Equal(p, crlfcrlf[prev:prev+len(p)]) {
		return prev + len(p)
	}
	for k := min(len(crlfcrlf)-1, len(p)); k > 0; k-- {
		if bytes.HasSuffix(p, crlfcrlf[:k]) {
			return k
		}
	}
	return 0
}

// findRequestLine notes the start and the LF of the request line in p,
// read at offset at, past the empty lines nginx and fasthttp skip.
func (w *headWatch) findRequestLine(p []byte, at int64) {
	i := 0
	if w.lineStart < 0 {
		for i < len(p) && (p[i] == '\r' || p[i] == '\n') {
			i++
		}
		if i == len(p) {
			return
		}
		// A method starts with a capital, "_" or "-". Anything else is
		// not the start of a head (the watch began while a pipelined
		// request was already buffered, and sees its body): stop, so
		// that a CR in a body is never taken for a bare one.
		if !methodStart(p[i]) {
			w.active = false
			return
		}
		w.lineStart = at + int64(i)
	}
	if j := bytes.IndexByte(p[i:], '\n'); j >= 0 {
		w.lineEnd = at + int64(i+j)
	}
}

// methodStart reports whether c can start a method: a capital, "_" or "-".
func methodStart(c byte) bool { return c >= 'A' && c <= 'Z' || c == '_' || c == '-' }

// lineTooLong reports, when the engine's read buffer of bufSize bytes
// filled up without a whole head, whether the request line is longer
// than one large_client_header_buffers buffer (lineMax): nginx's 414. The
// buffer holds the last bufSize bytes read, from the head's start; the
// answer is only known when the watch began there too (not when a
// pipelined request was already buffered), and is false otherwise.
func (w *headWatch) lineTooLong(bufSize, lineMax int) bool {
	if w.start != w.total-int64(bufSize) || w.lineStart < 0 {
		return false
	}
	end := w.total
	if w.lineEnd >= 0 {
		end = w.lineEnd + 1
		if w.lineLF {
			end-- // crlf's CR, which the client did not send
		}
	}
	return end-w.lineStart > int64(lineMax)
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
