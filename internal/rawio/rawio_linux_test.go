package rawio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// pair returns a connected pair over network ("tcp", "tcp4" or "unix"):
// the accepted side, read and written through a Conn, and the dialled
// side.
func pair(t *testing.T, network string) (*Conn, net.Conn, net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	peer, err := net.Dial(network, l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nc, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close(); peer.Close() })
	var c Conn
	c.Init(nc, network)
	if c.RawConn() == nil {
		t.Fatal("no RawConn")
	}
	return &c, nc, peer
}

func TestReadWrite(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			c, _, peer := pair(t, network)

			// A write larger than the socket buffers waits until the peer
			// reads, and all of it arrives in order.
			big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
			got := make(chan []byte)
			go func() {
				b, _ := io.ReadAll(io.LimitReader(peer, int64(len(big))))
				got <- b
			}()
			if n, err := c.Write(big); n != len(big) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			if b := <-got; !bytes.Equal(b, big) {
				t.Fatalf("the peer read %d bytes, not the %d written", len(b), len(big))
			}

			// A read waits for data and returns what came.
			go func() {
				time.Sleep(20 * time.Millisecond)
				peer.Write([]byte("hello"))
			}()
			buf := make([]byte, 64)
			if n, err := c.Read(buf); err != nil || string(buf[:n]) != "hello" {
				t.Fatalf("Read = %q, %v", buf[:n], err)
			}
			if n, err := c.Read(nil); n != 0 || err != nil {
				t.Fatalf("Read(nil) = %d, %v", n, err)
			}

			// WriteMore's bytes go out with the next write (TCP holds
			// them until then; unix sockets have no such flag).
			if _, err := c.WriteMore([]byte("head ")); err != nil {
				t.Fatal(err)
			}
			if network == "tcp" {
				peer.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				if n, err := peer.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("the peer read %q (%v) before the write that ends the segment", buf[:n], err)
				}
				peer.SetReadDeadline(time.Time{})
			}
			if _, err := c.Write([]byte("body")); err != nil {
				t.Fatal(err)
			}
			if b, err := io.ReadAll(io.LimitReader(peer, 9)); err != nil || string(b) != "head body" {
				t.Fatalf("the peer read %q, %v", b, err)
			}

			// The peer's close is io.EOF, as from net.Conn.
			peer.Close()
			if n, err := c.Read(buf); n != 0 || err != io.EOF {
				t.Fatalf("Read after the peer closed = %d, %v; want io.EOF", n, err)
			}
		})
	}
}

// TestErrors checks that failures read as net.Conn's do, since callers
// test them with errors.Is and *net.OpError's Op and Timeout.
func TestErrors(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp", "unix"} {
		t.Run("deadline-"+network, func(t *testing.T) {
			c, nc, peer := pair(t, network)
			nc.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
			_, err := c.Read(make([]byte, 8))
			var oe *net.OpError
			if !errors.As(err, &oe) || oe.Op != "read" || oe.Net != network || !oe.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("Read past the deadline: %#v", err)
			}
			if _, want := nc.Read(make([]byte, 8)); err.Error() != want.Error() {
				t.Fatalf("Read past the deadline: %q; net.Conn's Read says %q", err, want)
			}
			// The peer never reads: the write stops at the deadline, and
			// says how much went.
			big := make([]byte, 64<<20)
			nc.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
			n, err := c.Write(big)
			if !errors.As(err, &oe) || oe.Op != "write" || !errors.Is(err, os.ErrDeadlineExceeded) || n <= 0 || n >= 64<<20 {
				t.Fatalf("Write past the deadline: %d, %#v", n, err)
			}
			if _, want := nc.Write([]byte("x")); err.Error() != want.Error() {
				t.Fatalf("Write past the deadline: %q; net.Conn's Write says %q", err, want)
			}
			if m, err := c.Write(nil); m != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("Write(nil) past the deadline = %d, %v; net.Conn's fails", m, err)
			}
			nc.Close()
			got, _ := io.Copy(io.Discard, peer)
			if got != int64(n) {
				t.Fatalf("the peer got %d bytes, Write said %d went", got, n)
			}
		})
	}
	t.Run("closed", func(t *testing.T) {
		c, nc, _ := pair(t, "tcp")
		nc.Close()
		if _, err := c.Read(make([]byte, 8)); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Read on a closed conn: %v", err)
		}
		if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Write on a closed conn: %v", err)
		}
		if _, err := c.Read(nil); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Read(nil) on a closed conn: %v", err)
		}
		if _, err := c.Write(nil); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Write(nil) on a closed conn: %v", err)
		}
	})
	t.Run("reset", func(t *testing.T) {
		c, _, peer := pair(t, "tcp")
		peer.(*net.TCPConn).SetLinger(0)
		peer.Close()
		time.Sleep(20 * time.Millisecond)
		var err error
		for range 10 {
			if _, err = c.Write([]byte("x")); err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		var oe *net.OpError
		var se *os.SyscallError
		if !errors.As(err, &oe) || oe.Op != "write" || !errors.As(err, &se) || se.Syscall != "write" ||
			!errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("Write to a reset peer: %#v", err)
		}
	})
}

