package httpproxy

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestConnectTimeout: a listener that never accepts, with its accept
// queue full, drops the next SYN, so the connect waits for
// proxy_connect_timeout: a KindTimeout (504) that sent nothing.
func TestConnectTimeout(t *testing.T) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, _ := syscall.Getsockname(fd)
	addr := (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sa.(*syscall.SockaddrInet4).Port}).String()
	// Fill the accept queue (backlog 0 holds one).
	for i := 0; i < 2; i++ {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			break
		}
		defer c.Close()
	}
	u := &Upstream{Network: "tcp", Address: addr, ConnectTimeout: 200 * time.Millisecond}
	_, err = u.Do(context.Background(), get("/"))
	var e *Error
	if kindOf(err) != KindTimeout {
		t.Fatalf("got %v", err)
	}
	if e, _ = err.(*Error); e.Sent || e.Status() != 504 || e.Op != "connect" {
		t.Errorf("got %+v", e)
	}
}
