//go:build !linux

// conn_other.go stands in for conn_linux.go where no raw operations are
// written: a kept connection closed by the backend is then found by the
// retry on a fresh connection in Client.Do, and requests are sent with
// net.Conn's Write.
package fastcgi

import "syscall"

type rawConn struct{}

func (rawConn) init(syscall.RawConn) {}

func (rawConn) alive() bool { return true }

func (rawConn) sendWait([]byte) (int, error, error) { return 0, nil, nil }

func (rawConn) sendNow([]byte) int { return 0 }
