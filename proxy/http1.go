// This file is the HTTP/1.x adapter: the engine (package h1, on fasthttp)
// serves each connection; the handler fills an engine-neutral Request
// from the h1.Ctx, runs the pipeline and writes the Response back. The
// engine reuses its buffers after the handler returns, so the strings
// taken from it here are views that must not outlive the request.
package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"time"
	"unsafe"

	"edge/conf"
	"edge/internal/rawio"
	"edge/proxy/h1"
	"edge/proxy/limit"
)

// b2s views bytes as a string without copying; valid while the bytes are.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// fastHeaders reads request headers from fasthttp. With
// ignore_invalid_headers on (nginx's default), headers whose name nginx
// finds invalid are left out, as nginx drops them while reading (so that
// "X.Forwarded-For" cannot reach PHP as HTTP_X_FORWARDED_FOR, which PHP
// makes of "HTTP_X.FORWARDED_FOR").
type fastHeaders struct {
	h h1.Header
	r *Request // for the serving server's settings
	// lines counts the header lines (checkRequestHead); invalid those
	// whose name has a byte outside [A-Za-z0-9_-], underscore those whose
	// name is invalid only by an "_".
	lines, invalid, underscore int
	// hostAt is the Host line's place among the lines the default server
	// keeps, 0 without one (for max_headers).
	hostAt int
}

// get needs no filter: the names asked for are valid ones, which an
// invalid name cannot equal.
func (f *fastHeaders) get(name string) string {
	v := b2s(f.h.Peek(name))
	// fasthttp reports a Content-Length of "0" for a request that sent
	// none; CGI's CONTENT_LENGTH must then be empty, as with nginx.
	if v == "0" && strings.EqualFold(name, "Content-Length") && !rawHasHeader(f.h.RawHeaders(), "content-length") {
		return ""
	}
	return v
}

// rawHasHeader reports whether a raw header block has a line for name
// (lowercase), for the rare questions fasthttp's parsed view cannot answer.
func rawHasHeader(raw []byte, name string) bool {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if len(line) > len(name) && line[len(name)] == ':' && strings.EqualFold(b2s(line[:len(name)]), name) {
			return true
		}
	}
	return false
}

func (f *fastHeaders) appendAll(dst []headerKV) []headerKV {
	drop, underscores := f.dropsInvalid()
	for k, v := range f.h.All() {
		if drop && invalidName(b2s(k), underscores) {
			continue
		}
		// fasthttp adds "Connection: close" to an HTTP/1.0 request and a
		// "Content-Length: 0" the client never sent; PHP must not see them.
		if (string(v) == "close" && strings.EqualFold(b2s(k), "Connection") ||
			string(v) == "0" && strings.EqualFold(b2s(k), "Content-Length")) &&
			!rawHasHeader(f.h.RawHeaders(), strings.ToLower(b2s(k))) {
			continue
		}
		dst = append(dst, headerKV{b2s(k), b2s(v)})
	}
	return dst
}

// http1WriteBuffer is the size of fasthttp's write buffer: a response
// longer than it leaves in two writes (see connInfo.more).
const http1WriteBuffer = 16 << 10

// http1Server makes the fasthttp server for a listen group; its limits
// come from the group's default server, which nginx also uses to read a
// request's headers before it knows the server.
func (s *Server) http1Server(g *conf.ListenGroup) *h1.Server {
	def := g.Default
	return h1.NewServer(h1.Config{
		Handler:            s.handleHTTP1,
		ErrorHandler:       s.http1Error,
		Logf:               func(format string, args ...any) { s.shared.errLog.Logf(conf.LevelInfo, format, args...) },
		ReadBufferSize:     def.LargeHeaderBuffers * def.LargeHeaderBufferSize,
		WriteBufferSize:    http1WriteBuffer,
		ReadTimeout:        def.ClientHeaderTimeout,
		IdleTimeout:        def.Loc.KeepaliveTimeout,
		MaxRequestsPerConn: def.Loc.KeepaliveRequests,
		ConnState: func(c net.Conn, idle bool) {
			if ec, ok := c.(edgeConn); ok {
				info := ec.connInfo()
				info.idle.Store(idle)
				if idle {
					info.head.next()
				}
			}
		},
	})
}

// serveHTTP1 serves an HTTP/1.x connection to its end, or until it
// parks (park_linux.go), which it reports.
func (s *Server) serveHTTP1(c net.Conn) bool {
	info := c.(edgeConn).connInfo()
	info.head.begin()
	info.h1 = s.rt.Load().http1(s, info.group)
	return s.runHTTP1(c, info)
}

