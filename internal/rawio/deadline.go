package rawio

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// readDeadline is a connection's read deadline as its owner wants it
// (want) and as the net.Conn holds it (armed). Moving a net.Conn's
// deadline is a timer operation in the runtime (its lock, the timer
// heap, a clock read); an HTTP/1 connection's engine moves it twice a
// request (the keep-alive wait, then the head's timeout), as nginx's
// ngx_add_timer would, but nginx leaves a timer that would move by less
// than 300 ms alone (NGX_TIMER_LAZY_DELAY). Lazily (SetReadDeadlineLazy)
// a deadline that comes later than the armed one is only noted: when the
// armed one fires first, the read that it ended arms the wanted one and
// goes on (early), so a read ends at the wanted deadline exactly, and a
// kept connection under load moves its timer when it fires rather than
// on every request.
//
// Once the lazy form is used, every read deadline of the connection must
// be set through Conn (SetReadDeadline, SetReadDeadlineLazy, the read
// timeout) and every wait for it to be readable made through Conn (Read,
// WaitRead); before, armed and want follow what Conn set, and a fired
// deadline is always the caller's.
type readDeadline struct {
	mu    sync.Mutex
	lazy  atomic.Bool
	want  time.Time
	armed time.Time
}

// set moves the deadline to t at once.
func (d *readDeadline) set(nc net.Conn, t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.want, d.armed = t, t
	return nc.SetReadDeadline(t)
}

// setLazy moves the deadline to t, or notes t when the armed deadline
// comes no later (early arms t when that one fires).
func (d *readDeadline) setLazy(nc net.Conn, t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lazy.Store(true)
	d.want = t
	if !d.armed.IsZero() && (t.IsZero() || !t.Before(d.armed)) {
		return nil
	}
	d.armed = t
	return nc.SetReadDeadline(t)
}

// early reports that err is a deadline that fired before the wanted one,
// which it has armed in its place: the read is to be made again. It
// judges by the wanted deadline alone, not by what was armed: another
// goroutine may have moved both (an exact SetReadDeadline) between the
// fire and this call, and the read it woke must then wait for the new
// deadline too. A failure to arm it is a closed connection, which the
// read made again reports (a timeout would misname it).
func (d *readDeadline) early(nc net.Conn, err error) bool {
	if !d.lazy.Load() || !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.want.IsZero() && !time.Now().Before(d.want) {
		return false // the wanted deadline has passed: the timeout is the caller's
	}
	d.armed = d.want
	_ = nc.SetReadDeadline(d.want)
	return true
}

// SetReadDeadline sets the read deadline as net.Conn's does, at once.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.dl.set(c.nc, t) }

// SetReadDeadlineLazy sets the read deadline that reads end at, moving
// the connection's own only when t is earlier than the one armed
// (readDeadline says why and what it asks of the caller).
// A connection that is not read raw (its reads are net.Conn's own, which
// do not arm the wanted deadline) has it set at once.
func (c *Conn) SetReadDeadlineLazy(t time.Time) error {
	if c.RawConn() == nil {
		return c.dl.set(c.nc, t)
	}
	return c.dl.setLazy(c.nc, t)
}
