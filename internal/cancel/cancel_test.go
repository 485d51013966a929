package cancel

import (
	"context"
	"testing"
)

type own struct {
	context.Context
	fs []func()
}

func (o *own) AfterFunc(f func()) func() bool {
	o.fs = append(o.fs, f)
	return func() bool { return true }
}

// TestAfterFunc: a context with its own AfterFunc gets f, one that can
// never be done needs none, and any other goes to context.AfterFunc.
func TestAfterFunc(t *testing.T) {
	o := &own{Context: context.Background()}
	ran := false
	if stop := AfterFunc(o, func() { ran = true }); stop == nil || len(o.fs) != 1 {
		t.Fatalf("own AfterFunc not used: %d registered", len(o.fs))
	}
	o.fs[0]()
	if !ran {
		t.Error("f not the one registered")
	}
	if stop := AfterFunc(context.Background(), func() {}); stop != nil {
		t.Error("a stop for a context that is never done")
	}
	ctx, cancelCtx := context.WithCancel(context.Background())
	done := make(chan struct{})
	if stop := AfterFunc(ctx, func() { close(done) }); stop == nil {
		t.Fatal("no stop for a cancelable context")
	}
	cancelCtx()
	<-done
}