// TestConcurrent: writers take turns, each write whole, and readers
// share what arrives, as with net.Conn.
func TestConcurrent(t *testing.T) {
	c, _, peer := pair(t, "tcp")
	const writers, writes, size = 4, 500, 4096
	done := make(chan error, writers)
	for w := range writers {
		go func() {
			msg := bytes.Repeat([]byte{byte('a' + w)}, size)
			for range writes {
				if _, err := c.Write(msg); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	all := make([]byte, writers*writes*size)
	if _, err := io.ReadFull(peer, all); err != nil {
		t.Fatal(err)
	}
	for range writers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	blocks := map[byte]int{}
	for i := 0; i < len(all); i += size {
		block := all[i : i+size]
		if !bytes.Equal(block, bytes.Repeat(block[:1], size)) {
			t.Fatalf("writes interleaved in block %d", i/size)
		}
		blocks[block[0]]++
	}
	for w := range writers {
		if blocks[byte('a'+w)] != writes {
			t.Fatalf("blocks per writer %v, want %d each", blocks, writes)
		}
	}

	const total = 1 << 20
	got := make(chan int, 2)
	for range 2 {
		go func() {
			n, buf := 0, make([]byte, 1000)
			for {
				m, err := c.Read(buf)
				n += m
				if err != nil {
					got <- n
					return
				}
			}
		}()
	}
	if _, err := peer.Write(make([]byte, total)); err != nil {
		t.Fatal(err)
	}
	peer.Close()
	if n := <-got + <-got; n != total {
		t.Fatalf("the readers got %d bytes of %d", n, total)
	}
}

// TestWriteTimeout: a write to a peer that reads steadily but slowly goes
// through however long it takes; one to a peer that stops reading fails
// with a timeout, and so does a SendFile. The timeout is between two
// calls that move data, as nginx's send_timeout.
func TestWriteTimeout(t *testing.T) {
	// A second: a reader starved for a while on a loaded machine must not
	// look like one that stopped (300 ms failed twice under a full build).
	const timeout = time.Second
	file := filepath.Join(t.TempDir(), "f")
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	if err := os.WriteFile(file, big, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, network := range []string{"tcp", "unix"} {
		for _, how := range []string{"write", "sendfile"} {
			send := func(c *Conn) (int64, error) {
				if how == "write" {
					n, err := c.Write(big)
					return int64(n), err
				}
				f, err := os.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				return c.SendFile(f, 0, int64(len(big)))
			}
			t.Run(network+"/"+how+"/steady", func(t *testing.T) {
				c, nc, peer := pair(t, network)
				// Small buffers, so that the kernel says "writable" again
				// after each of the peer's reads, not only after a third of
				// several MiB has gone.
				smallBuffer(t, nc, syscall.SO_SNDBUF)
				smallBuffer(t, peer, syscall.SO_RCVBUF)
				c.SetWriteTimeout(timeout)
				done := make(chan int64)
				go func() {
					// 64 KiB every 40 ms: the 4 MiB take about 2.6 timeouts
					// in all, each wait far shorter than one.
					var got int64
					buf := make([]byte, 64<<10)
					for got < int64(len(big)) {
						time.Sleep(timeout / 25)
						for k := 0; k < 1 && got < int64(len(big)); k++ {
							n, err := io.ReadFull(peer, buf[:min(len(buf), len(big)-int(got))])
							got += int64(n)
							if err != nil {
								done <- got
								return
							}
						}
					}
					done <- got
				}()
				n, err := send(c)
				if n != int64(len(big)) || err != nil {
					t.Errorf("sent %d of %d (%v), want all", n, len(big), err)
					nc.Close() // the peer waits for the rest
				}
				if got := <-done; got != int64(len(big)) {
					t.Errorf("peer read %d", got)
				}
			})
			t.Run(network+"/"+how+"/stalled", func(t *testing.T) {
				c, _, _ := pair(t, network)
				c.SetWriteTimeout(timeout)
				n, err := send(c)
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() || n >= int64(len(big)) {
					t.Fatalf("sent %d (%v), want a timeout", n, err)
				}
				// The deadline is the operation's: the next one starts clear.
				c.SetWriteTimeout(0)
				if _, err := c.nc.Write(nil); err != nil {
					t.Errorf("after the timeout: %v", err)
				}
			})
		}
	}
}

// smallBuffer sets a socket's send or receive buffer to 64 KiB.
func smallBuffer(t *testing.T, c net.Conn, opt int) {
	t.Helper()
	sc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	sc.Control(func(fd uintptr) {
		if err := syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, 64<<10); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReadTimeout: each Read waits at most the read timeout; 0 clears it.
func TestReadTimeout(t *testing.T) {
	c, _, peer := pair(t, "tcp")
	c.SetReadTimeout(200 * time.Millisecond)
	go func() {
		for i := 0; i < 5; i++ {
			time.Sleep(100 * time.Millisecond)
			peer.Write([]byte("x"))
		}
	}()
	buf := make([]byte, 10)
	for i := 0; i < 5; i++ {
		if _, err := c.Read(buf); err != nil {
			t.Fatalf("read %d of a steady trickle: %v", i, err)
		}
	}
	_, err := c.Read(buf)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read after the peer stopped: %v, want a timeout", err)
	}
	c.SetReadTimeout(0)
	// The last Read's deadline stays (it has passed) until the owner
	// sets another.
	if _, err := c.Read(buf); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read with the last deadline passed: %v, want a timeout", err)
	}
	c.nc.SetReadDeadline(time.Time{})
	peer.Write([]byte("y"))
	if n, err := c.Read(buf); n != 1 || err != nil {
		t.Errorf("read with the timeout cleared: %d %v", n, err)
	}
}
