package rawio

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// countingConn counts the read deadlines set on it.
type countingConn struct {
	net.Conn
	sets []time.Time
}

func (c *countingConn) SetReadDeadline(t time.Time) error {
	c.sets = append(c.sets, t)
	return nil
}

// An HTTP/1 engine's pattern: the keep-alive wait's deadline, then the
// head's, request after request. Lazily, only a deadline earlier than
// the armed one moves the connection's.
func TestReadDeadlineLazyMoves(t *testing.T) {
	var d readDeadline
	c := &countingConn{}
	base := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	if err := d.setLazy(c, base.Add(60*time.Second)); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		now := base.Add(time.Duration(i) * time.Millisecond)
		d.setLazy(c, now.Add(75*time.Second)) // the keep-alive wait
		d.setLazy(c, now.Add(60*time.Second)) // the head
	}
	if len(c.sets) != 1 {
		t.Fatalf("the connection's deadline moved %d times, want once: %v", len(c.sets), c.sets)
	}
	// An earlier deadline is armed at once, and so is any exact one.
	d.setLazy(c, base.Add(time.Second))
	d.set(c, time.Time{})
	if len(c.sets) != 3 || !c.sets[1].Equal(base.Add(time.Second)) || !c.sets[2].IsZero() {
		t.Fatalf("sets = %v", c.sets)
	}
	// No deadline wanted: the armed one stays, and firing it is early.
	d.setLazy(c, base.Add(time.Minute))
	d.setLazy(c, time.Time{})
	if len(c.sets) != 4 {
		t.Fatalf("sets = %v", c.sets)
	}
	if !d.early(c, os.ErrDeadlineExceeded) || !c.sets[4].IsZero() {
		t.Fatalf("a fired deadline with none wanted was not early: %v", c.sets)
	}
}

// A read under a lazy deadline ends at the wanted deadline, not at an
// earlier armed one, and data that comes in between is read.
func TestReadDeadlineLazyRead(t *testing.T) {
	c, _, peer := pair(t, "tcp")
	c.SetReadDeadlineLazy(time.Now().Add(30 * time.Millisecond))
	c.SetReadDeadlineLazy(time.Now().Add(10 * time.Second)) // noted only
	go func() {
		time.Sleep(200 * time.Millisecond) // past the armed deadline
		peer.Write([]byte("x"))
	}()
	var b [8]byte
	if n, err := c.Read(b[:]); n != 1 || err != nil {
		t.Fatalf("Read = %d, %v: the armed deadline ended the read", n, err)
	}

	want := time.Now().Add(150 * time.Millisecond)
	c.SetReadDeadlineLazy(time.Now().Add(20 * time.Millisecond))
	c.SetReadDeadlineLazy(want)
	n, err := c.Read(b[:])
	if n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read = %d, %v, want the deadline", n, err)
	}
	if time.Now().Before(want) {
		t.Fatal("the read ended before the wanted deadline")
	}

	// A wait for readability goes on past an early deadline too, and an
	// exact deadline in the past ends it (how a client watch stops).
	c.SetReadDeadlineLazy(time.Now().Add(20 * time.Millisecond))
	c.SetReadDeadlineLazy(time.Time{})
	waited := make(chan error, 1)
	go func() {
		waited <- c.WaitRead(func(fd uintptr) bool {
			var p [1]byte
			_, _, err := syscall.Recvfrom(int(fd), p[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			return !errors.Is(err, syscall.EAGAIN)
		})
	}()
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-waited:
		t.Fatalf("the wait ended at the early deadline: %v", err)
	default:
	}
	c.SetReadDeadline(time.Unix(1, 0))
	if err := <-waited; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("WaitRead = %v, want the deadline", err)
	}
}

// firedWhileHeld holds c's deadline lock while the armed deadline fires
// under a blocked read, so that what runs in between (change) comes
// after the fire and before the read's early check, and returns the
// read's end.
func firedWhileHeld(t *testing.T, c *Conn, change func()) <-chan error {
	c.SetReadDeadlineLazy(time.Now().Add(30 * time.Millisecond))
	c.SetReadDeadlineLazy(time.Now().Add(10 * time.Second)) // noted only
	c.dl.mu.Lock()
	read := make(chan error, 1)
	go func() {
		var b [8]byte
		_, err := c.Read(b[:])
		read <- err
	}()
	time.Sleep(200 * time.Millisecond) // the armed deadline fires; the read waits for the lock
	change()
	c.dl.mu.Unlock()
	return read
}

// An exact deadline another goroutine sets between an early fire and
// the read's check is the read's new deadline: the read goes on.
func TestReadDeadlineLazyMovedAfterFire(t *testing.T) {
	c, _, peer := pair(t, "tcp")
	read := firedWhileHeld(t, c, func() {
		// Conn.SetReadDeadline with the lock already held by the test.
		z := time.Now().Add(10 * time.Second)
		c.dl.want, c.dl.armed = z, z
		c.nc.SetReadDeadline(z)
	})
	select {
	case err := <-read:
		t.Fatalf("the read ended at the early deadline: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	peer.Write([]byte("x"))
	if err := <-read; err != nil {
		t.Fatalf("Read = %v, want the byte", err)
	}
}

// A close between an early fire and the read's check ends the read as
// closed, not as timed out.
func TestReadDeadlineLazyClosedAfterFire(t *testing.T) {
	c, _, _ := pair(t, "tcp")
	read := firedWhileHeld(t, c, func() { c.nc.Close() })
	if err := <-read; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Read = %v, want the close", err)
	}
}
