package listen_test

import (
	"context"
	"crypto/tls"
	"edge/conf"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"edge/proxy/internal/plantest"
	"edge/proxy/listen"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
	"golang.org/x/net/http2"
)

// BenchmarkStatic1K is a GET of a cached 1 KiB file with an access log
// line, over fasthttp's parsing and writing on in-memory keep-alive
// connections, with parallel clients (proxy's BenchmarkStatic1K serves
// it to the engine-neutral entry directly).
func BenchmarkStatic1K(b *testing.B) {
	b.Run("http1", benchStaticHTTP1)
	b.Run("h2", benchStaticH2)
}

func benchStaticHTTP1(b *testing.B) {
	plan, _ := plantest.BenchSite(b)
	ln := serveInMemory(b, plan)
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

// benchStaticH2 is the same GET over h2c with prior knowledge: 16
// parallel requests on 4 connections (x/net/http2's Transport as the
// client), so that streams share connections as h2load's do. frames/op
// counts the frames the server sent per request. The engine is the
// process's (EDGE_H2_ENGINE=xnet for golang.org/x/net/http2's).
func benchStaticH2(b *testing.B) {
	plan, _ := plantest.BenchSiteH2(b)
	ln := serveInMemory(b, plan)
	var frames atomic.Int64
	const conns = 4
	clients := make([]*http.Client, conns)
	for i := range clients {
		tr := &http2.Transport{
			AllowHTTP: true,
			DialTLSContext: func(context.Context, string, string, *tls.Config) (net.Conn, error) {
				c, err := ln.Dial()
				return &frameCounter{Conn: c, n: &frames}, err
			},
		}
		b.Cleanup(tr.CloseIdleConnections)
		clients[i] = &http.Client{Transport: tr}
	}
	get := func(c *http.Client, buf []byte) bool {
		req, _ := http.NewRequest("GET", "http://example.com/1k.txt", nil)
		for _, h := range plantest.BrowserHeaders[1:] {
			req.Header.Set(h[0], h[1])
		}
		resp, err := c.Do(req)
		if err != nil {
			b.Errorf("GET /1k.txt: %v", err)
			return false
		}
		n, _ := io.ReadFull(resp.Body, buf)
		resp.Body.Close()
		if resp.StatusCode != 200 || n != 1024 {
			b.Errorf("GET /1k.txt: status %d, %d bytes", resp.StatusCode, n)
			return false
		}
		return true
	}
	for _, c := range clients {
		if !get(c, make([]byte, 2048)) {
			b.FailNow()
		}
	}
	var next atomic.Int64
	b.SetBytes(1024)
	b.ReportAllocs()
	b.SetParallelism(8)
	frames.Store(0)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		c := clients[next.Add(1)%conns]
		buf := make([]byte, 2048)
		for pb.Next() {
			if !get(c, buf) {
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(frames.Load())/float64(b.N), "frames/op")
}

// frameCounter counts the HTTP/2 frames read from a connection by their
// 9-byte headers (after the server's preface-less start).
type frameCounter struct {
	net.Conn
	n       *atomic.Int64
	hdr     [9]byte
	hdrN    int
	payload int
}

func (f *frameCounter) Read(p []byte) (int, error) {
	n, err := f.Conn.Read(p)
	for b := p[:n]; len(b) > 0; {
		if f.payload > 0 {
			k := min(f.payload, len(b))
			f.payload -= k
			b = b[k:]
			continue
		}
		k := copy(f.hdr[f.hdrN:], b)
		f.hdrN += k
		b = b[k:]
		if f.hdrN == 9 {
			f.hdrN = 0
			f.payload = int(f.hdr[0])<<16 | int(f.hdr[1])<<8 | int(f.hdr[2])
			f.n.Add(1)
		}
	}
	return n, err
}

// serveInMemory serves plan on an in-memory listener for 127.0.0.1:8080
// until the benchmark ends.
func serveInMemory(b *testing.B, plan *conf.Plan) *fasthttputil.InmemoryListener {
	ln := fasthttputil.NewInmemoryListener()
	s := listen.NewServer(listen.Options{
		ErrorLog:  plantest.SilentLog(),
		Listeners: map[string]net.Listener{"tcp 127.0.0.1:8080": ln},
	})
	if err := s.Apply(plan); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return ln
}
