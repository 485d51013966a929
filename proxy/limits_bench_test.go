// This file measures the limit_req phase as a request meets it (issue
// 15: "the cost per request of a limit_req check"): the key evaluated
// from $binary_remote_addr, the zone's check and the bookkeeping, for a
// client already in the zone and for a new client each request in a full
// 1m zone (the least recently used state evicted).

package proxy

import (
	"net/netip"
	"testing"

	"edge/proxy/limit"
)

func BenchmarkLimitReqPhase(b *testing.B) {
	rt, _ := testPipeline(b, `events {}
http {
    access_log off;
    limit_req_zone $binary_remote_addr zone=one:1m rate=100000r/s;
    limit_req zone=one burst=1000000000 nodelay;
    server { listen 127.0.0.1:8080; }
}
`, nil)
	srv := rt.plan.HTTP.Servers[0]
	run := func(b *testing.B, addr func(i int) netip.AddrPort) {
		r := fakeRequest(rt, "GET", "/", nil)
		defer releaseRequest(r)
		r.srv, r.loc = srv, srv.Loc
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			r.conn.remote = addr(i)
			r.acc.lim.reqStatus = limit.ReqNone // a new request's
			if st := rt.limits(r); st != 0 {
				b.Fatalf("limit_req answered %d", st)
			}
		}
	}
	b.Run("same-client", func(b *testing.B) {
		a := netip.MustParseAddrPort("192.0.2.10:50000")
		run(b, func(int) netip.AddrPort { return a })
	})
	b.Run("new-client-full-zone", func(b *testing.B) {
		run(b, func(i int) netip.AddrPort {
			return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 50000)
		})
	})
}
