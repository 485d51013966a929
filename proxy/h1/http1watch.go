// This file holds headWatch, which follows the bytes of an HTTP/1
// connection as the engine reads them, request by request, for what
// nginx's parser does and fasthttp's does not: bare LF line ends in a
// head and in a chunked body's lines (made CRLF, issue 14), the 414 of a
// request line longer than the engine's buffer, and the 400 of a bare CR
// that fasthttp would wait behind.
package h1

import (
	"bytes"
	"errors"
)

// errBareCR fails the read of a head that holds a CR followed by something
// other than LF, which nginx refuses at once with 400; fasthttp would go
// on waiting for the line's LF.
var errBareCR = errors.New("client sent a bare CR in the request head")

// headWatch follows a connection's requests in the bytes the engine reads
// (connInfo.read): each head from its first byte to its end (the first
// empty line after the request line), then its body by the head's own
// framing (Content-Length, or the chunks of Transfer-Encoding: chunked),
// then the next head. It does so itself, at read time, because the engine
// reads ahead: a pipelined request is in its buffer before the one before
// it is served.
//
// Every bare LF of a head from the request line on, and of a chunked
// body's size lines, the line after its data and its trailer, becomes
// CRLF (crlf): nginx ends those lines at an LF with or without a CR
// (RFC 9112 section 2.2 lets a recipient do so; nginx's own test suite
// and many shell health checks send bare LFs), while fasthttp waits for a
// head's CRLF CRLF until the client gives up and refuses a chunk line
// without its CR. A body's data goes on as it was sent. After a head
// whose framing the watch does not follow as the engine does (a
// Content-Length that is not a number, two framings, another coding, a
// folded line), nothing is touched (the watch pauses) until the engine
// served that request; after an Upgrade or a CONNECT, what follows is
// held back until the engine answered (holdAfterPause): untouched if it
// upgraded the connection, else scanned as the next head.
//
// The common head, CRLF-terminated, comes in one read, and costs one
// search for each line's LF and a look at the first bytes of the lines
// that start with c, t or u.
type headWatch struct {
	total int64 // bytes the engine was given
	out   int64 // bytes the watch let through: total and those in pend
	phase watchPhase

	// The head being read (phase watchHead). start is out where it
	// began (its empty lines before the request line included);
	// lineStart and lineEnd are out where the request line starts and
	// where its LF is, -1 until seen.
	start, lineStart, lineEnd int64
	// lineLF: the request line ended in a bare LF, which crlf made two
	// bytes; the 414 check counts it as nginx does, as one.
	lineLF bool
	at     lineState // where the scan stands in the head's current line
	prevCR bool      // the raw byte before the scan's position is a CR
	// name is how many bytes of the current line's name matched field's.
	field headField
	name  int
	// The framing the head announced: its Content-Length (clSeen; its
	// digits so far, digits: one came), a Transfer-Encoding (teSeen; te
	// bytes of "chunked" matched), an Upgrade or CONNECT (method bytes of
	// "CONNECT " matched, -1: another method), or something the watch
	// does not follow (odd). ows: a value's blanks after its text began.
	length                 int64
	clSeen, teSeen, digits bool
	te, method             int
	ows, upgrade, odd      bool
	// lastCR: the head's bytes given to the engine end with a CR. A
	// bare CR in a pipelined head fails the read after the engine's wait
	// for it (badHead is its number; failing, then).
	lastCR, failing bool
	badHead         int

	// The body (phases watchBody and watchChunks): bytes of data left,
	// and for chunks the state in their lines and the size being read.
	left  int64
	chunk chunkState

	// heads counts the heads whose end the watch saw, served the
	// requests the engine finished (next). facts holds what the watch
	// learnt of the last heads, by number, for handled to compare with
	// the engine.
	heads, served int
	facts         [8]headFacts
	// servingLF is lineLF of the request the engine is serving.
	servingLF bool
	// pausedAt is the number of the head after which the watch paused,
	// and pauseEnd where that request ends (-1 when the watch cannot
	// tell).
	pausedAt int
	pauseEnd int64

	// pend holds bytes crlf made that did not fit the engine's buffer;
	// the next reads return them. held holds the bytes that came after a
	// paused request with its end known (an Upgrade or CONNECT), not yet
	// scanned: the engine gets them when it reads on, untouched if the
	// connection was upgraded (stop), else scanned as the next head's.
	// scratch is crlf's copy of a read it rewrites.
	pend, held, scratch []byte
}

