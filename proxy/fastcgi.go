// This file connects the pipeline to FastCGI backends (fastcgi_pass): it
// buffers the request body (so a slow upload never holds a PHP worker),
// builds the CGI params (cgiParams, fastcgi_params.go), has a server
// picked (one address, an fpm_pool, or an upstream{} with weights,
// max_fails/fail_timeout, backup and fastcgi_next_upstream:
// fastcgi_upstream.go), and turns the backend's answer into a Response:
// buffered by default so the worker is released at once, streamed with a
// flush per write when fastcgi_buffering is off or the application sends
// "X-Accel-Buffering: no"; X-Accel-Redirect and a bare local Location
// (RFC 3875 6.2.2) become internal redirects, and fastcgi_intercept_errors
// hands error statuses to error_page.
package proxy

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"

	"edge/cache"
	"edge/conf"
	"edge/fastcgi"
)

// fcgiCall is a pooled FastCGI request (with its params buffer) and the
// request it carries, so that its Stderr callback is bound once.
type fcgiCall struct {
	req fastcgi.Request
	rt  *Site
	r   *Request
	// inBody is set once the response header is in: stderr is then
	// logged "while reading upstream", as nginx words it.
	inBody bool
}

var fcgiCalls = sync.Pool{New: func() any {
	c := new(fcgiCall)
	c.req.Stderr = c.stderr
	return c
}}

// stderr logs what PHP wrote to FCGI_STDERR as nginx does.
func (c *fcgiCall) stderr(msg []byte) {
	while := "reading response header from upstream"
	if c.inBody {
		while = "reading upstream"
	}
	c.rt.log.errorf(c.r, "FastCGI sent in stderr: \"%s\" while %s, upstream: \"fastcgi://%s\"", msg, while, c.r.up.last().addr)
}

// fastcgi forwards the request to the location's backend.
func (rt *Site) fastcgi(r *Request) (step, int) {
	l := r.loc
	b := rt.backends.byPass[l.Content.FastCGI]
	if p := l.Content.FastCGI; p.Script != nil {
		var terr *targetError
		if b, terr = rt.backends.forTarget(rt.eval(r, p.Script), &l.FastCGI, func(host string) ([]netip.Addr, *targetError) {
			return rt.resolveHost(r, host)
		}); terr != nil {
			rt.log.errorf(r, "%s", terr.msg)
			return stepDone, terr.status
		}
	}
	if b == nil {
		rt.log.errorf(r, "no FastCGI backend for \"%s\"", l.Content.FastCGI.Raw)
		return stepDone, 500
	}
	// CVE-2019-11043: a line break in the path made php-fpm's PATH_INFO
	// handling underflow a buffer. No script name or path info with a
	// line break is ever handed to PHP.
	if strings.ContainsAny(r.uri, "\r\n") {
		rt.log.errorf(r, "refusing to pass a URI with a line break to FastCGI")
		return stepDone, 404
	}
	defer rt.cacheEnd(r)
	if next, status, done := rt.cacheBegin(r, rt.fastcgiCacheUse(r, b)); done {
		return next, status
	}
	body, bodyLen, status := rt.readBody(r)
	if status != 0 {
		return stepDone, status
	}
	if body != nil {
		if f, ok := body.(*os.File); ok {
			defer f.Close()
		}
	}
	r.bodyLength = bodyLen
	call := fcgiCalls.Get().(*fcgiCall)
	call.rt, call.r = rt, r
	req := &call.req
	defer func() {
		if r.resp.Kind == BodyStream {
			// The response is read after this returns and PHP may still
			// write to stderr: the call stays with it, unpooled.
			return
		}
		req.Params.Reset()
		req.Body = nil
		call.rt, call.r, call.inBody = nil, nil, false
		fcgiCalls.Put(call)
	}()
	r.headers = r.Header.AppendAll(r.headers[:0])
	if r.cache.zone != nil {
		r.headers = cacheRequestHeaders(r.headers)
	}
	r.params = cgiParams(r.params[:0], &l.FastCGI, r.srv, r.headers, func(s *conf.Script) string { return rt.eval(r, s) })
	rt.fastcgiValidators(r)
	for _, p := range r.params {
		req.Params.Add(p.Name, p.Value)
	}
	req.NonIdempotent = nonIdempotent(r.Method) && !slices.Contains(l.FastCGI.NextUpstream, "non_idempotent")
	fastcgiConnLimits(req, &l.FastCGI)
	req.CatchStderr = l.FastCGI.CatchStderr
	if l.FastCGI.PassRequestBody && body != nil {
		req.Body = body
	}
	b.requests.Add(1)
	resp, srv, status := rt.roundTrip(r, b, req, body)
	if status == 499 {
		r.resp.Drop = true
		return stepDone, status
	}
	if status != 0 {
		if rt.cacheFailed(r, status) {
			return stepDone, 0
		}
		return stepDone, status
	}
	call.inBody = true
	return rt.fastcgiResponse(r, b, srv, resp)
}

