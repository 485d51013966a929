package fastcgi

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

// unixPair returns both ends of a unix stream connection, the client's
// wrapped in a conn as Client.dial makes it.
func unixPair(t *testing.T) (*conn, *net.UnixConn) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	cn := newConn(nc, "", 0, 0)
	t.Cleanup(func() { cn.dispose(); peer.Close() })
	return cn, peer.(*net.UnixConn)
}

// TestSendWait covers the four ways a send-then-wait ends.
func TestSendWait(t *testing.T) {
	t.Run("reply readable", func(t *testing.T) {
		cn, peer := unixPair(t)
		req := bytes.Repeat([]byte("r"), 1000)
		go func() {
			got := make([]byte, len(req))
			io.ReadFull(peer, got)
			peer.Write([]byte("reply"))
		}()
		n, werr, rerr := cn.raw.sendWait(req)
		if n != len(req) || werr != nil || rerr != nil {
			t.Fatalf("sendWait = %d, %v, %v; want %d, nil, nil", n, werr, rerr, len(req))
		}
		// The wait ended because the reply is there: a peek finds it.
		if cn.raw.alive() {
			t.Fatal("no reply readable after the wait")
		}
		got := make([]byte, 5)
		if _, err := io.ReadFull(cn.nc, got); err != nil || string(got) != "reply" {
			t.Fatalf("read %q, %v", got, err)
		}
	})
	t.Run("buffer full", func(t *testing.T) {
		cn, peer := unixPair(t)
		cn.nc.(*net.UnixConn).SetWriteBuffer(4096)
		req := bytes.Repeat([]byte("r"), 4<<20) // more than the socket takes
		n, werr, rerr := cn.raw.sendWait(req)
		if n == 0 || n >= len(req) || werr != nil || rerr != nil {
			t.Fatalf("sendWait = %d, %v, %v; want a partial write and no error", n, werr, rerr)
		}
		// writeAndWait sends the rest with Write, and nothing is lost.
		done := make(chan []byte)
		go func() { b, _ := io.ReadAll(io.LimitReader(peer, int64(len(req)))); done <- b }()
		m, err := cn.writeAndWait(req[n:])
		if err != nil || m != len(req)-n {
			t.Fatalf("writeAndWait = %d, %v", m, err)
		}
		if got := <-done; !bytes.Equal(got, req) {
			t.Fatalf("peer read %d bytes, want %d", len(got), len(req))
		}
	})
	t.Run("peer closed", func(t *testing.T) {
		cn, peer := unixPair(t)
		peer.Close()
		_, err := cn.writeAndWait([]byte("request"))
		if !connGone(err) {
			t.Fatalf("err = %v, want the peer's close (EPIPE or ECONNRESET) so that a kept connection is retried", err)
		}
		var oe *net.OpError
		if !errors.As(err, &oe) || oe.Op != "write" {
			t.Errorf("err = %#v, want a write *net.OpError", err)
		}
	})
	t.Run("canceled while waiting", func(t *testing.T) {
		cn, _ := unixPair(t)
		time.AfterFunc(20*time.Millisecond, cn.cancel) // what a done context runs
		_, err := cn.writeAndWait([]byte("request"))
		var oe *net.OpError
		if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &oe) || oe.Op != "read" || !cn.canceled.Load() {
			t.Fatalf("err = %v, want the wait ended by the cancellation", err)
		}
	})
	t.Run("no reply", func(t *testing.T) {
		cn, _ := unixPair(t)
		cn.readTimeout = 20 * time.Millisecond
		_, err := cn.writeAndWait([]byte("request"))
		if !isTimeout(err) || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("err = %v, want the read deadline", err)
		}
		var oe *net.OpError
		if !errors.As(err, &oe) || oe.Op != "read" {
			t.Errorf("err = %#v, want a read *net.OpError", err)
		}
	})
}

// TestDialSocketKeepalive: fastcgi_socket_keepalive (the request's
// SocketKeepalive) decides SO_KEEPALIVE on the connection a request
// opens; off, nginx's default, sets none.
func TestDialSocketKeepalive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c := &Client{Address: ln.Addr().String()}
	for _, on := range []bool{false, true} {
		cn, err := c.dial(t.Context(), &Request{SocketKeepalive: on})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := cn.nc.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var v int
		var gerr error
		_ = raw.Control(func(fd uintptr) { v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE) })
		cn.dispose()
		if gerr != nil || (v != 0) != on {
			t.Errorf("SocketKeepalive %v: SO_KEEPALIVE %d (%v)", on, v, gerr)
		}
	}
}
