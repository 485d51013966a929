//go:build !linux

package rawio

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// Conn reads and writes through its net.Conn where no raw calls are
// written; its timeouts are a deadline set before each operation.
type Conn struct {
	nc                   net.Conn
	rdTimeout, wrTimeout atomic.Int64
	dl                   readDeadline
}

func (c *Conn) Init(nc net.Conn, network string) { c.nc = nc }
func (c *Conn) RawConn() syscall.RawConn         { return nil }

func (c *Conn) SetReadTimeout(d time.Duration)  { c.rdTimeout.Store(int64(d)) }
func (c *Conn) SetWriteTimeout(d time.Duration) { c.wrTimeout.Store(int64(d)) }

func (c *Conn) Read(p []byte) (int, error) {
	if t := c.rdTimeout.Load(); t > 0 {
		_ = c.dl.set(c.nc, time.Now().Add(time.Duration(t)))
	}
	return c.nc.Read(p) // never lazy here (SetReadDeadlineLazy)
}

// WaitRead is Linux's; RawConn is nil here.
func (c *Conn) WaitRead(fn func(fd uintptr) bool) error {
	return errors.New("rawio: no raw reads here")
}

func (c *Conn) Write(p []byte) (int, error) {
	if t := c.wrTimeout.Load(); t > 0 {
		_ = c.nc.SetWriteDeadline(time.Now().Add(time.Duration(t)))
	}
	return c.nc.Write(p)
}

func (c *Conn) WriteMore(p []byte) (int, error) { return c.Write(p) }

func (c *Conn) SendFile(f *os.File, offset, n int64) (int64, error) { return 0, ErrNoSendFile }

// ErrNoSendFile says a SendFile sent nothing because sendfile(2) cannot
// be used here: the caller copies instead.
var ErrNoSendFile = errors.New("rawio: sendfile not available")
