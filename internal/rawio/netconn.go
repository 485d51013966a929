package rawio

import (
	"net"
	"time"
)

// NetConn is a client's connection read and written with raw system
// calls (the package's comment says why); the rest of net.Conn is the
// connection's own.
type NetConn struct {
	net.Conn
	Raw Conn
}

// Init makes c's reads and writes Raw's.
func (r *NetConn) Init(c net.Conn, network string) {
	r.Conn = c
	r.Raw.Init(c, network)
}

func (r *NetConn) Read(p []byte) (int, error)  { return r.Raw.Read(p) }
func (r *NetConn) Write(p []byte) (int, error) { return r.Raw.Write(p) }

// SetReadDeadline moves the read deadline lazily (readDeadline): every
// read of the connection is Raw's, and so is every read deadline, the
// ones crypto/tls and the engines above it set included.
func (r *NetConn) SetReadDeadline(t time.Time) error { return r.Raw.SetReadDeadlineLazy(t) }

// SetDeadline sets the read deadline as SetReadDeadline does and the
// write deadline as the connection's own does.
func (r *NetConn) SetDeadline(t time.Time) error {
	if err := r.Raw.SetReadDeadlineLazy(t); err != nil {
		return err
	}
	return r.Conn.SetWriteDeadline(t)
}

// CloseWrite half-closes the connection when it can be (a lingering
// close after an error response).
func (r *NetConn) CloseWrite() error {
	if cw, ok := r.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
