// This file holds the write side of edge's HTTP/2 connections. x/net/http2
// flushes its frame buffer whenever its write queue runs empty, which with
// several streams answered by separate handlers means one TLS record and
// one system call per response (36% of edge's CPU at 10 streams per
// connection). coalescedConn hands those flushes to one writer goroutine
// per connection: what arrives while it is writing goes out together in
// the next write, as nginx's event loop sends everything a loop iteration
// produced. Nothing waits for a timer, so a lone response is not delayed.
package h2

import (
	"crypto/tls"
	"net"
	"sync"
	"time"

	"edge/proxy"
)

// coalesceLimit bounds the bytes a connection may have waiting; a writer
// beyond it blocks until the socket takes them (backpressure).
const coalesceLimit = 256 << 10

// coalescedConn is a connection whose writes are batched. Reads go
// straight to the underlying connection.
type coalescedConn struct {
	net.Conn
	info    *proxy.ConnInfo
	mu      sync.Mutex
	cond    sync.Cond
	pending []byte // bytes accepted but not yet written
	spare   []byte // the buffer the writer last used, for reuse
	err     error  // the first write error; later writes fail with it
	writing bool   // the writer goroutine is running
	closing bool

	// The writer leaves a connection that wrote nothing for writerIdle,
	// with its buffers, and the next write starts another: an idle h2
	// connection then holds no goroutine of edge's own (issue 20: its
	// stack was 8 KiB of the 45 KB an idle connection cost).
	lastWrite time.Time   // when the writer last found nothing pending
	idle      *time.Timer // checks an idle writer; armed while it waits
	armed     bool
	retire    bool // the writer is to leave

	guard *h2Guard  // the client's frames, checked as they are read
	out   outFrames // the frames written, followed for the guard
}

func newCoalescedConn(c net.Conn, info *proxy.ConnInfo, guard *h2Guard) *coalescedConn {
	cc := &coalescedConn{Conn: c, info: info, guard: guard}
	cc.cond.L = &cc.mu
	return cc
}

// Read reads the client's frames through the guard.
func (c *coalescedConn) Read(p []byte) (int, error) { return c.guard.read(c.Conn, p) }

// Write queues p for the writer goroutine and returns at once, unless
// coalesceLimit bytes are already waiting.
func (c *coalescedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	for c.err == nil && len(c.pending) >= coalesceLimit {
		c.cond.Wait()
	}
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return 0, err
	}
	c.pending = append(c.pending, p...)
	c.out.scan(p, c.guard)
	c.startWriter()
	c.cond.Broadcast()
	c.mu.Unlock()
	return len(p), nil
}

// writerIdle is how long the writer waits for more before it leaves. A
// busy connection keeps one writer (a goroutine made per burst would
// grow its stack through crypto/tls every time); one that waits for its
// next page as long as an HTTP/1 connection waits before it parks
// (proxy/h1's parkAfter) gives it back.
const writerIdle = 250 * time.Millisecond

// startWriter makes sure a writer runs; c.mu is held.
func (c *coalescedConn) startWriter() {
	c.retire = false
	if !c.writing {
		c.writing = true
		go c.writeLoop()
	}
}

// idleCheck runs writerIdle after the writer began to wait: the writer
// leaves if nothing came since, or the check comes again when it could.
func (c *coalescedConn) idleCheck() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed = false
	if !c.writing || len(c.pending) > 0 || c.closing {
		return
	}
	if left := writerIdle - time.Since(c.lastWrite); left > 0 {
		c.armed = true
		c.idle.Reset(left)
		return
	}
	c.retire = true
	c.cond.Broadcast()
}

// waitIdle notes that the writer found nothing to write and makes sure a
// check will come; c.mu is held.
func (c *coalescedConn) waitIdle() {
	c.lastWrite = time.Now()
	if c.armed {
		return
	}
	c.armed = true
	if c.idle == nil {
		c.idle = time.AfterFunc(writerIdle, c.idleCheck)
	} else {
		c.idle.Reset(writerIdle)
	}
}

// writeLoop writes whatever is pending, in order, until the connection is
// closed or a write fails.
func (c *coalescedConn) writeLoop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if len(c.pending) == 0 && !c.closing && c.err == nil {
			c.waitIdle()
		}
		for len(c.pending) == 0 && !c.closing && c.err == nil && !c.retire {
			c.cond.Wait()
		}
		if len(c.pending) == 0 || c.err != nil {
			if c.retire && !c.closing && c.err == nil {
				c.spare = nil // an idle connection keeps no buffer
			}
			c.writing, c.retire = false, false
			c.cond.Broadcast()
			return
		}
		data := c.pending
		c.pending = c.spare[:0]
		c.mu.Unlock()
		_, err := c.Conn.Write(data) // bounded by send_timeout (ConnInfo.Raw)
		c.mu.Lock()
		if cap(data) <= coalesceLimit*2 {
			c.spare = data[:0]
		}
		if err != nil {
			c.err = err
		}
		c.cond.Broadcast()
	}
}

// Close sends what is pending, then closes the connection. A connection
// the guard cut off gets a GOAWAY with ENHANCE_YOUR_CALM last, when what
// was written ends on a frame boundary.
func (c *coalescedConn) Close() error {
	c.mu.Lock()
	if c.guard.tripped.Load() {
		// nginx closes a flooding connection at once: what is left goes
		// out within a second or not at all.
		if c.info.Raw != nil {
			c.info.Raw.SetWriteTimeout(time.Second)
		}
		// A GOAWAY already sent (keepalive_requests) named the last
		// stream; a second one must not name a later one (RFC 9113 6.8).
		if c.err == nil && c.out.aligned() && !c.out.goAway {
			c.pending = append(c.pending, goAwayFrame(c.guard.lastStream.Load())...)
			c.startWriter()
		}
	}
	c.closing = true
	c.cond.Broadcast()
	for c.writing {
		c.cond.Wait()
	}
	if c.idle != nil {
		c.idle.Stop()
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

// tlsCoalescedConn is a coalescedConn over TLS. Its ConnectionState lets
// x/net/http2 check the protocol version and cipher suite of an h2
// connection; plain (h2c) connections use coalescedConn, which has none,
// so they are not mistaken for TLS.
type tlsCoalescedConn struct{ *coalescedConn }

func (c tlsCoalescedConn) ConnectionState() tls.ConnectionState {
	if tc, ok := c.Conn.(interface{ ConnectionState() tls.ConnectionState }); ok {
		return tc.ConnectionState()
	}
	return tls.ConnectionState{}
}