// fastcgiHidden are the backend headers nginx never passes on
// (ngx_http_fastcgi_hide_headers) plus hop-by-hop ones.
var fastcgiHidden = map[string]bool{
	"status": true, "x-accel-expires": true, "x-accel-redirect": true, "x-accel-limit-rate": true,
	"x-accel-buffering": true, "x-accel-charset": true,
	"connection": true, "keep-alive": true, "transfer-encoding": true, "proxy-connection": true,
	"te": true, "trailer": true, "upgrade": true,
}

// redirectKept are the headers an X-Accel-Redirect keeps from the
// backend's response.
var redirectKept = map[string]bool{"set-cookie": true, "content-disposition": true, "cache-control": true, "expires": true}

// fastcgiResponse turns the backend's response into r.resp.
func (rt *Site) fastcgiResponse(r *Request, b *backend, srv *upServer, resp *fastcgi.Response) (step, int) {
	f := &r.loc.FastCGI
	out := r.resp
	r.up.last().status = resp.Status
	var accelRedirect, accelBuffering, location string
	for _, h := range resp.Header {
		name, lname := headerName(h.Name)
		value := string(h.Value)
		r.up.header.Add(name, value)
		switch lname {
		case "x-accel-redirect":
			if !ignored(f, lname) {
				accelRedirect = value
			}
		case "x-accel-buffering":
			if !ignored(f, lname) {
				accelBuffering = value
			}
		case "x-accel-limit-rate":
			if !ignored(f, lname) {
				r.accelLimitRate(value)
			}
		case "location":
			location = value
		}
		if (fastcgiHidden[lname] || hiddenByConf(f, lname)) && !passedByConf(f, lname) {
			continue
		}
		out.Header.Add(name, value)
	}
	status := resp.Status
	// X-Accel-Redirect: serve another (internal) location instead.
	if accelRedirect != "" {
		resp.Close()
		return rt.accelRedirect(r, accelRedirect)
	}
	// RFC 3875 6.2.2: a Location with a local path and no Status is a
	// local redirect: the server serves that URI instead.
	if resp.StatusImplied && strings.HasPrefix(location, "/") {
		resp.Close()
		out.Header.reset()
		r.Method = "GET"
		r.ContentLength = 0
		return rt.internalRedirect(r, location)
	}
	var fields []cache.Field
	if r.cache.l != nil {
		for _, h := range resp.Header {
			fields = append(fields, cache.Field{Name: string(h.Name), Value: string(h.Value)})
		}
		if rt.cacheResponse(r, status, fields) {
			resp.Close()
			return stepDone, 0
		}
	}
	if f.InterceptErrors && status >= 300 && r.loc.ErrorPages[status] != nil {
		resp.Close()
		rt.cacheIntercepted(r, status, fields)
		out.Header.reset()
		return stepDone, status
	}
	out.Status = status
	if len(resp.Reason) > 0 {
		out.Reason, out.ReasonFor = string(resp.Reason), status
	}
	if !out.Header.Has("Content-Type") {
		out.Header.Set("Content-Type", r.loc.DefaultType)
	}
	buffering := f.Buffering
	if accelBuffering != "" {
		buffering = !strings.EqualFold(accelBuffering, "no")
	}
	var w *cache.Writer
	if buffering {
		w = rt.cacheStore(r, status, fields)
	}
	if r.Method == "HEAD" && w == nil {
		resp.Close()
		out.Kind = BodyNone
		out.Length = -1
		return stepDone, 0
	}
	if buffering {
		st := rt.bufferResponse(r, b, resp)
		if st != 0 {
			if w != nil {
				w.Abort()
			}
			return stepDone, st
		}
		// The body is stored before the client gets it, so a waiter on
		// the lock wakes to a complete entry.
		storeBody(w, out)
		return stepDone, 0
	}
	rt.streamResponse(r, resp)
	return stepDone, 0
}

