package rawio

import (
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// keepaliveOf reads SO_KEEPALIVE and TCP_KEEPIDLE of c's socket.
func keepaliveOf(t *testing.T, c net.Conn) (on bool, idle int) {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v, i int
	var gerr error
	if err := raw.Control(func(fd uintptr) {
		v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
		if gerr == nil {
			i, gerr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE)
		}
	}); err != nil || gerr != nil {
		t.Fatal(err, gerr)
	}
	return v != 0, i
}

// TestDialerKeepalive: without *_socket_keepalive an upstream socket has
// no keep-alive probes (Go's default dialer would set them, with 15s);
// with it, it has them on the system's timers, as nginx sets them.
func TestDialerKeepalive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	data, err := os.ReadFile("/proc/sys/net/ipv4/tcp_keepalive_time")
	if err != nil {
		t.Fatal(err)
	}
	system, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, keepalive := range []bool{false, true} {
		d := Dialer(time.Second, keepalive)
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		on, idle := keepaliveOf(t, c)
		c.Close()
		if on != keepalive {
			t.Errorf("keepalive %v: SO_KEEPALIVE is %v", keepalive, on)
		}
		if keepalive && idle != system {
			t.Errorf("TCP_KEEPIDLE %d, want the system's %d", idle, system)
		}
	}
}
