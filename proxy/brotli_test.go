// This file tests ngx_brotli's filter and static modules as edge runs
// them: the Accept-Encoding tests, the negotiation with gzip, the bodies
// (decoded with the same library and compared byte for byte) and
// brotli_static's choice of the ".br" file.
package proxy

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"

	"edge/cache"
)

// TestAcceptsBrotli: ngx_brotli filter's check_accept_encoding, case by
// case, including its reading of q-values.
func TestAcceptsBrotli(t *testing.T) {
	for _, tc := range []struct {
		ae   string
		want bool
	}{
		{"", false},
		{"br", true},
		{"BR", true},
		{"gzip, deflate, br", true},
		{"gzip,br", true},
		{"br, gzip", true},
		{"br;q=1", true},
		{"br;q=0.5", true},
		{"br; q=0.001", true},
		{"br;q=0", false},
		{"br ; q = 0", false},
		{"br;q=0.", false},
		{"br;q=0.0", false},
		{"br;q=0.000", false},
		{"gzip, br;q=0, deflate", false},
		{"brotli", false},
		{"xbr", false},
		{"abr, br", true}, // a later whole token counts
		{"br2, br;q=0", false},
		{"br;level=1", true}, // a parameter other than q is not a zero q
		{"gzip;q=0.5, br;q=0.9", true},
	} {
		if got := acceptsBrotli(tc.ae); got != tc.want {
			t.Errorf("acceptsBrotli(%q) = %v, want %v", tc.ae, got, tc.want)
		}
	}
}

// TestAcceptsBrotliStatic: the static module's looser test, which reads no
// quality and only the first "br".
func TestAcceptsBrotliStatic(t *testing.T) {
	for _, tc := range []struct {
		ae   string
		want bool
	}{
		{"", false},
		{"br", true},
		{"br,gzip", true},
		{"gzip, br", true},
		{"br;q=0", true}, // as ngx_http_brotli_ok: the quality is not read
		{"brotli, br", false},
		{"gzip", false},
	} {
		if got := acceptsBrotliStatic(tc.ae); got != tc.want {
			t.Errorf("acceptsBrotliStatic(%q) = %v, want %v", tc.ae, got, tc.want)
		}
	}
}

func TestBrotliWindow(t *testing.T) {
	for _, tc := range []struct {
		n         int64
		max, want int
	}{
		{-1, 19, 19}, {0, 19, 19}, {1, 19, 10}, {1024, 19, 10}, {1025, 19, 11},
		{10 << 10, 19, 14}, {1 << 30, 19, 19}, {1 << 30, 22, 22}, {5000, 12, 12},
	} {
		if got := brotliWindow(tc.n, tc.max); got != tc.want {
			t.Errorf("brotliWindow(%d, %d) = %d, want %d", tc.n, tc.max, got, tc.want)
		}
	}
}

const brotliConf = `events {}
http {
    include mime.types;
    access_log off;
    gzip on;
    gzip_vary on;
    gzip_types text/css;
    brotli on;
    brotli_types text/css application/javascript;
    brotli_min_length 64;
    brotli_comp_level 5;
    server {
        listen 127.0.0.1:8080;
        root {{ROOT}}/html;
        location /nobr/ { brotli off; }
        location /novary/ { gzip_vary off; }
        location /static/ { brotli_static on; }
        location /always/ { brotli_static always; }
        location /staticnovary/ { brotli_static on; gzip_vary off; }
    }
}
`

// varyAE counts a response's "Vary: Accept-Encoding" lines.
func varyAE(resp *Response) int {
	n := 0
	resp.Header.Each(func(name, value string) {
		if strings.EqualFold(name, "Vary") && value == "Accept-Encoding" {
			n++
		}
	})
	return n
}

func decode(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	var rd io.Reader
	switch enc {
	case "br":
		rd = brotli.NewReader(bytes.NewReader(b))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		rd = zr
	default:
		return b
	}
	out, err := io.ReadAll(rd)
	if err != nil {
		t.Fatalf("decoding %s: %v", enc, err)
	}
	return out
}