// accelRedirect follows an upstream's X-Accel-Redirect: the response
// keeps only the headers redirectKept names, and the request goes on as
// a GET (HEAD stays) without a body to the URI or named location.
func (rt *Site) accelRedirect(r *Request, uri string) (step, int) {
	out := r.resp
	kept := out.Header.list
	out.Header.list = out.Header.list[:0]
	for _, h := range kept {
		if redirectKept[strings.ToLower(h.name)] {
			out.Header.list = append(out.Header.list, h)
		}
	}
	if r.Method != "HEAD" {
		r.Method = "GET"
	}
	r.ContentLength = 0
	if strings.HasPrefix(uri, "@") {
		return rt.namedRedirect(r, uri)
	}
	return rt.internalRedirect(r, uri)
}

// commonHeaderNames are the names PHP sends most, as PHP spells them,
// each with its lower-case form.
var commonHeaderNames = func() map[string][2]string {
	m := map[string][2]string{}
	for _, n := range []string{"Content-Type", "Content-type", "Set-Cookie", "Location", "Cache-Control",
		"Expires", "Pragma", "X-Powered-By", "Content-Length", "Last-Modified", "ETag", "Vary", "Link",
		"X-Accel-Buffering", "X-Accel-Redirect", "Status", "Content-Disposition", "X-Frame-Options"} {
		m[n] = [2]string{n, strings.ToLower(n)}
	}
	return m
}()

// headerName returns a response header name as a string of its own, and
// its lower-case form: the bytes belong to the fastcgi.Response, which is
// recycled (and its buffer reused by another request) at Close, while
// the name lives on in the response headers until they are written.
// Common names cost no allocation.
func headerName(b []byte) (name, lower string) {
	if n, ok := commonHeaderNames[string(b)]; ok {
		return n[0], n[1]
	}
	name = string(b)
	return name, strings.ToLower(name)
}

func ignored(f *conf.FastCGI, lname string) bool {
	for _, h := range f.IgnoreHeaders {
		if h == lname {
			return true
		}
	}
	return false
}

func hiddenByConf(f *conf.FastCGI, lname string) bool {
	for _, h := range f.HideHeaders {
		if h == lname {
			return true
		}
	}
	return false
}

func passedByConf(f *conf.FastCGI, lname string) bool {
	for _, h := range f.PassHeaders {
		if h == lname {
			return true
		}
	}
	return false
}

