// This file holds the HTTP/1 adapter's side of a connection: the wrappers
// the engine reads and writes through (the head watch sees every byte
// read, writes go by raw system calls under send_timeout, files by
// sendfile, idle waits end for the connection to park), and the state
// they keep per connection beside the pipeline's ConnInfo.
package h1

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"

	"edge/conf"
	"edge/internal/rawio"
	"edge/proxy"
)

// h1conn is what the HTTP/1 adapter keeps of a connection beside what
// the pipeline knows of it (ConnInfo). It lives in the connection's
// wrapper, so it costs no allocation of its own.
type h1conn struct {
	*proxy.ConnInfo
	// fh and dr are the header view and the body reader of the request
	// being served (one at a time), kept here so that they cost no
	// allocation per request.
	fh fastHeaders
	dr deadlineReader
	// bodyPreRead is set while the engine reads the start of a body
	// before the handler runs (h1conn.received).
	bodyPreRead bool
	// preRead is how much of the request's body came with its head: the
	// engine reads that much before the handler runs, and its body
	// stream hands it out without waiting (deadlineReader.Buffered). A
	// body of which nothing came is not read by the engine at all
	// (Adapter.headRead): direct reads it from the connection, and what
	// is left of it when the engine waits for the next request is
	// skipped first (skip), as the engine would have skipped it.
	preRead int64
	direct  directBody
	skip    int64
	// waitTimedOut: the connection sent nothing before client_header_timeout.
	waitTimedOut bool
	// head counts the bytes the client sent and watches HTTP/1 request
	// heads as they arrive (the wrappers' Read).
	head headWatch
	// more says that the next write is the first of a response that more
	// writes follow: it goes out with MSG_MORE (tcpEdgeConn.Write).
	more moreWrites
	// lastRequest names the connection's latest HTTP/1 request as an error
	// log line does (proxy.AppendRequestContext): fasthttp writes a response
	// after the handler has returned, and a send_timeout that cuts it is
	// logged naming the request, as nginx's line does.
	// It starts in lastRequestBuf, which holds a usual one: made anew from
	// nothing it was three allocations per connection.
	lastRequest    []byte
	lastRequestBuf [104]byte
	// lastLog is that request's error log (its location's error_log), where
	// the send_timeout line goes, as nginx's goes to the request's log:
	// its list, found in the site when the line is written.
	lastLog []conf.ErrorLog
	// sendsFiles: the connection's ReadFrom sends files with sendfile
	// (tcpEdgeConn), so a body with a file mirror goes from its file
	// (mirror, proxy.FileMirror).
	sendsFiles bool
	mirror     mirrorSection
	chunk      bytes.Reader // a body sent chunked (writeHTTP1)
	// What parking needs (park_linux.go, tcpEdgeConn.Read): the deadline
	// of the engine's wait for the next request, and parkWait when the
	// socket's is parkAfter instead; parking, set when that wait ends to
	// park; resumed, set when a parked connection is served again; the
	// engine serving the connection; and the requests served before the
	// engine's count restarted.
	idleDeadline time.Time
	parkWait     bool
	parking      bool
	resumed      bool
	h1           *Server
	requestsBase int
	lastRequests int
}

// release ends r: its views go with it, since they point into the
// engine's context and the pipeline's Request, both back in their pools
// then, and a connection that waits for its next request (parked, or idle
// in the engine) must not keep them (1.3 KB each of 2,000 parked
// connections did).
func (c *h1conn) release(r *proxy.Request) {
	c.fh, c.dr = fastHeaders{}, deadlineReader{}
	proxy.ReleaseRequest(r)
}

// keptConn is what the adapter keeps of a plain-TCP connection for as
// long as it is open (ConnInfo.Adapter), and all that is kept of it while
// it is parked (park_linux.go): the wrapper with its h1conn, the engine's
// state and the net.TCPConn (its netFD and the runtime's poll
// descriptor) go, and the socket waits as a bare descriptor, a duplicate
// of the one the TCPConn closed. When the client sends, a new TCPConn is
// made of it and a new wrapper of what is kept here (issue 20: 2,000
// parked connections cost edge 3.2 KB each, nginx 0.5 KB).
type keptConn struct {
	info    *proxy.ConnInfo
	network string
	// What a parked connection is served again with: the engine it had,
	// the requests served before the engine's count restarted, and the
	// head watch at rest.
	h1           *Server
	requestsBase int
	watch        watchRest
	// Under the parker's lock: live is the wrapper serving the connection
	// (nil while it parks, is parked or is made again); fd the parked
	// descriptor (-1 otherwise) and token its name in the parker (0 when
	// not parked); closed, set when a stop found the connection between
	// two wrappers, for whoever makes the next to close it instead.
	live     *tcpEdgeConn
	token    uint64
	fd       int32
	closed   bool
	watchOff bool // with watch
}

