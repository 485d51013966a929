// client.go holds the FastCGI client: the Client that limits requests in
// flight with a FIFO queue, keeps idle connections for reuse
// (FCGI_KEEP_CONN), dials new ones and counts what it does; and the
// sending half of a request (opening records, body streaming, retry on a
// kept connection the backend had closed).
package fastcgi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"edge/internal/rawio"
)

// Errors returned by Client.Do and Response.Body, to be told apart with
// errors.Is. The comment says which HTTP status a handler should answer.
var (
	// ErrConnect: the dial failed or was refused; the backend is down or
	// its listen queue is full. 502, like nginx's "connect() failed".
	ErrConnect = errors.New("fastcgi: connect failed")
	// ErrNotSent is also wrapped by every error that left the request
	// unsent (a failed or timed-out connect), so a caller may send it
	// elsewhere even when it must not run twice.
	ErrNotSent = errors.New("fastcgi: request not sent")
	// ErrTimeout: ConnectTimeout, SendTimeout or ReadTimeout expired. 504,
	// like nginx's "upstream timed out".
	ErrTimeout = errors.New("fastcgi: timeout")
	// ErrInvalidHeader: the response header block is malformed or too
	// large. 502, like nginx's "upstream sent invalid header".
	ErrInvalidHeader = errors.New("fastcgi: invalid response header")
	// ErrProtocol: the backend broke the record protocol, reported a
	// non-complete END_REQUEST (overloaded, ...) or closed the connection
	// before END_REQUEST. 502, like nginx's "upstream prematurely closed".
	ErrProtocol = errors.New("fastcgi: protocol error")
	// ErrQueueFull: MaxConns requests are in flight and QueueLimit wait
	// already. 502, as nginx answers when every server is at max_conns
	// ("no live upstreams") and as its upstream queue answers when full.
	ErrQueueFull = errors.New("fastcgi: queue full")
	// ErrQueueTimeout: the request waited QueueTimeout for a slot. 502,
	// as nginx's upstream queue answers when its timeout passes.
	ErrQueueTimeout = errors.New("fastcgi: queue timeout")
)

const (
	// readBufferSize is the connection's read buffer: php-fpm writes
	// STDOUT in records of up to 8 KiB, so two fit.
	readBufferSize = 16 << 10
	// inlineBody is how much of a request body is read before anything
	// is sent, so that a small body leaves in the same write as the
	// params and is kept for a retry without needing a Seeker.
	inlineBody = 16 << 10
)

// Client talks FastCGI to one backend address. Its zero value has no
// address; set the fields before the first Do and do not change or copy
// the Client afterwards. A Client is safe for concurrent use.
//
// php-fpm serves one connection per worker: a kept idle connection pins
// its worker until it is closed. MaxIdle must therefore stay below the
// pool's pm.max_children, or N kept connections starve a pool of N
// workers while new connections wait in the listen queue. MaxConns set to
// pm.max_children keeps the excess in edge's queue instead of the
// kernel's, where it is counted and bounded.
type Client struct {
	// Network is "tcp" or "unix"; "" means "tcp".
	Network string
	// Address is host:port for tcp, the socket path for unix.
	Address string
	// MaxConns is the maximum number of requests in flight (connections
	// busy); requests beyond it wait in a FIFO queue. 0 means unlimited.
	MaxConns int
	// MaxIdle is the maximum number of idle connections kept for reuse.
	// 0 keeps none and does not ask for FCGI_KEEP_CONN, so the backend
	// closes each connection after its request.
	MaxIdle int
	// QueueLimit is the maximum number of requests waiting for a slot;
	// beyond it Do fails at once with ErrQueueFull. 0 means unlimited.
	QueueLimit int
	// QueueTimeout is the longest wait in the queue before
	// ErrQueueTimeout. 0 waits until the context is done.
	QueueTimeout time.Duration
	// ConnectTimeout bounds a dial. 0 means no limit but the context's.
	ConnectTimeout time.Duration
	// SendTimeout bounds each write to the backend, so it is the longest
	// time between two successive writes (nginx's fastcgi_send_timeout).
	// 0 means none.
	SendTimeout time.Duration
	// ReadTimeout bounds each read from the backend once the request is
	// sent, so it is the longest silence between two successive reads
	// (nginx's fastcgi_read_timeout). 0 means none.
	ReadTimeout time.Duration
	// Idle, if not nil, is where the Client keeps its idle connections,
	// shared with the other Clients of the same address, and Idle's
	// limit replaces MaxIdle as the bound (MaxIdle must still be above 0
	// for connections to be kept). nil keeps them in the Client's own
	// set, bounded by MaxIdle.
	Idle *IdleConns

	mu       sync.Mutex
	ownIdle  IdleConns
	inFlight int
	queue    waitQueue
	st       counters
}

