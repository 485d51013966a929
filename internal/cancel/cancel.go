// Package cancel runs a function when a context is done, as
// context.AfterFunc does, without most of that function's allocations (a
// child context, its closures, a map of children in the parent) for
// contexts that keep their own list: the context proxy makes for each upstream
// exchange over HTTP/1 (its client watch) is one, and the FastCGI and
// HTTP upstream clients register on it for every request.
package cancel

import "context"

// AfterFuncer is a context that runs functions when it is done itself:
// its AfterFunc has context.AfterFunc's contract (f runs once, after the
// context is done; stop reports whether it kept f from running).
// context.AfterFunc calls it too, for contexts it did not make.
type AfterFuncer interface {
	AfterFunc(f func()) (stop func() bool)
}

// AfterFunc arranges for f to run once ctx is done and returns what stops
// it, as context.AfterFunc does; nil when ctx can never be done (its Done
// is nil), when there is nothing to stop.
func AfterFunc(ctx context.Context, f func()) (stop func() bool) {
	if a, ok := ctx.(AfterFuncer); ok {
		return a.AfterFunc(f)
	}
	if ctx.Done() == nil {
		return nil
	}
	return context.AfterFunc(ctx, f)
}
