// This file holds the response filters, in the order nginx runs its
// header filters (the reverse of module registration):
//
//  1. not-modified   If-Modified-Since / If-None-Match -> 304, If-Match /
//     If-Unmodified-Since -> 412 (ngx_http_not_modified_filter_module)
//  2. headers-more   more_set_headers, more_clear_headers (headersmore.go;
//     a dynamic module, which nginx runs before the headers filter)
//  3. headers        expires and add_header, on the statuses nginx allows
//     unless "always" (ngx_http_headers_filter_module)
//  4. charset        "; charset=utf-8" for charset_types
//  5. brotli, gzip   their types and min_length, gzip_proxied, Vary
//     (ngx_brotli's filter, then ngx_http_gzip_filter_module; brotli.go)
//  6. range          single and multipart byte ranges, If-Range
//  7. header         Server, Location made absolute, Keep-Alive
//     (ngx_http_header_filter_module)
package proxy

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"edge/cache"
	"edge/conf"
	"edge/internal/gzfixed"
)

// safeStatus lists the statuses expires and plain add_header apply to.
func safeStatus(s int) bool {
	switch s {
	case 200, 201, 204, 206, 301, 302, 303, 304, 307, 308:
		return true
	}
	return false
}

func (rt *Site) filters(r *Request) {
	resp := r.resp
	if resp.Drop {
		return
	}
	if r.errStatus != 0 {
		resp.Status = r.errStatus
	}
	rt.notModified(r)
	rt.moreOutput(r)
	rt.headersFilter(r)
	rt.charsetFilter(r)
	// ssi sits after charset and before the compression filters.
	rt.ssiFilter(r)
	// ngx_brotli's filter sits before gzip in nginx's chain: where both
	// would compress, a client taking br gets br.
	rt.brotliFilter(r)
	rt.gzipFilter(r)
	if r.gzipVary && r.loc.Gzip.Vary {
		r.resp.Header.Add("Vary", "Accept-Encoding")
	}
	rt.rangeFilter(r)
	rt.headerFilter(r)
}

func (rt *Site) notModified(r *Request) {
	resp := r.resp
	if resp.Status != 200 || fromUpstream(r) {
		return
	}
	lmText := resp.Header.Get("Last-Modified")
	etag := resp.Header.Get("ETag")
	// A response without validators still goes through the check, as in
	// nginx: If-Match and If-Unmodified-Since then fail (412) and "*"
	// matches (304).
	req := cache.CondRequest{
		IfModifiedSince:   r.Header.Get("If-Modified-Since"),
		IfUnmodifiedSince: r.Header.Get("If-Unmodified-Since"),
		IfMatch:           r.Header.Get("If-Match"),
		IfNoneMatch:       r.Header.Get("If-None-Match"),
	}
	if req == (cache.CondRequest{}) {
		return
	}
	var lm time.Time
	if r.fileCache != nil {
		lm = r.fileCache.info.mtime
	} else if lmText != "" {
		lm, _ = time.Parse(httpTimeFormat, lmText)
	}
	switch cache.Check(req, lm, etag, cache.IMSMode(r.loc.IfModifiedSince)) {
	case cache.CondNotModified:
		resp.Status = 304
		resp.Header.Del("Content-Type")
		resp.Header.Del("Content-Length")
		resp.Header.Del("Accept-Ranges")
		resp.Header.Del("Content-Encoding")
		rt.dropBody(resp)
	case cache.CondPreconditionFailed:
		rt.dropBody(resp)
		resp.Header.Del("Last-Modified")
		resp.Header.Del("ETag")
		resp.Header.Del("Accept-Ranges")
		// A cache HIT's stored variant set these; the page is not
		// compressed, and nginx's gzip filter leaves a 412 alone.
		resp.Header.Del("Content-Encoding")
		r.gzipVary = false
		rt.specialResponse(r, 412)
	}
}

// fromUpstream reports whether the response is a FastCGI backend's own:
// nginx sets r->disable_not_modified for uncached upstream responses, and
// never sets allow_ranges on them, so neither 304/412 nor ranges apply. A
// static file reached through X-Accel-Redirect is not one.
func fromUpstream(r *Request) bool {
	return r.up.used() && r.fileCache == nil && !r.cache.served
}

