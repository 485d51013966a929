package h1

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"edge/conf"
	"edge/proxy"
)

// parker holds idle HTTP/1 keep-alive connections the way nginx's event
// loop does: a descriptor in an epoll set and a deadline, with no
// goroutine, engine context or read buffer behind it (issue 20: an idle
// connection cost edge 18 KB, a goroutine and fasthttp's 32 KiB reader,
// against nginx's 0.5 KB). A connection that has waited parkAfter for its
// next request leaves the engine (tcpEdgeConn.Read makes the wait end
// like a close, which the engine's Close lets through: h1conn.parking)
// and waits here as its keptConn and a duplicate of its descriptor, its
// wrapper and net.TCPConn closed; when the client sends again, or closes,
// a worker makes a TCPConn and a wrapper again and serves it from where
// it stood (resume). keepalive_timeout is kept by the same loop, in one
// queue per timeout: connections park in time order, so each queue is
// already sorted by deadline.
//
// Whoever takes a connection out of conns (a wake-up, its deadline,
// closeParked) owns it and its descriptor from then on. The descriptor's
// registration is one-shot; the owner deletes it (resume, under the
// lock, while the epoll set is open) or closes the descriptor, the
// socket's last, which takes it out of the set.
type parker struct {
	s    *Adapter
	once sync.Once
	err  error // the epoll set could not be made: nothing parks

	epfd int
	// wake (a pipe) interrupts the loop's wait: a queue's first
	// connection may expire before anything the loop waits for.
	wakeR, wakeW int

	epoch time.Time

	mu     sync.Mutex
	next   uint64 // tokens; 0 is the pipe's
	conns  map[uint64]*keptConn
	queues map[time.Duration]*parkQueue
	// stopping: the server stops (stop); nothing parks any more and the
	// loop closes its descriptors, after which closed is set.
	stopping, closed bool
}

// parkAfter is how long a kept connection waits for its next request in
// the engine before it parks. Under load the next request comes within
// microseconds and never parks, so the engine's fast path stays as it
// is; a browser's connection between two pages parks. Until it parks a
// connection holds its goroutine, fasthttp's context and its 32 KiB
// reader, so that a burst of connections costs about what parkAfter's
// worth of them hold, and the runtime keeps some of that (the collector's
// bitmaps, poll descriptors, stacks) after they park: 2,000 idle
// connections opened at once cost 1.6 KB each with a quarter of a second
// here, 1.1 KB with a twentieth (issue 20, docs/performance.md).
const parkAfter = 50 * time.Millisecond

type parkQueue struct {
	entries []parkEntry // by deadline; an entry whose token left conns is stale
}

type parkEntry struct {
	token    uint64
	deadline int64 // since the parker's epoch, in nanoseconds (monotonic)
}

func (p *parker) start() {
	p.epfd, p.err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if p.err != nil {
		return
	}
	var fds [2]int
	if p.err = syscall.Pipe2(fds[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); p.err != nil {
		syscall.Close(p.epfd)
		return
	}
	p.wakeR, p.wakeW = fds[0], fds[1]
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN}
	if p.err = syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_ADD, p.wakeR, &ev); p.err != nil {
		syscall.Close(p.epfd)
		syscall.Close(p.wakeR)
		syscall.Close(p.wakeW)
		return
	}
	p.mu.Lock()
	p.epoch = time.Now()
	p.conns = map[uint64]*keptConn{}
	p.queues = map[time.Duration]*parkQueue{}
	p.mu.Unlock()
	go p.loop()
}