// IdleConns is a set of idle kept connections to one backend address,
// which several Clients may share. php-fpm gives each kept connection a
// worker of its own, so what must stay below pm.max_children is the number
// of idle connections to the address, whichever Client kept them. Clients
// of one address that differ in timeouts or limits (two locations passing
// to one pool, an upstream{} and a bare fastcgi_pass naming the same
// socket) must therefore keep them in one set: each keeping its own, they
// can together pin every worker while a new connection waits in the
// listen queue for a worker that never comes free. The zero value keeps
// none; a connection taken from the set gets the timeouts of the request
// that takes it.
//
// The limit bounds the kept connections, idle or busy: without MaxConns
// only a connection that holds one of the limit's places asks php-fpm to
// keep it open (FCGI_KEEP_CONN); any other is closed by php-fpm itself
// after its response, so its worker takes the next connection at once
// instead of waiting for edge to close this one. With MaxConns every
// connection asks, and one beyond the limit goes on to a waiting request
// or is closed by edge (Client.handOff).
type IdleConns struct {
	// waiting counts fresh connections whose request is sent and whose
	// answer has not begun: each may sit in php-fpm's listen queue until
	// a worker is free. While any does, a finished kept connection is
	// closed instead of kept, so its worker takes the waiting one. This
	// is what makes keeping connections safe when the pool's size is not
	// known: kept connections can never starve a queued one.
	waiting atomic.Int64
	limit   atomic.Int64
	// janitor closes connections idle longer than IdleTimeout; it runs
	// only while some are idle.
	janitor *time.Timer
	mu      sync.Mutex
	conns   []*conn // most recently used last
	owned   int     // kept connections, idle or busy (<= limit but after SetLimit)
}

// IdleTimeout is how long a kept connection may stay idle before edge
// closes it (nginx's upstream keepalive_timeout, shorter): an idle kept
// connection pins a php-fpm worker, which then serves nobody else, not
// another web server sharing the pool, not php-fpm's own process manager
// deciding whether the pool may shrink.
const IdleTimeout = 2 * time.Second

// NewIdleConns returns a set that keeps at most limit connections.
func NewIdleConns(limit int) *IdleConns {
	s := new(IdleConns)
	s.limit.Store(int64(limit))
	return s
}

// SetLimit changes the most connections kept and closes the excess (a
// reload that lowered it).
func (s *IdleConns) SetLimit(limit int) {
	s.limit.Store(int64(limit))
	s.mu.Lock()
	var extra []*conn
	if n := len(s.conns); n > limit {
		keep := max(limit, 0)
		extra = append(extra, s.conns[:n-keep]...) // the least recently used
		s.conns = append(s.conns[:0], s.conns[n-keep:]...)
		s.owned -= len(extra)
	}
	s.mu.Unlock()
	for _, cn := range extra {
		cn.dispose()
	}
}

// Len returns the number of idle connections kept now.
func (s *IdleConns) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// reserve takes one of the limit's places for a new connection, if one
// is free, and reports whether it did.
func (s *IdleConns) reserve(limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owned >= limit {
		return false
	}
	s.owned++
	return true
}

// release gives back the place of a kept connection that was closed.
func (s *IdleConns) release() {
	s.mu.Lock()
	s.owned--
	s.mu.Unlock()
}

// put keeps cn, which holds a place, if the idle connections are fewer
// than limit, and reports whether it did.
func (s *IdleConns) put(cn *conn, limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) >= limit {
		return false
	}
	cn.idleSince = time.Now()
	s.conns = append(s.conns, cn)
	if s.janitor == nil {
		s.janitor = time.AfterFunc(IdleTimeout, s.closeStale)
	}
	return true
}

// closeStale closes the connections idle for IdleTimeout and comes back
// while others remain.
func (s *IdleConns) closeStale() {
	cutoff := time.Now().Add(-IdleTimeout)
	s.mu.Lock()
	var stale []*conn
	keep := s.conns[:0]
	for _, cn := range s.conns { // least recently used first
		if cn.idleSince.Before(cutoff) {
			stale = append(stale, cn)
			continue
		}
		keep = append(keep, cn)
	}
	clear(s.conns[len(keep):])
	s.conns = keep
	s.owned -= len(stale)
	if len(s.conns) > 0 {
		s.janitor.Reset(time.Until(s.conns[0].idleSince.Add(IdleTimeout)) + 10*time.Millisecond)
	} else {
		s.janitor = nil
	}
	s.mu.Unlock()
	for _, cn := range stale {
		cn.dispose()
	}
}

// take removes and returns the most recently used connection, or nil.
func (s *IdleConns) take() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.conns)
	if n == 0 {
		return nil
	}
	cn := s.conns[n-1]
	s.conns[n-1] = nil
	s.conns = s.conns[:n-1]
	return cn
}

// closeAll closes every kept connection.
func (s *IdleConns) closeAll() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.owned -= len(conns)
	s.mu.Unlock()
	for _, cn := range conns {
		cn.dispose()
	}
}

// idleSet returns where c keeps idle connections and how many at most
// (0 when c keeps none, whatever a shared set allows).
func (c *Client) idleSet() (*IdleConns, int) {
	switch {
	case c.Idle == nil:
		return &c.ownIdle, max(c.MaxIdle, 0)
	case c.MaxIdle <= 0:
		return c.Idle, 0
	}
	return c.Idle, int(c.Idle.limit.Load())
}