// dropBody releases a body that will not be sent.
func (rt *Site) dropBody(resp *Response) {
	if resp.Kind == BodyFile && resp.CloseFile && resp.File != nil {
		resp.File.Close()
	}
	resp.Release()
	resp.Kind, resp.Bytes, resp.File, resp.Stream, resp.Length = BodyNone, nil, nil, nil, 0
	resp.Unsized = false
}

// headersFilter applies expires and add_header.
func (rt *Site) headersFilter(r *Request) {
	resp := r.resp
	l := r.loc
	safe := safeStatus(resp.Status)
	if safe && l.Expires.Mode != conf.ExpiresOff {
		rt.applyExpires(r, l.Expires)
	}
	for i := range l.AddHeaders {
		h := &l.AddHeaders[i]
		if !safe && !h.Always {
			continue
		}
		v := rt.eval(r, h.Value)
		// EqualFold, not a switch on ToLower: that made a string a request
		// for each name with a capital ("X-Cache").
		switch {
		case strings.EqualFold(h.Name, "cache-control"):
			if v != "" {
				resp.Header.Add(h.Name, v)
			}
		case strings.EqualFold(h.Name, "last-modified"), strings.EqualFold(h.Name, "etag"):
			if v == "" {
				resp.Header.Del(h.Name)
			} else {
				resp.Header.Set(h.Name, v)
			}
			if strings.EqualFold(h.Name, "last-modified") {
				r.fileCache = nil
			}
		default:
			if v != "" {
				resp.Header.Add(h.Name, v)
			}
		}
	}
}

// applyExpires sets Expires and Cache-Control as ngx_http_set_expires
// does. A value with variables is parsed per request; an invalid one, as
// an "off", leaves the headers alone, and nginx logs nothing for it.
func (rt *Site) applyExpires(r *Request, e conf.Expires) {
	if e.Var != nil {
		parsed, reason := conf.ParseExpires(rt.eval(r, e.Var), e.Mode == conf.ExpiresModified)
		if reason != "" || parsed.Mode == conf.ExpiresOff {
			return
		}
		parsed.Var = e.Var
		e = parsed
	}
	var lm time.Time
	if r.fileCache != nil {
		lm = r.fileCache.info.mtime
	} else if t := r.resp.Header.Get("Last-Modified"); t != "" {
		lm, _ = time.Parse(httpTimeFormat, t)
	}
	exp, cc, ok := cache.ExpiresHeaders(e, rt.now(), lm)
	if !ok {
		return
	}
	r.resp.Header.Set("Expires", exp)
	r.resp.Header.Set("Cache-Control", cc)
}

// charsetFilter appends "; charset=X" to types in charset_types.
func (rt *Site) charsetFilter(r *Request) {
	l := r.loc
	if l.Charset == "" {
		return
	}
	// nginx never labels a 301 or 302 (ngx_http_destination_charset: old
	// browsers took the redirect's charset for the next page's).
	if r.resp.Status == 301 || r.resp.Status == 302 {
		return
	}
	ct := r.resp.Header.Get("Content-Type")
	if ct == "" || strings.Contains(ct, "charset=") {
		return
	}
	base := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	if !l.CharsetTypes[base] && !l.CharsetTypes["*"] {
		return
	}
	r.resp.Header.Set("Content-Type", ct+"; charset="+l.Charset)
}

