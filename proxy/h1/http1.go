// This file is the HTTP/1.x adapter: the engine (h1.go, on fasthttp)
// serves each connection; the handler fills an engine-neutral
// proxy.Request from the Ctx, runs the pipeline and writes the Response
// back. The
// engine reuses its buffers after the handler returns, so the strings
// taken from it here are views that must not outlive the request.
package h1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"edge/conf"
	"edge/internal/rawio"
	"edge/proxy"
	"edge/proxy/limit"
	"edge/proxy/logs"
)

// fastHeaders reads request headers from fasthttp. With
// ignore_invalid_headers on (nginx's default), headers whose name nginx
// finds invalid are left out, as nginx drops them while reading (so that
// "X.Forwarded-For" cannot reach PHP as HTTP_X_FORWARDED_FOR, which PHP
// makes of "HTTP_X.FORWARDED_FOR").
type fastHeaders struct {
	h Header
	r *proxy.Request // for the serving server's settings
	// lines counts the header lines (checkRequestHead); invalid those
	// whose name has a byte outside [A-Za-z0-9_-], underscore those whose
	// name is invalid only by an "_".
	lines, invalid, underscore int
	// hostAt is the Host line's place among the lines the default server
	// keeps, 0 without one (for max_headers).
	hostAt int
	// names filters the names of the head's lines (nameBit), once
	// checkRequestHead has made it (namesMade): a Get of a name no line
	// can have is answered without the engine's Peek, which copies and
	// normalizes the name (3.6% of edge's user time serving a cached
	// page, most of it for If-* lines a request seldom has).
	names uint64
	// chunked: the body is chunked, so its trailer fields, which fasthttp
	// keeps with the headers once the body is read, may answer a Peek.
	chunked bool
}

// namesMade marks fastHeaders.names as made.
const namesMade = 1 << 63

// nameBit is a header name's bit in fastHeaders.names, by its length and
// its first and last bytes, case folded.
func nameBit(name string) uint64 {
	return 1 << ((len(name)*7 + int(name[0]|0x20)*3 + int(name[len(name)-1]|0x20)) % 63)
}

// engineAnswers: fasthttp's Peek answers these names without a line of
// that name (an HTTP/1.0 request's Connection, a Content-Length of 0, the
// host of an absolute target).
func engineAnswers(name string) bool {
	switch len(name) {
	case len("Host"):
		return strings.EqualFold(name, "Host")
	case len("Connection"):
		return strings.EqualFold(name, "Connection")
	case len("Content-Length"):
		return strings.EqualFold(name, "Content-Length")
	}
	return false
}

// Get needs no filter: the names asked for are valid ones, which an
// invalid name cannot equal.
func (f *fastHeaders) Get(name string) string {
	if f.names != 0 && name != "" && f.names&nameBit(name) == 0 && !engineAnswers(name) {
		return ""
	}
	v := b2s(f.h.Peek(name))
	if v != "" && f.fromTrailer(name) {
		return ""
	}
	// fasthttp reports a Content-Length of "0" for a request that sent
	// none; CGI's CONTENT_LENGTH must then be empty, as with nginx.
	if v == "0" && strings.EqualFold(name, "Content-Length") && !rawHasHeader(f.h.RawHeaders(), "content-length") {
		return ""
	}
	return v
}

// fromTrailer reports a name the engine answers from a chunked body's
// trailer alone. Trailer fields are not headers: nginx drops them, while
// fasthttp, once the body is read, answers them (and a User-Agent or a
// Trailer made of them) with the headers, to Peek and in All. A header
// must come from a head line.
func (f *fastHeaders) fromTrailer(name string) bool {
	return f.chunked && !engineAnswers(name) && !rawHasHeader(f.h.RawHeaders(), name)
}

// b2s views bytes as a string without copying; valid while the bytes are.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

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

