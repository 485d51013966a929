//go:build !linux

// conn_other.go is the liveness probe where no cheap one is written: a
// kept connection closed by the backend is then found by the retry on a
// fresh connection in Client.Do.
package fastcgi

import "net"

type connCheck struct{}

func (connCheck) init(net.Conn) {}

func (connCheck) alive() bool { return true }
