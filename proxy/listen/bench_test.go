package listen_test

import (
	"edge/proxy/internal/plantest"
	"edge/proxy/listen"
	"net"
	"testing"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// BenchmarkStatic1K is a GET of a cached 1 KiB file with an access log
// line, over fasthttp's parsing and writing on in-memory keep-alive
// connections, with parallel clients (proxy's BenchmarkStatic1K serves
// it to the engine-neutral entry directly).
func BenchmarkStatic1K(b *testing.B) {
	b.Run("http1", benchStaticHTTP1)
}

func benchStaticHTTP1(b *testing.B) {
	plan, _ := plantest.BenchSite(b)
	ln := fasthttputil.NewInmemoryListener()
	s := listen.NewServer(listen.Options{
		ErrorLog:  plantest.SilentLog(),
		Listeners: map[string]net.Listener{"tcp 127.0.0.1:8080": ln},
	})
	if err := s.Apply(plan); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	client := &fasthttp.HostClient{
		Addr:     "127.0.0.1:8080",
		Dial:     func(string) (net.Conn, error) { return ln.Dial() },
		MaxConns: 256,
	}
	do := func(req *fasthttp.Request, resp *fasthttp.Response) bool {
		if err := client.Do(req, resp); err != nil {
			b.Errorf("GET /1k.txt: %v", err)
			return false
		}
		if resp.StatusCode() != 200 || len(resp.Body()) != 1024 {
			b.Errorf("GET /1k.txt: status %d, %d bytes", resp.StatusCode(), len(resp.Body()))
			return false
		}
		return true
	}
	newRequest := func() *fasthttp.Request {
		req := fasthttp.AcquireRequest()
		req.SetRequestURI("http://example.com/1k.txt")
		for _, h := range plantest.BrowserHeaders[1:] {
			req.Header.Set(h[0], h[1])
		}
		return req
	}
	req, resp := newRequest(), fasthttp.AcquireResponse()
	if !do(req, resp) {
		b.FailNow()
	}
	b.SetBytes(1024)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		req, resp := newRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		for pb.Next() {
			if !do(req, resp) {
				return
			}
		}
	})
}
