// This file checks that a zone's memory stays bounded by its size however
// many keys pass through it (issue 15: "1 million distinct client
// addresses through a 1m zone leave edge's RSS within the zone's size plus
// a constant"). It feeds the engines directly, with no network, and
// measures the Go heap in use after a collection before and after.
//
// Not built with -race: the race detector's own per-allocation state
// counts in the heap these bounds are about.

//go:build !race

package limit

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
)

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC() // a second cycle frees what the first one's finalizers left
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// zoneSlack is the constant on top of the zone's size that a zone's Go
// memory may take. A zone holds as many states as nginx's (the slab model
// in slab.go decides), so the Go memory is that count times what a state
// costs in Go: its node, its key's string and its map slot, with the map's
// buckets sized up to twice the states (Go doubles a map and never
// shrinks it) and the slab model's page table (16 bytes a page). nginx's
// state is one slab chunk (128 bytes for limit_req with a 4-byte key, 64
// for limit_conn); the Go state is at most 1.5 times that, so the excess
// over size is at most size/2: 512 KiB for a 1m zone.
const zoneSlack = 512 << 10

// rss is the process's resident set (VmRSS) after the heap's free pages
// went back to the system, for the log: it counts the runtime and the
// test binary too, so only the heap is asserted on.
func rss() int64 {
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	_, line, _ := bytes.Cut(b, []byte("VmRSS:"))
	line, _, _ = bytes.Cut(line, []byte("kB"))
	n, _ := strconv.ParseInt(string(bytes.TrimSpace(line)), 10, 64)
	return n << 10
}

const millionKeys = 1_000_000

// distinctKey writes the i-th of a million distinct IPv4 addresses
// ($binary_remote_addr's 4 bytes): an odd multiplier is a bijection.
func distinctKey(key []byte, i int) {
	binary.BigEndian.PutUint32(key, uint32(i)*2654435761)
}

func TestMillionKeysReqZone(t *testing.T) {
	if testing.Short() {
		t.Skip("a million requests")
	}
	const size = 1 << 20
	z := mustZone(t, "one", size, "10r/s")
	limits := []ReqLimit{{Zone: z, Burst: 5, Delay: NoDelay}}
	key := make([]byte, 4)
	keys := [][]byte{key}
	rssBefore, before := rss(), heapInUse()
	var after100k uint64
	for i := 0; i < millionKeys; i++ {
		distinctKey(key, i)
		if d := CheckReq(limits, keys, at(i/1000), false); d.Status != ReqPassed {
			t.Fatalf("request %d: %v", i, d.Status)
		}
		if i == millionKeys/10 {
			after100k = heapInUse()
		}
	}
	end, rssEnd := heapInUse(), rss()
	if z.Len() != z.Capacity(4) {
		t.Fatalf("zone holds %d states, capacity %d", z.Len(), z.Capacity(4))
	}
	growth := int64(end) - int64(before)
	t.Logf("limit_req 1m zone, %d distinct keys: %d states (nginx's count); heap +%d bytes after 100k keys, +%d after 1M (%.0f bytes a state; bound %d)",
		millionKeys, z.Len(), int64(after100k)-int64(before), growth, float64(growth)/float64(z.Len()), size+zoneSlack)
	t.Logf("process RSS %+d bytes", rssEnd-rssBefore)
	if growth > size+zoneSlack {
		t.Errorf("heap grew by %d bytes for a %d-byte zone, more than the size plus %d", growth, size, zoneSlack)
	}
	runtime.KeepAlive(z)
}

// TestMillionKeysConnZone: a million distinct clients each holding a
// connection (a flood that never lets go) fill a 1m limit_conn zone to
// nginx's count, the rest are refused for want of memory as nginx's
// "could not allocate node", and the heap stays within the zone's size;
// once they let go, a million more that come and go leave nothing.
func TestMillionKeysConnZone(t *testing.T) {
	if testing.Short() {
		t.Skip("a million requests")
	}
	const size = 1 << 20
	z, err := NewConnZone("addr", size)
	if err != nil {
		t.Fatal(err)
	}
	limits := []ConnLimit{{Zone: z, Conn: 1}}
	key := make([]byte, 4)
	keys := [][]byte{key}
	capacity := z.Capacity(4)
	// The holds are the requests' own memory, not the zone's: made
	// before the first measurement.
	holds := make([]ConnHold, capacity)
	for i := range holds {
		holds[i].zones = make([]*ConnZone, 0, 1)
		holds[i].nodes = make([]*connNode, 0, 1)
	}
	rssBefore, before := rss(), heapInUse()
	passed, refused := 0, 0
	var spare ConnHold
	for i := 0; i < millionKeys; i++ {
		distinctKey(key, i)
		h := &spare
		if passed < len(holds) {
			h = &holds[passed]
		}
		switch d := AcquireConn(limits, keys, false, h); {
		case d.Status == ConnPassed:
			passed++
		case d.NoMemory:
			refused++
		default:
			t.Fatalf("client %d: %v", i, d.Status)
		}
	}
	held, rssHeld := heapInUse(), rss()
	growth := int64(held) - int64(before)
	t.Logf("limit_conn 1m zone, %d distinct clients holding on: %d states (nginx's count), %d refused; heap +%d bytes (%.0f bytes a state; bound %d)",
		millionKeys, z.Len(), refused, growth, float64(growth)/float64(z.Len()), size+zoneSlack)
	t.Logf("process RSS %+d bytes", rssHeld-rssBefore)
	if passed != capacity || z.Len() != capacity {
		t.Fatalf("%d passed, %d states, capacity %d", passed, z.Len(), capacity)
	}
	if growth > size+zoneSlack {
		t.Errorf("heap grew by %d bytes for a %d-byte zone, more than the size plus %d", growth, size, zoneSlack)
	}
	for i := range holds {
		holds[i].Release()
	}
	for i := 0; i < millionKeys; i++ {
		distinctKey(key, millionKeys+i)
		var h ConnHold
		if d := AcquireConn(limits, keys, false, &h); d.Status != ConnPassed {
			t.Fatalf("client %d after the flood: %v", i, d.Status)
		}
		h.Release()
	}
	end := heapInUse()
	if z.Len() != 0 {
		t.Errorf("%d states left once every client let go", z.Len())
	}
	t.Logf("after a million more that came and went: heap +%d bytes over the start", int64(end)-int64(before))
	if int64(end)-int64(before) > size+zoneSlack {
		t.Errorf("heap %d bytes over the start once the zone is empty", int64(end)-int64(before))
	}
	runtime.KeepAlive(holds)
	runtime.KeepAlive(z)
}