// resumeHTTP1 serves a parked connection whose client sent or closed,
// with the engine instance it had.
func (s *Server) resumeHTTP1(c *tcpEdgeConn) {
	c.info.idle.Store(false)
	c.info.resumed = true
	if !s.runHTTP1(c, c.info) {
		c.info.finish()
	}
}

func (s *Server) runHTTP1(c net.Conn, info *connInfo) bool {
	err := info.h1.ServeConn(c)
	if info.parking {
		info.parking = false
		info.requestsBase = info.lastRequests
		info.lastRequest = nil // no response is being written: no log line needs it
		if ec, ok := c.(*tcpEdgeConn); ok && ec.parker.park(ec) {
			info.idle.Store(true)
			return true
		}
		c.Close()
		return false
	}
	if err != nil {
		s.connError(info, err)
	}
	if info.waitTimedOut && info.head.total == 0 {
		// nginx closes a connection that sends no request within
		// client_header_timeout, without answering or an access log line
		// (ngx_http_wait_request_handler), and logs it at info.
		s.connTimedOut(info, "waiting for request", nil)
	}
	return false
}

// connError logs, as nginx does at info, a response that send_timeout
// cut: the client read nothing for that long. The line names the request
// whose response fasthttp was writing.
func (s *Server) connError(info *connInfo, err error) {
	var oe *net.OpError
	if !errors.As(err, &oe) || !oe.Timeout() || oe.Op != "write" && oe.Op != "readfrom" {
		return
	}
	s.connTimedOut(info, "sending response to client", info.lastRequest)
}

// connTimedOut logs at info, as nginx words it, a client that timed out.
// context names the request (appendRequestContext); without one,
// "server: " is the listening address, as in nginx's line for a
// connection that had no request.
func (s *Server) connTimedOut(info *connInfo, while string, context []byte) {
	if len(context) == 0 {
		server := "unix:"
		if !info.unix {
			server = net.JoinHostPort(info.localText, info.port)
		}
		context = []byte(", server: " + server)
	}
	s.shared.errLog.Write(conf.LevelInfo, info.id, "client timed out (110: Connection timed out) while "+while+
		", client: "+info.remoteText+string(context))
}

// http1 returns the site's fasthttp server for a group, made once.
func (rt *site) http1(s *Server, g *conf.ListenGroup) *h1.Server {
	rt.h1mu.Lock()
	defer rt.h1mu.Unlock()
	if rt.h1 == nil {
		rt.h1 = map[*conf.ListenGroup]*h1.Server{}
	}
	fs := rt.h1[g]
	if fs == nil {
		fs = s.http1Server(g)
		rt.h1[g] = fs
	}
	return fs
}

// handleHTTP1 is fasthttp's handler.
func (s *Server) handleHTTP1(ctx h1.Ctx) {
	rt := s.rt.Load()
	info := ctx.Conn().(edgeConn).connInfo()
	info.handlerStarts()
	r := acquireRequest()
	r.conn = info
	r.connRequests = info.requestsBase + int(ctx.ConnRequestNum())
	info.lastRequests = r.connRequests
	r.start = ctx.Time()
	if r.start.IsZero() {
		r.start = rt.now()
	}
	h := ctx.Header()
	r.Method = b2s(h.Method())
	r.RawTarget = b2s(h.RequestURI())
	r.Proto = b2s(h.Protocol())
	r.HostHeader = b2s(h.Host())
	if r.HostHeader == "" && !h.IsHTTP11() {
		r.hostEmpty = rawHasHeader(h.RawHeaders(), "host")
	}
	r.fh.h, r.fh.r = h, r
	r.Header = &r.fh
	r.ContentLength = int64(h.ContentLength())
	if !info.head.handled(r.ContentLength) {
		// The head watch followed this request's framing otherwise
		// than the engine: what it let through after it may not be what
		// the client sent, so nothing more is read.
		ctx.SetConnectionClose()
	}
	r.RequestLength = int64(len(h.RawHeaders()))
	switch {
	case r.ContentLength > 0 || r.ContentLength == -1:
		if r.ContentLength == -1 && !h.IsHTTP11() {
			r.ContentLength = 0
			break
		}
		r.Body = ctx.BodyStream()
		if r.Body == nil {
			r.Body = strings.NewReader(b2s(ctx.Body()))
		} else {
			// client_body_timeout is between two reads; fasthttp's own read
			// deadline (set for the headers) would bound the whole upload.
			r.dr = deadlineReader{r: r.Body, c: info.raw, req: r}
			r.Body = &r.dr
		}
	default:
		r.ContentLength = 0
	}
	if r.ContentLength == -2 {
		r.ContentLength = 0
	}
	if status := checkRequestHead(r, &r.fh, info.group.Default); status != 0 {
		r.rt = rt
		r.srv = info.group.Default
		r.loc = r.srv.Loc
		rt.log.infof(r, "client sent invalid request")
		rt.badRequest(r, status)
		info.linger = true
		rt.writeHTTP1(ctx, r)
		return
	}
	rt.serve(r)
	rt.writeHTTP1(ctx, r)
}

