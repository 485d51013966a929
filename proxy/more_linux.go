// more_linux.go sends the first part of a response with MSG_MORE.
package proxy

import (
	"net"
	"os"
	"syscall"
	"unsafe"
)

// writeMore writes p to c with MSG_MORE: the kernel holds a partial
// segment until the next write, which carries the rest of the response,
// as nginx's tcp_nopush holds headers until the file follows. A client
// is then woken once for a response of two writes instead of twice.
func writeMore(c *net.TCPConn, p []byte) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return c.Write(p)
	}
	var n int
	var errno syscall.Errno
	err = raw.Write(func(fd uintptr) bool {
		for n < len(p) {
			m, _, e := syscall.Syscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n),
				syscall.MSG_MORE|syscall.MSG_NOSIGNAL, 0, 0)
			switch e {
			case 0:
				n += int(m)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if errno != 0 {
		err = os.NewSyscallError("sendto", errno)
	}
	if err != nil {
		return n, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	return n, nil
}
