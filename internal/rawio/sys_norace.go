//go:build linux && !race

package rawio

import (
	"syscall"
	"unsafe"
)

// sysRead and sysSend are the raw calls. p is not empty.
func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errno
}

func sysSend(fd uintptr, p []byte, flags int) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
		uintptr(flags|syscall.MSG_NOSIGNAL), 0, 0)
	return int(n), errno
}

// sysSendfile is sendfile(2) from in at *off to the socket out.
func sysSendfile(out, in uintptr, off *int64, n int64) (int, syscall.Errno) {
	m, _, errno := syscall.RawSyscall6(syscall.SYS_SENDFILE, out, in, uintptr(unsafe.Pointer(off)), uintptr(n), 0, 0)
	return int(m), errno
}