// Request is one FastCGI request. A caller may keep Requests in a pool:
// Reset the Params and set Body and Stderr again.
type Request struct {
	// Params are the CGI parameters, built by the caller and sent as
	// they are. CONTENT_LENGTH among them must be the exact number of
	// bytes Body yields: PHP reads that many and ignores the rest, and a
	// body without CONTENT_LENGTH is never seen by the script.
	Params Params
	// Body is the request body, or nil. It is read to io.EOF and sent as
	// STDIN records, then the empty STDIN record that ends the stream.
	// The first 16 KiB are read before anything is sent; the rest is
	// sent by a goroutine while the response is read, so a script that
	// answers before reading its input cannot deadlock against the body.
	// Do, Response.Body and Response.Close never return while that
	// goroutine is inside Body.Read. If Body is an io.Seeker it can be
	// rewound for the one retry on a fresh connection; otherwise a retry
	// is only made when nothing past the first 16 KiB was read.
	Body io.Reader
	// Stderr, if not nil, is called with the content of each FCGI_STDERR
	// record, without a trailing line end and without the "; " that
	// php-fpm puts between messages. php-fpm sends error_log() messages
	// there ("PHP message: ..."), one record per message or several joined
	// by "; "; fwrite(STDERR) goes to the worker's own stderr instead (the
	// FPM log). It runs on the goroutine reading the response; msg is
	// valid only during the call.
	Stderr func(msg []byte)
	// CatchStderr, when not empty, makes a STDERR record that arrives
	// before the end of the response header and contains one of these
	// strings fail the request with ErrInvalidHeader, without waiting for
	// the rest (nginx's fastcgi_catch_stderr: the application said it
	// failed before it answered). Stderr still sees the record first.
	CatchStderr []string
	// NonIdempotent marks a request that must not run twice (nginx's
	// non-idempotent methods: POST, LOCK, PATCH). When a kept connection
	// fails under it, it is resent on a fresh one only if none of it
	// reached the connection; other requests are resent whenever no
	// answer had begun. Only such requests, and those with a body longer
	// than the opening records hold, have a kept connection checked with
	// a system call before use: the others rely on the resend.
	NonIdempotent bool
	// ConnectTimeout, SendTimeout, ReadTimeout and QueueTimeout, when not
	// zero, replace the Client's for this request, so that callers with
	// different limits (nginx locations with their own fastcgi_*_timeout)
	// share one Client and so one bound on the requests in flight.
	ConnectTimeout, SendTimeout, ReadTimeout, QueueTimeout time.Duration
}

// or returns d, or def when d is zero.
func or(d, def time.Duration) time.Duration {
	if d != 0 {
		return d
	}
	return def
}

// Stats is a snapshot of a Client's counters (since it was created) and
// gauges (now).
type Stats struct {
	Requests      uint64        // calls to Do with valid params and a live context
	Connects      uint64        // connections dialled successfully
	Reused        uint64        // requests sent on a kept connection
	Stale         uint64        // kept connections found closed by the backend before use
	Retries       uint64        // requests resent on a fresh connection after a kept one failed
	ConnectErrors uint64        // failed dials
	Timeouts      uint64        // results of ErrTimeout
	QueueFull     uint64        // results of ErrQueueFull
	QueueTimeouts uint64        // results of ErrQueueTimeout
	Queued        uint64        // requests that had to wait for a slot
	QueueWait     time.Duration // total time requests spent waiting for a slot
	QueueWaitMax  time.Duration // longest wait for a slot
	Waiting       int           // requests waiting for a slot now
	InFlight      int           // requests holding a slot now
	Idle          int           // idle kept connections now
}

type counters struct {
	requests, connects, reused, stale, retries  atomic.Uint64
	connectErrors, timeouts, queueFull, queueTO atomic.Uint64
	queued                                      atomic.Uint64
	queueWait, queueWaitMax                     time.Duration // under Client.mu
}

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	s := Stats{
		QueueWait:    c.st.queueWait,
		QueueWaitMax: c.st.queueWaitMax,
		Waiting:      c.queue.waiting,
		InFlight:     c.inFlight,
	}
	c.mu.Unlock()
	set, _ := c.idleSet()
	s.Idle = set.Len()
	s.Requests = c.st.requests.Load()
	s.Connects = c.st.connects.Load()
	s.Reused = c.st.reused.Load()
	s.Stale = c.st.stale.Load()
	s.Retries = c.st.retries.Load()
	s.ConnectErrors = c.st.connectErrors.Load()
	s.Timeouts = c.st.timeouts.Load()
	s.QueueFull = c.st.queueFull.Load()
	s.QueueTimeouts = c.st.queueTO.Load()
	s.Queued = c.st.queued.Load()
	return s
}

// CloseIdle closes the idle kept connections, which frees the FPM workers
// they pin (before a pool reload, at shutdown). With a shared Idle set it
// closes those of every Client sharing it.
func (c *Client) CloseIdle() {
	set, _ := c.idleSet()
	set.closeAll()
}

// Do sends req and reads the response up to the end of its header block.
// On success the caller must Close the Response exactly once, and must not
// use it, its Header or its Body afterwards: it is recycled. ctx bounds
// the whole exchange, including reading Body. A ctx whose Done is nil
// (context.Background) skips the watcher (context.AfterFunc) that
// otherwise costs an allocation per request, and a goroutine for
// contexts not made by package context; the timeouts still apply.
//
// A request is sent at most twice: again on a fresh connection only when a
// kept connection turned out to be closed by the backend before anything
// of the response arrived. A dead backend fails at once with ErrConnect.
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	if err := req.Params.err; err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fastcgi: %w", err)
	}
	c.st.requests.Add(1)
	r := respPool.Get().(*Response)
	r.client = c
	handed, sent, complete, err := c.acquire(ctx, or(req.QueueTimeout, c.QueueTimeout), r, req)
	if err != nil {
		r.recycle()
		return nil, err
	}
	if len(r.wbuf) == 0 {
		// The request did not wait, so acquire left the head to build.
		if complete, err = r.buildHead(req); err != nil {
			r.recycle()
			c.release()
			return nil, err
		}
	}
	if err := r.roundTrip(ctx, req, handed, complete, sent); err != nil {
		r.recycle()
		c.release()
		return nil, err
	}
	return r, nil
}

