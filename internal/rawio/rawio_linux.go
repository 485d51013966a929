package rawio

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Conn does one connection's raw reads and writes. Its callbacks are
// bound once, so that an operation allocates nothing; each direction's
// state is one op, so that calls in one direction take turns (as
// net.Conn's do, under its own locks) while a Read and a Write may run
// at the same time. Without a RawConn it reads and writes through the
// net.Conn.
type Conn struct {
	nc      net.Conn
	network string // for errors, as net.Conn words them
	raw     syscall.RawConn
	rd      op
	wr      op
	// rdTimeout and wrTimeout bound each wait of a read or a write
	// (nanoseconds; 0 for none): see SetReadTimeout and SetWriteTimeout.
	rdTimeout, wrTimeout atomic.Int64
	dl                   readDeadline
}

// op is the state of one read or one write.
type op struct {
	mu    sync.Mutex
	p     []byte
	n     int
	flags int // send flags of a write
	errno syscall.Errno
	fn    func(fd uintptr) bool
	// armed is how much of p had gone when the deadline was last set
	// (-1: not set in this operation), so that the deadline moves only
	// after progress.
	armed int
	// file, off and left are a SendFile's source.
	file       uintptr
	off, left  int64
	sendfileFn func(fd uintptr) bool
}

// Init binds c to nc, a connection that network ("tcp4", "unix", ...; ""
// for its address's) listened or dialled with. Only the net package's
// own TCP and unix connections are read raw: their descriptors are
// non-blocking, and a wrapper that embeds one may mean its own Read and
// Write to be used.
func (c *Conn) Init(nc net.Conn, network string) {
	c.nc, c.network = nc, network
	if network == "" && nc.RemoteAddr() != nil {
		c.network = nc.RemoteAddr().Network()
	}
	var raw syscall.RawConn
	var err error
	switch t := nc.(type) {
	case *net.TCPConn:
		raw, err = t.SyscallConn()
	case *net.UnixConn:
		raw, err = t.SyscallConn()
	}
	if raw == nil || err != nil {
		return
	}
	c.raw = raw
	c.rd.fn, c.wr.fn = c.readFD, c.writeFD
}

// RawConn is nc's RawConn, nil if it is not read raw.
func (c *Conn) RawConn() syscall.RawConn { return c.raw }

// Read reads as net.Conn's Read does, with the same errors.
func (c *Conn) Read(p []byte) (int, error) {
	if c.raw == nil {
		return c.nc.Read(p)
	}
	if len(p) == 0 {
		// As net.Conn's: an error only if the connection is closed.
		return 0, c.failure("read", c.raw.Control(noop), 0)
	}
	c.rd.mu.Lock()
	c.rd.p, c.rd.n, c.rd.errno = p, 0, 0
	if t := c.rdTimeout.Load(); t > 0 {
		// A read returns with the first bytes that arrive: one deadline
		// per read is a bound between two successive reads.
		_ = c.dl.set(c.nc, time.Now().Add(time.Duration(t)))
	}
	err := c.WaitRead(c.rd.fn)
	n, errno := c.rd.n, c.rd.errno
	c.rd.p = nil
	c.rd.mu.Unlock()
	if err := c.failure("read", err, errno); err != nil || n > 0 {
		return n, err
	}
	return 0, io.EOF
}

func noop(uintptr) {}

// WaitRead runs fn under RawConn's Read, as Read runs its own: fn
// returns false to wait until the connection is readable, until the read
// deadline.
func (c *Conn) WaitRead(fn func(fd uintptr) bool) error {
	err := c.raw.Read(fn)
	for err != nil && c.dl.early(c.nc, err) {
		err = c.raw.Read(fn)
	}
	return err
}

// SetReadTimeout bounds each Read's wait for data by d, from the start of
// that Read (nginx's client_body_timeout: between two successive reads);
// 0 ends the bound. The read deadline the last Read set stays until the
// connection's owner sets another, so what the owner reads next (an
// engine discarding an unread body) is still bounded.
func (c *Conn) SetReadTimeout(d time.Duration) { c.rdTimeout.Store(int64(d)) }

// SetWriteTimeout bounds how long a Write, WriteMore or SendFile may wait
// without a byte going out (nginx's send_timeout, which runs between two
// successive writes that move data, not over a whole response): the
// deadline is set when the socket first fills and moved after every call
// that sent something, and cleared when the operation ends. The fast
// path, a write the socket takes at once, touches no deadline. 0 means no
// bound. While it is set, these operations own the connection's write
// deadline: one set by another caller (crypto/tls's close_notify) gives
// way to send_timeout when the socket fills, and is cleared at the end.
func (c *Conn) SetWriteTimeout(d time.Duration) { c.wrTimeout.Store(int64(d)) }

// arm moves the write deadline a write timeout ahead when the operation
// made progress (done bytes) since it last did; it runs under
// RawConn.Write just before a wait.
func (c *Conn) arm(done int) {
	t := c.wrTimeout.Load()
	if t <= 0 || c.wr.armed == done {
		return
	}
	c.wr.armed = done
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Duration(t)))
}

// disarm clears a deadline the operation set.
func (c *Conn) disarm() {
	if c.wr.armed >= 0 {
		_ = c.nc.SetWriteDeadline(time.Time{})
	}
}

