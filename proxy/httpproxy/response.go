// response.go reads the upstream's response as nginx's proxy module
// does (ngx_http_proxy_process_status_line, _process_header and the
// input filters): the status line, the header block, and the body framed
// by Content-Length, chunked encoding or the connection's close.

package httpproxy

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"time"
)

// Response is the upstream's answer. Its body is read with Read (or
// Stream); Close must be called once the caller is done with it, which
// keeps the connection for the next request when the body was read to
// its end and both sides allowed keep-alive, and closes it otherwise.
type Response struct {
	// Status is the status code; Reason the text after it ("" if none).
	Status int
	Reason string
	// HTTP09: the upstream sent no valid status line. nginx then takes
	// the whole response, from its first byte, as an HTTP/0.9 body with
	// status 200 and no headers ("upstream sent no valid HTTP/1.0
	// header"), and answers the client with the bytes alone; Status is
	// 200 and Header empty.
	HTTP09 bool
	// HTTP11 is the status line's version (HTTP/1.1 or later).
	HTTP11 bool
	// Header is every header line in the order received, for
	// $upstream_http_* and the caller's own filters; ClientHeaders gives
	// the ones nginx passes to the client.
	Header []Header
	// ContentLength is the body's length; -1 when it is not known
	// (chunked, or delimited by the connection's close). 0 for a body
	// that cannot exist (HEAD, 204, 304, 101).
	ContentLength int64
	// Chunked: the body came with Transfer-Encoding: chunked.
	Chunked bool
	// Trailer holds the chunked body's trailer lines, once Read has
	// returned io.EOF.
	Trailer []Header
	// Accel holds the X-Accel-* headers, which nginx acts on instead of
	// passing them on.
	Accel Accel
	// Upgrade: the status is 101 and the client asked to upgrade
	// (nginx's u->upgrade): call Tunnel. A 101 the client did not ask
	// for has no body and closes the connection.
	Upgrade bool
	// ConnectTime is how long the connection took to make, TLS handshake
	// included ($upstream_connect_time); about 0 for a kept one.
	ConnectTime time.Duration

	c        *conn
	u        *Upstream
	mode     bodyMode
	left     int64 // bytes left in a length-delimited body or a chunk
	done     bool  // the body was read to its end
	keep     bool  // the upstream allows reusing the connection
	err      error // the body's sticky error
	stopCtx  func() bool
	released bool
}

// Accel is what nginx reads from X-Accel-* headers (each "" when absent).
type Accel struct {
	Redirect, Buffering, LimitRate, Charset, Expires string
}

type bodyMode uint8

const (
	bodyNone bodyMode = iota
	bodyLength
	bodyChunked
	bodyClose
)

var errTooBig = errors.New("upstream sent too big header")

// readHead reads the status line and the header block from br into r.
// The header must fit in limit bytes (proxy_buffer_size). A header that
// is not valid is an *Error of KindInvalidHeader.
func (r *Response) readHead(br *bufio.Reader, limit int, head bool, hdrBuf []byte) ([]byte, error) {
	// The status line: nginx's ngx_http_parse_status_line. Peek as much
	// as is there, so that a response without a valid line is still
	// there to be read as an HTTP/0.9 body; nginx decides that at the
	// first byte that cannot start "HTTP/".
	used := 0
	for {
		line, ok, complete := peekLine(br)
		if !mayStartStatus(line) {
			return hdrBuf, r.http09()
		}
		if !complete {
			if _, err := br.Peek(br.Buffered() + 1); err != nil {
				if errors.Is(err, bufio.ErrBufferFull) {
					return hdrBuf, errTooBig
				}
				return hdrBuf, err
			}
			continue
		}
		if !ok {
			return hdrBuf, errTooBig
		}
		code, http11, reason, valid := parseStatusLine(line)
		if !valid {
			return hdrBuf, r.http09()
		}
		r.Status, r.HTTP11 = code, http11
		r.Reason = reasonText(reason)
		used = len(line)
		br.Discard(len(line))
		break
	}
	// Header lines are gathered into hdrBuf as "name\x00value\x00" so
	// that one string holds them all.
	hdrBuf = hdrBuf[:0]
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		used += len(line)
		if used > limit {
			return hdrBuf, errTooBig
		}
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return hdrBuf, errTooBig
			}
			return hdrBuf, err
		}
		line = line[:len(line)-1]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) == 0 {
			break
		}
		name, value, skip, ok := parseHeaderLine(line)
		if !ok {
			return hdrBuf, invalidHeader
		}
		if skip {
			continue
		}
		hdrBuf = append(hdrBuf, name...)
		hdrBuf = append(hdrBuf, 0)
		hdrBuf = append(hdrBuf, value...)
		hdrBuf = append(hdrBuf, 0)
		n++
	}
	rest := string(hdrBuf)
	r.Header = make([]Header, 0, n)
	for i := 0; i < n; i++ {
		k := strings.IndexByte(rest, 0)
		name := rest[:k]
		rest = rest[k+1:]
		k = strings.IndexByte(rest, 0)
		value := rest[:k]
		rest = rest[k+1:]
		r.Header = append(r.Header, Header{name, value})
	}
	return hdrBuf, r.frame(head)
}