// Close releases the response's connection: back to the idle pool if the
// request ended cleanly (END_REQUEST read, connection kept, body fully
// sent), closed otherwise. Unread body is not drained: the connection is
// closed instead, which also stops the script's output. Close must be
// called exactly once; it returns nil.
func (r *Response) Close() error {
	c, cn := r.client, r.conn
	keep := r.err == nil && r.stream.ended && r.stream.end.protocolStatus == statusRequestComplete &&
		cn.keepConn && cn.br.Buffered() == 0
	if r.stop != nil && !r.stop() {
		keep = false // the context watcher fired and broke the deadlines
	}
	if r.writing {
		select {
		case r.werr = <-r.wdone:
		default:
			// The backend answered without taking the whole body; only
			// closing the connection frees the writer.
			keep = false
			cn.nc.Close()
			r.werr = <-r.wdone
		}
		r.writing = false
	}
	if r.werr != nil {
		keep = false
	}
	r.conn = nil
	handedOff := c.putConn(cn, keep)
	r.recycle()
	if !handedOff {
		handedOff = c.release()
	}
	if handedOff {
		// A waiting request got the slot: let it go to PHP (or, when
		// handOff already wrote its request, read the reply) before this
		// goroutine goes on to write its response. Under saturation the
		// workers are the bottleneck, so they get work first; and the
		// responses held back meanwhile reach their clients together, so
		// a client sleeping in epoll is woken once per burst rather than
		// once per response. On hello.php with one CPU this took wake-ups
		// of the load generator from 0.56-0.88 to 0.23-0.30 per request
		// and edge's CPU per request down by about 13%
		// (docs/performance.md). Without the yield after handOff had
		// written the request, wrk was woken 0.44-0.90 times per request
		// instead of 0.37-0.40, and edge spent more CPU.
		runtime.Gosched()
	}
	return nil
}

var respPool = sync.Pool{New: func() any {
	r := &Response{wdone: make(chan error, 1)}
	r.body.r = r
	return r
}}

// recycle clears r and puts it back in the pool; r.conn must be handled.
func (r *Response) recycle() {
	if r.conn != nil {
		r.settle(true)
		r.client.closeConn(r.conn)
	}
	hbuf, wbuf, fields := r.hbuf[:0], r.wbuf[:0], r.Header[:0]
	if cap(hbuf) > maxPooledHead {
		hbuf = nil
	}
	if cap(wbuf) > maxPooledRequest {
		wbuf = nil
	}
	clear(fields[:cap(fields)])
	stderrBuf := r.stream.stderr.buf[:0]
	wdone := r.wdone
	*r = Response{hbuf: hbuf, wbuf: wbuf, Header: fields, wdone: wdone}
	r.stream.stderr.buf = stderrBuf
	r.body.r = r
	respPool.Put(r)
}

// roundTrip sends the request, whose head buildHead made, and reads the
// response header, retrying once on a fresh connection when a kept one
// proves stale. handed is the connection that came with the slot, if any
// (Client.handOff), and sent how much of the head handOff already wrote
// on it.
func (r *Response) roundTrip(ctx context.Context, req *Request, handed *conn, complete bool, sent int) error {
	c := r.client
	var err error
	fresh := false
	for {
		check := req.NonIdempotent || !complete
		cn := handed
		handed = nil
		if cn != nil && sent == 0 && !cn.usable(check) {
			// php-fpm closes a kept connection after a worker's last
			// request (pm.max_requests) or on reload.
			c.st.stale.Add(1)
			c.closeConn(cn)
			cn = nil
		}
		if cn != nil {
			c.reuse(cn, req)
		} else if cn, err = c.getConn(ctx, fresh, check, req); err != nil {
			return err
		}
		if sent == 0 {
			setKeepConn(r.wbuf, cn.keepConn) // handOff set it for what it wrote
		}
		r.ConnectTime = cn.dialTime
		r.attach(ctx, cn, req)
		set, _ := c.idleSet()
		if !cn.reused {
			set.waiting.Add(1)
		}
		if sent > 0 {
			err = r.sendRest(sent)
			sent = 0 // a retry sends all of it
		} else {
			err = r.send(req.Body, complete)
		}
		if err == nil {
			err = r.readHead()
		}
		if !cn.reused {
			set.waiting.Add(-1)
		}
		if err == nil {
			r.Body = &r.body
			return nil
		}
		retry := !fresh && cn.reused && !r.stream.gotRecord && connGone(err) && (!req.NonIdempotent || !r.sentAny)
		err = r.fail(err) // stops the writer, so r.streamed is final
		if r.stop != nil {
			r.stop()
		}
		r.conn, r.stop = nil, nil
		c.closeConn(cn)
		if !retry || !rewind(req.Body, r.streamed) {
			return err
		}
		c.st.retries.Add(1)
		fresh = true
	}
}

// buildHead encodes BEGIN_REQUEST, the params and up to inlineBody bytes
// of the body into r.wbuf. complete reports that the body ended within
// them, in which case the empty STDIN record is included too and the
// whole request leaves in one write.
func (r *Response) buildHead(req *Request) (complete bool, err error) {
	b := appendBeginRequest(r.wbuf[:0], false) // setKeepConn decides per connection
	b = appendParams(b, &req.Params)
	complete = true
	if req.Body != nil {
		at := len(b)
		b = growLen(b, headerSize+inlineBody+8)
		n, rerr := io.ReadFull(req.Body, b[at+headerSize:at+headerSize+inlineBody])
		b = b[:at]
		if n > 0 {
			pad := putHeader(b[at:at+headerSize], typeStdin, n)
			b = b[:at+headerSize+n]
			b = append(b, zeroPad[:pad]...)
		}
		switch rerr {
		case io.EOF, io.ErrUnexpectedEOF:
		case nil:
			complete = false
		default:
			r.wbuf = b
			return false, fmt.Errorf("fastcgi: reading request body: %w", rerr)
		}
	}
	if complete {
		b = appendRecord(b, typeStdin, nil)
	}
	r.wbuf = b
	return complete, nil
}

