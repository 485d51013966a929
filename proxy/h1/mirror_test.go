package h1

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"edge/proxy"
)

// TestMirrorClosedFileWritesBytes: a mirror whose file its owner closed
// (the cache entry dropped while the response was on its way) is sent
// from memory, whole.
func TestMirrorClosedFileWritesBytes(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, closed := range []bool{false, true} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if closed {
			f.Close()
		}
		var fromFile []bool
		hook := func(b bool) { fromFile = append(fromFile, b) }
		mirrorHook.Store(&hook)
		got := sendThrough(t, &mirrorSection{f: f, off: 100, b: data[100:]}, int64(len(data)-100))
		mirrorHook.Store(nil)
		f.Close()
		if !bytes.Equal(got, data[100:]) {
			t.Errorf("closed %v: %d bytes arrived, want %d, the same", closed, len(got), len(data)-100)
		}
		if len(fromFile) != 1 || fromFile[0] == closed {
			t.Errorf("closed %v: sent from the file %v, want %v once", closed, fromFile, !closed)
		}
	}
}

// tcpEdgePair is a loopback connection's server end as the plain-TCP
// wrapper the engine serves, and its client end; both close when t ends.
func tcpEdgePair(t *testing.T) (*tcpEdgeConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	ec := &tcpEdgeConn{TCPConn: sc.(*net.TCPConn)}
	ec.info = ec.st.init(&proxy.ConnInfo{})
	ec.raw.Init(sc, "tcp")
	return ec, client
}

// sendThrough sends n bytes of m through a plain-TCP connection's
// ReadFrom, as the engine does (under an io.LimitedReader), and returns
// what the other end read.
func sendThrough(t *testing.T, m *mirrorSection, n int64) []byte {
	t.Helper()
	ec, client := tcpEdgePair(t)
	done := make(chan []byte)
	go func() {
		client.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(client)
		done <- b
	}()
	sent, err := ec.ReadFrom(&io.LimitedReader{R: m, N: n})
	if err != nil || sent != n {
		t.Errorf("ReadFrom: %d of %d bytes (%v)", sent, n, err)
	}
	ec.TCPConn.Close()
	return <-done
}

// io.Copy from the TCP wrapper reads through its Read, under rawio's
// lazy read deadline: an armed deadline earlier than the wanted one
// does not end the copy (*net.TCPConn's own WriteTo would end it).
func TestTCPConnCopyReadsThroughRaw(t *testing.T) {
	ec, client := tcpEdgePair(t)
	ec.raw.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	ec.raw.SetReadDeadline(time.Now().Add(10 * time.Second)) // lazy: noted only
	go func() {
		time.Sleep(200 * time.Millisecond) // past the armed deadline
		client.Write([]byte("after the early deadline"))
		client.Close()
	}()
	var got bytes.Buffer
	if _, err := io.Copy(&got, ec); err != nil || got.String() != "after the early deadline" {
		t.Fatalf("io.Copy = %q, %v", got.String(), err)
	}
}
