package rawio

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
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
}

// op is the state of one read or one write.
type op struct {
	mu    sync.Mutex
	p     []byte
	n     int
	flags int // send flags of a write
	errno syscall.Errno
	fn    func(fd uintptr) bool
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
	err := c.raw.Read(c.rd.fn)
	n, errno := c.rd.n, c.rd.errno
	c.rd.p = nil
	c.rd.mu.Unlock()
	if err := c.failure("read", err, errno); err != nil || n > 0 {
		return n, err
	}
	return 0, io.EOF
}

func noop(uintptr) {}

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
	c.wr.p, c.wr.n, c.wr.flags, c.wr.errno = p, 0, flags, 0
	err := c.raw.Write(c.wr.fn)
	n, errno := c.wr.n, c.wr.errno
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
		return false
	}
	c.wr.errno = errno
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