func (f *fastHeaders) AppendAll(dst []proxy.HeaderKV) []proxy.HeaderKV {
	drop, underscores := f.dropsInvalid()
	for k, v := range f.h.All() {
		if drop && proxy.InvalidHeaderName(b2s(k), underscores) || f.fromTrailer(b2s(k)) {
			continue
		}
		// fasthttp adds "Connection: close" to an HTTP/1.0 request and a
		// "Content-Length: 0" the client never sent; PHP must not see them.
		if (string(v) == "close" && strings.EqualFold(b2s(k), "Connection") ||
			string(v) == "0" && strings.EqualFold(b2s(k), "Content-Length")) &&
			!rawHasHeader(f.h.RawHeaders(), strings.ToLower(b2s(k))) {
			continue
		}
		dst = append(dst, proxy.HeaderKV{Name: b2s(k), Value: b2s(v)})
	}
	return dst
}

// AppendArrived appends the header lines in the order they came and with
// their names as the client spelled them, as nginx keeps them (a
// proxy_pass sends them so): fasthttp lists Cookie (and a few others)
// apart from the rest, and makes "X-SSI" "X-Ssi".
func (f *fastHeaders) AppendArrived(dst []proxy.HeaderKV) []proxy.HeaderKV {
	start := len(dst)
	dst = f.AppendAll(dst)
	raw := f.h.RawHeaders()
	// Each name is found in the raw head once: the view of it there is
	// the name as spelled, and where it starts is its line's place.
	for i := start; i < len(dst); i++ {
		if at := rawLineAt(raw, dst[i].Name); at < len(raw) {
			dst[i].Name = b2s(raw[at : at+len(dst[i].Name)])
		}
	}
	slices.SortStableFunc(dst[start:], func(a, b proxy.HeaderKV) int {
		return rawOffset(raw, a.Name) - rawOffset(raw, b.Name)
	})
	return dst
}

// rawOffset is where name, a view into raw, starts in it (len(raw) for
// a name from elsewhere: a line the engine added).
func rawOffset(raw []byte, name string) int {
	if len(raw) == 0 || len(name) == 0 {
		return len(raw)
	}
	off := int(uintptr(unsafe.Pointer(unsafe.StringData(name))) - uintptr(unsafe.Pointer(unsafe.SliceData(raw))))
	if off < 0 || off >= len(raw) {
		return len(raw)
	}
	return off
}