// readFD runs under RawConn.Read; false means "wait until readable".
func (c *Conn) readFD(fd uintptr) bool {
	p := c.rd.p
	for {
		n, errno := sysRead(fd, p)
		switch errno {
		case 0:
			c.rd.n = n
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		c.rd.errno = errno
		return true
	}
}

// Write writes all of p, or fails, as net.Conn's Write does.
func (c *Conn) Write(p []byte) (int, error) { return c.write(p, 0) }

// WriteMore writes p with MSG_MORE: the kernel holds a partial segment
// until the next write.
func (c *Conn) WriteMore(p []byte) (int, error) { return c.write(p, syscall.MSG_MORE) }

func (c *Conn) write(p []byte, flags int) (int, error) {
	if c.raw == nil {
		return c.nc.Write(p)
	}
	c.wr.mu.Lock()
	c.wr.p, c.wr.n, c.wr.flags, c.wr.errno, c.wr.armed = p, 0, flags, 0, -1
	err := c.raw.Write(c.wr.fn)
	n, errno := c.wr.n, c.wr.errno
	c.disarm()
	c.wr.p = nil
	c.wr.mu.Unlock()
	return n, c.failure("write", err, errno)
}

// writeFD runs under RawConn.Write; false means "wait until writable".
func (c *Conn) writeFD(fd uintptr) bool {
	n, errno := WriteFD(fd, c.wr.p[c.wr.n:], c.wr.flags)
	c.wr.n += n
	switch errno {
	case 0:
		return true
	case syscall.EAGAIN:
		c.arm(c.wr.n)
		return false
	}
	c.wr.errno = errno
	return true
}

// SendFile sends n bytes of f from offset with sendfile(2), under the
// write timeout as Write is; it returns how much went. f's own offset
// does not move. An error that says sendfile cannot be used for these two
// descriptors before anything went, or a file already closed, is
// returned as ErrNoSendFile.
func (c *Conn) SendFile(f *os.File, offset, n int64) (int64, error) {
	if c.raw == nil {
		return 0, ErrNoSendFile
	}
	fc, err := f.SyscallConn()
	if err != nil {
		return 0, ErrNoSendFile
	}
	c.wr.mu.Lock()
	defer c.wr.mu.Unlock()
	if c.wr.sendfileFn == nil {
		c.wr.sendfileFn = c.sendfileFD
	}
	c.wr.off, c.wr.left, c.wr.errno, c.wr.armed = offset, n, 0, -1
	var werr error
	cerr := fc.Control(func(in uintptr) {
		c.wr.file = in
		werr = c.raw.Write(c.wr.sendfileFn)
	})
	sent, errno := n-c.wr.left, c.wr.errno
	c.disarm()
	if cerr != nil {
		// f was closed (by its owner, meanwhile): nothing went.
		return 0, ErrNoSendFile
	}
	if sent == 0 && (errno == syscall.EINVAL || errno == syscall.ENOSYS || errno == syscall.EOPNOTSUPP) {
		return 0, ErrNoSendFile
	}
	return sent, c.failure("write", werr, errno)
}

// ErrNoSendFile says a SendFile sent nothing because sendfile(2) cannot
// be used here: the caller copies instead.
var ErrNoSendFile = errors.New("rawio: sendfile not available")

// sendfileFD runs under RawConn.Write; false means "wait until writable".
func (c *Conn) sendfileFD(fd uintptr) bool {
	for c.wr.left > 0 {
		chunk := min(c.wr.left, 1<<30)
		m, errno := sysSendfile(fd, c.wr.file, &c.wr.off, chunk)
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			c.arm(int(c.wr.off))
			return false
		case errno != 0:
			c.wr.errno = errno
			return true
		case m == 0:
			// The file ended early (it shrank): the caller sees the
			// short count.
			return true
		}
		c.wr.left -= int64(m)
	}
	return true
}

// WriteFD writes p to the non-blocking socket fd with raw send calls
// (flags, and MSG_NOSIGNAL: a closed peer is an EPIPE, not a signal) until
// all of it went, the socket is full (EAGAIN) or a call fails; it returns
// how much went and the errno that stopped it, 0 when all went.
func WriteFD(fd uintptr, p []byte, flags int) (int, syscall.Errno) {
	n := 0
	for n < len(p) {
		m, errno := sysSend(fd, p[n:], flags)
		switch errno {
		case 0:
			n += m
		case syscall.EINTR:
		default:
			return n, errno
		}
	}
	return n, 0
}

// failure words an operation's failure, if any, as net.Conn's would be:
// err is RawConn's (an OpError "raw-read", "raw-write" or "raw-control"),
// errno the system call's.
func (c *Conn) failure(op string, err error, errno syscall.Errno) error {
	switch {
	case err != nil:
		if oe, ok := err.(*net.OpError); ok {
			err = oe.Err
		}
	case errno != 0:
		err = os.NewSyscallError(op, errno)
	default:
		return nil
	}
	return &net.OpError{Op: op, Net: c.network, Source: c.nc.LocalAddr(), Addr: c.nc.RemoteAddr(), Err: err}
}