// park holds c until its client sends or the engine's wait would have
// ended (the deadline it set, from the last request's
// keepalive_timeout). What is kept is c.kept and a duplicate of the
// socket's descriptor; c and its TCPConn are closed, even when it cannot
// park (false), and the caller then ends the connection.
func (p *parker) park(c *tcpEdgeConn) bool {
	p.mu.Lock()
	stopping := p.stopping
	p.mu.Unlock()
	if stopping {
		return false
	}
	p.once.Do(p.start)
	k := c.kept
	raw := c.raw.Raw.RawConn()
	if p.err != nil || k == nil || raw == nil {
		return false
	}
	fd := -1
	var err error
	if cerr := raw.Control(func(sfd uintptr) { fd, err = dupCloexec(int(sfd)) }); cerr != nil || err != nil {
		return false
	}
	info := c.info
	k.h1, k.requestsBase = info.h1, info.requestsBase
	k.watch, k.watchOff = info.head.rest()
	deadline := int64(info.idleDeadline.Sub(p.epoch))
	keepalive := info.Keepalive
	p.mu.Lock()
	k.live = nil // a stop from now on finds it between two wrappers
	p.mu.Unlock()
	info.Conn, info.Raw = nil, nil
	info.Idle.Store(true) // the engine's end made it false
	c.TCPConn.Close()     // the duplicate keeps the socket open
	p.s.parked()
	p.mu.Lock()
	if p.stopping || k.closed {
		p.mu.Unlock()
		syscall.Close(fd)
		return false
	}
	p.next++
	token := p.next
	// Armed under the lock, so that the wake-up cannot look for the token
	// before it is in conns.
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | epollOneShot,
		Fd: int32(token), Pad: int32(token >> 32)}
	if err := syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		p.mu.Unlock()
		syscall.Close(fd)
		return false
	}
	k.fd, k.token = int32(fd), token
	p.conns[token] = k
	// Connections with one keepalive_timeout park in the order their waits
	// began, give or take the scheduler: their queue is in deadline order.
	q := p.queues[keepalive]
	if q == nil {
		q = &parkQueue{}
		p.queues[keepalive] = q
	}
	first := len(q.entries) == 0
	q.entries = append(q.entries, parkEntry{token, deadline})
	if len(q.entries) > 64 && len(q.entries) > 2*len(p.conns) {
		q.compact(p.conns)
	}
	if first {
		p.wake()
	}
	p.mu.Unlock()
	return true
}

// dupCloexec duplicates a descriptor, close-on-exec.
func dupCloexec(fd int) (int, error) {
	for {
		nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return -1, errno
		}
		return int(nfd), nil
	}
}

// resume serves again a parked connection whose client sent or closed,
// taken out of the parker with its descriptor fd: a TCPConn is made of
// it, and a wrapper of what was kept, with the engine instance it had.
func (p *parker) resume(k *keptConn, fd int) {
	p.mu.Lock()
	if !p.closed {
		// Out of the epoll set, as the descriptor is about to close while
		// its socket stays open (the TCPConn's duplicate).
		syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
	}
	p.mu.Unlock()
	f := os.NewFile(uintptr(fd), "")
	nc, err := net.FileConn(f) // a duplicate of fd
	f.Close()
	tc, _ := nc.(*net.TCPConn)
	if tc == nil {
		if nc != nil {
			nc.Close()
		}
		if err == nil {
			err = errors.New("not a TCP socket")
		}
		p.s.errLog.Logf(conf.LevelAlert, "a parked connection could not be served again (%v)", err)
		k.info.Finish()
		return
	}
	ec := &tcpEdgeConn{TCPConn: tc, parker: p, kept: k}
	info := ec.initState(k.info)
	info.h1, info.requestsBase, info.resumed = k.h1, k.requestsBase, true
	info.head.restore(k.watch, k.watchOff)
	ec.raw.Init(tc, k.network)
	info.Conn = tc
	info.UseRaw(&ec.raw.Raw)
	p.mu.Lock()
	closed := k.closed
	if !closed {
		k.live = ec
	}
	p.mu.Unlock()
	if closed {
		tc.Close()
		k.info.Finish()
		return
	}
	info.Idle.Store(false)
	if !p.s.runHTTP1(ec, info) {
		k.info.Finish()
	}
}

// epollOneShot is EPOLLONESHOT, which package syscall spells as a
// negative int.
const epollOneShot = 1 << 30

// wake interrupts the loop's wait; p.mu is held, so that the pipe is
// still open (a closed descriptor's number may name another file).
func (p *parker) wake() {
	if p.closed {
		return
	}
	var b [1]byte
	syscall.Write(p.wakeW, b[:]) // a full pipe already wakes the loop
}

// stop ends the loop, which closes its epoll set and pipe (Shutdown and
// Close, once the connections parked were closed): a server made and
// stopped, as tests do by the hundred, leaves no goroutine or
// descriptor behind.
func (p *parker) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopping {
		return
	}
	p.stopping = true
	if p.conns != nil { // the loop runs
		p.wake()
	}
}