type moreWrites uint8

const (
	moreNone       moreWrites = iota
	moreFullBuffer            // when it fills the write buffer (BodyBytes)
	moreFirst                 // whatever it is: the headers, before sendfile
	// moreAll: every write of the response, the connection's last (the
	// engine closes it next): the close pushes the response out with the
	// FIN in one segment, as nginx's close of a corked socket does
	// (tcp_nopush), and the client is woken once.
	moreAll
)

// The connection wrappers carry ConnInfo to the HTTP/1 engine. The TCP one
// embeds *net.TCPConn so ReadFrom (sendfile) is still found by the engine.
type (
	tcpEdgeConn struct {
		*net.TCPConn
		info   *h1conn // st
		st     h1conn
		raw    rawio.NetConn // the same connection, for reads and plain writes
		parker *parker       // where it waits when idle long enough (park_linux.go)
		kept   *keptConn     // what stays of it while it waits there
	}
	// otherEdgeConn is any other connection; the TLS and peeked ones
	// build on it.
	otherEdgeConn struct {
		net.Conn
		info *h1conn // st
		st   h1conn
	}
	// tlsEdgeConn's Conn is tc; the engine finds TLS by its methods.
	tlsEdgeConn struct {
		otherEdgeConn
		tc *tls.Conn
	}
	// peekedConn replays bytes read while looking for the h2c preface.
	peekedConn struct {
		otherEdgeConn
		r *bufio.Reader
	}
)

// ServeTCP serves a plain-TCP HTTP/1 connection to its end, or until
// it parks, which it reports.
func (s *Adapter) ServeTCP(tc *net.TCPConn, info *proxy.ConnInfo, network string) bool {
	k := &keptConn{info: info, network: network, fd: -1}
	ec := &tcpEdgeConn{TCPConn: tc, parker: &s.parker, kept: k}
	k.live = ec
	ec.initState(info)
	info.Adapter.Store(k)
	ec.raw.Init(tc, network)
	info.UseRaw(&ec.raw.Raw)
	return s.serveHTTP1(ec)
}

// ServeConn serves any other HTTP/1 connection: c is read and written
// as it is (its raw reader and writer are set).
func (s *Adapter) ServeConn(c net.Conn, info *proxy.ConnInfo) {
	ec := &otherEdgeConn{Conn: c}
	ec.info = ec.st.init(info)
	s.serveHTTP1(ec)
}

// ServePeeked serves an HTTP/1 connection whose first bytes r read.
func (s *Adapter) ServePeeked(c net.Conn, r *bufio.Reader, info *proxy.ConnInfo) {
	ec := &peekedConn{otherEdgeConn{Conn: c}, r}
	ec.info = ec.st.init(info)
	s.serveHTTP1(ec)
}

// ServeTLS serves HTTP/1 over a TLS connection whose handshake is done.
func (s *Adapter) ServeTLS(tc *tls.Conn, info *proxy.ConnInfo) {
	ec := &tlsEdgeConn{otherEdgeConn{Conn: tc}, tc}
	ec.info = ec.st.init(info)
	s.serveHTTP1(ec)
}

// CloseParked closes info's connection if it is a plain-TCP one, which
// this adapter closes whether it is parked or served (a stop), and
// reports whether it is.
func (s *Adapter) CloseParked(info *proxy.ConnInfo) bool { return s.parker.closeParked(info) }

// StopParking closes the parker's epoll set and pipe (a stopped server).
func (s *Adapter) StopParking() { s.parker.stop() }

// Parked is how many connections wait parked now.
func (s *Adapter) Parked() int { return s.parker.count() }

// init makes c the adapter's state of info's connection.
func (c *h1conn) init(info *proxy.ConnInfo) *h1conn {
	c.ConnInfo = info
	return c
}

// initState makes the wrapper's own state that of info's connection, as
// it is made for a plain-TCP one, served first or again after a park:
// its ReadFrom sends files (sendsFiles).
func (c *tcpEdgeConn) initState(info *proxy.ConnInfo) *h1conn {
	c.info = c.st.init(info)
	c.st.sendsFiles = true
	return c.info
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.info.read(c.r, p) }

func (c *tlsEdgeConn) Handshake() error                     { return c.tc.Handshake() }
func (c *tlsEdgeConn) ConnectionState() tls.ConnectionState { return c.tc.ConnectionState() }