// rangeFilter answers Range requests on full 200 responses.
func (rt *Site) rangeFilter(r *Request) {
	resp := r.resp
	if resp.Status != 200 || resp.Header.Get("Accept-Ranges") != "bytes" || resp.Length < 0 || fromUpstream(r) {
		return
	}
	rng := r.Header.Get("Range")
	if len(rng) < 6 || !strings.EqualFold(rng[:6], "bytes=") {
		return
	}
	if ir := r.Header.Get("If-Range"); ir != "" {
		var lm time.Time
		if r.fileCache != nil {
			lm = r.fileCache.info.mtime
		}
		if !cache.IfRangeMatches(ir, lm, resp.Header.Get("ETag")) {
			return
		}
	}
	ranges, status := parseRanges(rng[6:], resp.Length)
	switch status {
	case rangeDeclined:
		return
	case rangeUnsatisfiable:
		size := resp.Length
		rt.dropBody(resp)
		resp.Header.Del("Accept-Ranges")
		resp.Header.Del("Last-Modified")
		resp.Header.Del("ETag")
		resp.Header.Set("Content-Range", "bytes */"+strconv.FormatInt(size, 10))
		rt.specialResponse(r, 416)
		return
	}
	if len(ranges) == 1 {
		rt.singleRange(r, ranges[0])
		return
	}
	rt.multiRange(r, ranges)
}

func (rt *Site) singleRange(r *Request, rg byteRange) {
	resp := r.resp
	size := resp.Length
	resp.Status = 206
	// nginx announces Accept-Ranges only on full responses.
	resp.Header.Del("Accept-Ranges")
	resp.Header.Set("Content-Range", "bytes "+strconv.FormatInt(rg.start, 10)+"-"+strconv.FormatInt(rg.end-1, 10)+"/"+strconv.FormatInt(size, 10))
	resp.Length = rg.end - rg.start
	switch resp.Kind {
	case BodyBytes:
		resp.Bytes = resp.Bytes[rg.start:rg.end]
	case BodyFile:
		resp.Offset += rg.start
	}
}

// multipartBoundary numbers boundaries like nginx (a 10-digit counter).
var multipartBoundary struct {
	sync.Mutex
	n uint64
}

func nextBoundary() string {
	multipartBoundary.Lock()
	multipartBoundary.n++
	n := multipartBoundary.n
	multipartBoundary.Unlock()
	s := strconv.FormatUint(n, 10)
	return strings.Repeat("0", max(0, 10-len(s))) + s
}

// multipartInMemory bounds the multipart bodies built in memory: those
// go out with a Content-Length like nginx's; larger ones are streamed.
const multipartInMemory = 1 << 20

func (rt *Site) multiRange(r *Request, ranges []byteRange) {
	resp := r.resp
	size := resp.Length
	ct := resp.Header.Get("Content-Type")
	boundary := nextBoundary()
	var heads [][]byte
	total := int64(0)
	for _, rg := range ranges {
		var b strings.Builder
		b.WriteString("\r\n--" + boundary + "\r\n")
		if ct != "" {
			b.WriteString("Content-Type: " + ct + "\r\n")
		}
		b.WriteString("Content-Range: bytes " + strconv.FormatInt(rg.start, 10) + "-" + strconv.FormatInt(rg.end-1, 10) + "/" + strconv.FormatInt(size, 10) + "\r\n\r\n")
		heads = append(heads, []byte(b.String()))
		total += int64(b.Len()) + rg.end - rg.start
	}
	tail := []byte("\r\n--" + boundary + "--\r\n")
	total += int64(len(tail))
	data, file, base := resp.Bytes, resp.File, resp.Offset
	kind := resp.Kind
	closeFile := kind == BodyFile && resp.CloseFile
	resp.Status = 206
	resp.Header.Del("Accept-Ranges")
	resp.Header.Set("Content-Type", "multipart/byteranges; boundary="+boundary)
	resp.File, resp.Bytes = nil, nil
	write := func(w io.Writer) error {
		for i, rg := range ranges {
			if _, err := w.Write(heads[i]); err != nil {
				return err
			}
			if kind == BodyBytes {
				if _, err := w.Write(data[rg.start:rg.end]); err != nil {
					return err
				}
				continue
			}
			if _, err := io.Copy(w, io.NewSectionReader(file, base+rg.start, rg.end-rg.start)); err != nil {
				return err
			}
		}
		_, err := w.Write(tail)
		return err
	}
	if total <= multipartInMemory {
		var buf bytes.Buffer
		buf.Grow(int(total))
		err := write(&buf)
		if closeFile {
			file.Close()
		}
		if err == nil {
			resp.Kind, resp.Bytes, resp.Length = BodyBytes, buf.Bytes(), total
			return
		}
		rt.log.errorf(r, "reading a byte range failed (%v)", err)
		resp.Header.Del("Content-Range")
		rt.specialResponse(r, 500)
		return
	}
	resp.Kind = BodyStream
	resp.Length = total
	resp.Stream = func(w io.Writer, flush func() error) error {
		if closeFile {
			defer file.Close()
		}
		return write(w)
	}
}

