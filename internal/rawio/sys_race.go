//go:build linux && race

package rawio

import (
	"syscall"
	"unsafe"
)

// Under the race detector the calls go through the syscall package's
// Read and Write, which tell the detector that a write to a socket
// happens before the read of what it wrote; raw calls would leave that
// out and report races between goroutines that a socket orders.
func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), p)
	return n, errnoOf(err)
}

func sysSend(fd uintptr, p []byte, flags int) (int, syscall.Errno) {
	if flags != 0 {
		// No annotation here: the plain write that follows a MSG_MORE
		// write carries it.
		n, _, errno := syscall.Syscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
			uintptr(flags|syscall.MSG_NOSIGNAL), 0, 0)
		return int(n), errno
	}
	n, err := syscall.Write(int(fd), p)
	return n, errnoOf(err)
}

func errnoOf(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	if errno, ok := err.(syscall.Errno); ok {
		return errno
	}
	return syscall.EIO
}

func sysSendfile(out, in uintptr, off *int64, n int64) (int, syscall.Errno) {
	m, err := syscall.Sendfile(int(out), int(in), off, int(n))
	return m, errnoOf(err)
}