// The wrappers' writes are bounded by send_timeout as nginx's are: the
// connection's rawio.Conn cuts a write only when send_timeout passes
// without a byte going out, so a large download on a slow link is not
// cut while it moves (proxy.ConnInfo.UseRaw). ReadFrom sends files with
// sendfile under the same rule.
func (c *tcpEdgeConn) Write(p []byte) (int, error) {
	if more := c.info.more; more != moreNone {
		if more == moreAll {
			if writeHook != nil {
				writeHook(c.TCPConn, true)
			}
			return c.raw.Raw.WriteMore(p)
		}
		c.info.more = moreNone
		if more == moreFirst || len(p) == http1WriteBuffer {
			if writeHook != nil {
				writeHook(c.TCPConn, true)
			}
			return c.raw.Raw.WriteMore(p)
		}
	}
	if writeHook != nil {
		writeHook(c.TCPConn, false)
	}
	return c.raw.Write(p)
}

// Read shows what the client sent to the head watch (h1conn.read).
// The engine's wait for the next request on a kept connection ends after
// parkAfter, as if the client had closed, for the connection to park
// (park_linux.go) rather than hold a goroutine and the engine's buffers.
func (c *tcpEdgeConn) Read(p []byte) (int, error) {
	info := c.info
	if info.resumed {
		// The first read after a park: the client sent or closed. An error
		// is a close, as in the engine's wait it would have been, not a
		// bad first request.
		info.resumed = false
		n, err := info.read(&c.raw, p)
		if n == 0 && err != nil {
			return 0, io.EOF
		}
		return n, err
	}
	if !info.parkWait || !info.Idle.Load() {
		return info.read(&c.raw, p)
	}
	n, err := info.read(&c.raw, p)
	if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		if info.head.atRest() {
			info.parking = true
			return 0, io.EOF
		}
		// The head watch holds more than a parked connection keeps
		// (headWatch.atRest): the wait goes on here, to its end.
		info.parkWait = false
		if err := c.raw.SetReadDeadline(info.idleDeadline); err != nil {
			return 0, err
		}
		return info.read(&c.raw, p)
	}
	return n, err
}

// Close lingers after an error response (ConnInfo.Linger). The response
// is out, so a graceful stop may close the connection as an idle one. A
// connection about to park stays open.
func (c *tcpEdgeConn) Close() error {
	if c.info.parking {
		return nil
	}
	if c.info.Linger {
		c.info.Idle.Store(true)
		return lingeringClose(c.TCPConn)
	}
	return c.TCPConn.Close()
}

func (c *tcpEdgeConn) ReadFrom(r io.Reader) (int64, error) {
	if writeHook != nil {
		writeHook(c.TCPConn, false)
	}
	if m, lr := mirrorToSend(r); m != nil {
		return m.send(c, lr)
	}
	if f, n, ok := fileToSend(r); ok {
		if sent, err, done := sendFile(&c.raw.Raw, f, n, r); done {
			return sent, err
		}
	}
	// Not a file (or no sendfile): copied through Write, under the same
	// send_timeout.
	return io.Copy(writerOnly{c}, r)
}

// mirrorSection is a body in memory that a file holds too, from off
// (proxy.FileMirror): the engine hands it to the connection's ReadFrom,
// which sends it from the file with sendfile; read any other way, it is
// copied from memory.
type mirrorSection struct {
	f   *os.File
	off int64
	b   []byte // what is left to send
}

func (m *mirrorSection) Read(p []byte) (int, error) {
	if len(m.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, m.b)
	m.skip(n)
	return n, nil
}

// skip moves past n bytes sent; once all went, m lets go of the file
// and the bytes, which the connection would otherwise hold while idle.
func (m *mirrorSection) skip(n int) {
	m.b = m.b[n:]
	m.off += int64(n)
	if len(m.b) == 0 {
		*m = mirrorSection{}
	}
}

// mirrorToSend returns the mirrorSection a reader reads, alone or under
// the engine's io.LimitedReader (nil when it reads none).
func mirrorToSend(r io.Reader) (*mirrorSection, *io.LimitedReader) {
	lr, _ := r.(*io.LimitedReader)
	if lr != nil {
		r = lr.R
	}
	m, _ := r.(*mirrorSection)
	return m, lr
}

