package httpproxy

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
)

// BenchmarkKeepalive1K proxies a 1 KiB response from a kept-alive raw
// backend: the path edge ab's proxy scenario measures.
func BenchmarkKeepalive1K(b *testing.B) {
	body := strings.Repeat("x", 1024)
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1024\r\n\r\n" + body)
	bk := newBackend(b, "tcp", "127.0.0.1:0", func(_ *backend, c net.Conn, br *bufio.Reader) {
		// Requests without a body: answer at each empty line.
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(line) == 2 {
				if _, err := c.Write(resp); err != nil {
					return
				}
			}
		}
	})
	u := bk.upstream()
	u.Keepalive = &Keepalive{Max: 8}
	req := keepaliveGet()
	req.Client = []Header{{"User-Agent", "bench"}, {"Accept", "*/*"}}
	b.SetBytes(1024)
	b.ReportAllocs()
	buf := make([]byte, 4096)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := u.Do(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := r.Read(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
}
