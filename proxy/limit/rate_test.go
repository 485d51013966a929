// This file drives a Pacer through a download with exact timestamps.

package limit

import (
	"testing"
	"time"
)

func TestPacer(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 400e6, time.UTC) // 0.4 s into a second
	p := NewPacer(100, 1000, start)
	type step struct {
		at     time.Duration // since start
		budget int64
		wait   time.Duration
		write  int64
		pause  time.Duration
	}
	steps := []step{
		// 100 * 1 - (0 - 1000): the first 1000 bytes and a second's worth.
		{0, 1100, 0, 1100, 1000 * time.Millisecond},
		// Still second 0: 100 - (1100 - 1000) = 0, wait 0*1000/100 + 1 ms.
		{500 * time.Millisecond, 0, 1 * time.Millisecond, 0, 0},
		// 0.4 s + 0.6 s is second 1: 200 - 100.
		{600 * time.Millisecond, 100, 0, 50, 500 * time.Millisecond},
		{700 * time.Millisecond, 50, 0, 50, 500 * time.Millisecond},
		{800 * time.Millisecond, 0, 1 * time.Millisecond, 0, 0},
		// A slow reader: at second 5 the budget has grown to 600 - 200.
		{4600 * time.Millisecond, 400, 0, 400, 4 * time.Second},
	}
	for i, s := range steps {
		b, w := p.Budget(start.Add(s.at))
		if b != s.budget || w != s.wait {
			t.Fatalf("step %d: budget %d wait %v, want %d %v", i, b, w, s.budget, s.wait)
		}
		if s.write > 0 {
			if got := p.Sent(s.write); got != s.pause {
				t.Fatalf("step %d: pause %v after %d bytes, want %v", i, got, s.write, s.pause)
			}
		}
	}
	// Over budget by 250 bytes: 250*1000/100 + 1 ms.
	q := NewPacer(100, 0, start)
	q.Sent(350)
	if b, w := q.Budget(start); b != 0 || w != 2501*time.Millisecond {
		t.Fatalf("over budget: %d %v", b, w)
	}
	if b, _ := (&Pacer{}).Budget(start); b != -1 {
		t.Fatalf("no rate: budget %d", b)
	}
}