// byteRange is [start, end).
type byteRange struct{ start, end int64 }

type rangeStatus int

const (
	rangeOK rangeStatus = iota
	rangeDeclined
	rangeUnsatisfiable
)

// parseRanges reads a Range header's byte-range-set (after "bytes=") for a
// body of size bytes, as ngx_http_range_parse does: syntax errors and
// sets with no satisfiable range give 416; a set larger than the body is
// ignored (the full body is sent).
func parseRanges(s string, size int64) ([]byteRange, rangeStatus) {
	var out []byteRange
	var total int64
	i := 0
	skipSpaces := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	num := func() (int64, bool) {
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		var n int64
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if n > (1<<62)/10 {
				return 0, false
			}
			n = n*10 + int64(s[i]-'0')
			i++
		}
		return n, true
	}
	for {
		var start, end int64
		suffix := false
		skipSpaces()
		if i < len(s) && s[i] == '-' {
			suffix = true
			i++
		} else {
			var ok bool
			if start, ok = num(); !ok {
				return nil, rangeUnsatisfiable
			}
			skipSpaces()
			if i >= len(s) || s[i] != '-' {
				return nil, rangeUnsatisfiable
			}
			i++
			skipSpaces()
			if i >= len(s) || s[i] == ',' {
				end = size
				goto found
			}
		}
		{
			var ok bool
			if end, ok = num(); !ok {
				return nil, rangeUnsatisfiable
			}
			skipSpaces()
			if i < len(s) && s[i] != ',' {
				return nil, rangeUnsatisfiable
			}
			if suffix {
				if end < size {
					start = size - end
				} else {
					start = 0
				}
				end = size - 1
			}
			if end >= size {
				end = size
			} else {
				end++
			}
		}
	found:
		if start < end {
			out = append(out, byteRange{start, end})
			total += end - start
		} else if start == 0 {
			return nil, rangeDeclined
		}
		if i >= len(s) || s[i] != ',' {
			break
		}
		i++
	}
	if len(out) == 0 {
		return nil, rangeUnsatisfiable
	}
	if total > size {
		return nil, rangeDeclined
	}
	return out, rangeOK
}

// headerFilter adds what nginx's header filter adds last.
func (rt *Site) headerFilter(r *Request) {
	resp := r.resp
	l := r.loc
	// ngx_http_header_filter: Last-Modified only on 200, 206 and 304; a
	// 204 has no type, length or date. nginx does this only where it
	// makes the status line itself: a backend's response comes with its
	// own ("Status: 404 Not Found") and keeps its headers. Accept-Ranges
	// is the range filter's, added to full static responses only.
	switch {
	case fromUpstream(r):
	case resp.Status == 204:
		resp.Header.Del("Content-Type")
		resp.Header.Del("Last-Modified")
		resp.Header.Del("Content-Length")
	case resp.Status != 200 && resp.Status != 206 && resp.Status != 304:
		resp.Header.Del("Last-Modified")
	}
	if resp.Status != 200 && r.fileCache != nil {
		resp.Header.Del("Accept-Ranges")
	}
	switch {
	case resp.moreServer:
	case l.ServerTokens == "off":
		resp.Header.Set("Server", "edge")
	default:
		resp.Header.Set("Server", "edge/"+Version)
	}
	// A backend's relative Location is passed on as sent (nginx leaves
	// r->headers_out.location unset for it); only edge's own redirects
	// are made absolute.
	if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "/") && l.AbsoluteRedirect &&
		!(r.up.used() && r.up.header.Get("Location") == loc) && !r.cache.served {
		resp.Header.Set("Location", rt.absoluteURL(r, loc))
	}
	if !resp.Close && l.KeepaliveHeader >= 0 && r.Proto != "HTTP/2.0" {
		resp.Header.Set("Keep-Alive", "timeout="+strconv.FormatInt(int64(l.KeepaliveHeader/time.Second), 10))
	}
	if l.KeepaliveTimeout == 0 {
		resp.Close = true
	}
	if r.Proto != "HTTP/2.0" {
		r.Conn.useLocation(l)
	}
	if l.KeepaliveRequests > 0 && r.ConnRequests >= l.KeepaliveRequests {
		resp.Close = true
	}
	if r.Method == "HEAD" || resp.Status == 304 || resp.Status == 204 {
		resp.HeadOnly = true
	}
}

