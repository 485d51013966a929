// response.go holds the reading side of one request: the record stream
// that yields STDOUT, hands STDERR to a callback and stops at
// END_REQUEST; the parser of the CGI header block at the start of STDOUT
// (RFC 3875 section 6); and the Response whose Body streams the rest.
package fastcgi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

const (
	// maxHeaderLine bounds one response header line. PHP applications send
	// long lines (Content-Security-Policy, Link preload lists, big
	// cookies), so the limit is far above nginx's 4-8 KiB buffers.
	maxHeaderLine = 64 << 10
	// maxHeaderBytes bounds the whole header block, so that a backend
	// that never ends its headers cannot grow memory without bound.
	maxHeaderBytes = 1 << 20

	// Pooled buffers that grew beyond these are dropped rather than kept.
	maxPooledHead    = 64 << 10
	maxPooledRequest = 64 << 10
)

// HeaderField is one response header line as the backend sent it: Name
// keeps its case, Value has surrounding blanks trimmed. Both point into
// the Response's buffer and are valid until Response.Close.
type HeaderField struct {
	Name, Value []byte
}

// Response is the backend's answer to one request. Header is complete when
// Client.Do returns; Body streams the rest of STDOUT as the backend sends
// it, so a PHP flush() reaches the reader of Body at once.
type Response struct {
	// Status is the code from the CGI "Status:" header. Without one it is
	// 302 when a Location header is present and 200 otherwise, which is
	// what nginx does. RFC 3875 section 6.2.2 would make a Location with
	// a local path (starting with "/") an internal redirect; like nginx,
	// edge does not: the caller sees the 302 and the Location as sent.
	Status int
	// StatusImplied is true when the backend sent no "Status:" line and
	// Status was inferred (RFC 3875 6.2.2/6.2.3: a Location with a local
	// path and no Status is a "local redirect" the server may follow).
	StatusImplied bool
	// Reason is the text after the code in "Status:" ("Not Found"),
	// empty when the backend sent only a code. Valid until Close.
	Reason []byte
	// Header holds the header lines in the order received, without
	// "Status:". A second "Status:" line is dropped: the first one wins.
	Header []HeaderField
	// Body is the rest of STDOUT. Reading it drives the connection: it
	// blocks until the backend sends more, delivers stderr messages to
	// Request.Stderr on the way, returns io.EOF at END_REQUEST and an
	// error (never io.EOF) if the response ends any other way.
	Body io.Reader
	// ConnectTime is how long the dial of the connection the request
	// went over took; 0 for a kept connection ($upstream_connect_time).
	ConnectTime time.Duration
	connected   bool // a connection was made or taken (ConnectTime is set)

	client  *Client
	conn    *conn
	ctx     context.Context
	stop    func() bool // stops the context watcher; nil when there is none
	stream  stream
	body    bodyReader
	hbuf    []byte // header block, then the first body bytes
	pending []byte // body bytes read together with the header block
	err     error  // sticky error of Body

	wbuf     []byte     // the request's opening records, kept for a retry
	writing  bool       // a goroutine is sending the rest of the body
	wdone    chan error // the body writer's result
	werr     error      // the body writer's result once received
	streamed int64      // bytes the body writer read from Request.Body
	sentAny  bool       // some of the request reached the connection
}

// bodyReader is Response.Body; a separate type keeps Read off Response.
type bodyReader struct{ r *Response }

func (b *bodyReader) Read(p []byte) (int, error) {
	r := b.r
	if r.err != nil {
		return 0, r.err
	}
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	n, err := r.stream.Read(p)
	if err != nil && err != io.EOF {
		r.err = r.fail(err)
		return n, r.err
	}
	return n, err
}