// growLen returns b with room for n more bytes, its length unchanged in
// content but extended to len(b)+n.
func growLen(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n+len(b)/2)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// rewind prepares the body for a resend: nothing to do when the writer
// read none of it, a seek back when it can.
func rewind(body io.Reader, streamed int64) bool {
	if streamed == 0 {
		return true
	}
	s, ok := body.(io.Seeker)
	if !ok {
		return false
	}
	_, err := s.Seek(-streamed, io.SeekCurrent)
	return err == nil
}

// attach binds r to a connection for one attempt.
func (r *Response) attach(ctx context.Context, cn *conn, req *Request) {
	r.conn, r.ctx = cn, ctx
	r.err, r.werr, r.streamed, r.sentAny = nil, nil, 0, false
	r.Status, r.StatusImplied, r.Reason, r.Header, r.pending = 0, false, nil, r.Header[:0], nil
	cn.canceled.Store(false)
	cn.deadlineSet = false
	r.stream.reset(cn.br, req.Stderr, req.CatchStderr)
	if ctx.Done() != nil {
		r.stop = context.AfterFunc(ctx, cn.cancelFn)
	}
}

// send writes the opening records and, when the body is longer than what
// they hold, starts the goroutine that streams the rest.
func (r *Response) send(body io.Reader, complete bool) error {
	cn := r.conn
	var n int
	var err error
	if complete {
		n, err = cn.writeAndWait(r.wbuf)
	} else {
		n, err = cn.write(r.wbuf)
	}
	r.sentAny = n > 0
	if err != nil || complete {
		return err
	}
	// nginx starts fastcgi_read_timeout once the request is sent; until
	// the writer is done the reader waits without a deadline.
	cn.sending.Store(true)
	if cn.readTimeout > 0 {
		cn.setReadDeadline(time.Time{})
	}
	r.writing = true
	go r.sendBody(body)
	return nil
}

// sendRest finishes a complete request of which handOff wrote the first
// sent bytes: usually all of it, and the reply may be there already.
func (r *Response) sendRest(sent int) error {
	r.sentAny = true
	if sent == len(r.wbuf) {
		return nil
	}
	_, err := r.conn.writeAndWait(r.wbuf[sent:])
	return err
}

// preSend writes r's complete request on cn, the connection a finished
// request hands to r's waiting goroutine with its slot, and returns how
// much went; 0 leaves all of it to that goroutine. It runs in the
// finishing request's goroutine, so PHP has the next request before the
// waiting goroutine even runs, and that goroutine, once woken, often
// finds the reply there instead of writing and then parking until it
// comes. The write never blocks (rawConn.sendNow).
func (r *Response) preSend(cn *conn, req *Request) int {
	if !cn.usable(req.NonIdempotent) {
		return 0 // stale: the waiting goroutine finds out and dials
	}
	setKeepConn(r.wbuf, cn.keepConn)
	return cn.raw.sendNow(r.wbuf)
}

// bodyError is a failure to read Request.Body, as opposed to a failure to
// write to the backend.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return "fastcgi: reading request body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

var chunkPool = sync.Pool{New: func() any {
	b := make([]byte, headerSize+maxRecordContent+8+headerSize)
	return &b
}}

// sendBody streams the rest of the body as STDIN records, one record per
// Read, followed by the empty STDIN record. It runs on its own goroutine
// and reports on r.wdone.
func (r *Response) sendBody(body io.Reader) {
	cn := r.conn
	bp := chunkPool.Get().(*[]byte)
	buf := *bp
	var err error
	var streamed int64
	for {
		n, rerr := body.Read(buf[headerSize : headerSize+maxRecordContent])
		end := 0
		if n > 0 {
			streamed += int64(n)
			pad := putHeader(buf, typeStdin, n)
			end = headerSize + n + pad
			clear(buf[headerSize+n : end])
		}
		if rerr == io.EOF { // the closing record rides with the last chunk
			putHeader(buf[end:end+headerSize], typeStdin, 0)
			_, err = cn.write(buf[:end+headerSize])
			break
		}
		if rerr != nil {
			err = &bodyError{rerr}
			break
		}
		if end > 0 {
			if _, err = cn.write(buf[:end]); err != nil {
				break
			}
		}
	}
	chunkPool.Put(bp)
	r.streamed = streamed
	var be *bodyError
	if err != nil && (errors.As(err, &be) || isTimeout(err)) {
		// The backend waits for STDIN that will not come, and the reader
		// has no deadline yet: closing is the only way to end both.
		cn.nc.Close()
	}
	cn.sending.Store(false)
	if err == nil && cn.readTimeout > 0 {
		cn.setReadDeadline(time.Now().Add(cn.readTimeout))
	}
	r.wdone <- err
}

// settle waits for the body writer, if one runs, closing the connection
// first when closeConn is set so that a writer blocked on it returns.
func (r *Response) settle(closeConn bool) error {
	if !r.writing {
		return r.werr
	}
	if closeConn {
		r.conn.nc.Close()
	}
	r.werr = <-r.wdone
	r.writing = false
	return r.werr
}

