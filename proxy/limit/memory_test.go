// This file checks that a zone's memory stays bounded by its size however
// many keys pass through it (issue 15: a million client addresses through
// a 1m zone).

package limit

import (
	"encoding/binary"
	"runtime"
	"testing"
)

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func TestMillionKeysBoundedZone(t *testing.T) {
	if testing.Short() {
		t.Skip("a million requests")
	}
	z := mustZone(t, "one", 1<<20, "10r/s")
	limits := []ReqLimit{{Zone: z, Burst: 5, Delay: NoDelay}}
	key := make([]byte, 4)
	keys := [][]byte{key}
	before := heapInUse()
	var after uint64
	const n = 1_000_000
	for i := 0; i < n; i++ {
		binary.BigEndian.PutUint32(key, uint32(i)*2654435761) // distinct: odd multiplier
		if d := CheckReq(limits, keys, at(i/1000), false); d.Status != ReqPassed {
			t.Fatalf("request %d: %v", i, d.Status)
		}
		if i == n/10 {
			after = heapInUse()
		}
	}
	end := heapInUse()
	if z.Len() != z.Capacity(4) {
		t.Fatalf("zone holds %d states, capacity %d", z.Len(), z.Capacity(4))
	}
	// The Go states (map entry, node, key) cost more than nginx's 128
	// bytes, but their number is the zone's: the heap after 100k keys and
	// after 1M must be the same give or take the allocator's slack.
	const slack = 1 << 20
	if end > after+slack {
		t.Fatalf("heap grew from %d to %d bytes between 100k and 1M keys", after, end)
	}
	t.Logf("1m zone, %d distinct keys: %d states; heap %d bytes before, %d after 100k keys, %d after 1M (%.0f bytes a state)",
		n, z.Len(), before, after, end, float64(end-before)/float64(z.Len()))
	runtime.KeepAlive(z)
}