var invalidHeader = errors.New("upstream sent invalid header")

// http09 turns r into nginx's HTTP/0.9 answer: status 200, no headers,
// the body everything up to the connection's close.
func (r *Response) http09() error {
	r.HTTP09 = true
	r.Status = 200
	r.mode = bodyClose
	r.ContentLength = -1
	r.keep = false
	return nil
}

// mayStartStatus tells whether b can be the start of "HTTP/".
func mayStartStatus(b []byte) bool {
	n := len(b)
	if n > 5 {
		n = 5
	}
	return string(b[:n]) == "HTTP/"[:n]
}

// reasonText makes the reason phrase a string, without allocating for
// the usual ones.
func reasonText(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "OK":
		return "OK"
	case "Not Found":
		return "Not Found"
	case "Found":
		return "Found"
	case "Moved Permanently":
		return "Moved Permanently"
	case "Not Modified":
		return "Not Modified"
	case "Switching Protocols":
		return "Switching Protocols"
	}
	return string(b)
}

// peekLine returns the buffered bytes up to and including the first LF.
// complete is false when no LF is buffered yet; ok is false when the
// buffer is full without one.
func peekLine(br *bufio.Reader) (line []byte, ok, complete bool) {
	buf, _ := br.Peek(br.Buffered())
	if i := indexByte(buf, '\n'); i >= 0 {
		return buf[:i+1], true, true
	}
	if br.Buffered() == br.Size() {
		return buf, false, true
	}
	return buf, true, false
}