// fail turns an error met while reading the response into the error the
// caller sees, preferring its cause: a cancelled context, a body that
// could not be read or a send timeout.
func (r *Response) fail(err error) error {
	werr := r.settle(true)
	if r.conn.canceled.Load() {
		if cerr := r.ctx.Err(); cerr != nil {
			return fmt.Errorf("fastcgi: %w", cerr)
		}
	}
	var be *bodyError
	if errors.As(werr, &be) {
		return werr
	}
	if werr != nil && isTimeout(werr) {
		err = werr
	}
	return r.client.classify(err)
}

// classify wraps a connection error in the sentinel a caller tests for.
func (c *Client) classify(err error) error {
	switch {
	case errors.Is(err, ErrProtocol), errors.Is(err, ErrInvalidHeader):
		return err
	case isTimeout(err):
		c.st.timeouts.Add(1)
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	case connGone(err):
		return fmt.Errorf("%w: connection closed before the end of the response: %w", ErrProtocol, err)
	default:
		return fmt.Errorf("fastcgi: %w", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// connGone reports an error that means the peer had closed the connection.
func connGone(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED)
}

// notSent wraps ErrNotSent without adding words to the message.
var notSent = quietError{ErrNotSent}

type quietError struct{ err error }

func (e quietError) Error() string { return "" }
func (e quietError) Unwrap() error { return e.err }

// getConn returns a kept connection (with check, one that still looks
// open) or, when there is none or fresh is set, a new one.
func (c *Client) getConn(ctx context.Context, fresh, check bool, req *Request) (*conn, error) {
	set, _ := c.idleSet()
	for !fresh {
		cn := set.take()
		if cn == nil {
			break
		}
		if cn.usable(check) {
			c.reuse(cn, req)
			return cn, nil
		}
		c.st.stale.Add(1)
		c.closeConn(cn)
	}
	start := time.Now()
	cn, err := c.dial(ctx, req)
	if err == nil {
		cn.dialTime = time.Since(start)
		_, limit := c.idleSet()
		cn.kept = limit > 0 && set.reserve(limit)
		// With the slots bounded by the pool's size, a connection beyond
		// the kept ones is still asked to stay open: when it finishes
		// while requests wait for a slot it goes to the first of them
		// with the slot (handOff), and otherwise edge closes it.
		cn.keepConn = cn.kept || (limit > 0 && c.MaxConns > 0)
	}
	return cn, err
}

// usable reports whether a connection that served an earlier request may
// carry another: no stray bytes buffered and, with check, a system call
// saying the backend neither closed it nor sent anything on it.
func (cn *conn) usable(check bool) bool {
	return cn.br.Buffered() == 0 && (!check || cn.raw.alive())
}

// reuse readies a connection that served an earlier request (maybe for
// another Client of a shared set, or with other timeouts).
func (c *Client) reuse(cn *conn, req *Request) {
	cn.reused, cn.dialTime = true, 0
	cn.readTimeout, cn.sendTimeout = or(req.ReadTimeout, c.ReadTimeout), or(req.SendTimeout, c.SendTimeout)
	c.st.reused.Add(1)
}

// closeConn closes a connection that is done with, giving back its place
// among the kept ones if it held one.
func (c *Client) closeConn(cn *conn) {
	cn.dispose()
	if cn.kept {
		cn.kept = false
		set, _ := c.idleSet()
		set.release()
	}
}

func (c *Client) dial(ctx context.Context, req *Request) (*conn, error) {
	network := c.Network
	if network == "" {
		network = "tcp"
	}
	d := net.Dialer{Timeout: or(req.ConnectTimeout, c.ConnectTimeout)}
	nc, err := d.DialContext(ctx, network, c.Address)
	if err != nil {
		c.st.connectErrors.Add(1)
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("fastcgi: %w", ctx.Err())
		case isTimeout(err):
			c.st.timeouts.Add(1)
			return nil, fmt.Errorf("%w: connecting: %w%w", ErrTimeout, err, notSent)
		default:
			return nil, fmt.Errorf("%w: %w%w", ErrConnect, err, notSent)
		}
	}
	c.st.connects.Add(1)
	return newConn(nc, network, or(req.ReadTimeout, c.ReadTimeout), or(req.SendTimeout, c.SendTimeout)), nil
}

// putConn keeps cn for reuse when keep is set and there is room, and
// closes it otherwise.
//
// A connection that may carry another request goes, with the caller's
// slot, to the first request waiting for one, whether or not it holds a
// kept place: putConn then reports true and the caller must not release
// the slot.
func (c *Client) putConn(cn *conn, keep bool) (handedOff bool) {
	if keep {
		// A request waits for a slot (so MaxConns bounds this Client).
		if handedOff, _ = c.handOff(cn); handedOff {
			return true
		}
	}
	if keep && cn.kept {
		// With MaxConns bounded by the pool's size edge never has more
		// connections than workers, so none can wait behind a kept one;
		// without it, a connection waiting for a worker wins.
		if set, limit := c.idleSet(); (c.MaxConns > 0 || set.waiting.Load() == 0) && set.put(cn, limit) {
			return false
		}
	}
	c.closeConn(cn)
	return false
}

// handOff gives cn and the caller's slot to the first waiter, if any,
// writing the waiter's request on cn when it is complete; sent reports
// that some of it went.
func (c *Client) handOff(cn *conn) (handedOff, sent bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.handOffLocked(cn)
}

func (c *Client) handOffLocked(cn *conn) (handedOff, sent bool) {
	w := c.queue.pop()
	if w == nil {
		return false, false
	}
	if w.pre != nil && w.ctx.Err() == nil {
		w.sent = w.pre.preSend(cn, w.req)
	}
	sent = w.sent > 0
	grantLocked(w, cn)
	return true, sent
}

// waiter is a request queued for a slot. Waiters are pooled: one that
// got its slot, or gave up after it was granted, is reused; one that
// gave up before stays in the queue until popped and is dropped.
type waiter struct {
	ready    chan struct{} // one value when the slot is handed over (capacity 1)
	granted  bool          // under Client.mu
	conn     *conn         // under Client.mu: a connection that came with the slot
	canceled bool          // under Client.mu: gave up; skip it
	timer    *time.Timer   // the queue timeout, made on first use
	// pre is the waiting request's response with its complete head built,
	// nil when the body goes on beyond it; handOff writes it on the
	// connection it hands over and sets sent (under Client.mu).
	pre  *Response
	req  *Request
	ctx  context.Context // the waiting request's: a done one is not written
	sent int
}

var waiters = sync.Pool{New: func() any { return &waiter{ready: make(chan struct{}, 1)} }}

// grantLocked hands w its slot (and cn, if not nil); w was popped.
func grantLocked(w *waiter, cn *conn) {
	w.granted, w.conn = true, cn
	w.ready <- struct{}{}
}

// recycleWaiter puts back a waiter that is out of the queue and whose
// ready value, if any, was taken.
func recycleWaiter(w *waiter) {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.granted, w.conn, w.canceled = false, nil, false
	w.pre, w.req, w.ctx, w.sent = nil, nil, nil, 0
	waiters.Put(w)
}

// waitQueue is a FIFO of waiters; cancelled ones stay until popped.
type waitQueue struct {
	items   []*waiter
	head    int
	waiting int // live waiters
}

func (q *waitQueue) push(w *waiter) {
	if q.head > 0 && len(q.items) == cap(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, w)
	q.waiting++
}

func (q *waitQueue) pop() *waiter {
	for q.head < len(q.items) {
		w := q.items[q.head]
		q.items[q.head] = nil
		q.head++
		if q.head == len(q.items) {
			q.items, q.head = q.items[:0], 0
		}
		if !w.canceled {
			q.waiting--
			return w
		}
	}
	return nil
}

// acquire takes a request slot, waiting in FIFO order when MaxConns are
// busy. A request that is to wait has its head built into r first
// (complete reports what buildHead did), so that the hand-off that ends
// the wait can write it on the connection it hands over: then the slot
// comes with that connection and sent bytes of the request already on
// it. A request the full queue refuses reads none of its body.
func (c *Client) acquire(ctx context.Context, queueTimeout time.Duration, r *Response, req *Request) (handed *conn, sent int, complete bool, err error) {
	if taken, err := c.takeSlot(); taken || err != nil {
		return nil, 0, false, err
	}
	if complete, err = r.buildHead(req); err != nil {
		return nil, 0, false, err
	}
	c.mu.Lock()
	if taken, err := c.takeSlotLocked(); taken || err != nil {
		c.mu.Unlock() // the state changed while the head was built
		return nil, 0, complete, err
	}
	w := waiters.Get().(*waiter)
	if complete {
		w.pre, w.req, w.ctx = r, req, ctx
	}
	c.queue.push(w)
	c.mu.Unlock()
	c.st.queued.Add(1)
	handed, sent, err = c.wait(ctx, w, queueTimeout)
	return handed, sent, complete, err
}

// takeSlot takes a free slot (taken), refuses a request the full queue
// has no room for (ErrQueueFull), or says the request must wait.
func (c *Client) takeSlot() (taken bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.takeSlotLocked()
}

func (c *Client) takeSlotLocked() (taken bool, err error) {
	if c.MaxConns <= 0 || c.inFlight < c.MaxConns {
		c.inFlight++
		return true, nil
	}
	if c.QueueLimit > 0 && c.queue.waiting >= c.QueueLimit {
		c.st.queueFull.Add(1)
		return false, ErrQueueFull
	}
	return false, nil
}

func (c *Client) wait(ctx context.Context, w *waiter, timeout time.Duration) (*conn, int, error) {
	start := time.Now()
	var expired <-chan time.Time
	if timeout > 0 {
		if w.timer == nil {
			w.timer = time.NewTimer(timeout)
		} else {
			w.timer.Reset(timeout) // stopped when recycled
		}
		expired = w.timer.C
	}
	var err error
	select {
	case <-w.ready:
	case <-ctx.Done():
		err = fmt.Errorf("fastcgi: waiting for a connection slot: %w", ctx.Err())
	case <-expired:
		err = ErrQueueTimeout
	}
	waited := time.Since(start)
	c.mu.Lock()
	c.st.queueWait += waited
	c.st.queueWaitMax = max(c.st.queueWaitMax, waited)
	c.mu.Unlock()
	if err != nil {
		granted, sent := c.abandon(w)
		if err == ErrQueueTimeout && !sent {
			c.st.queueTO.Add(1)
		}
		switch {
		case sent:
			// The request went out with the slot before the wait ended:
			// PHP may run it, so it goes on like a granted one. A context
			// that is done stops it in roundTrip, as it would have a
			// moment later.
			<-w.ready
		case granted:
			<-w.ready // granted too late: its value is still there
			recycleWaiter(w)
			return nil, 0, err
		default:
			if w.timer != nil {
				w.timer.Stop() // left in the queue, never recycled
			}
			return nil, 0, err
		}
	}
	cn, sent := w.conn, w.sent
	recycleWaiter(w)
	return cn, sent, nil
}

// abandon takes w, which gave up, out of the queue; a slot (and a
// connection) that reached it too late is passed on. It reports whether
// w had been granted (and so is out of the queue), and whether its
// request had already been written on the connection that came with the
// slot: then nothing is passed on, and w keeps both.
func (c *Client) abandon(w *waiter) (granted, sent bool) {
	var unwanted *conn
	c.mu.Lock()
	granted = w.granted
	switch {
	case w.conn != nil && w.sent > 0:
		c.mu.Unlock()
		return true, true
	case w.conn != nil:
		if handed, _ := c.handOffLocked(w.conn); !handed {
			unwanted = w.conn
			c.inFlight--
		}
		w.conn = nil
	case w.granted:
		c.releaseLocked()
	default:
		w.canceled = true
		w.pre, w.req, w.ctx = nil, nil, nil // the request's Response goes back to its pool
		c.queue.waiting--
	}
	c.mu.Unlock()
	if unwanted != nil {
		c.closeConn(unwanted)
	}
	return granted, false
}

// release gives the caller's slot to the first waiter, if any, and
// reports whether it did; otherwise the slot is freed.
func (c *Client) release() bool {
	c.mu.Lock()
	granted := c.releaseLocked()
	c.mu.Unlock()
	return granted
}

func (c *Client) releaseLocked() bool {
	if w := c.queue.pop(); w != nil {
		grantLocked(w, nil)
		return true
	}
	c.inFlight--
	return false
}

// conn is one connection to the backend. The buffered reader reads through
// conn.Read, which arms ReadTimeout before each read from the socket.
type conn struct {
	nc          net.Conn
	br          *bufio.Reader
	readTimeout time.Duration
	sendTimeout time.Duration
	reused      bool
	dialTime    time.Duration // how long the dial took; 0 once reused
	kept        bool          // holds a place among the kept connections
	keepConn    bool          // sent with FCGI_KEEP_CONN (every kept connection is)
	idleSince   time.Time     // when it was last put in an idle set
	sending     atomic.Bool   // a body writer runs: no read deadline yet
	canceled    atomic.Bool   // the context watcher fired
	cancelFn    func()        // c.cancel, bound once so AfterFunc does not allocate it
	raw         rawConn       // liveness probe and send-then-wait (conn_linux.go)
	rio         rawio.Conn    // reads and writes (package rawio says why)
	deadlineSet bool          // writeAndWait set the read deadline for the next Read
}

// readers holds the read buffers of closed connections: a connection that
// is not kept lives for one request, and a fresh 16 KiB buffer for each
// was most of the bytes a request allocated.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferSize) }}

func newConn(nc net.Conn, network string, readTimeout, sendTimeout time.Duration) *conn {
	cn := &conn{nc: nc, readTimeout: readTimeout, sendTimeout: sendTimeout}
	cn.br = readers.Get().(*bufio.Reader)
	cn.br.Reset(cn)
	cn.cancelFn = cn.cancel
	cn.rio.Init(nc, network)
	cn.raw.init(cn.rio.RawConn())
	return cn
}

// dispose closes a connection for good and recycles its read buffer. It
// is called once, when nothing reads from the connection any more.
func (cn *conn) dispose() {
	cn.nc.Close()
	if cn.br != nil {
		cn.br.Reset(nil)
		readers.Put(cn.br)
		cn.br = nil
	}
}

func (cn *conn) Read(p []byte) (int, error) {
	if cn.deadlineSet {
		cn.deadlineSet = false
	} else if cn.readTimeout > 0 && !cn.sending.Load() {
		cn.setReadDeadline(time.Now().Add(cn.readTimeout))
	}
	return cn.rio.Read(p)
}

func (cn *conn) write(p []byte) (int, error) {
	if cn.sendTimeout > 0 {
		cn.nc.SetWriteDeadline(time.Now().Add(cn.sendTimeout))
		if cn.canceled.Load() {
			cn.nc.SetDeadline(aLongTimeAgo)
		}
	}
	return cn.rio.Write(p)
}

// writeAndWait writes a whole request and waits until the reply can be
// read, so that the first Read finds data (rawConn.sendWait says why).
// Where the socket buffer cannot take the request at once, the rest goes
// through write and nothing waits.
func (cn *conn) writeAndWait(p []byte) (int, error) {
	if cn.readTimeout > 0 {
		cn.setReadDeadline(time.Now().Add(cn.readTimeout))
	}
	n, werr, rerr := cn.raw.sendWait(p)
	switch {
	case werr != nil:
		return n, cn.opError("write", os.NewSyscallError("write", werr))
	case n < len(p):
		m, err := cn.write(p[n:])
		return n + m, err
	case rerr != nil:
		return n, cn.opError("read", rerr)
	}
	// The deadline just set covers the first read, which finds the reply.
	cn.deadlineSet = true
	return n, nil
}

// opError words a raw operation's failure as net.Conn's would be.
func (cn *conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: cn.nc.RemoteAddr().Network(), Source: cn.nc.LocalAddr(), Addr: cn.nc.RemoteAddr(), Err: err}
}

// setReadDeadline sets the read deadline without undoing a cancellation
// that raced with it: the watcher sets its flag before its deadline, so
// one of the two always sees the other.
func (cn *conn) setReadDeadline(t time.Time) {
	cn.nc.SetReadDeadline(t)
	if cn.canceled.Load() {
		cn.nc.SetDeadline(aLongTimeAgo)
	}
}

var aLongTimeAgo = time.Unix(1, 0)

// cancel runs when the request's context is done: a deadline in the past
// wakes every blocked read and write.
func (cn *conn) cancel() {
	cn.canceled.Store(true)
	cn.nc.SetDeadline(aLongTimeAgo)
}
