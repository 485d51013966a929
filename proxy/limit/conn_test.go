// This file tests the limit_conn counters: limits, release, the zone bound
// and concurrent use.

package limit

import (
	"fmt"
	"sync"
	"testing"
)

func mustConnZone(t testing.TB, name string, size int64) *ConnZone {
	t.Helper()
	z, err := NewConnZone(name, size)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

func TestLimitConn(t *testing.T) {
	z := mustConnZone(t, "addr", 1<<20)
	limits := []ConnLimit{{Zone: z, Conn: 2}}
	k := [][]byte{[]byte("10.0.0.1")}
	var h1, h2, h3 ConnHold
	steps := []struct {
		hold *ConnHold
		dry  bool
		want ConnStatus
	}{
		{&h1, false, ConnPassed},
		{&h2, false, ConnPassed},
		{&h3, false, ConnRejected},
		{&h3, true, ConnRejectedDryRun},
	}
	for i, s := range steps {
		if d := AcquireConn(limits, k, s.dry, s.hold); d.Status != s.want {
			t.Fatalf("step %d: %v, want %v", i, d.Status, s.want)
		}
	}
	if n := z.Count("10.0.0.1"); n != 2 {
		t.Fatalf("count %d after two passes and two rejections, want 2", n)
	}
	h1.Release()
	h1.Release() // a second release gives nothing back
	if n := z.Count("10.0.0.1"); n != 1 {
		t.Fatalf("count %d after one release, want 1", n)
	}
	if d := AcquireConn(limits, k, false, &h3); d.Status != ConnPassed {
		t.Fatalf("after a release: %v", d.Status)
	}
	h2.Release()
	h3.Release()
	if z.Len() != 0 {
		t.Fatalf("%d keys left after every release", z.Len())
	}
	if d := AcquireConn(limits, [][]byte{nil}, false, &h1); d.Status != ConnNone {
		t.Fatalf("empty key: %v", d.Status)
	}
}

// A rejection by a later zone gives back what the earlier zones took.
func TestLimitConnSeveralZones(t *testing.T) {
	a := mustConnZone(t, "a", 1<<20)
	b := mustConnZone(t, "b", 1<<20)
	limits := []ConnLimit{{Zone: a, Conn: 10}, {Zone: b, Conn: 1}}
	k := [][]byte{[]byte("x"), []byte("y")}
	var h1, h2 ConnHold
	AcquireConn(limits, k, false, &h1)
	d := AcquireConn(limits, k, false, &h2)
	if d.Status != ConnRejected || d.Zone != "b" || d.Message() != `limiting connections by zone "b"` {
		t.Fatalf("second: %+v %q", d, d.Message())
	}
	if a.Count("x") != 1 {
		t.Fatalf("zone a counts %d after b rejected, want 1", a.Count("x"))
	}
	if m := (ConnDecision{Status: ConnRejectedDryRun, Zone: "b", DryRun: true}).Message(); m != `limiting connections, dry run, by zone "b"` {
		t.Fatalf("dry run message %q", m)
	}
}

func TestLimitConnZoneFull(t *testing.T) {
	z := mustConnZone(t, "addr", 32<<10)
	// 4-byte keys take 40 bytes, so 64-byte chunks, 64 a page: 7 pages,
	// one shared with the zone head, one for the log context.
	if got := z.Capacity(4); got != 6*64-1 {
		t.Fatalf("Capacity(4) = %d, want %d", got, 6*64-1)
	}
	limits := []ConnLimit{{Zone: z, Conn: 1}}
	holds := make([]ConnHold, z.Capacity(4)+1)
	for i := range holds {
		d := AcquireConn(limits, [][]byte{[]byte(fmt.Sprintf("%04d", i))}, false, &holds[i])
		want := ConnPassed
		if i == len(holds)-1 {
			want = ConnRejected
		}
		if d.Status != want {
			t.Fatalf("key %d: %v, want %v", i, d.Status, want)
		}
		if i == len(holds)-1 && (!d.NoMemory || d.Message() != "") {
			t.Fatalf("full zone: %+v", d)
		}
	}
	holds[0].Release()
	if d := AcquireConn(limits, [][]byte{[]byte("new!")}, false, &holds[0]); d.Status != ConnPassed {
		t.Fatalf("after a release in a full zone: %v", d.Status)
	}
}

func TestLimitConnConcurrent(t *testing.T) {
	z := mustConnZone(t, "addr", 1<<20)
	limits := []ConnLimit{{Zone: z, Conn: 5}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	inFlight, maxSeen := 0, 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				var h ConnHold
				if AcquireConn(limits, [][]byte{[]byte("k")}, false, &h).Status != ConnPassed {
					continue
				}
				mu.Lock()
				inFlight++
				maxSeen = max(maxSeen, inFlight)
				mu.Unlock()
				mu.Lock()
				inFlight--
				mu.Unlock()
				h.Release()
			}
		}()
	}
	wg.Wait()
	if maxSeen > 5 || z.Len() != 0 {
		t.Fatalf("max in flight %d (limit 5), %d keys left", maxSeen, z.Len())
	}
}

func TestLimitReqConcurrent(t *testing.T) {
	z := mustZone(t, "one", 32<<10, "1r/s")
	z2 := mustZone(t, "two", 32<<10, "1r/s")
	limits := []ReqLimit{{Zone: z, Burst: 3}, {Zone: z2, Burst: 3}}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				k := []byte(fmt.Sprintf("%d-%d", g, i%400))
				CheckReq(limits, [][]byte{k, k}, at(i), false)
			}
		}(g)
	}
	wg.Wait()
	for _, zz := range []*ReqZone{z, z2} {
		if zz.Len() > zz.Capacity(5) {
			t.Fatalf("zone %s holds %d, capacity %d", zz.name, zz.Len(), zz.Capacity(5))
		}
		for n := zz.tail; n != nil; n = n.prev {
			if n.count != 0 {
				t.Fatalf("zone %s: state %q still pinned", zz.name, n.key)
			}
		}
	}
}