// absoluteURL makes a local redirect absolute the way nginx's header
// filter does: server_name with server_name_in_redirect, else the Host
// header's name, else (no Host, HTTP/1.0) the local address; then the
// local port unless it is the scheme's default.
func (rt *Site) absoluteURL(r *Request, path string) string {
	l := r.loc
	scheme := "http"
	defPort := "80"
	if r.Conn.TLS != nil {
		scheme, defPort = "https", "443"
	}
	host := r.host
	if l.ServerNameInRedirect {
		host = rt.serverName(r)
	}
	if host == "" {
		host = r.Conn.LocalAddr()
		if r.Conn.Local.Addr().Is6() && !r.Conn.Local.Addr().Is4In6() {
			host = "[" + host + "]"
		}
	}
	port := ""
	if l.PortInRedirect && r.Conn.Port != defPort && r.Conn.Port != "" {
		port = ":" + r.Conn.Port
	}
	return scheme + "://" + host + port + path
}

// gzipFilter compresses eligible responses (ngx_http_gzip_header_filter).
func (rt *Site) gzipFilter(r *Request) {
	g := &r.loc.Gzip
	if !encodable(r, &g.Encoding) {
		return
	}
	r.gzipVary = true
	if !rt.gzipOK(r, g) {
		return
	}
	rt.encode(r, &gzipCoding, g.CompLevel, 0, &r.gzipRatio)
}

// encodable applies the response-side checks the gzip and brotli header
// filters share (ngx_http_gzip_header_filter,
// ngx_http_brotli_header_filter): the filter is on, the status is 200, 403
// or 404, nothing encoded the body already, a known length is not under
// the least one, and the type is listed. HEAD gets the headers a GET
// would (neither filter looks at the method; nginx sets header_only for
// HEAD only after them); a 204/304 has no body to compress.
func encodable(r *Request, e *conf.Encoding) bool {
	resp := r.resp
	if resp.Kind == BodyNone && r.Method != "HEAD" {
		return false
	}
	return encodableHead(e, resp.Status, &resp.Header, resp.Length)
}

// encodableHead is encodable's part that a response head decides: for a
// status, headers h and a body of length (-1: unknown).
func encodableHead(e *conf.Encoding, status int, h *ResponseHeader, length int64) bool {
	if !e.On {
		return false
	}
	switch status {
	case 200, 403, 404:
	default:
		return false
	}
	if h.Get("Content-Encoding") != "" {
		return false
	}
	if length >= 0 && length < e.MinLength {
		return false
	}
	return encodingType(e, h.Get("Content-Type"))
}

// coding is one content coding as the compression filters use it: its
// Content-Encoding token and its compressor, at a level and (brotli) a
// window's log2 that the caller passes.
type coding struct {
	token string
	// id tells the codings' variants apart in a file cache entry.
	id int
	// whole compresses a whole body.
	whole func(b []byte, level, window int) []byte
	// writer starts a stream; release returns it once closed.
	writer  func(w io.Writer, level, window int) compressWriter
	release func(compressWriter, int, int)
}

// compressWriter is what *gzip.Writer and *brotli.Writer have in common.
type compressWriter interface {
	io.Writer
	Flush() error
	Close() error
}

var gzipCoding = coding{
	token: "gzip",
	id:    0,
	whole: func(b []byte, level, _ int) []byte { return gzipBytes(b, level) },
	writer: func(w io.Writer, level, _ int) compressWriter {
		zw, _ := gzip.NewWriterLevel(w, level)
		return zw
	},
	release: func(compressWriter, int, int) {},
}

