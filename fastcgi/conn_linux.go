// conn_linux.go holds what edge does below net.Conn on Linux, through
// RawConn:
//
//   - the liveness probe for kept connections: a non-blocking MSG_PEEK recv
//     tells a connection the backend closed while idle (it reads EOF) from
//     one still open (it would block), without consuming anything;
//   - sending a complete request and then waiting for the reply, so that
//     the first read of the reply finds data (see sendWait);
//   - writing a queued request for its waiter without blocking (sendNow).
package fastcgi

import (
	"syscall"
	"unsafe"

	"edge/internal/rawio"
)

// rawConn holds one connection's RawConn and the state of its raw
// operations. Its callbacks are bound once per connection so that an
// operation allocates nothing.
type rawConn struct {
	raw  syscall.RawConn
	peek func(fd uintptr) bool // k.peekFD, bound once
	send func(fd uintptr) bool // k.sendFD, bound once
	now  func(fd uintptr) bool // k.nowFD, bound once
	ok   bool
	byte [1]byte

	out   []byte        // what sendFD writes
	n     int           // how much of out it wrote
	sent  bool          // all of out is written: now waiting
	errno syscall.Errno // the write's error, if it failed
}

func (k *rawConn) init(raw syscall.RawConn) {
	if raw == nil {
		return
	}
	k.raw, k.peek, k.send, k.now = raw, k.peekFD, k.sendFD, k.nowFD
}

// alive reports whether the socket has neither reached EOF nor holds
// unread data: a kept connection between requests must have neither.
func (k *rawConn) alive() bool {
	if k.raw == nil {
		return true
	}
	k.ok = false
	if err := k.raw.Read(k.peek); err != nil {
		return false
	}
	return k.ok
}

// peekFD runs under RawConn.Read; returning true means "done, do not wait".
func (k *rawConn) peekFD(fd uintptr) bool {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&k.byte[0])), 1,
		syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	k.ok = errno == syscall.EAGAIN
	return true
}

// sendWait writes p and, when all of it went at once, waits until the
// socket is readable (or the read deadline passes). It returns how much
// it wrote, the write's error and the wait's error; n < len(p) with no
// write error means the socket buffer filled (or there is no RawConn)
// and the caller writes the rest itself, without waiting.
//
// Why: net.Conn's Read first reads, and a read issued right after the
// request finds nothing yet (EAGAIN), parks, and reads again when the
// poller says so. nginx's epoll loop makes only the read that carries
// data. Waiting first is only safe when the wait was armed before the
// reply could arrive: Go's poller forgets readiness when a read or wait
// begins (pollReset), and the socket signals it once (edge-triggered).
// RawConn.Read arms the wait before it calls sendFD, which writes the
// request, so the reply's wake-up cannot be lost.
func (k *rawConn) sendWait(p []byte) (n int, werr, rerr error) {
	if k.raw == nil {
		return 0, nil, nil
	}
	k.out, k.n, k.sent, k.errno = p, 0, false, 0
	rerr = k.raw.Read(k.send)
	n, k.out = k.n, nil
	switch {
	case k.errno != 0:
		return n, k.errno, nil
	case !k.sent:
		return n, nil, nil
	}
	return n, nil, rerr
}

// sendFD runs under RawConn.Read: the first call writes, returning false
// ("wait for readable") once all is written; the call after the wait
// returns true.
func (k *rawConn) sendFD(fd uintptr) bool {
	if k.sent {
		return true
	}
	n, errno := rawio.WriteFD(fd, k.out[k.n:], 0)
	k.n += n
	switch errno {
	case 0:
	case syscall.EAGAIN:
		return true
	default:
		k.errno = errno
		return true
	}
	k.sent = true
	return false
}

// sendNow writes what of p the socket takes at once and never waits: it
// returns how much went (0 without a RawConn). A write error stops it
// there; the request's own goroutine meets the error on its next write
// or read.
func (k *rawConn) sendNow(p []byte) int {
	if k.raw == nil {
		return 0
	}
	k.out, k.n = p, 0
	_ = k.raw.Write(k.now) // an error comes before nowFD runs: nothing went
	n := k.n
	k.out, k.n = nil, 0
	return n
}

// nowFD runs under RawConn.Write and always returns true ("done"). Its
// write is raw, as edge's other socket reads and writes are (sendfile
// aside; package rawio says why); here that matters twice: the write runs
// under the hand-off's lock, and the PHP worker it wakes often takes the
// CPU before it returns.
func (k *rawConn) nowFD(fd uintptr) bool {
	n, _ := rawio.WriteFD(fd, k.out[k.n:], 0)
	k.n += n
	return true
}