// headFacts is what the watch learnt of one head: its body's length as
// the engine gives it (-1 chunked, -2 none), where it ended (out just
// past it) and lineLF.
type headFacts struct {
	length, end int64
	lineLF      bool
}

type watchPhase uint8

// The phases from watchHead on are those in which the watch follows
// the requests. A connection that is not HTTP/1's (h2c, whose preface
// was peeked) is never begun, and stays off.
const (
	watchOff    watchPhase = iota // untouched for the rest of the connection
	watchPaused                   // untouched until the engine served the request
	watchHead                     // a head, or the empty lines before one
	watchBody                     // a Content-Length body
	watchChunks                   // a chunked body
)

// lineState is where the scan of a head stands in its current line.
type lineState uint8

const (
	atLeading   lineState = iota // the empty lines before the request line
	atRequest                    // in the request line
	atLineStart                  // at the start of a header line (or the empty one)
	atLineCR                     // at the start of a line, after a CR
	atName                       // in a name that may be field's
	atValue                      // in the value of field
	atSkip                       // in a line whose rest does not matter
)

// headField is a header whose value says how the request is framed.
type headField uint8

const (
	fieldCL headField = iota
	fieldTE
	fieldUpgrade
)

var fieldNames = [...]string{fieldCL: "content-length", fieldTE: "transfer-encoding", fieldUpgrade: "upgrade"}

// chunkState is where the scan stands in a chunked body, with the states
// of nginx's ngx_http_parse_chunked (1.22, which takes an LF with or
// without a CR before it at the end of each line).
type chunkState uint8

const (
	chunkStart         chunkState = iota // at a chunk's size
	chunkSize                            // in its hex digits
	chunkExt                             // in its extensions
	chunkSizeCR                          // after the CR of its line
	chunkData                            // in its data, left bytes of it
	chunkAfter                           // after its data
	chunkAfterCR                         // after the CR after its data
	chunkTrailer                         // at the start of a trailer line (or the empty one)
	chunkTrailerCR                       // after a CR there
	chunkTrailerLine                     // in a trailer line
	chunkTrailerLineCR                   // after the CR of a trailer line
)

// begin starts watching a connection's first head.
func (w *headWatch) begin() {
	w.newHead(w.out)
}

// newHead starts watching a head that begins at start (an offset in
// what the watch lets through).
func (w *headWatch) newHead(start int64) {
	w.phase, w.start, w.lineStart, w.lineEnd, w.lineLF = watchHead, start, -1, -1, false
	w.at, w.prevCR, w.length, w.te, w.method = atLeading, false, 0, 0, 0
	w.clSeen, w.teSeen, w.digits, w.ows, w.upgrade, w.odd = false, false, false, false, false, false
	w.lastCR = false
}

// readSpace is the part of p, the engine's buffer, that the next read of
// the socket may fill: room is left for crlf to make each byte that may
// be a line's LF two. The bytes of a body's data are not lines: while a
// body is coming, a read may fill what is left of it and half the rest.
// The common head comes in one read far smaller than half the buffer.
func (w *headWatch) readSpace(p []byte) []byte {
	if len(p) < 2 {
		return p
	}
	switch {
	case w.phase < watchHead:
		return p
	case w.phase == watchBody || w.phase == watchChunks && w.chunk == chunkData:
		if w.left >= int64(len(p)) {
			return p
		}
		return p[:int(w.left)+(len(p)-int(w.left))/2]
	}
	return p[:len(p)/2]
}

// pending moves into p the bytes crlf had no room for, and returns their
// count (0 when there are none).
func (w *headWatch) pending(p []byte) int {
	if len(w.pend) == 0 {
		return 0
	}
	n := copy(p, w.pend)
	w.pend = w.pend[:copy(w.pend, w.pend[n:])]
	return n
}

