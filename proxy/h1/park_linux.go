package h1

import (
	"errors"
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
// and waits here; when the client sends again, or closes, a worker serves
// it from where it stood (Server.resumeHTTP1). keepalive_timeout is kept
// by the same loop, in one queue per timeout: connections park in time
// order, so each queue is already sorted by deadline.
//
// Whoever takes a connection out of conns (a wake-up, its deadline,
// closeParked) owns it from then on; the descriptor's registration is
// one-shot and is never deleted, so that no epoll call can name a
// descriptor that was closed and reused meanwhile: closing a descriptor
// takes it out of the set.
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
	conns  map[uint64]*tcpEdgeConn
	queues map[time.Duration]*parkQueue
	// stopping: the server stops (stop); nothing parks any more and the
	// loop closes its descriptors, after which closed is set.
	stopping, closed bool
}

// parkAfter is how long a kept connection waits for its next request in
// the engine before it parks. Under load the next request comes within
// microseconds and never parks, so the engine's fast path stays as it
// is; a browser's connection between two pages parks.
const parkAfter = 250 * time.Millisecond

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
	p.conns = map[uint64]*tcpEdgeConn{}
	p.queues = map[time.Duration]*parkQueue{}
	p.mu.Unlock()
	go p.loop()
}

// park holds c until its client sends or the engine's wait would have
// ended (the deadline it set, from the last request's
// keepalive_timeout); false when it cannot, and c is the caller's still.
func (p *parker) park(c *tcpEdgeConn) bool {
	p.mu.Lock()
	stopping := p.stopping
	p.mu.Unlock()
	if stopping {
		return false
	}
	p.once.Do(p.start)
	raw := c.raw.Raw.RawConn()
	if p.err != nil || raw == nil {
		return false
	}
	p.s.parked()
	p.mu.Lock()
	if p.stopping {
		p.mu.Unlock()
		return false
	}
	p.next++
	token := p.next
	p.conns[token] = c
	c.info.parkToken = token
	// Connections with one keepalive_timeout park in the order their waits
	// began, give or take the scheduler: their queue is in deadline order.
	q := p.queues[c.info.Keepalive]
	if q == nil {
		q = &parkQueue{}
		p.queues[c.info.Keepalive] = q
	}
	first := len(q.entries) == 0
	q.entries = append(q.entries, parkEntry{token, int64(c.info.idleDeadline.Sub(p.epoch))})
	if len(q.entries) > 64 && len(q.entries) > 2*len(p.conns) {
		q.compact(p.conns)
	}
	// Armed under the lock, so that the wake-up cannot look for the token
	// before it is in conns.
	var err error
	ctlErr := raw.Control(func(fd uintptr) {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | epollOneShot,
			Fd: int32(token), Pad: int32(token >> 32)}
		op := syscall.EPOLL_CTL_MOD
		if !c.info.epollAdded {
			op = syscall.EPOLL_CTL_ADD
		}
		if err = syscall.EpollCtl(p.epfd, op, int(fd), &ev); err == nil {
			c.info.epollAdded = true
		}
	})
	if err == nil {
		err = ctlErr
	}
	if err != nil {
		delete(p.conns, token)
		c.info.parkToken = 0
		p.mu.Unlock()
		return false
	}
	if first {
		p.wake()
	}
	p.mu.Unlock()
	return true
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

// take removes a parked connection, reporting whether the caller now
// owns it.
func (p *parker) take(token uint64) *tcpEdgeConn {
	c := p.conns[token]
	if c != nil {
		delete(p.conns, token)
		c.info.parkToken = 0
	}
	return c
}

// count is how many connections are parked.
func (p *parker) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// closeParked closes info's connection if it is parked (Shutdown, Close)
// and reports whether it was.
func (p *parker) closeParked(ci *proxy.ConnInfo) bool {
	info, _ := ci.Adapter.Load().(*h1conn)
	if info == nil {
		return false
	}
	p.mu.Lock()
	var c *tcpEdgeConn
	if info.parkToken != 0 {
		c = p.take(info.parkToken)
	}
	p.mu.Unlock()
	if c == nil {
		return false
	}
	c.TCPConn.Close()
	c.info.Finish()
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
			c := p.take(token)
			p.mu.Unlock()
			if c != nil {
				p.s.run(func() { p.s.resumeHTTP1(c) })
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
	left := make([]*tcpEdgeConn, 0, len(p.conns))
	for token := range p.conns {
		left = append(left, p.take(token))
	}
	p.mu.Unlock()
	for _, c := range left {
		c.TCPConn.Close()
		c.info.Finish()
	}
	return true
}

// expire closes the connections whose keepalive_timeout passed, as the
// engine did (nothing is sent or logged), and returns how many
// milliseconds the loop may wait (-1: until woken).
func (p *parker) expire() int {
	now := time.Now()
	since := int64(now.Sub(p.epoch))
	var expired []*tcpEdgeConn
	wait := time.Duration(-1)
	p.mu.Lock()
	for _, q := range p.queues {
		i := 0
		for ; i < len(q.entries) && q.entries[i].deadline <= since; i++ {
			if c := p.take(q.entries[i].token); c != nil {
				expired = append(expired, c)
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
	for _, c := range expired {
		c.TCPConn.Close()
		c.info.Finish()
	}
	if wait < 0 {
		return -1
	}
	return int((wait + time.Millisecond - 1) / time.Millisecond)
}

// compact drops the entries of connections no longer parked.
func (q *parkQueue) compact(conns map[uint64]*tcpEdgeConn) {
	kept := q.entries[:0]
	for _, e := range q.entries {
		if conns[e.token] != nil {
			kept = append(kept, e)
		}
	}
	clear(q.entries[len(kept):])
	q.entries = kept
}