// take removes a parked connection, returning it and its descriptor when
// the caller now owns them (p.mu is held).
func (p *parker) take(token uint64) (*keptConn, int) {
	k := p.conns[token]
	if k == nil {
		return nil, -1
	}
	delete(p.conns, token)
	fd := int(k.fd)
	k.token, k.fd = 0, -1
	return k, fd
}

// end closes a parked connection taken out of the parker.
func end(k *keptConn, fd int) {
	syscall.Close(fd)
	k.info.Finish()
}

// count is how many connections are parked.
func (p *parker) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// closeParked closes info's connection if it is a plain-TCP one, which
// may have parked (Shutdown, Close), and reports whether it is: parked,
// it ends here; served, its socket closes under the engine; between two
// wrappers, whoever makes the next closes it.
func (p *parker) closeParked(ci *proxy.ConnInfo) bool {
	k, _ := ci.Adapter.Load().(*keptConn)
	if k == nil {
		return false
	}
	p.mu.Lock()
	fd := -1
	var live *tcpEdgeConn
	switch {
	case k.token != 0:
		k, fd = p.take(k.token)
	case k.live != nil:
		live = k.live
	default:
		k.closed = true
	}
	p.mu.Unlock()
	if fd >= 0 {
		end(k, fd)
	}
	if live != nil {
		live.TCPConn.Close()
	}
	return true
}

func (p *parker) loop() {
	events := make([]syscall.EpollEvent, 128)
	for {
		n, err := syscall.EpollWait(p.epfd, events, p.expire())
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			p.s.errLog.Logf(conf.LevelAlert, "epoll_wait() failed (%v)", err)
			time.Sleep(time.Second)
			continue
		}
		for _, ev := range events[:n] {
			token := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
			if token == 0 {
				var b [64]byte
				syscall.Read(p.wakeR, b[:])
				if p.closeIfStopping() {
					return
				}
				continue
			}
			p.mu.Lock()
			k, fd := p.take(token)
			p.mu.Unlock()
			if k != nil {
				p.s.run(func() { p.resume(k, fd) })
			}
		}
	}
}

// closeIfStopping closes the loop's descriptors once the server stops,
// reporting whether it did. Connections still parked (none, after
// Shutdown or Close) are closed.
func (p *parker) closeIfStopping() bool {
	p.mu.Lock()
	if !p.stopping {
		p.mu.Unlock()
		return false
	}
	p.closed = true
	syscall.Close(p.epfd)
	syscall.Close(p.wakeR)
	syscall.Close(p.wakeW)
	type parked struct {
		k  *keptConn
		fd int
	}
	left := make([]parked, 0, len(p.conns))
	for token := range p.conns {
		k, fd := p.take(token)
		left = append(left, parked{k, fd})
	}
	p.mu.Unlock()
	for _, c := range left {
		end(c.k, c.fd)
	}
	return true
}

// expire closes the connections whose keepalive_timeout passed, as the
// engine did (nothing is sent or logged), and returns how many
// milliseconds the loop may wait (-1: until woken).
func (p *parker) expire() int {
	now := time.Now()
	since := int64(now.Sub(p.epoch))
	var expired []*keptConn
	var fds []int
	wait := time.Duration(-1)
	p.mu.Lock()
	for _, q := range p.queues {
		i := 0
		for ; i < len(q.entries) && q.entries[i].deadline <= since; i++ {
			if k, fd := p.take(q.entries[i].token); k != nil {
				expired, fds = append(expired, k), append(fds, fd)
			}
		}
		q.entries = q.entries[i:]
		if len(q.entries) > 0 {
			if w := time.Duration(q.entries[0].deadline - since); wait < 0 || w < wait {
				wait = w
			}
		}
	}
	p.mu.Unlock()
	for i, k := range expired {
		end(k, fds[i])
	}
	if wait < 0 {
		return -1
	}
	return int((wait + time.Millisecond - 1) / time.Millisecond)
}

// compact drops the entries of connections no longer parked.
func (q *parkQueue) compact(conns map[uint64]*keptConn) {
	kept := q.entries[:0]
	for _, e := range q.entries {
		if conns[e.token] != nil {
			kept = append(kept, e)
		}
	}
	clear(q.entries[len(kept):])
	q.entries = kept
}