// failed is the error the next read is to end with: a bare CR in a head
// that the engine came to wait for after the bytes with it were read.
func (w *headWatch) failed() error {
	if w.failing {
		return errBareCR
	}
	return nil
}

// crlf rewrites in place each bare LF that ends a head's or a chunk's
// line in p[:n], bytes just read into the engine's buffer p, as CRLF, and
// returns their new length. Bytes that do not fit p wait in w.pend.
func (w *headWatch) crlf(p []byte, n int) int {
	if n == 0 || w.phase < watchHead {
		w.out += int64(n)
		if w.phase == watchPaused {
			return w.holdAfterPause(p, n)
		}
		return n
	}
	k := w.scan(p[:n])
	if k < 0 {
		if w.phase == watchPaused {
			return w.holdAfterPause(p, n)
		}
		return n
	}
	// The slow path: bare LFs. What follows the first is copied aside
	// and scanned on, each piece put back after the CRs before it.
	rest := append(w.scratch[:0], p[k+1:n]...)
	w.scratch = rest
	o := w.put(p, k, crlfBytes)
	for len(rest) > 0 {
		k = w.scan(rest)
		if k < 0 {
			o = w.put(p, o, rest)
			break
		}
		o = w.put(p, o, rest[:k])
		o = w.put(p, o, crlfBytes)
		rest = rest[k+1:]
	}
	if cap(w.scratch) > 4<<10 {
		w.scratch = nil // a large read's copy is not kept for the connection's life
	}
	if w.phase == watchPaused {
		return w.holdAfterPause(p, o)
	}
	return o
}

// holdAfterPause keeps out of what the engine gets, p[:n] and w.pend,
// the bytes after the end of the request the watch paused at, and
// returns the new length of p's bytes. They were not scanned, nor
// changed. Where the engine asks for bytes past that end before it
// finished the request (an upgrade it was not told of), the watch stops
// and lets all through.
func (w *headWatch) holdAfterPause(p []byte, n int) int {
	extra := w.out - w.pauseEnd
	if w.pauseEnd < 0 || extra <= 0 {
		return n
	}
	if extra >= int64(n+len(w.pend)) && len(w.held) == 0 {
		w.phase = watchOff
		return n
	}
	w.out = w.pauseEnd
	var fromPend []byte
	if k := min(int(extra), len(w.pend)); k > 0 {
		fromPend = w.pend[len(w.pend)-k:]
		w.pend = w.pend[:len(w.pend)-k]
		extra -= int64(k)
	}
	tail := append([]byte(nil), p[n-int(extra):n]...)
	tail = append(tail, fromPend...)
	w.held = append(tail, w.held...)
	return n - int(extra)
}

// fromHeld moves into p bytes held after a paused request, and returns
// their count (0 when none are held): scanned as the next head's once
// the watch started again, untouched otherwise.
func (w *headWatch) fromHeld(p []byte) int {
	if len(w.held) == 0 || len(p) == 0 {
		return 0
	}
	if w.phase >= watchHead {
		n := copy(w.readSpace(p), w.held)
		w.held = w.held[:copy(w.held, w.held[n:])]
		return w.crlf(p, n)
	}
	limit := len(w.held)
	if w.phase == watchPaused {
		keep := w.pauseEnd - w.out
		if keep <= 0 || w.pauseEnd < 0 {
			w.phase = watchOff // the engine reads on without next or stop
		} else {
			limit = int(min(keep, int64(limit)))
		}
	}
	n := copy(p, w.held[:limit])
	w.held = w.held[:copy(w.held, w.held[n:])]
	w.out += int64(n)
	return n
}

// stop is called when the engine hands the connection over (an
// upgrade): nothing more is a request's.
func (w *headWatch) stop() { w.phase = watchOff }

var crlfBytes = []byte("\r\n")

