package h2

import (
	"bytes"
	"edge/proxy"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// TestCoalescedWriterLeavesWhenIdle: the writer of an h2 connection goes
// once it has had nothing to write for writerIdle, with its buffer, so an
// idle connection holds no goroutine of edge's (issue 20), and the next
// write starts another that sends it, in order.
func TestCoalescedWriterLeavesWhenIdle(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	got := make(chan []byte, 8)
	go func() {
		for {
			b := make([]byte, 64<<10)
			n, err := client.Read(b)
			if err != nil {
				close(got)
				return
			}
			got <- b[:n]
		}
	}()
	c := newCoalescedConn(server, &proxy.ConnInfo{}, newH2Guard(1<<20, 128, time.Now))
	frame := func(stream uint32) []byte {
		var b bytes.Buffer
		http2.NewFramer(&b, nil).WriteData(stream, false, []byte("hello"))
		return b.Bytes()
	}
	writer := func() (writing bool, spare int) {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.writing, cap(c.spare)
	}
	for round, stream := range []uint32{1, 3} {
		want := frame(stream)
		if _, err := c.Write(want); err != nil {
			t.Fatal(err)
		}
		select {
		case b := <-got:
			if string(b) != string(want) {
				t.Fatalf("round %d: client read %q, want %q", round, b, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: nothing written", round)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			w, spare := writer()
			if !w && spare == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the writer is still there (writing %v, spare %d bytes)", round, w, spare)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-got; ok {
		t.Fatal("read after Close")
	}
}