// readUpTo reads r into buf until EOF or until buf holds limit bytes (like
// io.Copy from an io.LimitReader, without allocating one).
func readUpTo(buf *bytes.Buffer, r io.Reader, limit int) error {
	for buf.Len() < limit {
		// Grown only when little room is left: growing before every read
		// made a 1 KiB answer's buffer 96 KiB (32 KiB, then twice that
		// plus 32 KiB for the read that finds the end).
		if buf.Available() < 4<<10 {
			buf.Grow(min(32<<10, limit-buf.Len()))
		}
		free := buf.AvailableBuffer()
		free = free[:min(cap(free), limit-buf.Len())]
		n, err := r.Read(free)
		buf.Write(free[:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// memResponseLimit is the largest response kept in memory; beyond it the
// rest goes to a temp file (nginx's fastcgi_buffers + fastcgi_temp_path).
const memResponseLimit = 1 << 20

var respBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// bufferResponse reads the whole response so the PHP worker is free before
// the client has read a byte.
func (rt *Site) bufferResponse(r *Request, b *backend, resp *fastcgi.Response) int {
	n, err := rt.bufferInto(r, resp.Body)
	resp.Close()
	r.up.finish(rt.now(), n)
	if err != nil {
		status, what := fastcgiErrorStatus(err)
		rt.log.errorf(r, "%s (%v) while reading upstream, upstream: \"fastcgi://%s\"", what, err, r.up.last().addr)
		if status == 504 {
			b.status504.Add(1)
		} else {
			b.status502.Add(1)
		}
		r.resp.Header.reset()
		return status
	}
	return 0
}

// bufferInto reads body whole into r.resp, in memory up to
// memResponseLimit and the rest in an unlinked temp file (fastcgi_pass
// and proxy_pass with buffering on). It returns the bytes read; on an
// error r.resp's body is left unset.
func (rt *Site) bufferInto(r *Request, body io.Reader) (int64, error) {
	out := r.resp
	buf := respBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	err := readUpTo(buf, body, memResponseLimit)
	var spill *os.File
	if err == nil && buf.Len() == memResponseLimit {
		spill, err = rt.spillResponse(r, buf, body)
	}
	if err != nil {
		n := int64(buf.Len())
		respBuffers.Put(buf)
		if spill != nil {
			spill.Close()
		}
		return n, err
	}
	if spill != nil {
		respBuffers.Put(buf)
		st, _ := spill.Stat()
		out.Kind, out.File, out.CloseFile, out.Offset, out.Length = BodyFile, spill, true, 0, st.Size()
		return out.Length, nil
	}
	out.Kind = BodyBytes
	out.Bytes = buf.Bytes()
	out.Length = int64(buf.Len())
	out.pooled = buf
	return out.Length, nil
}

// spillResponse moves a large response into an unlinked temp file.
func (rt *Site) spillResponse(r *Request, head *bytes.Buffer, rest io.Reader) (*os.File, error) {
	dir := r.loc.ClientBodyTempPath
	if r.loc.Content.Kind == conf.ContentProxy && r.loc.Proxy.TempPath != "" {
		dir = r.loc.Proxy.TempPath
	}
	if dir != "" {
		_ = os.MkdirAll(dir, 0o700)
	}
	f, err := os.CreateTemp(dir, "fastcgi-")
	if err != nil {
		f, err = os.CreateTemp("", "edge-fastcgi-")
		if err != nil {
			return nil, err
		}
	}
	os.Remove(f.Name())
	if _, err := f.Write(head.Bytes()); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := io.Copy(f, rest); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// streamResponse sends the body as PHP writes it, flushing each chunk
// (server-sent events, long polls, progress output).
func (rt *Site) streamResponse(r *Request, resp *fastcgi.Response) {
	out := r.resp
	out.Kind = BodyStream
	out.Length = -1
	out.Stream = func(w io.Writer, flush func() error) error {
		var read int64
		defer func() {
			resp.Close()
			r.up.finish(rt.now(), read)
		}()
		buf := make([]byte, 16<<10)
		for {
			n, err := resp.Body.Read(buf)
			read += int64(n)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return werr
				}
				if ferr := flush(); ferr != nil {
					return ferr
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
}

// readBody buffers the request body (fastcgi_request_buffering, and always
// for a body of unknown length, which FastCGI cannot carry): in memory up
// to client_body_buffer_size, then in a temp file under
// client_body_temp_path. It enforces client_max_body_size on the bytes
// actually read (413) and client_body_timeout between reads (408).
func (rt *Site) readBody(r *Request) (io.Reader, int64, int) {
	if r.Body == nil || r.ContentLength == 0 {
		return nil, 0, 0
	}
	if !r.loc.FastCGI.RequestBuffering && r.ContentLength > 0 {
		return r.teeBody(io.LimitReader(r.Body, r.ContentLength)), r.ContentLength, 0
	}
	return rt.bufferBody(r)
}

// bodyReady is how much of the client's body is in memory, readable
// without waiting for the client (its body reader's Buffered: what the
// HTTP/1 adapter read of it with the head, what DATA frames brought);
// ok is false for a body that cannot tell.
func (r *Request) bodyReady() (n int64, ok bool) {
	if b, ok := r.Body.(interface{ Buffered() int64 }); ok {
		return b.Buffered(), true
	}
	return 0, false
}

// teeBody passes an unbuffered body on, keeping what fits in
// client_body_buffer_size for $request_body, as nginx's buffers in
// memory still hold it after they went out; a larger body leaves it
// empty.
func (r *Request) teeBody(body io.Reader) io.Reader {
	return &bodyTee{r: body, req: r, max: bodyMemMax(r.loc)}
}

type bodyTee struct {
	r    io.Reader
	req  *Request
	max  int64
	over bool
}

func (t *bodyTee) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 && !t.over {
		if int64(len(t.req.bodyMem)+n) > t.max {
			t.over, t.req.bodyMem = true, nil
		} else {
			t.req.bodyMem = append(t.req.bodyMem, p[:n]...)
		}
	}
	return n, err
}

// headerPreread is nginx's default client_header_buffer_size.
const headerPreread = 1024

// bodyMemMax is client_body_buffer_size.
func bodyMemMax(l *conf.Location) int64 {
	if l.ClientBodyBufferSize <= 0 {
		return 16 << 10
	}
	return l.ClientBodyBufferSize
}

// bufferBody reads the whole request body: in memory up to
// client_body_buffer_size, then in a temp file.
func (rt *Site) bufferBody(r *Request) (io.Reader, int64, int) {
	l := r.loc
	limit := l.ClientMaxBodySize
	memMax := bodyMemMax(l)
	// A body that came whole with the head stays where nginx read it,
	// in the head's client_header_buffer_size buffer (1k; edge does not
	// read the directive): in memory, and in $request_body, whatever
	// client_body_buffer_size says.
	if r.ContentLength > 0 && r.RequestLength+r.ContentLength <= headerPreread {
		memMax = max(memMax, r.ContentLength)
	}
	var mem bytes.Buffer
	if r.ContentLength > 0 && r.ContentLength <= memMax {
		mem.Grow(int(r.ContentLength))
	}
	n, err := io.Copy(&mem, io.LimitReader(r.Body, memMax+1))
	if err != nil {
		return nil, 0, rt.bodyReadError(r, err)
	}
	if limit > 0 && n > limit {
		rt.log.errorf(r, "client intended to send too large chunked body: %d+ bytes", n)
		return nil, 0, 413
	}
	if n <= memMax {
		r.bodyMem = mem.Bytes()
		return bytes.NewReader(r.bodyMem), n, 0
	}
	dir := l.ClientBodyTempPath
	_ = os.MkdirAll(dir, 0o700)
	f, err := os.CreateTemp(dir, "body-")
	if err != nil {
		rt.log.critf(r, "could not create a temp file for the request body in \"%s\" (%v)", dir, err)
		return nil, 0, 500
	}
	os.Remove(f.Name())
	if _, err := f.Write(mem.Bytes()); err != nil {
		f.Close()
		return nil, 0, 500
	}
	var src io.Reader = r.Body
	if limit > 0 {
		src = io.LimitReader(r.Body, limit-n+1)
	}
	m, err := io.Copy(f, src)
	if err != nil {
		f.Close()
		return nil, 0, rt.bodyReadError(r, err)
	}
	total := n + m
	if limit > 0 && total > limit {
		f.Close()
		rt.log.errorf(r, "client intended to send too large body: %d+ bytes", total)
		return nil, 0, 413
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, 0, 500
	}
	return f, total, 0
}

// bodyReadError logs a failed read of the request body as nginx does and
// returns its status: 408 when client_body_timeout passed between two
// reads, 400 when the client went away.
func (rt *Site) bodyReadError(r *Request, err error) int {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		rt.log.infof(r, "client timed out (110: Connection timed out) while reading client request body")
		return 408
	}
	rt.log.infof(r, "client prematurely closed connection while reading client request body (%v)", err)
	return 400
}

func (rt *Site) statusHandler(r *Request) int { return rt.fpmContent(r) }