// put writes b at p[o:], the rest in w.pend when p is full, and returns
// the new length of p's bytes.
func (w *headWatch) put(p []byte, o int, b []byte) int {
	if len(w.pend) == 0 {
		c := copy(p[o:], b)
		o, b = o+c, b[c:]
	}
	w.pend = append(w.pend, b...)
	return o
}

// scan follows the requests in b, raw bytes the client sent, from where
// the last scan stopped. It returns -1 when no byte of b needs a change,
// else it stops after the first LF that is to get a CR before it, and
// returns its index. w.out counts what was scanned, with the CR.
func (w *headWatch) scan(b []byte) int {
	i := 0
	for i < len(b) {
		lf := false
		switch w.phase {
		case watchHead:
			i, lf = w.scanHead(b, i)
		case watchBody:
			k := min(int64(len(b)-i), w.left)
			i += int(k)
			if w.left -= k; w.left == 0 {
				w.newHead(w.pos(i))
			}
		case watchChunks:
			i, lf = w.scanChunks(b, i)
		default:
			i = len(b)
		}
		if lf {
			w.out += int64(i) + 1
			return i - 1
		}
	}
	w.out += int64(len(b))
	return -1
}

// pos is the offset in what the watch lets through of b[i], b being the
// bytes being scanned.
func (w *headWatch) pos(i int) int64 { return w.out + int64(i) }

// bareLF reports whether the LF at b[i] has no CR before it.
func (w *headWatch) bareLF(b []byte, i int) bool {
	if i > 0 {
		return b[i-1] != '\r'
	}
	return !w.prevCR
}

// scanHead scans the head's bytes in b from i. It returns where it
// stopped, and whether that is just after a bare LF to get a CR.
func (w *headWatch) scanHead(b []byte, i int) (int, bool) {
	for i < len(b) {
		switch w.at {
		case atLeading:
			for i < len(b) && (b[i] == '\r' || b[i] == '\n') {
				i++
			}
			if i == len(b) {
				return i, false
			}
			if !methodStart(b[i]) {
				// Not a head: the engine refuses it; the watch lets the
				// rest be.
				w.phase = watchOff
				return len(b), false
			}
			w.at, w.lineStart, w.prevCR = atRequest, w.pos(i), false
		case atRequest:
			j := bytes.IndexByte(b[i:], '\n')
			end := len(b)
			if j >= 0 {
				end = i + j
			}
			w.matchMethod(b[i:end])
			if j < 0 {
				w.prevCR = b[len(b)-1] == '\r'
				return len(b), false
			}
			bare := w.bareLF(b, end)
			w.lineLF, w.lineEnd = bare, w.pos(end)
			if bare {
				w.lineEnd++
			}
			w.at, w.prevCR = atLineStart, false
			if bare {
				return end + 1, true
			}
			i = end + 1
		case atLineStart:
			c := b[i]
			switch {
			case c == '\n':
				w.headDone(w.pos(i) + 2)
				return i + 1, true
			case c == '\r':
				w.at, w.prevCR = atLineCR, true
				i++
				continue
			case c == ' ' || c == '\t':
				w.odd = true // a folded line: the engine refuses it
				w.at = atSkip
				continue
			}
			switch c | 0x20 {
			case 'c':
				w.field = fieldCL
			case 't':
				w.field = fieldTE
			case 'u':
				w.field = fieldUpgrade
			default:
				w.at = atSkip
				continue
			}
			w.at, w.name = atName, 0
		case atLineCR:
			if b[i] == '\n' {
				w.headDone(w.pos(i) + 1)
				return i + 1, false
			}
			w.at = atSkip // a bare CR (saw)
		case atName:
			i = w.scanName(b, i)
		case atValue:
			i = w.scanValue(b, i)
		case atSkip:
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				w.prevCR = b[len(b)-1] == '\r'
				return len(b), false
			}
			end := i + j
			bare := w.bareLF(b, end)
			w.at, w.prevCR = atLineStart, false
			if bare {
				return end + 1, true
			}
			i = end + 1
		}
		if w.phase != watchHead {
			return i, false
		}
	}
	return i, false
}