// rawLineAt is where the first line of header name starts in a raw
// header block (len(raw) when there is none).
func rawLineAt(raw []byte, name string) int {
	for at := 0; at < len(raw); {
		line := raw[at:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		if len(line) > len(name) && line[len(name)] == ':' && strings.EqualFold(b2s(line[:len(name)]), name) {
			return at
		}
		at += len(line)
	}
	return len(raw)
}

// Adapter serves the HTTP/1 connections of a listener (proxy/listen's
// Server), each request on the site in force when it starts.
type Adapter struct {
	// site returns the site in force; a request is served by the one
	// current when it starts.
	site func() *proxy.Site
	// errLog gets the engine's messages and the lines about connections.
	errLog *logs.ErrorLog
	// run runs a job on a worker goroutine (a parked connection whose
	// client sent or closed); parked counts a connection that parked.
	run    func(job func())
	parked func()
	parker parker // idle connections (park_linux.go)

	mu      sync.Mutex
	cur     *proxy.Site // the site servers were made for
	servers map[*conf.ListenGroup]*Server
}

// NewAdapter makes the adapter of a listener (the arguments are
// Adapter's fields).
func NewAdapter(site func() *proxy.Site, errLog *logs.ErrorLog, run func(job func()), parked func()) *Adapter {
	a := &Adapter{site: site, errLog: errLog, run: run, parked: parked}
	a.parker.s = a
	return a
}

// http1WriteBuffer is the size of fasthttp's write buffer: a response
// longer than it leaves in two writes (see h1conn.more).
const http1WriteBuffer = 16 << 10

// http1Server makes the fasthttp server for a listen group; its limits
// come from the group's default server, which nginx also uses to read a
// request's headers before it knows the server.
func (s *Adapter) http1Server(g *conf.ListenGroup) *Server {
	def := g.Default
	return NewServer(Config{
		Handler:            s.handleHTTP1,
		ErrorHandler:       s.http1Error,
		HeadRead:           headRead,
		Logf:               func(format string, args ...any) { s.errLog.Logf(conf.LevelInfo, format, args...) },
		ReadBufferSize:     def.LargeHeaderBuffers * def.LargeHeaderBufferSize,
		WriteBufferSize:    http1WriteBuffer,
		ReadTimeout:        def.ClientHeaderTimeout,
		IdleTimeout:        def.Loc.KeepaliveTimeout,
		MaxRequestsPerConn: def.Loc.KeepaliveRequests,
		ConnState: func(c net.Conn, idle bool) {
			if ec, ok := c.(edgeConn); ok {
				info := ec.h1conn()
				info.Idle.Store(idle)
				if idle {
					info.head.next()
					info.skip, info.direct = info.direct.left, directBody{}
				}
			}
		},
	})
}

// serveHTTP1 serves an HTTP/1.x connection to its end, or until it
// parks (park_linux.go), which it reports.
func (s *Adapter) serveHTTP1(c net.Conn) bool {
	info := c.(edgeConn).h1conn()
	info.head.begin()
	info.h1 = s.engine(s.site(), info.Group)
	return s.runHTTP1(c, info)
}

func (s *Adapter) runHTTP1(c net.Conn, info *h1conn) bool {
	err := info.h1.ServeConn(c)
	if info.parking {
		info.parking = false
		info.requestsBase = info.lastRequests
		info.lastRequest = nil // no response is being written: no log line needs it
		info.lastLog = nil
		info.head.scratch = nil // a large read's copy is not kept while parked
		if ec, ok := c.(*tcpEdgeConn); ok && ec.parker.park(ec) {
			return true // c is no more: the parker holds what is kept of it
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
func (s *Adapter) connError(info *h1conn, err error) {
	var oe *net.OpError
	if !errors.As(err, &oe) || !oe.Timeout() || oe.Op != "write" && oe.Op != "readfrom" {
		return
	}
	s.connTimedOut(info, "sending response to client", info.lastRequest)
}

// connTimedOut logs at info, as nginx words it, a client that timed out.
// context names the request (proxy.AppendRequestContext), whose error log
// it goes to; without one, "server: " is the listening address, as in
// nginx's line for a connection that had no request, and it goes to the
// default server's log.
func (s *Adapter) connTimedOut(info *h1conn, while string, context []byte) {
	if len(context) == 0 {
		server := "unix:"
		if !info.Unix {
			server = net.JoinHostPort(info.LocalText, info.Port)
		}
		context = []byte(", server: " + server)
	}
	rt := s.site()
	log := rt.ConnErrorLog(info.Group)
	if len(context) > 0 && info.lastLog != nil {
		log = rt.ErrorLogOf(info.lastLog)
	}
	log.Write(conf.LevelInfo, info.ID, "client timed out (110: Connection timed out) while "+while+
		", client: "+info.RemoteText+string(context))
}

// engine returns the engine instance for g, made once per site (its
// limits come from the plan); a site no longer in force gets one made
// for the connection.
func (s *Adapter) engine(rt *proxy.Site, g *conf.ListenGroup) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != rt {
		if rt != s.site() {
			return s.http1Server(g)
		}
		s.cur, s.servers = rt, map[*conf.ListenGroup]*Server{}
	}
	fs := s.servers[g]
	if fs == nil {
		fs = s.http1Server(g)
		s.servers[g] = fs
	}
	return fs
}

// handleHTTP1 is fasthttp's handler.
func (s *Adapter) handleHTTP1(ctx Ctx) {
	rt := s.site()
	info := ctx.Conn().(edgeConn).h1conn()
	info.handlerStarts()
	r := proxy.AcquireRequest()
	r.Conn = info.ConnInfo
	r.ConnRequests = info.requestsBase + int(ctx.ConnRequestNum())
	info.lastRequests = r.ConnRequests
	r.Start = ctx.Time()
	if r.Start.IsZero() {
		r.Start = rt.Now()
	}
	h := ctx.Header()
	r.Method = b2s(h.Method())
	r.RawTarget = b2s(h.RequestURI())
	r.Proto = b2s(h.Protocol())
	r.HostHeader = b2s(h.Host())
	if r.HostHeader == "" && !h.IsHTTP11() {
		r.HostEmpty = rawHasHeader(h.RawHeaders(), "host")
	}
	info.fh = fastHeaders{h: h, r: r}
	r.Header = &info.fh
	if info.direct.left > 0 {
		h.SetContentLength(int(info.direct.left)) // as the client sent it (headRead)
	}
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
		if info.direct.left > 0 {
			r.Body = &info.direct
		} else {
			r.Body = ctx.BodyStream()
		}
		if r.Body == nil {
			r.Body = strings.NewReader(b2s(ctx.Body()))
		} else {
			// client_body_timeout is between two reads; fasthttp's own read
			// deadline (set for the headers) would bound the whole upload.
			info.dr = deadlineReader{r: r.Body, c: info.Raw, req: r, ready: info.preRead}
			r.Body = &info.dr
		}
	default:
		r.ContentLength = 0
	}
	if r.ContentLength == -2 {
		r.ContentLength = 0
	}
	if status := checkRequestHead(r, info, &info.fh, info.Group.Default); status != 0 {
		rt.AtDefault(r, info.Group.Default)
		rt.Infof(r, "client sent invalid request")
		rt.BadRequest(r, status)
		info.Linger = true
		writeHTTP1(rt, ctx, info, r)
		return
	}
	rt.Serve(r)
	writeHTTP1(rt, ctx, info, r)
}

// writeHTTP1 writes r.Response() to fasthttp and runs the log phase (at once for
// sized bodies, after the last byte for streams).
func writeHTTP1(rt *proxy.Site, ctx Ctx, info *h1conn, r *proxy.Request) {
	resp := r.Response()
	if info.lastRequest == nil {
		info.lastRequest = info.lastRequestBuf[:0]
	}
	info.lastRequest = proxy.AppendRequestContext(info.lastRequest[:0], r)
	info.lastLog = rt.RequestErrorLogs(r)
	if resp.Drop {
		ctx.NoResponse()
		rt.Done(r, 0)
		info.release(r)
		return
	}
	ctx.SetStatus(resp.Status)
	setReason(ctx, resp)
	// Names go out as the config, the application or edge spelled them
	// ("X-URI", "ETag"), as nginx sends them; fasthttp would make them
	// "X-Uri" and "Etag".
	ctx.KeepHeaderNames()
	for i := range resp.Header.Len() {
		name, value := resp.Header.At(i)
		switch {
		case strings.EqualFold(name, "Content-Type"):
			ctx.SetContentType(value)
		case strings.EqualFold(name, "Content-Length"):
		default:
			ctx.AddHeader(name, value)
		}
	}
	if resp.Close {
		ctx.SetConnectionClose()
	}
	if resp.Upgrade != nil {
		upgrade := resp.Upgrade
		info.head.stop() // what follows is the upgraded protocol's
		ctx.SkipBody()
		ctx.Hijack(func(c net.Conn) {
			if err := upgrade(c); err != nil {
				rt.Infof(r, "%v while proxying upgraded connection", err)
			}
			rt.Done(r, 0)
			info.release(r)
		})
		return
	}
	if info.direct.left > maxUnreadBody {
		ctx.SetConnectionClose() // too much of the body to skip, as the engine decides
	}
	bodyRead := info.dr.r == nil || info.dr.eof
	ctx.SayKeepAlive(info.Group.Default.Loc.KeepaliveRequests, bodyRead)
	// The engine closes after a body it will not skip, one longer than
	// maxUnreadBody; a chunked one it may skip, and the connection stays.
	left := r.ContentLength // the engine's body, unless edge reads it (directBody)
	if info.direct.left > 0 {
		left = info.direct.left
	}
	if !bodyRead && (ctx.WillClose(info.Group.Default.Loc.KeepaliveRequests) || left > maxUnreadBody) {
		// The connection closes with the client still sending its body:
		// it is drained first (lingering close), as nginx's is, so that
		// the client reads the answer rather than a reset.
		info.Linger = true
	}
	head := resp.HeadOnly
	var pace *limit.Pacer
	if !head && (resp.Kind == proxy.BodyBytes || resp.Kind == proxy.BodyFile || resp.Kind == proxy.BodyStream) {
		pace = rt.Pacer(r) // limit_rate (limitrate.go)
	}
	// A paced body and an HTTP/1.1 stream are written over time; anything
	// else is written whole at once (an HTTP/1.0 stream is collected).
	atOnce := pace == nil && resp.Kind != proxy.BodyStream || resp.Kind == proxy.BodyStream && !ctx.Header().IsHTTP11()
	// A compressed body goes chunked as nginx sends it (Unsized); over
	// HTTP/1.0 it keeps its Content-Length.
	sized := !resp.Unsized || !ctx.Header().IsHTTP11()
	chunked := !sized && !head
	// A body in memory that a kept file holds too goes from the file over
	// plain TCP (proxy.FileMirror).
	var mirrorOff int64
	mirrored := false
	if resp.Kind == proxy.BodyBytes && !head && pace == nil && !chunked && info.sendsFiles {
		mirrorOff, mirrored = resp.Mirror.Offset(resp.Bytes)
	}
	switch {
	case mirrored:
		// The headers go first, with MSG_MORE, then sendfile sends the
		// body from its file (tcpEdgeConn.ReadFrom).
		info.more = moreFirst
	case atOnce && ctx.WillClose(info.Group.Default.Loc.KeepaliveRequests):
		// The connection's last response: it waits in the socket for the
		// close, which sends it with the FIN (moreAll).
		info.more = moreAll
	case chunked && pace == nil:
		// The engine flushes the headers with the chunk, then the last
		// chunk on its own: the first write goes with MSG_MORE, so the
		// client is sent, and woken for, the response once.
		info.more = moreFirst
	case head || resp.Length <= http1WriteBuffer:
	case resp.Kind == proxy.BodyBytes:
		// fasthttp writes such a response as a full buffer (the headers
		// and the start of the body), then the rest: the first write
		// goes out with MSG_MORE so that the client is sent, and woken
		// for, the whole response once.
		info.more = moreFullBuffer
	case resp.Kind == proxy.BodyFile:
		// fasthttp flushes the headers, then sendfile sends the file.
		info.more = moreFirst
	}
	switch resp.Kind {
	case proxy.BodyBytes:
		if pace != nil {
			b := detachBytes(resp) // the pace outlives the handler
			pacedHTTP1(rt, ctx, info, r, bytes.NewReader(b), nil, int64(len(b)), pace, sized)
			return
		}
		switch {
		case head && !sized:
			// A HEAD of a compressed body: neither a length nor chunks,
			// as nginx answers it.
			resp.Release()
		case mirrored:
			info.mirror = mirrorSection{f: resp.Mirror.File, off: mirrorOff, b: resp.Bytes}
			ctx.SetBodySection(&info.mirror, len(resp.Bytes))
		case chunked:
			// One chunk and the last, written from Bytes (a bytes.Reader
			// is framed from its WriteTo, in the handler's goroutine).
			info.chunk.Reset(detachBytes(resp))
			ctx.SetBodyStream(&info.chunk, -1)
		case resp.Pooled():
			ctx.SetBody(resp.Bytes)
			resp.Release()
		default:
			ctx.SetBodyRaw(resp.Bytes)
		}
		if head {
			ctx.SkipBody()
		}
		sent := sentLen(resp, head)
		if chunked {
			sent = chunkedLen(sent)
		}
		rt.Done(r, sent)
		info.release(r)
	case proxy.BodyFile:
		if head {
			resp.File.Close()
			ctx.SkipBody()
			if sized {
				ctx.SetContentLength(int(resp.Length))
			}
		} else {
			if _, err := resp.File.Seek(resp.Offset, io.SeekStart); err != nil {
				resp.File.Close()
				ctx.SetConnectionClose()
			} else if pace != nil {
				pacedHTTP1(rt, ctx, info, r, resp.File, resp.File, resp.Length, pace, sized)
				return
			} else if chunked {
				ctx.SetBodyStream(&unsizedFile{io.LimitedReader{R: resp.File, N: resp.Length}, resp.File}, -1)
			} else {
				ctx.SetBodyStream(resp.File, int(resp.Length))
			}
		}
		rt.Done(r, sentLen(resp, head))
		info.release(r)
	case proxy.BodyStream:
		if head {
			ctx.SkipBody()
			rt.Done(r, 0)
			info.release(r)
			return
		}
		stream := resp.Stream
		if !ctx.Header().IsHTTP11() {
			// HTTP/1.0 has no chunked encoding: collect the body so it goes
			// out with a Content-Length.
			var buf bytes.Buffer
			if err := stream(&buf, func() error { return nil }); err != nil {
				rt.Infof(r, "producing the response failed (%v)", err)
			}
			ctx.SetBody(buf.Bytes())
			rt.Done(r, int64(buf.Len()))
			info.release(r)
			return
		}
		// Send the headers at once: a stream (server-sent events, a long
		// poll) may take a while before its first byte.
		length := resp.Length
		ctx.StreamBody(func(w *bufio.Writer) error {
			cw := &proxy.CountWriter{W: w}
			var out io.Writer = cw
			if pace != nil {
				out = proxy.NewPacedWriter(cw, w.Flush, pace)
			}
			err := stream(out, w.Flush)
			if err != nil && !errors.Is(err, net.ErrClosed) {
				rt.Infof(r, "writing the response failed (%v)", err)
			}
			_ = w.Flush()
			rt.Done(r, cw.N)
			info.release(r)
			return err
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
		rt.Done(r, 0)
		info.release(r)
	}
}

// pacedHTTP1 sends n bytes of src under limit_rate: the header at once,
// as nginx's write filter sends it, then each piece when its time comes
// (a body handed to the engine whole would wait in its write buffer
// behind the first pause). The log phase runs after the last byte.
// sized sends n as the Content-Length; a compressed body goes chunked.
func pacedHTTP1(rt *proxy.Site, ctx Ctx, info *h1conn, r *proxy.Request, src io.Reader, closer io.Closer, n int64, pace *limit.Pacer, sized bool) {
	ctx.StreamBody(func(w *bufio.Writer) error {
		cw := &proxy.CountWriter{W: w}
		_, err := io.Copy(proxy.NewPacedWriter(cw, w.Flush, pace), io.LimitReader(src, n))
		if closer != nil {
			closer.Close()
		}
		if err != nil && !errors.Is(err, net.ErrClosed) {
			rt.Infof(r, "writing the response failed (%v)", err)
		}
		_ = w.Flush()
		rt.Done(r, cw.N)
		info.release(r)
		return err
	})
	if sized {
		ctx.SetContentLength(int(n))
	}
}

// detachBytes returns resp's body for a write after the handler returns:
// a pooled buffer is copied and goes back now.
func detachBytes(resp *proxy.Response) []byte {
	b := resp.Bytes
	if resp.Pooled() {
		b = append([]byte(nil), b...)
		resp.Release()
	}
	return b
}

// unsizedFile is a file's section sent chunked: neither an *os.File nor
// an *io.LimitedReader, whose length the engine would send; it closes
// the file once sent.
type unsizedFile struct {
	io.LimitedReader
	f *os.File
}

func (u *unsizedFile) Close() error { return u.f.Close() }

// chunkedLen is what n bytes sent as one chunk take on the wire, which
// $body_bytes_sent counts, as nginx's does: the size line and its CRLF,
// the CRLF after the data, and the last chunk.
func chunkedLen(n int64) int64 {
	if n == 0 {
		return int64(len("0\r\n\r\n"))
	}
	return int64(len(strconv.FormatInt(n, 16))) + n + int64(len("\r\n\r\n0\r\n\r\n"))
}

func sentLen(resp *proxy.Response, head bool) int64 {
	if head {
		return 0
	}
	return resp.Length
}

// http1Error answers what fasthttp could not parse, in nginx's terms:
// a head that overflows the read buffer is 414 when its request line is
// longer than one large_client_header_buffers buffer, else 494 (sent as
// 400); anything else 400. The connection is closed, lingering.
func (s *Adapter) http1Error(ctx Ctx, err error) {
	rt := s.site()
	var info *h1conn
	if ec, ok := ctx.Conn().(edgeConn); ok {
		info = ec.h1conn()
	}
	if info == nil || info.Group == nil {
		ctx.SetStatus(400)
		ctx.SetConnectionClose()
		return
	}
	if AuthorityRefused(ctx, err) && servableAuthority(ctx.Header()) {
		// A valid host fasthttp refuses (http1head.go): its head was
		// read whole, so it is served, and the engine closes the
		// connection after it (said before, so that the response does
		// not also say keep-alive).
		ctx.SetConnectionClose()
		s.handleHTTP1(ctx)
		ctx.SetConnectionClose()
		return
	}
	// The body's pre-read timeout ends here too, so that it does not
	// stretch the lingering close's reads.
	info.handlerStarts()
	status := 400
	if HeadTooLarge(err) {
		status = 494
		def := info.Group.Default
		if info.head.lineTooLong(def.LargeHeaderBuffers*def.LargeHeaderBufferSize, def.LargeHeaderBufferSize) {
			status = 414
		}
	}
	if BodyTooLarge(err) {
		status = 413
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if info.head.total == 0 {
			// The read that timed out noted it (h1conn.received), and
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
	info.Linger = true
	switch {
	case status == 414:
		rt.Infof(r, "client sent too long URI")
	case status == 494:
		rt.Infof(r, "client sent too large request")
	case errors.Is(err, errBareCR):
		rt.Infof(r, "client sent invalid header line")
	default:
		rt.Infof(r, "client sent invalid request (%v)", err)
	}
	rt.BadRequest(r, status)
	resp := r.Response()
	ctx.SetStatus(resp.Status)
	setReason(ctx, resp)
	ctx.KeepHeaderNames()
	for i := range resp.Header.Len() {
		name, value := resp.Header.At(i)
		if strings.EqualFold(name, "Content-Type") {
			ctx.SetContentType(value)
			continue
		}
		ctx.AddHeader(name, value)
	}
	ctx.SetBody(resp.Bytes)
	ctx.SetConnectionClose()
	rt.Done(r, resp.Length)
	info.release(r)
}

// errorRequest is the Request a failure of the engine is logged and
// answered as: the default server's, with what headers were read.
func errorRequest(rt *proxy.Site, ctx Ctx, info *h1conn) *proxy.Request {
	r := proxy.AcquireRequest()
	r.Conn = info.ConnInfo
	r.Start = time.Now()
	rt.AtDefault(r, info.Group.Default)
	info.fh = fastHeaders{h: ctx.Header(), r: r}
	r.Header = &info.fh
	return r
}

// requestTimedOut ends a request whose headers, or the start of whose
// body that fasthttp reads with them, did not arrive within
// client_header_timeout: as nginx does, it logs at info and in the access
// log with 408, and closes the connection without an answer (the engine
// then writes its error response to a closed connection).
func (s *Adapter) requestTimedOut(ctx Ctx, info *h1conn, err error) {
	rt := s.site()
	r := errorRequest(rt, ctx, info)
	// fasthttp resets the request after a failed body read, so its own
	// wording is what tells the two apart.
	what := "body"
	if strings.HasPrefix(err.Error(), "error when reading request headers") {
		what = "headers"
	}
	rt.Infof(r, "client timed out (110: Connection timed out) while reading client request %s", what)
	r.Response().Status = 408
	r.Response().Drop = true
	_ = ctx.Conn().Close()
	rt.Done(r, 0)
	info.release(r)
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
	req *proxy.Request
	eof bool // the body was read to its end
	// ready is how much of the body is in memory, readable without a
	// wait for the client (Buffered).
	ready int64
}

// Buffered is how much of the body can be read without waiting for the
// client: what came with the head and the engine read before the
// handler ran (h1conn.preRead), less what was read of it since.
func (d *deadlineReader) Buffered() int64 { return d.ready }

func (d *deadlineReader) Read(p []byte) (int, error) {
	timeout := d.req.BodyTimeout()
	if timeout <= 0 || d.c == nil {
		return d.note(d.r.Read(p))
	}
	d.c.SetReadTimeout(timeout)
	n, err := d.r.Read(p)
	d.c.SetReadTimeout(0)
	return d.note(n, err)
}

func (d *deadlineReader) note(n int, err error) (int, error) {
	d.ready = max(0, d.ready-int64(n))
	if err == io.EOF {
		d.eof = true
	}
	return n, err
}

// headRead decides how much of a Content-Length body the engine reads
// with its head (Config.HeadRead): no more than came with it, so that
// the handler runs without waiting for the client. nginx does the same,
// and with proxy_request_buffering off connects upstream at once. When
// none came, the engine is told of no body (a Content-Length of 0 for it,
// the client's again when the handler runs) and the handler reads the
// body from the connection (directBody). A head whose framing the watch
// did not follow is left to the engine.
func headRead(ctx Ctx) int {
	ec, ok := ctx.Conn().(edgeConn)
	if !ok {
		return 0
	}
	info := ec.h1conn()
	info.preRead, info.direct = 0, directBody{}
	h := ctx.Header()
	length := int64(h.ContentLength())
	if length <= 0 {
		return 0
	}
	given, ok := info.head.bodyGiven(length)
	if !ok {
		return 0
	}
	info.preRead = given
	switch {
	case given >= min(length, engineBodyPreRead):
		return 0 // the engine's own pre-read has it all
	case given > 0:
		return int(given)
	}
	info.direct = directBody{c: ctx.Conn(), left: length}
	h.SetContentLength(0)
	return 0
}

// engineBodyPreRead is how much of a body fasthttp reads before the
// handler runs, when it is told no other size.
const engineBodyPreRead = 8 << 10

// directBody reads a request body that the engine read none of
// (headRead) from the connection, through its wrapper, whose head watch
// counts the bytes as that body's.
type directBody struct {
	c    net.Conn
	left int64
}

func (d *directBody) Read(p []byte) (int, error) {
	if d.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > d.left {
		p = p[:d.left]
	}
	n, err := d.c.Read(p)
	d.left -= int64(n)
	switch {
	case d.left == 0:
		return n, io.EOF
	case err == io.EOF:
		return n, io.ErrUnexpectedEOF
	}
	return n, err
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
func setReason(ctx Ctx, resp *proxy.Response) {
	if resp.Reason != "" && resp.ReasonFor == resp.Status {
		ctx.SetReason([]byte(resp.Reason))
	} else if r := nginxReason(resp.Status); r != nil {
		ctx.SetReason(r)
	}
}
