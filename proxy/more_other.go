//go:build !linux

package proxy

import "net"

// writeMore is a plain write where MSG_MORE is not written for.
func writeMore(c *net.TCPConn, p []byte) (int, error) { return c.Write(p) }
