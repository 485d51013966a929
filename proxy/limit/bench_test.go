// This file measures the limit_req hot path: a request whose key has a
// state, and one whose key is new to a full zone (eviction).

package limit

import (
	"encoding/binary"
	"testing"
)

func BenchmarkCheckReq(b *testing.B) {
	b.Run("existing-key", func(b *testing.B) {
		z := mustZone(b, "one", 10<<20, "10r/s")
		limits := []ReqLimit{{Zone: z, Burst: 1 << 30, Delay: NoDelay}}
		keys := [][]byte{{127, 0, 0, 1}}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			CheckReq(limits, keys, at(i), false)
		}
	})
	b.Run("new-key-full-zone", func(b *testing.B) {
		z := mustZone(b, "one", 1<<20, "10r/s")
		limits := []ReqLimit{{Zone: z, Burst: 10, Delay: NoDelay}}
		key := make([]byte, 4)
		keys := [][]byte{key}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			binary.BigEndian.PutUint32(key, uint32(i))
			CheckReq(limits, keys, at(i), false)
		}
	})
	b.Run("two-zones", func(b *testing.B) {
		z1 := mustZone(b, "one", 10<<20, "10r/s")
		z2 := mustZone(b, "two", 10<<20, "10r/s")
		limits := []ReqLimit{{Zone: z1, Burst: 1 << 30, Delay: NoDelay}, {Zone: z2, Burst: 1 << 30, Delay: NoDelay}}
		keys := [][]byte{{127, 0, 0, 1}, []byte("example.com")}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			CheckReq(limits, keys, at(i), false)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		z := mustZone(b, "one", 10<<20, "10r/s")
		limits := []ReqLimit{{Zone: z, Burst: 1 << 30, Delay: NoDelay}}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			key := make([]byte, 4)
			keys := [][]byte{key}
			i := 0
			for pb.Next() {
				binary.BigEndian.PutUint32(key, uint32(i%1000))
				CheckReq(limits, keys, at(i), false)
				i++
			}
		})
	})
}