// matchMethod follows the request line's bytes for a CONNECT method.
func (w *headWatch) matchMethod(b []byte) {
	const connect = "CONNECT "
	for k := 0; k < len(b) && w.method >= 0 && w.method < len(connect); k++ {
		if b[k] != connect[w.method] {
			w.method = -1
			return
		}
		w.method++
	}
}

// scanName matches the name of a header line against field's, and moves
// to its value or to the line's end.
func (w *headWatch) scanName(b []byte, i int) int {
	name := fieldNames[w.field]
	for i < len(b) && w.name < len(name) {
		c, want := b[i], name[w.name]
		if c != want && (want == '-' || c|0x20 != want) {
			w.at = atSkip
			return i
		}
		w.name++
		i++
	}
	if i == len(b) {
		return i
	}
	if b[i] != ':' {
		w.at = atSkip // a longer name
		return i
	}
	i++
	w.at, w.ows = atValue, false
	switch w.field {
	case fieldCL:
		w.odd = w.odd || w.clSeen
		w.clSeen, w.length, w.digits = true, 0, false
	case fieldTE:
		w.odd = w.odd || w.teSeen
		w.teSeen, w.te = true, 0
	case fieldUpgrade:
		w.upgrade = true
		w.at = atSkip
	}
	return i
}

// scanValue reads a Content-Length or Transfer-Encoding value, as
// fasthttp takes them: a number, or "chunked" (any case), between
// optional spaces and tabs. Anything else is odd (the engine refuses a
// Content-Length that is not a number; other codings it does not take).
func (w *headWatch) scanValue(b []byte, i int) int {
	const chunked = "chunked"
	for ; i < len(b); i++ {
		c := b[i]
		if c == '\r' || c == '\n' {
			if w.field == fieldCL && !w.digits || w.field == fieldTE && w.te < len(chunked) {
				w.odd = true
			}
			w.at = atSkip
			return i
		}
		if c == ' ' || c == '\t' {
			w.ows = w.ows || w.digits || w.te > 0
			continue
		}
		if w.ows {
			w.odd = true
			w.at = atSkip
			return i
		}
		switch w.field {
		case fieldCL:
			if c < '0' || c > '9' || w.length > (1<<62)/10 {
				w.odd = true
				w.at = atSkip
				return i
			}
			w.length, w.digits = w.length*10+int64(c-'0'), true
		case fieldTE:
			if w.te == len(chunked) || c|0x20 != chunked[w.te] {
				w.odd = true
				w.at = atSkip
				return i
			}
			w.te++
		}
	}
	return i
}

// headDone is the end of a head, end being out just past it: the watch
// moves to its body, the next head, or pauses.
func (w *headWatch) headDone(end int64) {
	w.heads++
	chunked := w.teSeen && w.te == len("chunked")
	f := headFacts{length: -2, end: end, lineLF: w.lineLF}
	switch {
	case chunked:
		f.length = -1
	case w.clSeen:
		f.length = w.length
	}
	w.facts[w.heads%len(w.facts)] = f
	switch {
	case w.odd || w.teSeen && w.clSeen || w.upgrade || w.method == len("CONNECT "):
		// Its body, or what comes after an upgrade, is not for the
		// watch to follow: untouched until the engine served it.
		w.phase, w.pausedAt, w.pauseEnd = watchPaused, w.heads, -1
		if f.length >= 0 && !w.odd && !w.teSeen {
			w.pauseEnd = end + f.length
		} else if !w.clSeen && !w.teSeen && !w.odd {
			w.pauseEnd = end
		}
	case chunked:
		w.phase, w.chunk = watchChunks, chunkStart
	case w.length > 0:
		w.phase, w.left = watchBody, w.length
	default:
		w.newHead(end)
	}
}