// readHead reads STDOUT up to the blank line that ends the header block,
// parses the block into r and keeps what follows as the start of Body.
func (r *Response) readHead() error {
	r.stream.inHead = true
	defer func() { r.stream.inHead = false }()
	buf := r.hbuf[:0]
	var sc headScanner
	for {
		if len(buf) == cap(buf) {
			if cap(buf) >= maxHeaderBytes {
				r.hbuf = buf
				return fmt.Errorf("%w: header block longer than %d bytes", ErrInvalidHeader, maxHeaderBytes)
			}
			nb := make([]byte, len(buf), min(max(2*cap(buf), 4096), maxHeaderBytes))
			copy(nb, buf)
			buf = nb
		}
		n, err := r.stream.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		r.hbuf = buf
		end, bodyStart, done, serr := sc.scan(buf)
		if serr != nil {
			return serr
		}
		if done {
			r.pending = buf[bodyStart:]
			r.Status, r.Reason, r.Header, err = parseHead(buf[:end], r.Header[:0])
			r.StatusImplied = err == errImplied
			if r.StatusImplied {
				err = nil
			}
			return err
		}
		if err == io.EOF {
			return fmt.Errorf("%w: response ended inside the header block", ErrInvalidHeader)
		}
		if err != nil {
			return err
		}
	}
}

// headScanner finds the end of the header block in a buffer that grows
// between calls, checking line lengths as it goes so that no byte is
// scanned twice.
type headScanner struct {
	next      int // first byte not yet searched for '\n'
	lineStart int // start of the line being read
}

// scan reports whether buf holds the whole header block; if so the block
// is buf[:end] and the body starts at bodyStart.
func (s *headScanner) scan(buf []byte) (end, bodyStart int, done bool, err error) {
	for {
		i := bytes.IndexByte(buf[s.next:], '\n')
		if i < 0 {
			s.next = len(buf)
			break
		}
		nl := s.next + i
		line := trimCR(buf[s.lineStart:nl])
		if len(line) > maxHeaderLine {
			return 0, 0, false, errLongLine
		}
		if len(line) == 0 {
			return s.lineStart, nl + 1, true, nil
		}
		s.lineStart, s.next = nl+1, nl+1
	}
	if len(buf)-s.lineStart > maxHeaderLine+1 { // +1: a '\r' may still come
		return 0, 0, false, errLongLine
	}
	return 0, 0, false, nil
}

var errLongLine = fmt.Errorf("%w: header line longer than %d bytes", ErrInvalidHeader, maxHeaderLine)

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// parseHead parses a CGI header block (RFC 3875 section 6.3) whose lines
// end in "\n" or "\r\n", appending the fields to fields. A line without a
// colon, an empty or non-token name, a control character in a value and
// an obsolete continuation line (RFC 9112 section 5.2) are all invalid:
// passing any of them on could split or smuggle a response.
func parseHead(block []byte, fields []HeaderField) (status int, reason []byte, _ []HeaderField, err error) {
	location := false
	for len(block) > 0 {
		var line []byte
		if i := bytes.IndexByte(block, '\n'); i >= 0 {
			line, block = trimCR(block[:i]), block[i+1:]
		} else {
			line, block = trimCR(block), nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			return 0, nil, fields, fmt.Errorf("%w: continuation line", ErrInvalidHeader)
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return 0, nil, fields, fmt.Errorf("%w: line without a colon", ErrInvalidHeader)
		}
		name, value := line[:colon], trimBlanks(line[colon+1:])
		if !validName(name) {
			return 0, nil, fields, fmt.Errorf("%w: invalid name %.64q", ErrInvalidHeader, name)
		}
		if !validValue(value) {
			return 0, nil, fields, fmt.Errorf("%w: invalid value for %.64q", ErrInvalidHeader, name)
		}
		switch {
		case equalFold(name, "Status"):
			if status != 0 {
				continue
			}
			if status, reason, err = parseStatus(value); err != nil {
				return 0, nil, fields, err
			}
			continue
		case equalFold(name, "Location") && len(value) > 0:
			location = true
		}
		fields = append(fields, HeaderField{Name: name, Value: value})
	}
	if status == 0 {
		// No "Status:": 302 with a Location (nginx does the same), else 200.
		status = 200
		if location {
			status = 302
		}
		return status, nil, fields, errImplied
	}
	return status, reason, fields, nil
}

