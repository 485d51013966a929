// bench_test.go measures a whole FastCGI round trip against a real php-fpm
// pool, for edge's client and for gofast v0.8.0, the library it replaces,
// so that the reason for the choice stays measured.
package fastcgi

import (
	"context"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/yookoala/gofast"
)

// benchWorkers matches the pool DESIGN.md's measurements used.
const benchWorkers = 4

func BenchmarkRoundTrip(b *testing.B) {
	p := startFPM(b, benchWorkers)
	b.Run("edge", func(b *testing.B) {
		// A slot per worker; kept connections one fewer, since each pins
		// its worker. (MaxConns below the worker count measured slower
		// here: every request then waits for a handoff.)
		c := p.client()
		c.MaxConns, c.MaxIdle = benchWorkers, benchWorkers-1
		benchEdge(b, p, c)
	})
	b.Run("gofast", func(b *testing.B) { benchGofast(b, p) })
}

func benchEdge(b *testing.B, p *fpmPool, c *Client) {
	b.ReportAllocs()
	b.SetParallelism(2)
	b.RunParallel(func(pb *testing.PB) {
		var req Request
		p.request(&req, "GET", "hello.php", "", -1)
		buf := make([]byte, 512)
		for pb.Next() {
			resp, err := c.Do(context.Background(), &req)
			if err != nil {
				b.Error(err)
				return
			}
			n, err := io.ReadFull(resp.Body, buf)
			resp.Close()
			if err != io.ErrUnexpectedEOF || string(buf[:n]) != "hello" {
				b.Errorf("body %q, %v", buf[:n], err)
				return
			}
		}
	})
	s := c.Stats()
	b.ReportMetric(float64(s.Connects), "connects")
}

// benchGofast calls gofast as its own handler does: a client (and a
// connection) per request from SimpleClientFactory, the response copied
// out through WriteTo.
func benchGofast(b *testing.B, p *fpmPool) {
	factory := gofast.SimpleClientFactory(gofast.SimpleConnFactory("unix", p.Socket))
	b.ReportAllocs()
	b.SetParallelism(2)
	b.RunParallel(func(pb *testing.PB) {
		var params Request
		p.request(&params, "GET", "hello.php", "", -1)
		for pb.Next() {
			client, err := factory()
			if err != nil {
				b.Error(err)
				return
			}
			req := gofast.NewRequest(nil)
			for name, value := range params.Params.All() {
				req.Params[string(name)] = string(value)
			}
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				client.Close()
				return
			}
			w := httptest.NewRecorder()
			err = resp.WriteTo(w, io.Discard)
			client.Close()
			if err != nil || w.Body.String() != "hello" {
				b.Errorf("body %q, %v", w.Body.String(), err)
				return
			}
		}
	})
}
