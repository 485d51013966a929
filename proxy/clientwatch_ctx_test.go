package proxy

import (
	"context"
	"testing"
	"time"

	"edge/internal/cancel"
)

// TestClientWatchContext: the watch is the context an upstream exchange
// runs under, with context.AfterFunc's contract for what registers on it
// (directly, through package cancel, and through context.AfterFunc).
func TestClientWatchContext(t *testing.T) {
	w := &clientWatch{}
	var ctx context.Context = w
	ran := make(chan string, 4)
	stop1 := cancel.AfterFunc(ctx, func() { ran <- "one" })
	stop2 := cancel.AfterFunc(ctx, func() { ran <- "two" })
	stop3 := context.AfterFunc(ctx, func() { ran <- "three" })
	done := ctx.Done()
	if ctx.Err() != nil {
		t.Fatal("done before the client closed")
	}
	if !stop1() || stop1() {
		t.Error("stop: true the first time, false after")
	}
	w.cancel()
	<-done
	if ctx.Err() != context.Canceled {
		t.Errorf("Err %v", ctx.Err())
	}
	got := map[string]bool{}
	for range 2 {
		select {
		case s := <-ran:
			got[s] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("ran %v, want two and three", got)
		}
	}
	if !got["two"] || !got["three"] {
		t.Errorf("ran %v, want two and three", got)
	}
	if stop2() || stop3() {
		t.Error("stop after the functions started: true")
	}
	// Registered once done: runs at once.
	if stop := cancel.AfterFunc(ctx, func() { ran <- "late" }); stop() {
		t.Error("stop of a function run at once: true")
	}
	if s := <-ran; s != "late" {
		t.Errorf("ran %q", s)
	}
	select {
	case s := <-ran:
		t.Errorf("%q ran as well", s)
	case <-time.After(50 * time.Millisecond):
	}
	// Done asked for after the cancel is closed already.
	w2 := &clientWatch{}
	w2.cancel()
	select {
	case <-w2.Done():
	default:
		t.Error("Done of a canceled watch is open")
	}
}