// send sends what is left of m (no more than lr's N) to c from the file.
// A file its owner closed meanwhile (the entry dropped), or one that
// sendfile cannot send from, is found before anything went: the bytes are
// written from memory instead. A file that ends early (truncated on
// disk) leaves the body short, which the engine answers by closing the
// connection, as nginx does.
func (m *mirrorSection) send(c *tcpEdgeConn, lr *io.LimitedReader) (int64, error) {
	n := int64(len(m.b))
	if lr != nil {
		n = min(n, lr.N)
	}
	sent, err := c.raw.Raw.SendFile(m.f, m.off, n)
	fromFile := true
	if sent == 0 && errors.Is(err, rawio.ErrNoSendFile) {
		var w int
		w, err = c.raw.Write(m.b[:n])
		sent, fromFile = int64(w), false
	}
	if hook := mirrorHook.Load(); hook != nil {
		(*hook)(fromFile)
	}
	m.skip(int(sent))
	if lr != nil {
		lr.N -= sent
	}
	return sent, err
}

// mirrorHook, set by tests, sees every body sent for a mirrorSection and
// whether it went from the file, once it went (the client may have read
// it before).
var mirrorHook atomic.Pointer[func(fromFile bool)]

// WriteTo hides *net.TCPConn's, which reads the socket itself: past
// c.raw's lazy read deadline, which an early fire would end (rawio's
// readDeadline), and past the head watch. io.Copy from c (or from a
// bufio.Reader over it) reads through Read.
func (c *tcpEdgeConn) WriteTo(w io.Writer) (int64, error) { return io.Copy(w, readerOnly{c}) }

// readerOnly hides a reader's WriteTo, so that io.Copy does not call it
// back.
type readerOnly struct{ io.Reader }

// writerOnly hides a writer's ReadFrom, so that io.Copy does not call it
// back.
type writerOnly struct{ io.Writer }

// fileToSend returns the file a reader reads (alone or under an
// io.LimitedReader) and how much of it is to go (-1: to its end).
func fileToSend(r io.Reader) (*os.File, int64, bool) {
	n := int64(-1)
	if lr, ok := r.(*io.LimitedReader); ok {
		r, n = lr.R, lr.N
	}
	f, ok := r.(*os.File)
	return f, n, ok
}

// sendFile sends n bytes (-1: the rest) of f from its offset with
// sendfile(2), under send_timeout between two calls that move data, and
// moves f's offset (and r's N, when r is an io.LimitedReader) past what
// went out, as TCPConn.ReadFrom does. done is false when sendfile cannot
// be used: nothing went, and the caller copies instead.
func sendFile(raw *rawio.Conn, f *os.File, n int64, r io.Reader) (sent int64, err error, done bool) {
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, nil, false
	}
	if n < 0 {
		st, err := f.Stat()
		if err != nil {
			return 0, nil, false
		}
		n = st.Size() - off
	}
	if n <= 0 {
		return 0, nil, true
	}
	sent, err = raw.SendFile(f, off, n)
	if errors.Is(err, rawio.ErrNoSendFile) {
		return 0, nil, false
	}
	if _, serr := f.Seek(off+sent, io.SeekStart); serr != nil && err == nil {
		err = serr
	}
	if lr, ok := r.(*io.LimitedReader); ok {
		lr.N -= sent
	}
	return sent, err, true
}

// writeHook, set by tests before a server starts, sees every write of a
// TCP connection and whether it carries MSG_MORE.
var writeHook func(c *net.TCPConn, more bool)

// Every wrapper bounds the wait between two requests by the last
// request's keepalive_timeout (h1conn.readDeadline).
// The wait for the next request ends after parkAfter instead, for the
// connection to park (Read). The engine moves the deadline twice a
// request; the socket's moves lazily (rawio.Conn.SetReadDeadlineLazy),
// so every read deadline of the connection is set through c.raw
// (rawio.NetConn's SetReadDeadline).
func (c *tcpEdgeConn) SetReadDeadline(t time.Time) error {
	info := c.info
	t, now := info.readDeadline(t)
	info.idleDeadline = t
	info.parkWait = false
	if parkAfter > 0 && !t.IsZero() && info.Idle.Load() {
		if now.IsZero() {
			now = time.Now()
		}
		if p := now.Add(parkAfter); p.Before(t) {
			info.parkWait = true
			return c.raw.SetReadDeadline(p)
		}
	}
	return c.raw.SetReadDeadline(t)
}

// SetDeadline sets the read deadline through c.raw too (SetReadDeadline).
func (c *tcpEdgeConn) SetDeadline(t time.Time) error { return c.raw.SetDeadline(t) }

// The connection's rawio.Conn bounds every write by send_timeout
// (ConnInfo.Raw); over TLS it writes the records.
func (c *otherEdgeConn) Write(p []byte) (int, error) { return c.Conn.Write(p) }

