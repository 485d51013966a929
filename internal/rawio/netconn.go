package rawio

import "net"

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

// CloseWrite half-closes the connection when it can be (a lingering
// close after an error response).
func (r *NetConn) CloseWrite() error {
	if cw, ok := r.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
