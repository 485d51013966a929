// This file measures a proxied request through the pipeline (issue 17's
// proxy-1k scenario without the engines): a 1 KiB answer from a kept
// upstream connection to a loopback backend in the test's process that
// answers from a fixed buffer, so the allocations counted are edge's.
package proxy

import (
	"bufio"
	"bytes"
	"edge/proxy/internal/plantest"
	"net"
	"strings"
	"testing"
)

func BenchmarkProxyPass1K(b *testing.B) {
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1024\r\n\r\n" + strings.Repeat("x", 1024))
	addr := answerEachHead(b, answer)
	root := b.TempDir()
	plan := loadTestPlan(b, root, `events {}
http {
    access_log off;
    upstream up { server `+addr+`; keepalive 8; }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_http_version 1.1; proxy_set_header Connection ""; proxy_pass http://up/1k; }
    }
}
`)
	rt := testSite(b, plan)
	get := pipelineGet(rt, plan, "/x")
	r := get()
	if r.resp.Status != 200 || r.resp.Length != 1024 {
		b.Fatalf("status %d, length %d", r.resp.Status, r.resp.Length)
	}
	rt.Done(r, r.resp.Length)
	ReleaseRequest(r)
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		r := get()
		r.resp.Release() // the engine copies the body out and gives the buffer back
		rt.Done(r, r.resp.Length)
		ReleaseRequest(r)
	}
}

// BenchmarkProxyCacheHit is a 1 KiB cache HIT through the pipeline (the
// cached-page scenarios' path past the engine): the lookup, the entry's
// headers and body, the log.
func BenchmarkProxyCacheHit(b *testing.B) {
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1024\r\nCache-Control: max-age=3600\r\n\r\n" + strings.Repeat("x", 1024))
	addr := answerEachHead(b, answer)
	root := b.TempDir()
	plan := loadTestPlan(b, root, `events {}
http {
    access_log off;
    proxy_cache_path `+root+`/cache keys_zone=P:1m;
    server {
        listen 127.0.0.1:8080;
        location / { proxy_cache P; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_pass http://`+addr+`/1k; }
    }
}
`)
	rt := testSite(b, plan)
	get := pipelineGet(rt, plan, "/x")
	for i, want := range []string{"MISS", "HIT"} {
		r := get()
		if got := r.cache.status.String(); r.resp.Status != 200 || r.resp.Length != 1024 || got != want {
			b.Fatalf("request %d: status %d, length %d, %s; want 200, 1024, %s", i+1, r.resp.Status, r.resp.Length, got, want)
		}
		r.resp.Release()
		rt.Done(r, r.resp.Length)
		ReleaseRequest(r)
	}
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		r := get()
		r.resp.Release()
		rt.Done(r, r.resp.Length)
		ReleaseRequest(r)
	}
}

// answerEachHead serves answer, on a loopback address it returns, after
// every request head a connection sends (bodies are not read).
func answerEachHead(b *testing.B, answer []byte) string {
	return plantest.Loopback(b, func(c net.Conn, _ int) {
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if bytes.Equal(line, []byte("\r\n")) {
				if _, err := c.Write(answer); err != nil {
					return
				}
			}
		}
	})
}