// scanChunks follows a chunked body in b from i. It returns where it
// stopped, and whether that is just after a bare LF to get a CR.
func (w *headWatch) scanChunks(b []byte, i int) (int, bool) {
	for i < len(b) {
		if w.chunk == chunkData {
			k := min(int64(len(b)-i), w.left)
			i += int(k)
			if w.left -= k; w.left == 0 {
				w.chunk = chunkAfter
			}
			continue
		}
		c := b[i]
		i++
		lf := c == '\n'
		switch w.chunk {
		case chunkStart, chunkSize:
			if d, ok := hexDigit(c); ok {
				if w.chunk == chunkSize && w.left > (1<<62)/16 {
					w.phase = watchOff
					return i, false
				}
				if w.chunk == chunkStart {
					w.left = 0
				}
				w.left, w.chunk = w.left*16+int64(d), chunkSize
				continue
			}
			if w.chunk == chunkStart {
				w.phase = watchOff // the engine refuses the body
				return i, false
			}
			switch c {
			case '\r':
				w.chunk = chunkSizeCR
			case '\n':
				w.chunkLineDone()
			case ';', ' ', '\t':
				w.chunk = chunkExt
			default:
				w.phase = watchOff
				return i, false
			}
		case chunkExt:
			switch c {
			case '\r':
				w.chunk = chunkSizeCR
			case '\n':
				w.chunkLineDone()
			}
		case chunkAfter, chunkTrailer, chunkTrailerLine:
			switch {
			case c == '\r':
				w.chunk++ // to the state after its CR
			case lf && w.chunk == chunkAfter:
				w.chunk = chunkStart
			case lf && w.chunk == chunkTrailer:
				w.chunkedDone(w.pos(i) + 1)
			case lf:
				w.chunk = chunkTrailer
			case w.chunk == chunkAfter:
				w.phase = watchOff
				return i, false
			case w.chunk == chunkTrailer:
				w.chunk = chunkTrailerLine
			}
		default: // after a CR: its LF
			if !lf {
				w.phase = watchOff
				return i, false
			}
			switch w.chunk {
			case chunkSizeCR:
				w.chunkLineDone()
			case chunkAfterCR:
				w.chunk = chunkStart
			case chunkTrailerCR:
				w.chunkedDone(w.pos(i))
			case chunkTrailerLineCR:
				w.chunk = chunkTrailer
			}
			if w.phase != watchChunks {
				return i, false
			}
			continue
		}
		if lf {
			// Every LF of the switch above without a CR before it.
			return i, true
		}
	}
	return i, false
}

// chunkLineDone ends a chunk's size line: its data follows, or the
// trailer after the last chunk.
func (w *headWatch) chunkLineDone() {
	if w.left == 0 {
		w.chunk = chunkTrailer
		return
	}
	w.chunk = chunkData
}

// chunkedDone ends a chunked body, end being out just past it.
func (w *headWatch) chunkedDone(end int64) { w.newHead(end) }

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return c | 0x20 - 'a' + 10, true
	}
	return 0, false
}

