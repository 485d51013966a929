package proxy

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"time"
)

// upstreamContext is the context an upstream request runs under: an
// HTTP/2 stream's, which its reset cancels; over HTTP/1, one that a
// client closing its connection cancels, as nginx's
// ngx_http_upstream_check_broken_connection notices such a client while
// its request waits for the upstream and ends it with 499 (unless
// *_ignore_client_abort). stop ends the watch; it never cancels, so a
// response still streaming from the upstream goes on.
//
// The watch starts only after ClientWatchAfter: a request answered
// faster costs nothing more (the watch is a goroutine waiting on the
// socket, and a read deadline to end it), and a client that gave up
// sooner is noticed then, at most that late. It peeks at the socket (MSG_PEEK), as nginx
// does: no byte and no error is the client's FIN, an error its reset, a
// byte a next request (or, over TLS, a record), and the watch then ends
// unknowing, as nginx's does.
func (rt *Site) upstreamContext(r *Request, ignoreAbort bool) (context.Context, func()) {
	if ignoreAbort {
		return context.Background(), func() {}
	}
	if r.Ctx != nil {
		return r.Ctx, func() {}
	}
	if r.Conn == nil || r.Conn.Raw == nil || r.Conn.Raw.RawConn() == nil {
		return context.Background(), func() {}
	}
	w := &clientWatch{info: r.Conn}
	after := ClientWatchAfter
	if r.acc.lim.hold.Holds() {
		// The slot goes back as soon as the client is seen gone, as in
		// nginx, whose event loop sees the close at once.
		after = limitConnWatchAfter
	}
	w.timer = time.AfterFunc(after, w.run)
	return w, w.stop
}

// ClientWatchAfter is 100 ms: with 1 ms, every PHP request of a loaded
// server (queued behind php-fpm's busy workers for a few milliseconds)
// ran the watch: edge ab's php-hello gave 0.84-0.93x nginx's requests
// per CPU-second (four runs) against 0.93-1.05x with 100 ms. A
// request holding a limit_conn slot is watched after 1 ms, so that a
// client that closes and comes again finds its slot free, as nginx's
// limit_conn.t expects.
const (
	ClientWatchAfter    = 100 * time.Millisecond
	limitConnWatchAfter = time.Millisecond
)

// clientWatch is the watch and the context it cancels, in one: the
// upstream clients register what a cancel must do (close the upstream
// connection) through its AfterFunc (package cancel), which costs them
// one small allocation (the stop function), where a context.WithCancel
// context and context.AfterFunc cost several per request.
type clientWatch struct {
	info  *ConnInfo
	timer *time.Timer

	mu    sync.Mutex
	state uint8         // watchIdle, watchRunning, watchOver
	ran   chan struct{} // closed when run returns; made when it starts
	err   error         // context.Canceled once the client is seen gone
	done  chan struct{} // Done's, made when first asked for
	// afters is what AfterFunc registered (in inline for the usual one or
	// two), nil once cancel took them.
	afters []afterEntry
	inline [2]afterEntry
}

type afterEntry struct {
	f       func()
	stopped bool
}

const (
	watchIdle uint8 = iota
	watchRunning
	watchOver
)

// Deadline, Done, Err and Value make the watch a context.Context: it has
// no deadline and no values, and is done when the client has closed.
func (w *clientWatch) Deadline() (time.Time, bool) { return time.Time{}, false }
func (w *clientWatch) Value(any) any               { return nil }

func (w *clientWatch) Done() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done == nil {
		w.done = make(chan struct{})
		if w.err != nil {
			close(w.done)
		}
	}
	return w.done
}

func (w *clientWatch) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// AfterFunc runs f, in its own goroutine, once the client is seen gone
// (at once if it already was); stop keeps it from running and reports
// whether it did, as context.AfterFunc's does.
func (w *clientWatch) AfterFunc(f func()) (stop func() bool) {
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	if w.afters == nil {
		w.afters = w.inline[:0]
	}
	i := len(w.afters)
	w.afters = append(w.afters, afterEntry{f: f})
	w.mu.Unlock()
	return func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		if i >= len(w.afters) || w.afters[i].stopped {
			return false // started, or stopped before
		}
		w.afters[i].stopped = true
		return true
	}
}

// cancel makes the context done and runs what AfterFunc registered.
func (w *clientWatch) cancel() {
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		return
	}
	w.err = context.Canceled
	if w.done != nil {
		close(w.done)
	}
	afters := w.afters
	w.afters = nil
	w.mu.Unlock()
	for _, a := range afters {
		if !a.stopped {
			go a.f()
		}
	}
}

// run waits for the client's socket to become readable and cancels when
// the client has closed.
func (w *clientWatch) run() {
	w.mu.Lock()
	if w.state != watchIdle {
		w.mu.Unlock()
		return
	}
	w.state = watchRunning
	w.ran = make(chan struct{})
	w.mu.Unlock()
	defer close(w.ran)
	closed := false
	var b [1]byte
	_ = w.info.Raw.WaitRead(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if errors.Is(err, syscall.EAGAIN) {
			return false // wait until it is readable (or stop's deadline)
		}
		closed = err != nil || n == 0
		return true
	})
	w.mu.Lock()
	w.state = watchOver
	w.mu.Unlock()
	if closed {
		w.cancel()
	}
}

// stop ends the watch; a wait in progress ends by a read deadline in the
// past, which is then cleared (the engine sets its own before its next
// read). Both go through the connection's rawio.Conn, which may hold the
// deadline lazily.
func (w *clientWatch) stop() {
	w.mu.Lock()
	state := w.state
	if state == watchIdle {
		w.state = watchOver
	}
	w.mu.Unlock()
	switch state {
	case watchIdle:
		w.timer.Stop()
	case watchRunning:
		_ = w.info.Raw.SetReadDeadline(time.Unix(1, 0))
		<-w.ran
		_ = w.info.Raw.SetReadDeadline(time.Time{})
	}
}

// clientClosed reports an upstream error that is the client's close
// (upstreamContext): nginx logs it at info and ends the request with 499.
func (rt *Site) clientClosed(r *Request, ctx context.Context) bool {
	if r.Ctx == nil && ctx.Err() != nil {
		rt.log.infof(r, "client prematurely closed connection while waiting for the upstream")
		return true
	}
	return false
}