func indexByte(b []byte, c byte) int {
	for i := range b {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// parseStatusLine is ngx_http_parse_status_line: "HTTP/" major "."
// minor, a space, three digits, then a space and the reason, or the end
// of the line (LF, or CR LF). The major version starts with 1-9; each
// part has at most 3 digits.
func parseStatusLine(line []byte) (code int, http11 bool, reason []byte, ok bool) {
	if len(line) < 5 || string(line[:5]) != "HTTP/" {
		return 0, false, nil, false
	}
	p := line[5:]
	i := 0
	if i >= len(p) || p[i] < '1' || p[i] > '9' {
		return 0, false, nil, false
	}
	major := 0
	for i < len(p) && p[i] >= '0' && p[i] <= '9' {
		major = major*10 + int(p[i]-'0')
		i++
	}
	if i > 3 || i >= len(p) || p[i] != '.' {
		return 0, false, nil, false
	}
	i++
	j := i
	minor := 0
	for i < len(p) && p[i] >= '0' && p[i] <= '9' {
		minor = minor*10 + int(p[i]-'0')
		i++
	}
	http11 = major > 1 || minor >= 1
	if i == j || i-j > 3 || i >= len(p) || p[i] != ' ' {
		return 0, false, nil, false
	}
	for i < len(p) && p[i] == ' ' {
		i++
	}
	if len(p)-i < 3 {
		return 0, false, nil, false
	}
	for k := 0; k < 3; k++ {
		c := p[i+k]
		if c < '0' || c > '9' {
			return 0, false, nil, false
		}
		code = code*10 + int(c-'0')
	}
	i += 3
	rest := p[i:]
	switch {
	case len(rest) == 0:
		return 0, false, nil, false
	case rest[0] == '\n' || (rest[0] == '\r' && len(rest) == 2 && rest[1] == '\n'):
		return code, http11, nil, true
	case rest[0] != ' ' && rest[0] != '.':
		return 0, false, nil, false
	}
	rest = rest[1:]
	if n := len(rest); n > 0 && rest[n-1] == '\n' {
		rest = rest[:n-1]
	} else {
		return 0, false, nil, false
	}
	if n := len(rest); n > 0 && rest[n-1] == '\r' {
		rest = rest[:n-1]
	}
	for _, c := range rest {
		if c == '\r' || c == 0 {
			return 0, false, nil, false
		}
	}
	return code, http11, rest, true
}

// parseHeaderLine is ngx_http_parse_header_line as the proxy module
// calls it (underscores allowed), with 1.21.1's rule that a space or a
// control character in a name is an error. A line without a colon is a
// header with an empty value, as in nginx; a repeated "HTTP/..." line
// (IIS) is skipped.
func parseHeaderLine(line []byte) (name, value []byte, skip, ok bool) {
	i := 0
	for i < len(line) && line[i] != ':' {
		c := line[i]
		if c <= 0x20 || c == 0x7f {
			if c == ' ' && i == 4 && string(line[:4]) == "HTTP" {
				return nil, nil, true, true
			}
			return nil, nil, false, false
		}
		if c == '/' && i == 4 && string(line[:4]) == "HTTP" {
			return nil, nil, true, true
		}
		i++
	}
	if i == 0 {
		return nil, nil, false, false
	}
	name = line[:i]
	if i == len(line) {
		return name, nil, false, true
	}
	v := line[i+1:]
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	for _, c := range v {
		if c == 0 || c == '\r' {
			return nil, nil, false, false
		}
	}
	return name, v, false, true
}

// frame reads the headers nginx acts on and chooses how the body is
// delimited (ngx_http_proxy_input_filter_init).
func (r *Response) frame(head bool) error {
	r.ContentLength = -1
	closeConn := !r.HTTP11
	var te, cl string
	seenCL := false
	for i := range r.Header {
		h := &r.Header[i]
		switch {
		case strings.EqualFold(h.Name, "Content-Length"):
			if seenCL && h.Value != cl {
				return invalidHeader
			}
			seenCL, cl = true, h.Value
		case strings.EqualFold(h.Name, "Transfer-Encoding"):
			te = h.Value
		case strings.EqualFold(h.Name, "Connection"):
			if indexFold(h.Value, "close") >= 0 { // ngx_strlcasestrn
				closeConn = true
			}
		case len(h.Name) > 8 && strings.EqualFold(h.Name[:8], "X-Accel-"):
			switch n := h.Name[8:]; {
			case strings.EqualFold(n, "Redirect"):
				r.Accel.Redirect = h.Value
			case strings.EqualFold(n, "Buffering"):
				r.Accel.Buffering = h.Value
			case strings.EqualFold(n, "Limit-Rate"):
				r.Accel.LimitRate = h.Value
			case strings.EqualFold(n, "Charset"):
				r.Accel.Charset = h.Value
			case strings.EqualFold(n, "Expires"):
				r.Accel.Expires = h.Value
			}
		}
	}
	if te != "" {
		// nginx 1.23's stricter rules, taken here for the request
		// smuggling they close: only "chunked", never beside a length.
		if !strings.EqualFold(te, "chunked") || seenCL {
			return invalidHeader
		}
		r.Chunked = true
	}
	if seenCL && !r.Chunked {
		n, ok := parseLength(cl)
		if !ok {
			return invalidHeader
		}
		r.ContentLength = n
	}
	r.keep = !closeConn
	switch {
	case r.Status == 101:
		r.keep = false
		r.mode, r.ContentLength = bodyNone, 0
	case r.Status == 204 || r.Status == 304 || head:
		r.mode, r.ContentLength = bodyNone, 0
	case r.Chunked:
		r.mode = bodyChunked
		r.left = -1
	case r.ContentLength >= 0:
		r.mode, r.left = bodyLength, r.ContentLength
		if r.left == 0 {
			r.mode = bodyNone
		}
	default:
		r.mode = bodyClose
		r.keep = false
	}
	if r.mode == bodyNone {
		r.done = true
	}
	return nil
}

func parseLength(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	return n, true
}

// Read reads the body. It returns io.EOF at the body's end; any other
// error is an *Error (KindTimeout, KindBody, KindCanceled).
func (r *Response) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.done || r.c == nil {
		return 0, io.EOF
	}
	n, err := r.read(p)
	if err != nil && err != io.EOF {
		r.err = r.c.fail(r.u, "read response body", err, KindBody)
		return n, r.err
	}
	return n, err
}

func (r *Response) read(p []byte) (int, error) {
	br := r.c.br
	switch r.mode {
	case bodyLength:
		if int64(len(p)) > r.left {
			p = p[:r.left]
		}
		n, err := br.Read(p)
		r.left -= int64(n)
		if r.left == 0 {
			r.done = true
			return n, nil
		}
		if err == io.EOF {
			return n, io.ErrUnexpectedEOF
		}
		return n, err
	case bodyChunked:
		for r.left <= 0 {
			if r.left == 0 {
				// The CRLF after a chunk's data.
				if err := expectCRLF(br); err != nil {
					return 0, err
				}
			}
			size, err := readChunkSize(br)
			if err != nil {
				return 0, err
			}
			if size == 0 {
				if err := r.readTrailer(br); err != nil {
					return 0, err
				}
				r.done = true
				return 0, io.EOF
			}
			r.left = size
		}
		if int64(len(p)) > r.left {
			p = p[:r.left]
		}
		n, err := br.Read(p)
		r.left -= int64(n)
		if err == io.EOF {
			return n, io.ErrUnexpectedEOF
		}
		return n, err
	case bodyClose:
		n, err := br.Read(p)
		if err == io.EOF {
			r.done = true
		}
		return n, err
	}
	return 0, io.EOF
}

var errChunk = errors.New("upstream sent invalid chunked response")

func expectCRLF(br *bufio.Reader) error {
	c, err := br.ReadByte()
	if err != nil {
		return noEOF(err)
	}
	if c == '\r' {
		if c, err = br.ReadByte(); err != nil {
			return noEOF(err)
		}
	}
	if c != '\n' {
		return errChunk
	}
	return nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readChunkSize reads a chunk-size line (hex digits, then extensions,
// which are ignored, as nginx's ngx_http_parse_chunked does).
func readChunkSize(br *bufio.Reader) (int64, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if err == bufio.ErrBufferFull {
			return 0, errChunk
		}
		return 0, noEOF(err)
	}
	var n int64
	digits := 0
	for _, c := range line {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			if digits == 0 || (c != ';' && c != ' ' && c != '\t' && c != '\r' && c != '\n') {
				return 0, errChunk
			}
			return n, nil
		}
		digits++
		if digits > 15 {
			return 0, errChunk
		}
		n = n<<4 | int64(d)
	}
	return 0, errChunk
}

// readTrailer reads the trailer section after the last chunk.
func (r *Response) readTrailer(br *bufio.Reader) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if err == bufio.ErrBufferFull {
				return errChunk
			}
			return noEOF(err)
		}
		line = line[:len(line)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) == 0 {
			return nil
		}
		name, value, skip, ok := parseHeaderLine(line)
		if !ok {
			return errChunk
		}
		if !skip {
			r.Trailer = append(r.Trailer, Header{string(name), string(value)})
		}
	}
}

