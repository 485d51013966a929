package proxy

import (
	"net"
	"testing"

	"edge/internal/cancel"
	"edge/internal/rawio"
)

// BenchmarkUpstreamContext is what every proxied or FastCGI request over
// HTTP/1 pays for noticing a client that closes: the watch made and
// stopped, with one function registered on it and stopped (the upstream
// connection's close).
func BenchmarkUpstreamContext(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var raw rawio.Conn
	raw.Init(c, "")
	rt := &Site{}
	r := &Request{Conn: &ConnInfo{Conn: c, Raw: &raw}}
	f := func() {}
	b.ReportAllocs()
	for b.Loop() {
		ctx, stop := rt.upstreamContext(r, false)
		if s := cancel.AfterFunc(ctx, f); s != nil {
			s()
		}
		stop()
	}
}
