// This file measures the limit_req phase as a request meets it (issue
// 15: "the cost per request of a limit_req check"): the key evaluated
// from $binary_remote_addr, the zone's check and the bookkeeping, for a
// client already in the zone and for a new client each request in a full
// 1m zone (the least recently used state evicted).

package proxy

import (
	"net/netip"
	"strings"
	"testing"

	"edge/conf"
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
		defer ReleaseRequest(r)
		r.srv, r.loc = srv, srv.Loc
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			r.Conn.Remote = addr(i)
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

// TestBinaryRemoteAddr: $binary_remote_addr is the address's 4 bytes for
// IPv4 (a v4-mapped IPv6 one included) and 16 for IPv6, as nginx's.
func TestBinaryRemoteAddr(t *testing.T) {
	rt, _ := testPipeline(t, "events {}\nhttp { server { listen 127.0.0.1:8080; } }\n", nil)
	v := &conf.VarRef{Name: "binary_remote_addr", Kind: conf.VarBuiltin, ID: conf.VarBinaryRemoteAddr}
	for addr, want := range map[string]string{
		"192.0.2.10:5":          "\xc0\x00\x02\x0a",
		"[::ffff:192.0.2.10]:5": "\xc0\x00\x02\x0a",
		"[2001:db8::1]:5":       "\x20\x01\x0d\xb8" + strings.Repeat("\x00", 11) + "\x01",
	} {
		r := fakeRequest(rt, "GET", "/", nil)
		r.Conn.Remote = netip.MustParseAddrPort(addr)
		if got := rt.varValue(r, v); got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
		ReleaseRequest(r)
	}
}
