//go:build !linux

package rawio

import (
	"net"
	"syscall"
)

// Conn reads and writes through its net.Conn where no raw calls are
// written.
type Conn struct{ nc net.Conn }

func (c *Conn) Init(nc net.Conn, network string) { c.nc = nc }
func (c *Conn) RawConn() syscall.RawConn         { return nil }
func (c *Conn) Read(p []byte) (int, error)       { return c.nc.Read(p) }
func (c *Conn) Write(p []byte) (int, error)      { return c.nc.Write(p) }
func (c *Conn) WriteMore(p []byte) (int, error)  { return c.nc.Write(p) }