// writeHTTP1 writes r.resp to fasthttp and runs the log phase (at once for
// sized bodies, after the last byte for streams).
func (rt *site) writeHTTP1(ctx h1.Ctx, r *Request) {
	resp := r.resp
	r.conn.lastRequest = appendRequestContext(r.conn.lastRequest[:0], r)
	if resp.Drop {
		ctx.NoResponse()
		rt.done(r, 0)
		releaseRequest(r)
		return
	}
	ctx.SetStatus(resp.Status)
	setReason(ctx, resp)
	// Names go out as the config, the application or edge spelled them
	// ("X-URI", "ETag"), as nginx sends them; fasthttp would make them
	// "X-Uri" and "Etag".
	ctx.KeepHeaderNames()
	for _, f := range resp.Header.list {
		switch {
		case strings.EqualFold(f.name, "Content-Type"):
			ctx.SetContentType(f.value)
		case strings.EqualFold(f.name, "Content-Length"):
		default:
			ctx.AddHeader(f.name, f.value)
		}
	}
	if resp.Close {
		ctx.SetConnectionClose()
	}
	if resp.Upgrade != nil {
		upgrade := resp.Upgrade
		r.conn.head.stop() // what follows is the upgraded protocol's
		ctx.SkipBody()
		ctx.Hijack(func(c net.Conn) {
			if err := upgrade(c); err != nil {
				rt.log.infof(r, "%v while proxying upgraded connection", err)
			}
			rt.done(r, 0)
			releaseRequest(r)
		})
		return
	}
	head := resp.HeadOnly
	switch {
	case head || resp.Length <= http1WriteBuffer:
	case resp.Kind == BodyBytes:
		// fasthttp writes such a response as a full buffer (the headers
		// and the start of the body), then the rest: the first write
		// goes out with MSG_MORE so that the client is sent, and woken
		// for, the whole response once.
		r.conn.more = moreFullBuffer
	case resp.Kind == BodyFile:
		// fasthttp flushes the headers, then sendfile sends the file.
		r.conn.more = moreFirst
	}
	var pace *limit.Pacer
	if !head && (resp.Kind == BodyBytes || resp.Kind == BodyFile || resp.Kind == BodyStream) {
		pace = rt.pacer(r) // limit_rate (limitrate.go)
	}
	switch resp.Kind {
	case BodyBytes:
		if pace != nil {
			b := resp.Bytes
			if resp.pooled != nil {
				// The pooled buffer goes back now; the pace outlives it.
				b = append([]byte(nil), b...)
				resp.release()
			}
			rt.pacedHTTP1(ctx, r, bytes.NewReader(b), nil, int64(len(b)), pace)
			return
		}
		if resp.pooled != nil {
			ctx.SetBody(resp.Bytes)
			resp.release()
		} else {
			ctx.SetBodyRaw(resp.Bytes)
		}
		if head {
			ctx.SkipBody()
		}
		rt.done(r, sentLen(resp, head))
		releaseRequest(r)
	case BodyFile:
		if head {
			resp.File.Close()
			ctx.SkipBody()
			ctx.SetContentLength(int(resp.Length))
		} else {
			if _, err := resp.File.Seek(resp.Offset, io.SeekStart); err != nil {
				resp.File.Close()
				ctx.SetConnectionClose()
			} else if pace != nil {
				rt.pacedHTTP1(ctx, r, resp.File, resp.File, resp.Length, pace)
				return
			} else {
				ctx.SetBodyStream(resp.File, int(resp.Length))
			}
		}
		rt.done(r, sentLen(resp, head))
		releaseRequest(r)
	case BodyStream:
		if head {
			ctx.SkipBody()
			rt.done(r, 0)
			releaseRequest(r)
			return
		}
		stream := resp.Stream
		if !ctx.Header().IsHTTP11() {
			// HTTP/1.0 has no chunked encoding: collect the body so it goes
			// out with a Content-Length.
			var buf bytes.Buffer
			if err := stream(&buf, func() error { return nil }); err != nil {
				rt.log.infof(r, "producing the response failed (%v)", err)
			}
			ctx.SetBody(buf.Bytes())
			rt.done(r, int64(buf.Len()))
			releaseRequest(r)
			return
		}
		// Send the headers at once: a stream (server-sent events, a long
		// poll) may take a while before its first byte.
		length := resp.Length
		ctx.StreamBody(func(w *bufio.Writer) {
			cw := &countWriter{w: w}
			var out io.Writer = cw
			if pace != nil {
				out = &pacedWriter{w: cw, flush: w.Flush, pace: paceState{p: pace}}
			}
			err := stream(out, w.Flush)
			if err != nil && !errors.Is(err, net.ErrClosed) {
				rt.log.infof(r, "writing the response failed (%v)", err)
			}
			_ = w.Flush()
			rt.done(r, cw.n)
			releaseRequest(r)
		})
		if length >= 0 {
			// A stream whose length is known (proxy_buffering off with the
			// upstream's Content-Length) goes with it, as nginx sends it.
			ctx.SetContentLength(int(length))
		}
	default:
		if head || resp.Status == 304 || resp.Status == 204 {
			ctx.SkipBody()
			if head && resp.Length > 0 {
				// HEAD through proxy_pass: the upstream's length.
				ctx.SetContentLength(int(resp.Length))
			}
		}
		rt.done(r, 0)
		releaseRequest(r)
	}
}

