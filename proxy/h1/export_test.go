package h1

import "net"

// What the package's external tests (which serve through proxy/listen,
// itself an importer of h1) see of its insides.

// SetWriteHook sets writeHook, which sees every write of a TCP connection.
func SetWriteHook(f func(c *net.TCPConn, more bool)) { writeHook = f }

// SetMirrorHook sets mirrorHook, which sees every body sent from a file
// mirror and whether it went by sendfile.
func SetMirrorHook(f func(fromFile bool)) {
	if f == nil {
		mirrorHook.Store(nil)
		return
	}
	mirrorHook.Store(&f)
}

const (
	WriteBuffer = http1WriteBuffer
	ParkAfter   = parkAfter
)

// ParkerClosed reports whether the parker's loop closed its epoll set
// and pipe.
func (s *Adapter) ParkerClosed() bool {
	s.parker.mu.Lock()
	defer s.parker.mu.Unlock()
	return s.parker.closed
}

// ParksAfterStop reports whether a connection could still park.
func (s *Adapter) ParksAfterStop() bool { return s.parker.park(&tcpEdgeConn{}) }

// ParkedViews counts the parked connections that still hold their
// wrapper, and through it a view of a request (its header view or body
// reader), which would keep the engine's context and the pipeline's
// Request from their pools: a parked connection keeps only its keptConn.
func (s *Adapter) ParkedViews() int {
	s.parker.mu.Lock()
	defer s.parker.mu.Unlock()
	n := 0
	for _, k := range s.parker.conns {
		if k.live != nil || k.info.Conn != nil || k.info.Raw != nil {
			n++
		}
	}
	return n
}
