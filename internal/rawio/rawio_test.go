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

// pair returns a connected pair over network ("tcp" or "unix"): the
// accepted side, read and written through a Conn, and the dialled side.
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
	c.Init(nc)
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

			// WriteMore's bytes go out with the next write.
			if _, err := c.WriteMore([]byte("head ")); err != nil {
				t.Fatal(err)
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
	t.Run("deadline", func(t *testing.T) {
		c, nc, _ := pair(t, "tcp")
		nc.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		_, err := c.Read(make([]byte, 8))
		var oe *net.OpError
		if !errors.As(err, &oe) || oe.Op != "read" || oe.Net != "tcp" || !oe.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Read past the deadline: %#v", err)
		}
		if _, want := nc.Read(make([]byte, 8)); err.Error() != want.Error() {
			t.Fatalf("Read past the deadline: %q; net.Conn's Read says %q", err, want)
		}
		nc.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
		_, err = c.Write(make([]byte, 64<<20)) // the peer never reads
		if !errors.As(err, &oe) || oe.Op != "write" || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Write past the deadline: %#v", err)
		}
	})
	t.Run("closed", func(t *testing.T) {
		c, nc, _ := pair(t, "tcp")
		nc.Close()
		if _, err := c.Read(make([]byte, 8)); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Read on a closed conn: %v", err)
		}
		if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Write on a closed conn: %v", err)
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

// TestNoRawConn: a Conn over a net.Conn without a RawConn reads and
// writes through it.
func TestNoRawConn(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	var c Conn
	c.Init(a)
	if c.RawConn() != nil {
		t.Fatal("net.Pipe has no RawConn")
	}
	go b.Write([]byte("ping"))
	buf := make([]byte, 8)
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	go io.ReadFull(b, buf[:4])
	if n, err := c.Write([]byte("pong")); n != 4 || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
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
	for i := 0; i < len(all); i += size {
		if block := all[i : i+size]; !bytes.Equal(block, bytes.Repeat(block[:1], size)) {
			t.Fatalf("writes interleaved in block %d", i/size)
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