// TestBrotliNegotiation: which coding a response gets with brotli and gzip
// both on, as nginx with ngx_brotli decides (the brotli filter runs
// first and takes any client naming br; gzip takes the rest), the Vary
// that gzip_vary adds once for both, and the bodies decoded.
func TestBrotliNegotiation(t *testing.T) {
	html := strings.Repeat("<p>some html to compress, brotli or gzip</p>\n", 40)
	big := strings.Repeat("<p>a file too large for the file cache's memory</p>\n", 6000)
	files := map[string]string{
		"a.html": html, "a.css": html, "a.js": html, "a.txt": html, "short.html": "<p>under brotli_min_length</p>",
		"big.html": big, "nobr/a.html": html, "novary/a.html": html,
	}
	rt, _ := testPipeline(t, brotliConf, files)
	for _, tc := range []struct {
		name, method, target, ae string
		enc                      string // "" = identity
		vary                     int    // how many Vary: Accept-Encoding
	}{
		{"br and gzip: br", "GET", "/a.html", "gzip, deflate, br", "br", 1},
		{"br only", "GET", "/a.html", "br", "br", 1},
		{"gzip only", "GET", "/a.html", "gzip", "gzip", 1},
		{"br;q=0 falls back to gzip", "GET", "/a.html", "gzip, br;q=0", "gzip", 1},
		{"gzip;q=0 but br", "GET", "/a.html", "gzip;q=0, br", "br", 1},
		{"br preferred over a higher gzip q", "GET", "/a.html", "gzip;q=1, br;q=0.1", "br", 1},
		{"no Accept-Encoding", "GET", "/a.html", "", "", 1},
		{"css in both lists", "GET", "/a.css", "br", "br", 1},
		{"js only in brotli_types", "GET", "/a.js", "gzip, br", "br", 1},
		{"js only in brotli_types, gzip client", "GET", "/a.js", "gzip", "", 1},
		{"text/plain in neither", "GET", "/a.txt", "gzip, br", "", 0},
		{"under brotli_min_length, over gzip's", "GET", "/short.html", "gzip, br", "gzip", 1},
		{"brotli off", "GET", "/nobr/a.html", "gzip, br", "gzip", 1},
		{"gzip_vary off: no Vary for br either", "GET", "/novary/a.html", "br", "br", 0},
		{"HEAD gets GET's headers", "HEAD", "/a.html", "br", "br", 1},
		{"a file streamed from disk", "GET", "/big.html", "br", "br", 1},
		{"a 404 is compressed too", "GET", "/missing.html", "br", "br", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h benchHeaders
			if tc.ae != "" {
				h = benchHeaders{{"Accept-Encoding", tc.ae}}
			}
			r := serveFake(t, rt, tc.method, tc.target, h)
			resp := r.resp
			if got := resp.Header.Get("Content-Encoding"); got != tc.enc {
				t.Fatalf("Content-Encoding %q, want %q (status %d)", got, tc.enc, resp.Status)
			}
			if vary := varyAE(resp); vary != tc.vary {
				t.Errorf("%d Vary: Accept-Encoding, want %d", vary, tc.vary)
			}
			if tc.enc != "" && resp.Header.Has("Accept-Ranges") {
				t.Errorf("Accept-Ranges kept on a compressed body")
			}
			if et := resp.Header.Get("ETag"); tc.enc != "" && et != "" && !strings.HasPrefix(et, "W/") {
				t.Errorf("ETag %q not weakened", et)
			}
			if tc.method == "HEAD" || resp.Status != 200 {
				return
			}
			want := files[tc.target[1:]]
			got := decode(t, tc.enc, []byte(body(t, r)))
			if !bytes.Equal(got, []byte(want)) {
				t.Errorf("decoded body of %d bytes differs from the file's %d", len(got), len(want))
			}
			if tc.enc == "br" && tc.target != "/big.html" && r.brotliRatio == "" {
				t.Errorf("$brotli_ratio empty")
			}
		})
	}
}

// TestBrotliLevels: every brotli_comp_level and a window give a body that
// decodes to the original, and a cached file is compressed once.
func TestBrotliLevels(t *testing.T) {
	page := []byte(strings.Repeat("<li>item of a list, with a little variety 12345</li>\n", 200))
	for level := 0; level <= 11; level++ {
		for _, w := range []int{10, 16, 19, 24} {
			z := brotliBytes(page, level, w)
			if got := decode(t, "br", z); !bytes.Equal(got, page) {
				t.Fatalf("level %d window %d: decoded body differs", level, w)
			}
		}
	}
	e := &fileEntry{data: page}
	a := e.compressed(&brotliCoding, 6, 14)
	b := e.compressed(&brotliCoding, 6, 14)
	g := e.compressed(&gzipCoding, 6, 0)
	if &a[0] != &b[0] {
		t.Errorf("a cached file compressed twice")
	}
	if bytes.Equal(a, g) {
		t.Errorf("br and gzip variants share a key")
	}
}