// saw notes p, bytes just given to the engine. It returns errBareCR when
// p leaves the head the engine waits for unfinished with a bare CR in it:
// the engine is about to wait for more. A bare CR in a head the engine
// does not wait for yet (pipelined) fails the read that follows its wait.
func (w *headWatch) saw(p []byte) error {
	at := w.total
	w.total += int64(len(p))
	if w.phase != watchHead || w.lineStart < 0 || len(p) == 0 {
		return nil
	}
	from := w.lineStart - at
	if from >= int64(len(p)) {
		return nil
	}
	q := p[max(0, from):]
	bad := from <= 0 && w.lastCR && q[0] != '\n'
	for i := bytes.IndexByte(q, '\r'); !bad && i >= 0 && i < len(q)-1; {
		if q[i+1] != '\n' {
			bad = true
			break
		}
		j := bytes.IndexByte(q[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	w.lastCR = q[len(q)-1] == '\r'
	if !bad {
		return nil
	}
	if w.served == w.heads {
		return errBareCR
	}
	w.badHead = w.heads + 1
	return nil
}

// handled is told of each request the engine is about to serve, with the
// body length it found (h1.Header.ContentLength: -1 chunked, -2 none). It
// reports false when the watch followed that request otherwise than the
// engine reads it: the watch stops, and the connection is to close after
// the response.
func (w *headWatch) handled(length int64) bool {
	n := w.served + 1
	w.servingLF = false
	if n > w.heads || w.heads-n >= len(w.facts) {
		return true // a head the watch did not see to its end, or long past
	}
	f := w.facts[n%len(w.facts)]
	w.servingLF = f.lineLF
	if w.phase == watchPaused && n == w.pausedAt {
		return true // not followed: nothing to compare
	}
	if f.length == length || f.length == -2 && length == 0 || w.phase == watchOff {
		return true
	}
	w.phase = watchOff
	return false
}

// bodyGiven is told of the head the engine has just read, whose
// Content-Length is length, before the engine reads on: it returns how
// many bytes of that body the engine was given with the head (and holds
// in its buffer), and false when the watch did not follow that head to a
// body of that length.
func (w *headWatch) bodyGiven(length int64) (int64, bool) {
	n := w.served + 1
	if w.phase < watchHead || n > w.heads || w.heads-n >= len(w.facts) {
		return 0, false
	}
	f := w.facts[n%len(w.facts)]
	if f.length != length {
		return 0, false
	}
	return min(length, w.out-int64(len(w.pend))-f.end), true
}

// next is called when the engine waits for the next request on a kept
// connection. A watch that paused after a request starts again with the
// next head when the engine's bytes end exactly where that request did;
// otherwise the engine already holds bytes it cannot place, and the watch
// stops for the rest of the connection.
func (w *headWatch) next() {
	w.served++
	if w.badHead > 0 && w.served == w.badHead-1 {
		// The engine waits for the head with the bare CR: if it is
		// still unfinished, its next read fails as it would have.
		w.failing, w.badHead = w.heads == w.served, 0
	}
	if w.phase != watchPaused || w.served < w.pausedAt {
		return
	}
	if w.pauseEnd < 0 || w.total != w.pauseEnd || w.out != w.total {
		w.phase = watchOff
		return
	}
	w.newHead(w.out)
}

// methodStart reports whether c can start a method: a capital, "_" or "-".
func methodStart(c byte) bool { return c >= 'A' && c <= 'Z' || c == '_' || c == '-' }

// lineTooLong reports, when the engine's read buffer of bufSize bytes
// filled up without a whole head, whether the request line is longer
// than one large_client_header_buffers buffer (lineMax): nginx's 414. The
// buffer holds the last bufSize bytes read, from the head's start; the
// answer is only known when the head began there, and is false otherwise.
func (w *headWatch) lineTooLong(bufSize, lineMax int) bool {
	if w.phase != watchHead || w.start != w.total-int64(bufSize) || w.lineStart < 0 {
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

// watchRest is what a watch at rest (atRest) is made again from when a
// parked connection is served again (park_linux.go): a parked connection
// keeps this, not the whole watch.
type watchRest struct{ total, out int64 }

// atRest reports whether the watch waits for a head of which nothing came
// yet, with nothing held, pending or failing: what it knows of the
// connection is then its counts of bytes (rest), and whether it stopped.
func (w *headWatch) atRest() bool {
	if len(w.pend) > 0 || len(w.held) > 0 || w.failing || w.badHead > 0 || w.served != w.heads {
		return false
	}
	switch w.phase {
	case watchOff:
		return true
	case watchHead:
		return w.start == w.out && w.lineStart < 0 && w.at == atLeading && !w.prevCR && !w.lastCR
	}
	return false
}

// rest returns the counts of a watch at rest, and whether it stopped.
func (w *headWatch) rest() (watchRest, bool) { return watchRest{w.total, w.out}, w.phase == watchOff }

// restore makes w the watch r and off were taken of (its heads counted
// again from none, as the engine counts the requests of a connection it
// serves again).
func (w *headWatch) restore(r watchRest, off bool) {
	w.total, w.out = r.total, r.out
	if off {
		w.phase = watchOff
		return
	}
	w.newHead(w.out)
}

// inBody reports whether the watch is in a request's body.
func (w *headWatch) inBody() bool { return w.phase == watchBody || w.phase == watchChunks }