func (c *otherEdgeConn) Read(p []byte) (int, error) { return c.info.read(c.Conn, p) }

// read reads from the client into the engine's buffer p, with a head's
// bare LFs made CRLF (headWatch.crlf), and shows the bytes to the head
// watch (received). What is left of a body read directly is skipped
// first.
func (info *h1conn) read(r io.Reader, p []byte) (int, error) {
	buf := p
	if info.skip > 0 && len(buf) < 4<<10 {
		// The engine's wait for the next request reads one byte: the
		// rest of a body is not skipped a byte a system call.
		buf = make([]byte, min(info.skip, 16<<10))
	}
	for info.skip > 0 && len(p) > 0 {
		q := buf[:min(int64(len(buf)), info.skip)]
		n, err := info.readOnce(r, q)
		info.skip -= int64(n)
		if err != nil {
			return 0, err
		}
	}
	return info.readOnce(r, p)
}

func (info *h1conn) readOnce(r io.Reader, p []byte) (int, error) {
	if err := info.head.failed(); err != nil {
		return 0, err
	}
	heads := info.head.heads
	if n := info.head.pending(p); n > 0 {
		return n, info.received(p[:n], nil, false)
	}
	if len(info.head.held) > 0 {
		n := info.head.fromHeld(p)
		return n, info.received(p[:n], nil, info.head.heads != heads)
	}
	n, err := r.Read(info.head.readSpace(p))
	n = info.head.crlf(p, n)
	return n, info.received(p[:n], err, info.head.heads != heads)
}

// Close lingers after an error response, as tcpEdgeConn's does; a TLS
// connection sends its close_notify and drains what the client sends.
func (c *otherEdgeConn) Close() error {
	if c.info.Linger {
		c.info.Idle.Store(true)
		return lingeringClose(c.Conn)
	}
	return c.Conn.Close()
}

// received counts p, bytes just read from the client, and shows them to
// the head watch, whose error (a bare CR) comes with them. headDone says
// that the watch saw a head end in them.
func (info *h1conn) received(p []byte, err error, headDone bool) error {
	if err != nil && info.head.total == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		// The engine reads a connection's first byte with
		// ReduceMemoryUsage's one-byte read and takes any error for EOF:
		// note the timeout for serveHTTP1's log line.
		info.waitTimedOut = true
	}
	werr := info.head.saw(p)
	if headDone && info.head.inBody() && info.BodyTimeout > 0 && info.Raw != nil {
		// The head is in. What the engine reads next, before the handler
		// runs, is the start of the body (fasthttp reads up to 8 KiB of
		// it first): under client_body_timeout between two reads, as in
		// nginx, not under the head's client_header_timeout.
		info.Raw.SetReadTimeout(info.BodyTimeout)
		info.bodyPreRead = true
	}
	if werr != nil && err == nil {
		return werr
	}
	return err
}

// handlerStarts ends the body's pre-read timeout (received): the handler
// reads the rest under its location's (deadlineReader).
func (info *h1conn) handlerStarts() {
	if info.bodyPreRead {
		info.bodyPreRead = false
		info.Raw.SetReadTimeout(0)
	}
}

func (c *tlsEdgeConn) Write(p []byte) (int, error) { return c.tc.Write(p) }

func (c *otherEdgeConn) SetReadDeadline(t time.Time) error {
	t, _ = c.info.readDeadline(t)
	return c.Conn.SetReadDeadline(t)
}

// readDeadline is the read deadline the HTTP/1 engine asks for, except
// that the wait for the next request on a kept connection (the engine
// marks the connection idle just before) ends after the last request's
// keepalive_timeout, as nginx takes it from that request's location,
// rather than after the default server's. now is the clock that is
// measured from (zero for any other deadline): the engine's own reading,
// t less its idle wait, rather than a clock read of its own (1% of edge's
// user time on a kept connection).
func (info *h1conn) readDeadline(t time.Time) (deadline, now time.Time) {
	if info.Keepalive > 0 && !t.IsZero() && info.Idle.Load() {
		var wait time.Duration
		if info.h1 != nil {
			wait = info.h1.idleWait()
		}
		if wait > 0 {
			now = t.Add(-wait)
		} else {
			now = time.Now()
		}
		return now.Add(info.Keepalive), now
	}
	return t, time.Time{}
}

type edgeConn interface{ h1conn() *h1conn }

func (c *tcpEdgeConn) h1conn() *h1conn   { return c.info }
func (c *otherEdgeConn) h1conn() *h1conn { return c.info }