// TestBrotliStatic: brotli_static sends the ".br" file (on: to a client
// naming br; always: to any), with the original's type, no Accept-Ranges,
// the Vary that gzip_vary asks for, and nothing when there is no ".br".
func TestBrotliStatic(t *testing.T) {
	plain := strings.Repeat("body { color: red; }\n", 20)
	pre := "pretend-brotli-bytes" // the module sends the file as it is
	rt, _ := testPipeline(t, brotliConf, map[string]string{
		"static/a.css": plain, "static/a.css.br": pre, "static/b.css": plain,
		"static/only.css.br": pre,
		"always/a.css":       plain, "always/a.css.br": pre,
		"staticnovary/a.css": plain, "staticnovary/a.css.br": pre,
	})
	for _, tc := range []struct {
		name, method, target, ae string
		status                   int
		enc, body                string
		vary                     int
	}{
		{"on, client takes br", "GET", "/static/a.css", "gzip, br", 200, "br", pre, 1},
		{"on, br;q=0 still takes it", "GET", "/static/a.css", "br;q=0", 200, "br", pre, 1},
		{"on, gzip client: the filter's gzip", "GET", "/static/a.css", "gzip", 200, "gzip", plain, 1},
		{"on, no .br: the filter's br", "GET", "/static/b.css", "br", 200, "br", plain, 1},
		{"on, only the .br exists", "GET", "/static/only.css", "br", 200, "br", pre, 1},
		{"on, only the .br exists, no br", "GET", "/static/only.css", "", 404, "", "", 1},
		{"on, HEAD", "HEAD", "/static/a.css", "br", 200, "br", "", 1},
		{"on, POST is not its", "POST", "/static/a.css", "br", 405, "", "", 0},
		{"always, no Accept-Encoding", "GET", "/always/a.css", "", 200, "br", pre, 0},
		{"on, gzip_vary off", "GET", "/staticnovary/a.css", "br", 200, "br", pre, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h benchHeaders
			if tc.ae != "" {
				h = benchHeaders{{"Accept-Encoding", tc.ae}}
			}
			r := serveFake(t, rt, tc.method, tc.target, h)
			resp := r.resp
			if resp.Status != tc.status {
				t.Fatalf("status %d, want %d", resp.Status, tc.status)
			}
			if got := resp.Header.Get("Content-Encoding"); got != tc.enc {
				t.Fatalf("Content-Encoding %q, want %q", got, tc.enc)
			}
			if vary := varyAE(resp); vary != tc.vary {
				t.Errorf("%d Vary: Accept-Encoding, want %d", vary, tc.vary)
			}
			if tc.status != 200 {
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/css" {
				t.Errorf("Content-Type %q, want the original's text/css", ct)
			}
			if tc.body == pre && resp.Header.Has("Accept-Ranges") {
				t.Errorf("Accept-Ranges on a brotli_static answer")
			}
			if tc.method == "HEAD" {
				return
			}
			got := body(t, r)
			if tc.body == plain {
				got = string(decode(t, tc.enc, []byte(got)))
			}
			if got != tc.body {
				t.Errorf("body %q, want %q", got, tc.body)
			}
		})
	}
}

// TestBrotliWouldTakeCacheHit: a fastcgi_cache HIT leaves the stored gzip
// variant for the identity body where the brotli filter will take it.
func TestBrotliWouldTakeCacheHit(t *testing.T) {
	rt, _ := testPipeline(t, brotliConf, map[string]string{"a.html": "x", "nobr/a.html": "x"})
	for _, tc := range []struct {
		target, ae, ct string
		status         int
		n              int64
		want           bool
	}{
		{"/a.html", "gzip, br", "text/html", 200, 1000, true},
		{"/a.html", "gzip", "text/html", 200, 1000, false},
		{"/a.html", "gzip, br;q=0", "text/html", 200, 1000, false},
		{"/a.html", "br", "text/plain", 200, 1000, false},
		{"/a.html", "br", "text/html", 302, 1000, false},
		{"/a.html", "br", "text/html", 200, 10, false}, // under brotli_min_length
		{"/nobr/a.html", "br", "text/html", 200, 1000, false},
	} {
		r := serveFake(t, rt, "GET", tc.target, benchHeaders{{"Accept-Encoding", tc.ae}})
		r.resp.Header.reset()
		r.resp.Header.Set("Content-Type", tc.ct)
		e := &cache.Entry{Meta: &cache.Meta{Status: tc.status, Identity: cache.Section{Len: tc.n}}}
		if got := rt.brotliWouldTake(r, e); got != tc.want {
			t.Errorf("%+v: %v", tc, got)
		}
	}
}
