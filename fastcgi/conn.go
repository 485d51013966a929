// conn.go holds one connection to the backend (conn: deadlines, raw
// writes, cancellation) and its life in a Client: taken from the idle
// set or dialled, then kept, handed on or closed after its response.
package fastcgi

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"edge/internal/rawio"
)

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
	d := rawio.Dialer(or(req.ConnectTimeout, c.ConnectTimeout), req.SocketKeepalive)
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
