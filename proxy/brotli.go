// This file holds ngx_brotli's two modules (issue 15): the filter that
// compresses responses with br (ngx_http_brotli_filter_module) and the
// static handler that sends a file's ".br" sibling
// (ngx_http_brotli_static_module). The response-side checks the filter
// shares with gzip (encodable) and the compression itself (encode) are in
// filters.go; the encoder is github.com/andybalholm/brotli, pure Go.
package proxy

import (
	"bytes"
	"io"
	"sync"

	"github.com/andybalholm/brotli"

	"edge/cache"
)

// brotliFilter compresses eligible responses with br
// (ngx_http_brotli_header_filter). Unlike gzip it has no http_version,
// proxied or disable checks: the type, length and status are all, and a
// client naming br (not at q=0) gets it. It asks for Vary as gzip does,
// which appears only where gzip_vary is on (nginx's r->gzip_vary).
func (rt *Site) brotliFilter(r *Request) {
	b := &r.loc.Brotli
	if !encodable(r, &b.Encoding) {
		return
	}
	r.gzipVary = true
	if !acceptsBrotli(r.Header.Get("Accept-Encoding")) {
		return
	}
	rt.encode(r, &brotliCoding, b.CompLevel, brotliWindow(r.resp.Length, b.Window), &r.brotliRatio)
}

// brotliWindow is the window's log2 for a body of length n (-1 unknown):
// the least from 10 up that holds the body, never above the configured
// one (ngx_http_brotli_filter_ensure_stream_initialized).
func brotliWindow(n int64, max int) int {
	if n <= 0 {
		return max
	}
	w := 10
	for w < max && n > 1<<w {
		w++
	}
	return w
}

// acceptsBrotli is ngx_brotli filter's check_accept_encoding: some "br"
// in Accept-Encoding, with a separator or the start before it and a
// separator, ';' or the end after it, that is not weighted q=0 (the
// module reads "q=0", "q=0.", "q=0.0", "q=0.00" and "q=0.000" as zero and
// any other digit as not).
func acceptsBrotli(ae string) bool {
	at := func(i int) byte { // the module reads past the end as NUL
		if i < len(ae) {
			return ae[i]
		}
		return 0
	}
	for start := 0; ; {
		i := indexFold(ae[start:], "br")
		if i < 0 {
			return false
		}
		p := start + i
		start = p + 2
		if p > 0 && ae[p-1] != ',' && ae[p-1] != ' ' {
			continue
		}
		if c := at(start); start < len(ae) && c != ',' && c != ' ' && c != ';' {
			continue
		}
		return !brotliZeroQ(ae, start, at)
	}
}

// brotliZeroQ reads the parameters after a "br" token at p as the module
// does: only ";q=0" with at most three zero decimals is zero.
func brotliZeroQ(ae string, p int, at func(int) byte) bool {
	skip := func() {
		for at(p) == ' ' {
			p++
		}
	}
	for _, want := range []byte{';', 'q', '=', '0'} {
		skip()
		if at(p) != want {
			return false
		}
		p++
		if want == '0' {
			break
		}
	}
	if at(p) != '.' {
		return true // "q=0" and what follows it
	}
	p++
	for range 3 {
		d := at(p)
		if d < '0' || d > '9' {
			return true
		}
		if d > '0' {
			return false
		}
		p++
	}
	return true
}

// acceptsBrotliStatic is the static module's own, looser test
// (ngx_http_brotli_ok): the value starts with "br," or its first "br" is a
// whole token; the quality is not read, so "br;q=0" takes the file.
func acceptsBrotliStatic(ae string) bool {
	if len(ae) < 2 {
		return false
	}
	if len(ae) >= 3 && ae[:3] == "br," {
		return true
	}
	p := indexFold(ae, "br")
	if p < 0 || p > 0 && ae[p-1] != ',' && ae[p-1] != ' ' {
		return false
	}
	p += 2
	return p == len(ae) || ae[p] == ',' || ae[p] == ';' || ae[p] == ' '
}

// brotliStatic is brotli_static, run where nginx runs the module's
// content handler, before the static one: for GET and HEAD of a file
// path, it sends path+".br" as "Content-Encoding: br" when the client
// takes br (or always with "always"), even where the file itself is
// missing. The ".br" file is looked up in the file cache, so its
// existence (or absence) and small contents are kept as the file's are.
// ok is false when the request goes on to the static handler.
func (rt *Site) brotliStatic(r *Request, path string) (status int, ok bool) {
	mode := r.loc.Brotli.Static
	if mode == "" || mode == "off" || r.Method != "GET" && r.Method != "HEAD" {
		return 0, false
	}
	takes := mode == "always" || acceptsBrotliStatic(r.Header.Get("Accept-Encoding"))
	if !takes && !r.loc.Gzip.Vary {
		return 0, false
	}
	br := path + ".br"
	e := rt.files.getAt(br, r.Start)
	if !e.info.exists {
		switch e.info.err {
		case errNotFound, errNotDir:
		case errForbidden:
			rt.log.errorf(r, "open() \"%s\" failed (13: Permission denied)", br)
		default:
			rt.log.critf(r, "open() \"%s\" failed (%v)", br, e.info.err)
		}
		return 0, false
	}
	if mode == "on" {
		r.gzipVary = true
		if !takes {
			return 0, false
		}
	}
	if e.info.isDir {
		return 0, false
	}
	if !e.info.mode.IsRegular() {
		rt.log.critf(r, "\"%s\" is not a regular file", br)
		return 404, true
	}
	if st := rt.fileResponse(r, e); st != 0 {
		return st, true
	}
	// The module sends no Accept-Ranges (it does not set allow_ranges),
	// so the range filter leaves the body whole.
	r.resp.Header.Del("Accept-Ranges")
	r.resp.Header.Set("Content-Encoding", "br")
	return 0, true
}

var brotliCoding = coding{
	token:   "br",
	id:      1,
	whole:   brotliBytes,
	writer:  brotliWriter,
	release: releaseBrotliWriter,
}

// brotliWriters keeps encoders by quality and window: an encoder's tables
// are the costly part of a request, and Reset keeps its options.
var brotliWriters [12][25]sync.Pool

func brotliWriter(w io.Writer, level, window int) compressWriter {
	if zw, _ := brotliWriters[level][window].Get().(*brotli.Writer); zw != nil {
		zw.Reset(w)
		return zw
	}
	return brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: level, LGWin: window})
}

func releaseBrotliWriter(zw compressWriter, level, window int) {
	brotliWriters[level][window].Put(zw)
}

// brotliBytes compresses a whole body.
func brotliBytes(b []byte, level, window int) []byte {
	var out bytes.Buffer
	out.Grow(len(b)/3 + 64)
	zw := brotliWriter(&out, level, window)
	_, _ = zw.Write(b)
	_ = zw.Close()
	releaseBrotliWriter(zw, level, window)
	return out.Bytes()
}

// brotliWouldTake reports whether the brotli filter will compress a
// fastcgi_cache entry's identity body for this client, so that a HIT does
// not send the stored gzip variant where nginx would send br.
func (rt *Site) brotliWouldTake(r *Request, e *cache.Entry) bool {
	return encodableHead(&r.loc.Brotli.Encoding, e.Status, &r.resp.Header, e.Identity.Len) &&
		acceptsBrotli(r.Header.Get("Accept-Encoding"))
}