// pacedHTTP1 sends n bytes of src under limit_rate: the header at once,
// as nginx's write filter sends it, then each piece when its time comes
// (a body handed to the engine whole would wait in its write buffer
// behind the first pause). The log phase runs after the last byte.
func (rt *site) pacedHTTP1(ctx h1.Ctx, r *Request, src io.Reader, closer io.Closer, n int64, pace *limit.Pacer) {
	ctx.StreamBody(func(w *bufio.Writer) {
		cw := &countWriter{w: w}
		_, err := io.Copy(&pacedWriter{w: cw, flush: w.Flush, pace: paceState{p: pace}}, io.LimitReader(src, n))
		if closer != nil {
			closer.Close()
		}
		if err != nil && !errors.Is(err, net.ErrClosed) {
			rt.log.infof(r, "writing the response failed (%v)", err)
		}
		_ = w.Flush()
		rt.done(r, cw.n)
		releaseRequest(r)
	})
	ctx.SetContentLength(int(n))
}

func sentLen(resp *Response, head bool) int64 {
	if head {
		return 0
	}
	return resp.Length
}

// countWriter counts body bytes for $body_bytes_sent.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// http1Error answers what fasthttp could not parse, in nginx's terms:
// a head that overflows the read buffer is 414 when its request line is
// longer than one large_client_header_buffers buffer, else 494 (sent as
// 400); anything else 400. The connection is closed, lingering.
func (s *Server) http1Error(ctx h1.Ctx, err error) {
	rt := s.rt.Load()
	var info *connInfo
	if ec, ok := ctx.Conn().(edgeConn); ok {
		info = ec.connInfo()
	}
	if info == nil || info.group == nil {
		ctx.SetStatus(400)
		ctx.SetConnectionClose()
		return
	}
	if h1.AuthorityRefused(ctx, err) && servableAuthority(ctx.Header()) {
		// A valid host fasthttp refuses (http1head.go): its head was
		// read whole, so it is served, and the engine closes the
		// connection after it.
		s.handleHTTP1(ctx)
		ctx.SetConnectionClose()
		return
	}
	// The body's pre-read timeout ends here too, so that it does not
	// stretch the lingering close's reads.
	info.handlerStarts()
	status := 400
	if h1.HeadTooLarge(err) {
		status = 494
		def := info.group.Default
		if info.head.lineTooLong(def.LargeHeaderBuffers*def.LargeHeaderBufferSize, def.LargeHeaderBufferSize) {
			status = 414
		}
	}
	if h1.BodyTooLarge(err) {
		status = 413
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if info.head.total == 0 {
			// The read that timed out noted it (connInfo.received), and
			// serveHTTP1 logs it: no answer, as in nginx.
			_ = ctx.Conn().Close()
			return
		}
		s.requestTimedOut(ctx, info, err)
		return
	}
	r := errorRequest(rt, ctx, info)
	r.Method = "GET"
	r.Proto = "HTTP/1.1"
	info.linger = true
	switch {
	case status == 414:
		rt.log.infof(r, "client sent too long URI")
	case status == 494:
		rt.log.infof(r, "client sent too large request")
	case errors.Is(err, errBareCR):
		rt.log.infof(r, "client sent invalid header line")
	default:
		rt.log.infof(r, "client sent invalid request (%v)", err)
	}
	rt.badRequest(r, status)
	resp := r.resp
	ctx.SetStatus(resp.Status)
	setReason(ctx, resp)
	ctx.KeepHeaderNames()
	for _, f := range resp.Header.list {
		if strings.EqualFold(f.name, "Content-Type") {
			ctx.SetContentType(f.value)
			continue
		}
		ctx.AddHeader(f.name, f.value)
	}
	ctx.SetBody(resp.Bytes)
	ctx.SetConnectionClose()
	rt.done(r, resp.Length)
	releaseRequest(r)
}

