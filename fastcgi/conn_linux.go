// conn_linux.go holds the liveness probe for kept connections on Linux: a
// non-blocking MSG_PEEK recv tells a connection the backend closed while
// idle (it reads EOF) from one still open (it would block), without
// consuming anything.
package fastcgi

import (
	"net"
	"syscall"
	"unsafe"
)

// connCheck probes one connection. Its fields are bound once per
// connection so that a probe allocates nothing.
type connCheck struct {
	raw  syscall.RawConn
	fn   func(fd uintptr) bool // k.peek, bound once
	ok   bool
	byte [1]byte
}

func (k *connCheck) init(nc net.Conn) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	k.raw, k.fn = raw, k.peek
}

// alive reports whether the socket has neither reached EOF nor holds
// unread data: a kept connection between requests must have neither.
func (k *connCheck) alive() bool {
	if k.raw == nil {
		return true
	}
	k.ok = false
	if err := k.raw.Read(k.fn); err != nil {
		return false
	}
	return k.ok
}

// peek runs under RawConn.Read; returning true means "done, do not wait".
func (k *connCheck) peek(fd uintptr) bool {
	_, _, errno := syscall.Syscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&k.byte[0])), 1,
		syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	k.ok = errno == syscall.EAGAIN
	return true
}