// encode sets the headers of a body compressed with c and compresses it:
// an in-memory body at once (a cached file's once for all requests, so
// ratio is known), a file or a stream as it is sent. The ETag is weakened
// and Accept-Ranges dropped, as nginx's filters do.
func (rt *Site) encode(r *Request, c *coding, level, window int, ratioVar *string) {
	resp := r.resp
	resp.Header.Set("Content-Encoding", c.token)
	resp.Header.Del("Accept-Ranges")
	weakenETag(&resp.Header)
	cachedFile := resp.Kind == BodyBytes && r.fileCache != nil && len(resp.Bytes) == len(r.fileCache.data)
	if r.Method == "HEAD" {
		// No body is sent, so a file is closed rather than compressed;
		// an in-memory body gives the compressed length (from the file
		// cache, so it costs nothing twice), which HTTP/1.1 does not
		// send (Unsized) but HTTP/1.0 and HTTP/2 do.
		if cachedFile {
			resp.Bytes = r.fileCache.compressed(c, level, window)
			resp.Length = int64(len(resp.Bytes))
			resp.Unsized = true
			return
		}
		rt.dropBody(resp)
		resp.Kind = BodyStream
		resp.Length = -1
		resp.Stream = func(io.Writer, func() error) error { return nil }
		return
	}
	switch resp.Kind {
	case BodyBytes:
		var z []byte
		if cachedFile {
			z = r.fileCache.compressed(c, level, window)
		} else {
			z = c.whole(resp.Bytes, level, window)
		}
		origLen := len(resp.Bytes)
		resp.Bytes = z
		resp.Length = int64(len(z))
		resp.Unsized = true
		*ratioVar = ratio(origLen, len(z))
	case BodyFile:
		f, closeFile := resp.File, resp.CloseFile
		off, n := resp.Offset, resp.Length
		resp.Kind = BodyStream
		resp.Length = -1
		resp.File = nil
		resp.Stream = func(w io.Writer, flush func() error) error {
			if closeFile {
				defer f.Close()
			}
			zw := c.writer(w, level, window)
			if _, err := io.Copy(zw, io.NewSectionReader(f, off, n)); err != nil {
				return err
			}
			err := zw.Close()
			c.release(zw, level, window)
			return err
		}
	case BodyStream:
		inner := resp.Stream
		resp.Length = -1
		resp.Stream = func(w io.Writer, flush func() error) error {
			zw := c.writer(w, level, window)
			zflush := func() error {
				if err := zw.Flush(); err != nil {
					return err
				}
				return flush()
			}
			if err := inner(zw, zflush); err != nil {
				return err
			}
			err := zw.Close()
			c.release(zw, level, window)
			return err
		}
	}
}

// encodingType tests a Content-Type against gzip_types or brotli_types.
func encodingType(e *conf.Encoding, ct string) bool {
	if e.AnyType {
		return true
	}
	base := ct
	if i := strings.IndexByte(base, ';'); i >= 0 {
		base = base[:i]
	}
	base = strings.ToLower(strings.TrimSpace(base))
	return e.Types[base]
}

// gzipOK applies the request-side checks (ngx_http_gzip_ok).
func (rt *Site) gzipOK(r *Request, g *conf.Gzip) bool {
	if !acceptsGzip(r.Header.Get("Accept-Encoding")) {
		return false
	}
	if g.HTTPVersion == "1.1" && r.Proto == "HTTP/1.0" {
		return false
	}
	if r.Header.Get("Via") != "" && !rt.gzipProxiedOK(r, g) {
		return false
	}
	ua := r.Header.Get("User-Agent")
	if g.DisableMSIE6 && isMSIE6(ua) {
		return false
	}
	for _, re := range g.Disable {
		// A match out of budget is logged and does not disable gzip
		// (ngx_regex_exec_array fails, which is not NGX_OK).
		if ok, _ := matchRegex(r, re, ua); ok {
			return false
		}
	}
	return true
}

