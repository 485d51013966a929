package rawio

import (
	"io"
	"net"
	"testing"
)

// TestNoRawConn: a Conn over a net.Conn without a RawConn reads and
// writes through it.
func TestNoRawConn(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	var c Conn
	c.Init(a, "")
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
