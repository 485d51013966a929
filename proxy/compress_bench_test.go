// This file measures the compression filters on a 10 KiB HTML page
// (issue 15: "the cost per request of brotli vs gzip"): the body
// compressed whole, as a FastCGI response is on every request, at edge's
// defaults (gzip_comp_level 1, brotli_comp_level 6 with the window the
// page's length picks) and at levels 1 and 6 of each.

package proxy

import (
	"fmt"
	"strings"
	"testing"
)

// page10K is a fixed 10 KiB HTML page: WordPress-like markup whose words
// come from a small generator, so it compresses as real pages do rather
// than as one repeated line.
var page10K = func() []byte {
	words := strings.Fields("the of and a to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part")
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>A page</title>\n<link rel=\"stylesheet\" href=\"/wp-content/themes/t/style.css?ver=6.4\"></head>\n<body class=\"home page-template-default\">\n")
	seed := uint32(12345)
	for n := 0; b.Len() < 10<<10-200; n++ {
		fmt.Fprintf(&b, "<article id=\"post-%d\" class=\"post type-post status-publish\"><h2><a href=\"/?p=%d\">", n, n)
		for i := 0; i < 60; i++ {
			seed = seed*1664525 + 1013904223
			b.WriteString(words[seed>>24%uint32(len(words))])
			if i == 5 {
				b.WriteString("</a></h2>\n<p>")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString("</p></article>\n")
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}()

func BenchmarkCompress10K(b *testing.B) {
	page := page10K
	w := brotliWindow(int64(len(page)), 19)
	for _, c := range []struct {
		name string
		run  func() []byte
	}{
		{"gzip/level=1-default", func() []byte { return gzipBytes(page, 1) }},
		{"gzip/level=6", func() []byte { return gzipBytes(page, 6) }},
		{"brotli/level=1", func() []byte { return brotliBytes(page, 1, w) }},
		{"brotli/level=6-default", func() []byte { return brotliBytes(page, 6, w) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			var n int
			for b.Loop() {
				n = len(c.run())
			}
			b.ReportMetric(float64(len(page))/float64(n), "ratio")
		})
	}
}

// BenchmarkCompressFilter10K is the whole filter chain's cost for the
// page served from memory but not from the file cache (a FastCGI body):
// the header filters, the choice of coding and the compression.
func BenchmarkCompressFilter10K(b *testing.B) {
	for _, c := range []struct{ name, set, ae string }{
		{"gzip/level=1-default", "", "gzip"},
		{"gzip/level=6", "gzip_comp_level 6;", "gzip"},
		{"brotli/level=1", "brotli_comp_level 1;", "gzip, br"},
		{"brotli/level=6-default", "", "gzip, br"},
	} {
		b.Run(c.name, func(b *testing.B) {
			rt, _ := testPipeline(b, "events {}\nhttp {\n    access_log off;\n    gzip on;\n    brotli on;\n    "+c.set+
				"\n    server { listen 127.0.0.1:8080; }\n}\n", nil)
			srv := rt.plan.HTTP.Servers[0]
			h := benchHeaders{{"Accept-Encoding", c.ae}}
			b.SetBytes(int64(len(page10K)))
			b.ReportAllocs()
			for b.Loop() {
				r := fakeRequest(rt, "GET", "/", h)
				r.srv, r.loc = srv, srv.Loc
				r.resp.Status = 200
				r.resp.Kind, r.resp.Bytes, r.resp.Length = BodyBytes, page10K, int64(len(page10K))
				r.resp.Header.Set("Content-Type", "text/html")
				rt.filters(r)
				ReleaseRequest(r)
			}
		})
	}
}