// acceptsGzip finds a "gzip" token not weighted q=0
// (ngx_http_gzip_accept_encoding).
func acceptsGzip(ae string) bool {
	start := 0
	for {
		i := indexFold(ae[start:], "gzip")
		if i < 0 {
			return false
		}
		p := start + i
		if p == 0 || ae[p-1] == ',' || ae[p-1] == ' ' {
			start = p + 4
			break
		}
		start = p + 4
	}
	for p := start; p < len(ae); p++ {
		switch ae[p] {
		case ',':
			return true
		case ';':
			return !zeroQ(ae[p+1:])
		case ' ':
			continue
		default:
			return false
		}
	}
	return true
}

// zeroQ reports whether a parameter list says q=0 (or 0.0...).
func zeroQ(s string) bool {
	s = strings.TrimLeft(s, " ")
	if !strings.HasPrefix(strings.ToLower(s), "q=") {
		return false
	}
	s = s[2:]
	if s == "" || s[0] != '0' {
		return false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' || c == '0':
		case c == ',' || c == ' ' || c == ';':
			return true
		default:
			return false
		}
	}
	return true
}

func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

func isMSIE6(ua string) bool {
	i := strings.Index(ua, "MSIE ")
	if i < 0 || i+5 >= len(ua) || strings.Contains(ua, "Opera") {
		return false
	}
	v := ua[i+5]
	return v >= '4' && v <= '6' && !strings.Contains(ua, "SV1")
}

// gzipProxiedOK applies gzip_proxied to a request that came through a
// proxy (it has Via), in the order of nginx's ngx_http_gzip_ok: "any" and
// "auth" allow at once; a response with Expires is compressed only for
// "expired" and a date already past; one with Cache-Control only for a
// listed no-cache/no-store/private; otherwise no_last_modified and
// no_etag refuse when the response has that header, and anything else is
// compressed. A static file's Last-Modified does not count, since nginx
// makes that header from the file's time only at the end.
func (rt *Site) gzipProxiedOK(r *Request, g *conf.Gzip) bool {
	h := &r.resp.Header
	has := func(p string) bool { return slices.Contains(g.Proxied, p) }
	if len(g.Proxied) == 0 || has("off") {
		return false
	}
	if has("any") || has("auth") && r.Header.Get("Authorization") != "" {
		return true
	}
	if e := h.Get("Expires"); h.Has("Expires") {
		if !has("expired") {
			return false
		}
		t, err := time.Parse(httpTimeFormat, e)
		return err == nil && t.Before(rt.now())
	}
	if h.Has("Cache-Control") {
		cc := strings.ToLower(h.Get("Cache-Control"))
		for _, p := range []string{"no-cache", "no-store", "private"} {
			if has(p) && strings.Contains(cc, p) {
				return true
			}
		}
		return false
	}
	if has("no_last_modified") && h.Has("Last-Modified") && r.fileCache == nil {
		return false
	}
	if has("no_etag") && h.Has("ETag") {
		return false
	}
	return true
}

var gzipWriters [10]sync.Pool

// gzipBytes compresses a whole body (one of a few bytes as zlib does,
// gzfixed).
func gzipBytes(b []byte, level int) []byte {
	if z, ok := gzfixed.Append(nil, b, level); ok {
		return z
	}
	var out bytes.Buffer
	zw, _ := gzipWriters[level].Get().(*gzip.Writer)
	if zw == nil {
		zw, _ = gzip.NewWriterLevel(&out, level)
	} else {
		zw.Reset(&out)
	}
	_, _ = zw.Write(b)
	_ = zw.Close()
	gzipWriters[level].Put(zw)
	return out.Bytes()
}

// compressed returns the file's content compressed with c at level and
// window, made once and kept with the entry.
func (e *fileEntry) compressed(c *coding, level, window int) []byte {
	key := c.id<<10 | level<<5 | window
	e.gzMu.Lock()
	defer e.gzMu.Unlock()
	if b, ok := e.gz[key]; ok {
		return b
	}
	if e.gz == nil {
		e.gz = map[int][]byte{}
	}
	b := c.whole(e.data, level, window)
	e.gz[key] = b
	return b
}

func ratio(orig, z int) string {
	if z == 0 {
		return "0.00"
	}
	return strconv.FormatFloat(float64(orig)/float64(z), 'f', 2, 64)
}