// errorRequest is the Request a failure of the engine is logged and
// answered as: the default server's, with what headers were read.
func errorRequest(rt *site, ctx h1.Ctx, info *connInfo) *Request {
	r := acquireRequest()
	r.conn = info
	r.rt = rt
	r.start = time.Now()
	r.srv = info.group.Default
	r.loc = r.srv.Loc
	r.fh.h, r.fh.r = ctx.Header(), r
	r.Header = &r.fh
	return r
}

// requestTimedOut ends a request whose headers, or the start of whose
// body that fasthttp reads with them, did not arrive within
// client_header_timeout: as nginx does, it logs at info and in the access
// log with 408, and closes the connection without an answer (the engine
// then writes its error response to a closed connection).
func (s *Server) requestTimedOut(ctx h1.Ctx, info *connInfo, err error) {
	rt := s.rt.Load()
	r := errorRequest(rt, ctx, info)
	// fasthttp resets the request after a failed body read, so its own
	// wording is what tells the two apart.
	what := "body"
	if strings.HasPrefix(err.Error(), "error when reading request headers") {
		what = "headers"
	}
	rt.log.infof(r, "client timed out (110: Connection timed out) while reading client request %s", what)
	r.resp.Status = 408
	r.resp.Drop = true
	_ = ctx.Conn().Close()
	rt.done(r, 0)
	releaseRequest(r)
}

// deadlineReader reads a request body under client_body_timeout: while a
// Read of the body runs, each read from the connection (under TLS, of its
// records) waits for data at most that long, as nginx's timer runs
// between two successive reads. One Read of the body may take many reads
// of the connection (the engine fills its buffer), so a deadline set per
// body Read would cut a slow but steady upload.
type deadlineReader struct {
	r   io.Reader
	c   *rawio.Conn
	req *Request
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	timeout := d.req.bodyTimeout()
	if timeout <= 0 || d.c == nil {
		return d.r.Read(p)
	}
	d.c.SetReadTimeout(timeout)
	n, err := d.r.Read(p)
	d.c.SetReadTimeout(0)
	return n, err
}

// bodyTimeout is client_body_timeout: that of the location reading the
// body (nginx's), or the default server's before one is chosen.
func (r *Request) bodyTimeout() time.Duration {
	if r.loc != nil {
		return r.loc.ClientBodyTimeout
	}
	return r.conn.bodyTimeout
}

// nginxReason is the text of nginx's status line for status where it is
// not the engine's (ngx_http_status_lines in ngx_http_header_filter_module.c),
// nil elsewhere. A switch: it runs for every response.
func nginxReason(status int) []byte {
	switch status {
	case 302:
		return reason302
	case 405:
		return reason405
	case 408:
		return reason408
	case 413:
		return reason413
	case 414:
		return reason414
	case 416:
		return reason416
	case 503:
		return reason503
	case 504:
		return reason504
	}
	return nil
}

var (
	reason302 = []byte("Moved Temporarily")
	reason405 = []byte("Not Allowed")
	reason408 = []byte("Request Time-out")
	reason413 = []byte("Request Entity Too Large")
	reason414 = []byte("Request-URI Too Large")
	reason416 = []byte("Requested Range Not Satisfiable")
	reason503 = []byte("Service Temporarily Unavailable")
	reason504 = []byte("Gateway Time-out")
)

// setReason gives the status line nginx's text: the application's, when
// it named one for this status, else nginx's own where it differs from
// the engine's. The common statuses keep the engine's ready-made line.
func setReason(ctx h1.Ctx, resp *Response) {
	if resp.Reason != "" && resp.ReasonFor == resp.Status {
		ctx.SetReason([]byte(resp.Reason))
	} else if r := nginxReason(resp.Status); r != nil {
		ctx.SetReason(r)
	}
}