// Close ends the response: the connection goes back to the keep-alive
// pool if the body was read to its end and both sides allowed it, and is
// closed otherwise. Close is idempotent; it returns nil.
func (r *Response) Close() error {
	if r.released || r.c == nil {
		return nil
	}
	r.released = true
	live := true
	if r.stopCtx != nil {
		// false: the context's cancel already closed the connection.
		live = r.stopCtx()
	}
	if live && r.done && r.keep && r.err == nil && r.c.br.Buffered() == 0 {
		r.u.put(r.c)
	} else {
		r.c.close()
	}
	r.c = nil
	return nil
}

// Stream copies the body to w, calling flush (when not nil) after every
// piece, which is nginx's proxy_buffering off: each read from the
// upstream goes to the client at once. An error writing to w is
// returned as it is; the upstream's are *Error.
func (r *Response) Stream(w io.Writer, flush func() error) error {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			if flush != nil {
				if ferr := flush(); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// hopByHop are the upstream's headers nginx never copies to the client
// (ngx_http_upstream_headers_in: their copy handler ignores them); the
// body's length reaches the client through ContentLength.
var hopByHop = []string{"Connection", "Keep-Alive", "Transfer-Encoding", "Content-Length"}

// ClientHeaders appends to dst the headers nginx passes to the client:
// all but the hop-by-hop ones and those hide hides (nil: DefaultHide).
func (r *Response) ClientHeaders(dst []Header, hide *HideHeaders) []Header {
	if hide == nil {
		hide = DefaultHide
	}
	for i := range r.Header {
		h := r.Header[i]
		if inNames(hopByHop, h.Name) || hide.Hidden(h.Name) {
			continue
		}
		dst = append(dst, h)
	}
	return dst
}

func inNames(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// HideHeaders is a proxy_hide_header / proxy_pass_header result: the
// headers of the upstream's response the client does not get.
type HideHeaders struct{ names []string }

// defaultHidden is nginx's ngx_http_proxy_hide_headers: Date and Server
// are replaced by nginx's own; X-Pad is an old Apache workaround; the
// X-Accel-* are instructions to nginx.
var defaultHidden = []string{
	"Date", "Server", "X-Pad", "X-Accel-Expires", "X-Accel-Redirect",
	"X-Accel-Limit-Rate", "X-Accel-Buffering", "X-Accel-Charset",
}

// DefaultHide is NewHideHeaders(nil, nil).
var DefaultHide = NewHideHeaders(nil, nil)

// NewHideHeaders hides nginx's defaults plus hide (proxy_hide_header),
// except the names in pass (proxy_pass_header), as nginx's
// ngx_http_upstream_hide_headers_hash does.
func NewHideHeaders(hide, pass []string) *HideHeaders {
	h := &HideHeaders{}
	for _, list := range [][]string{defaultHidden, hide} {
		for _, n := range list {
			if !inNames(pass, n) && !inNames(h.names, n) {
				h.names = append(h.names, n)
			}
		}
	}
	return h
}

// Hidden tells whether the client does not get header name.
func (h *HideHeaders) Hidden(name string) bool { return inNames(h.names, name) }
