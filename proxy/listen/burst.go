package listen

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// burstMemory gives memory back to the system after a burst of
// connections: their TLS handshakes' garbage, and the buffers of those
// that parked (proxy/h1's park_linux.go), stay in the heap and the
// engines' pools until two collections, which on a server that then goes
// quiet may be minutes away (the runtime's forced collection is every
// two minutes). nginx frees a connection's buffers as it goes idle. A burst of at least
// giveBackBurst accepted or parked connections, followed by giveBackQuiet
// without one more, runs two collections and returns the free memory
// (debug.FreeOSMemory), at most once per giveBackEvery.
type burstMemory struct {
	mu    sync.Mutex
	count int       // connections since memory was last given back
	last  time.Time // the latest one
	freed time.Time
	timer *time.Timer
}

const (
	giveBackBurst = 256
	giveBackQuiet = 500 * time.Millisecond
	giveBackEvery = 2 * time.Second
)

// note counts a connection accepted or parked.
func (b *burstMemory) note() {
	now := time.Now()
	b.mu.Lock()
	b.count++
	b.last = now
	if b.count == giveBackBurst {
		b.arm(now)
	}
	b.mu.Unlock()
}

// arm sets the timer for when the burst may have ended; b.mu is held.
func (b *burstMemory) arm(now time.Time) {
	at := b.last.Add(giveBackQuiet)
	if f := b.freed.Add(giveBackEvery); f.After(at) {
		at = f
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(at.Sub(now), b.check)
	} else {
		b.timer.Reset(at.Sub(now))
	}
}

func (b *burstMemory) check() {
	now := time.Now()
	b.mu.Lock()
	if b.count < giveBackBurst {
		b.mu.Unlock()
		return
	}
	if now.Sub(b.last) < giveBackQuiet || now.Sub(b.freed) < giveBackEvery {
		b.arm(now) // the burst goes on, or memory went back lately
		b.mu.Unlock()
		return
	}
	b.count, b.freed = 0, now
	b.mu.Unlock()
	// Two collections: the engines' pools keep what they hold through the
	// first.
	runtime.GC()
	debug.FreeOSMemory()
}
