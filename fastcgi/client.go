// client.go holds the FastCGI client: the Client, its Request and the
// counters it keeps, and Do, which runs one request through the wait
// queue (queue.go), a connection (conn.go, idle.go) and the sending
// half (send.go), and returns the Response whose reading side is in
// response.go.
package fastcgi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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
	// SocketKeepalive turns TCP keep-alive probes on for a connection
	// this request opens (fastcgi_socket_keepalive).
	SocketKeepalive bool
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
		if r.connected {
			err = &ConnectedError{ConnectTime: r.ConnectTime, Err: err}
		}
		r.recycle()
		c.release()
		return nil, err
	}
	return r, nil
}

// ConnectedError is a request's failure that came once its connection
// was made (or taken from the kept ones), with how long that took, for
// $upstream_connect_time, which nginx shows for such a try; errors.Is
// sees the cause.
type ConnectedError struct {
	ConnectTime time.Duration
	Err         error
}

func (e *ConnectedError) Error() string { return e.Err.Error() }
func (e *ConnectedError) Unwrap() error { return e.Err }

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
