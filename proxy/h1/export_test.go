package h1

import "net"

// What the package's external tests (which serve through proxy/listen,
// itself an importer of h1) see of its insides.

// SetWriteHook sets writeHook, which sees every write of a TCP connection.
func SetWriteHook(f func(c *net.TCPConn, more bool)) { writeHook = f }

const (
	WriteBuffer = http1WriteBuffer
	ParkAfter   = parkAfter
)