// errImplied is parseHead's signal that the status was inferred, not sent
// (see Response.StatusImplied); it never leaves this package.
var errImplied = errors.New("fastcgi: status implied")

// parseStatus parses "404" or "404 Not Found": a three-digit code from 100
// on, then optionally a space and a reason phrase.
func parseStatus(v []byte) (int, []byte, error) {
	if len(v) < 3 || (len(v) > 3 && v[3] != ' ') {
		return 0, nil, fmt.Errorf("%w: status %.64q", ErrInvalidHeader, v)
	}
	code := 0
	for _, c := range v[:3] {
		if c < '0' || c > '9' {
			return 0, nil, fmt.Errorf("%w: status %.64q", ErrInvalidHeader, v)
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 {
		return 0, nil, fmt.Errorf("%w: status %.64q", ErrInvalidHeader, v)
	}
	return code, trimBlanks(v[3:]), nil
}

func trimBlanks(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// tokenChars marks the bytes allowed in a header name (RFC 9110 5.6.2).
var tokenChars = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

func validName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !tokenChars[c] {
			return false
		}
	}
	return true
}

// validValue rejects control characters other than tab (RFC 9110 5.5);
// bytes from 0x80 up (obs-text) pass, as browsers expect.
func validValue(b []byte) bool {
	for _, c := range b {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// equalFold compares an ASCII header name with a canonical one.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c, d := b[i]|0x20, s[i]|0x20
		if c != d {
			return false
		}
	}
	return true
}

// stream reads the records of one response from the connection's buffered
// reader. Its Read yields STDOUT content and returns io.EOF only at
// END_REQUEST; a connection that ends before that is io.ErrUnexpectedEOF,
// so a cut-off response can never pass for a complete one.
type stream struct {
	br        *bufio.Reader
	left      int  // STDOUT bytes left in the current record
	pad       int  // padding to skip before the next record header
	ended     bool // END_REQUEST seen
	gotRecord bool // a record arrived: the backend took the request
	end       endRequest
	stderr    stderrSink
	// catch are Request.CatchStderr, checked while inHead.
	catch  []string
	inHead bool
}

func (s *stream) reset(br *bufio.Reader, stderr func([]byte), catch []string) {
	buf := s.stderr.buf[:0]
	*s = stream{br: br, stderr: stderrSink{fn: stderr, buf: buf}, catch: catch}
}

// Read reads STDOUT content. It returns as soon as some is buffered or
// arrives, never waiting to fill p, so streamed output is not held back.
func (s *stream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for s.left == 0 {
		if s.ended {
			return 0, io.EOF
		}
		if err := s.next(); err != nil {
			return 0, err
		}
	}
	if len(p) > s.left {
		p = p[:s.left]
	}
	n, err := s.br.Read(p)
	s.left -= n
	return n, unexpectedEOF(err)
}

// next reads one record header and handles every record type but STDOUT
// content, which Read consumes.
func (s *stream) next() error {
	if s.pad > 0 {
		if _, err := s.br.Discard(s.pad); err != nil {
			return unexpectedEOF(err)
		}
		s.pad = 0
	}
	h, err := readHeader(s.br)
	if err != nil {
		return unexpectedEOF(err)
	}
	s.gotRecord = true
	if h.id != requestID {
		return fmt.Errorf("%w: record for request %d", ErrProtocol, h.id)
	}
	s.pad = int(h.paddingLength)
	switch h.typ {
	case typeStdout:
		s.left = int(h.contentLength)
		return nil
	case typeStderr:
		return s.readStderr(int(h.contentLength))
	case typeEndRequest:
		return s.readEnd(int(h.contentLength))
	default:
		return fmt.Errorf("%w: unexpected record type %d", ErrProtocol, h.typ)
	}
}

// readStderr hands a STDERR record's content to Request.Stderr as one
// message. Content the read buffer holds is passed in place; a larger
// record (up to 64 KiB) is gathered first.
func (s *stream) readStderr(n int) error {
	catching := s.inHead && len(s.catch) > 0
	if s.stderr.fn == nil && !catching {
		_, err := s.br.Discard(n)
		return unexpectedEOF(err)
	}
	if n <= s.br.Size() {
		b, err := s.br.Peek(n)
		if err != nil {
			return unexpectedEOF(err)
		}
		s.stderr.emit(b)
		caught := catching && s.caught(b)
		_, _ = s.br.Discard(n)
		if caught {
			return ErrStderrCaught
		}
		return nil
	}
	buf := s.stderr.buf[:0]
	for n > 0 {
		b, err := s.br.Peek(min(n, s.br.Size()))
		if err != nil {
			return unexpectedEOF(err)
		}
		buf = append(buf, b...)
		_, _ = s.br.Discard(len(b))
		n -= len(b)
	}
	s.stderr.buf = buf
	s.stderr.emit(buf)
	if catching && s.caught(buf) {
		return ErrStderrCaught
	}
	return nil
}

// ErrStderrCaught is the ErrInvalidHeader of Request.CatchStderr.
var ErrStderrCaught = fmt.Errorf("%w: stderr matched fastcgi_catch_stderr", ErrInvalidHeader)

// caught reports whether a STDERR record holds one of the catch strings,
// searched as nginx does: in the record without its trailing line ends,
// dots and spaces.
func (s *stream) caught(b []byte) bool {
	b = bytes.TrimRight(b, "\r\n. ")
	for _, c := range s.catch {
		if bytes.Contains(b, []byte(c)) {
			return true
		}
	}
	return false
}

// readEnd reads END_REQUEST and its padding, leaving the connection at a
// record boundary, ready for the next request.
func (s *stream) readEnd(n int) error {
	if n != 8 {
		return fmt.Errorf("%w: END_REQUEST of %d bytes", ErrProtocol, n)
	}
	b, err := s.br.Peek(8)
	if err != nil {
		return unexpectedEOF(err)
	}
	s.end = parseEndRequest(b)
	_, _ = s.br.Discard(8)
	if _, err := s.br.Discard(s.pad); err != nil {
		return unexpectedEOF(err)
	}
	s.pad = 0
	s.ended = true
	switch s.end.protocolStatus {
	case statusRequestComplete:
		return nil
	case statusCantMultiplex:
		return fmt.Errorf("%w: backend cannot multiplex", ErrProtocol)
	case statusOverloaded:
		return fmt.Errorf("%w: backend overloaded", ErrProtocol)
	case statusUnknownRole:
		return fmt.Errorf("%w: backend does not take the responder role", ErrProtocol)
	default:
		return fmt.Errorf("%w: END_REQUEST protocol status %d", ErrProtocol, s.end.protocolStatus)
	}
}

// unexpectedEOF turns io.EOF into io.ErrUnexpectedEOF: inside a response
// only END_REQUEST ends the stream.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// stderrSink delivers STDERR records to Request.Stderr. php-fpm sends
// each error_log() message as a record of its own or, when messages
// follow each other without output in between, several in one record
// joined by "; " (the text nginx logs as "FastCGI sent in stderr"). A
// record is therefore passed on whole, not split into lines.
type stderrSink struct {
	fn  func(msg []byte)
	buf []byte // gathers a record larger than the read buffer
}

// emit passes one record's content on without the "; " php-fpm puts
// before every message but a request's first, and without a trailing
// line end.
func (l *stderrSink) emit(b []byte) {
	if l.fn == nil {
		return
	}
	b = bytes.TrimPrefix(b, []byte("; "))
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > 0 {
		l.fn(b)
	}
}
