// queue.go holds the wait queue that bounds a Client's requests in
// flight by MaxConns: slots, the FIFO of waiting requests, their
// timeouts and cancellation, and the hand-off of a finished connection
// (with its slot, and the waiting request written on it) to the first
// waiter.
package fastcgi

import (
	"context"
	"fmt"
	"sync"
	"time"
)

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
