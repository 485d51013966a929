// This file is the HTTP/2 adapter: the engine (h2.go, x/net/http2)
// serves each connection on net/http types; the handler fills the same
// engine-neutral Request as the HTTP/1 adapter and writes the Response.
package h2

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"edge/conf"
	"edge/internal/xconnect"
	"edge/proxy"
	"edge/proxy/logs"
)

// x/net/http2 has read GODEBUG by now (this package imports it): the
// extended CONNECT that xconnect's init asked for is on (websocket.go).
func init() { xconnect.Restore() }

type connKey struct{}

// h2Headers reads request headers from net/http, which moves the Host
// (:authority) out of the header map; it is put back first, so FastCGI's
// HTTP_HOST and $http_host see it as on HTTP/1.1.
type h2Headers struct {
	h    http.Header
	host string
	r    *proxy.Request // for its server's ignore_invalid_headers
}

func (f *h2Headers) Get(name string) string {
	if strings.EqualFold(name, "Host") {
		return f.host
	}
	return f.h.Get(name)
}

func (f *h2Headers) AppendAll(dst []proxy.HeaderKV) []proxy.HeaderKV {
	if f.host != "" {
		dst = append(dst, proxy.HeaderKV{Name: "Host", Value: f.host})
	}
	// nginx's HTTP/2 module drops the names HTTP/1 drops
	// (ngx_http_v2_validate_header): "x.forwarded-for" must not become
	// HTTP_X_FORWARDED_FOR.
	drop := f.r != nil && f.r.Server() != nil && f.r.Server().IgnoreInvalidHeaders
	for k, vs := range f.h {
		if drop && proxy.InvalidHeaderName(k, f.r.Server().UnderscoresInHeaders) {
			continue
		}
		for _, v := range vs {
			dst = append(dst, proxy.HeaderKV{Name: k, Value: v})
		}
	}
	return dst
}

// h2stream is what the adapter keeps of a stream beside its Request:
// the header view and the body reader, pooled.
type h2stream struct {
	hh   h2Headers
	body h2Body
}

var streamPool = sync.Pool{New: func() any { return new(h2stream) }}

// TooManyHeaders applies max_headers: nginx counts the regular fields against
// the server the request is for (measured: 999 get 200, 1001 get 400).
// Invalid names are looked at only when all the fields together are too
// many: the common request costs one count.
func (f *h2Headers) TooManyHeaders(_, srv *conf.Server, _ bool) bool {
	n := 0
	for _, vs := range f.h {
		n += len(vs)
	}
	if n <= srv.MaxHeaders || !srv.IgnoreInvalidHeaders {
		return n > srv.MaxHeaders
	}
	for k, vs := range f.h {
		if proxy.InvalidHeaderName(k, srv.UnderscoresInHeaders) {
			n -= len(vs)
		}
	}
	return n > srv.MaxHeaders
}

// h2conn is one HTTP/2 connection's state shared by its streams.
type h2conn struct {
	info     *proxy.ConnInfo
	guard    *h2Guard
	requests atomic.Int64
}

// infoWriter sends a library's log lines to the error log at [info]
// (x/net/http2 reports broken client connections this way).
type infoWriter struct{ l *logs.ErrorLog }

func (w infoWriter) Write(p []byte) (int, error) {
	w.l.Logf(conf.LevelInfo, "%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Adapter serves the HTTP/2 connections of a listener (proxy/listen's
// Server), each stream on the site in force when it starts.
type Adapter struct {
	// site returns the site in force; a stream is served by the one
	// current when it starts.
	site func() *proxy.Site
	// errLog gets the lines about connections; log, which writes to it
	// at [info], the engine's messages.
	errLog *logs.ErrorLog
	log    *log.Logger
	// live holds the own engine's connections by their ConnInfo, for a
	// graceful stop to drain (Drain).
	live sync.Map
}

// Drain starts the graceful end of an own-engine connection, as nginx's
// exiting worker ends its HTTP/2 connections: a GOAWAY (NO_ERROR) names
// the last stream served, the streams open finish, and the connection
// closes after them. It reports whether info is such a connection; a
// second call does nothing more.
func (s *Adapter) Drain(info *proxy.ConnInfo) bool {
	oc, ok := s.live.Load(info)
	if ok {
		oc.(*ownConn).drain()
	}
	return ok
}

// NewAdapter makes the adapter of a listener: site and errLog are
// Adapter's fields.
func NewAdapter(site func() *proxy.Site, errLog *logs.ErrorLog) *Adapter {
	return &Adapter{site: site, errLog: errLog, log: log.New(infoWriter{errLog}, "", 0)}
}

// Serve serves an HTTP/2 connection (TLS with ALPN "h2", or h2c
// with prior knowledge).
func (s *Adapter) Serve(c net.Conn, info *proxy.ConnInfo) {
	rt := s.site()
	def := info.Group.Default
	// nginx's header_limit: all of large_client_header_buffers.
	headerLimit := def.LargeHeaderBuffers * def.LargeHeaderBufferSize
	guard := newH2Guard(headerLimit, def.Loc.KeepaliveRequests, rt.Now)
	guard.setConcurrentStreams(def.HTTP2MaxConcurrentStreams)
	if ownEngine {
		s.serveOwn(c, info, guard)
	} else {
		s.serveXnet(c, info, guard)
	}
	if guard.tripped.Load() {
		// nginx logs its flood and limit closes at info.
		server := "unix:"
		if !info.Unix {
			server = net.JoinHostPort(info.LocalText, info.Port)
		}
		s.site().ConnErrorLog(info.Group).Write(conf.LevelInfo, info.ID, guard.reason+" while processing HTTP/2 connection, client: "+
			info.RemoteText+", server: "+server)
	}
}

// serveXnet serves c with golang.org/x/net/http2 (EDGE_H2_ENGINE=xnet).
func (s *Adapter) serveXnet(c net.Conn, info *proxy.ConnInfo, guard *h2Guard) {
	def := info.Group.Default
	hc := &h2conn{info: info, guard: guard}
	ctx := context.WithValue(context.Background(), connKey{}, hc)
	// send_timeout bounds the coalescing writer's writes (the default
	// server's: the connection's streams may belong to other locations).
	var wc net.Conn = newCoalescedConn(c, info, guard)
	if info.TLS != nil {
		wc = tlsCoalescedConn{wc.(*coalescedConn)}
	}
	ServeConn(ctx, wc, http.HandlerFunc(s.handleHTTP2), Options{
		IdleTimeout:          def.Loc.KeepaliveTimeout,
		MaxConcurrentStreams: uint32(def.HTTP2MaxConcurrentStreams),
		// The protocol's default (RFC 9113 6.5.2); x/net/http2 would
		// announce 1 MiB and accept frames a peer must not send.
		MaxReadFrameSize:  16 << 10,
		ReadHeaderTimeout: def.ClientHeaderTimeout,
		// MaxHeaderBytes is the decoded header list's budget; the guard
		// bounds the encoded block.
		MaxHeaderBytes: h2HeaderBudget(def),
		ErrorLog:       s.log,
	})
}

// h2HeaderBudget is the decoded header list x/net/http2 accepts: nginx's
// header_limit (large_client_header_buffers) counts names and values
// only, x/net adds 32 bytes a field (RFC 7541 4.1), so the budget has
// room for max_headers fields' overhead; max_headers itself is applied
// with the server's (TooManyHeaders).
func h2HeaderBudget(def *conf.Server) int {
	return def.LargeHeaderBuffers*def.LargeHeaderBufferSize + 32*def.MaxHeaders
}

// validH2Path reports whether a :path has no byte that nginx's URI parser
// refuses (spaces and control characters, ngx_http_parse_uri); HTTP/1's
// request line cannot carry them.
func validH2Path(p string) bool {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// h2Body is a stream's request body read under client_body_timeout, as
// nginx means it: the longest wait between two successive reads. Each
// Read arms the stream's read deadline (x/net/http2 closes the body with
// os.ErrDeadlineExceeded when it fires, which the body's reader answers
// with 408, as over HTTP/1). A Read returns as soon as a DATA frame's
// bytes are there, so a slow but steady upload is never cut.
// It lives in the pooled h2stream, as HTTP/1's deadlineReader lives in
// its connection, so a body costs no allocation.
type h2Body struct {
	body  io.Reader
	w     readDeadliner // the stream's ResponseWriter
	r     *proxy.Request
	armed bool
}

// readDeadliner is the stream's read deadline, as x/net/http2's
// ResponseWriter offers it.
type readDeadliner interface{ SetReadDeadline(time.Time) error }

func (b *h2Body) Read(p []byte) (int, error) {
	if t := b.r.BodyTimeout(); t > 0 {
		b.w.SetReadDeadline(time.Now().Add(t))
		b.armed = true
	} else if b.armed {
		b.w.SetReadDeadline(time.Time{})
		b.armed = false
	}
	n, err := b.body.Read(p)
	if err != nil && b.armed {
		// The body is over: no timer may outlive it.
		b.w.SetReadDeadline(time.Time{})
		b.armed = false
	}
	return n, err
}

// handleHTTP2 is the net/http handler for one stream.
func (s *Adapter) handleHTTP2(w http.ResponseWriter, req *http.Request) {
	rt := s.site()
	hc := req.Context().Value(connKey{}).(*h2conn)
	if req.Context().Err() != nil {
		// Reset (or the connection gone) before its handler started: as in
		// nginx, no work outlives its stream.
		return
	}
	r := proxy.AcquireRequest()
	r.Conn = hc.info
	r.Ctx = req.Context()
	r.ConnRequests = int(hc.requests.Add(1))
	r.Start = rt.Now()
	r.Method = req.Method
	r.RawTarget = req.RequestURI
	r.Proto = "HTTP/2.0"
	r.HostHeader = req.Host
	st := streamPool.Get().(*h2stream)
	defer streamPool.Put(st)
	st.hh = h2Headers{h: req.Header, host: req.Host, r: r}
	r.Header = &st.hh
	r.ContentLength = req.ContentLength
	var tunnel *h2Tunnel
	if req.Method == http.MethodConnect && req.Header.Get(":protocol") != "" {
		// A WebSocket over HTTP/2 (websocket.go): served as the
		// HTTP/1.1 upgrade it stands for, its stream kept for the tunnel.
		if tunnel = extendedConnect(r, req, w); tunnel == nil {
			proxy.ReleaseRequest(r)
			w.WriteHeader(http.StatusNotImplemented)
			return
		}
	} else if req.Body != nil && req.Body != http.NoBody && req.ContentLength != 0 {
		r.Body = req.Body
		if dl, ok := w.(readDeadliner); ok {
			st.body = h2Body{body: req.Body, w: dl, r: r}
			r.Body = &st.body
		}
	} else {
		r.ContentLength = 0
	}
	if !validH2Path(r.RawTarget) {
		rt.AtDefault(r, hc.info.Group.Default)
		rt.Infof(r, "client sent invalid :path header")
		rt.BadRequest(r, 400)
	} else {
		rt.Serve(r)
	}
	if tunnel != nil {
		tunnel.serve(rt, r)
		return
	}
	writeHTTP2(rt, w, r, hc.guard.lastRequest())
}

// writeHTTP2 writes r.Response() to net/http and runs the log phase. last says
// the client has opened keepalive_requests streams: x/net/http2 turns the
// response's "Connection: close" into a GOAWAY.
func writeHTTP2(rt *proxy.Site, w http.ResponseWriter, r *proxy.Request, last bool) {
	resp := r.Response()
	defer proxy.ReleaseRequest(r)
	if resp.Drop {
		rt.Done(r, 0)
		panic(http.ErrAbortHandler)
	}
	h := w.Header()
	addHeaders(h, resp, false)
	if last {
		h.Set("Connection", "close")
	}
	if resp.Length >= 0 && !resp.Unsized && resp.Status != 304 && resp.Status != 204 {
		h.Set("Content-Length", strconv.FormatInt(resp.Length, 10))
	}
	w.WriteHeader(resp.Status)
	var sent int64
	var err error
	if !resp.HeadOnly {
		if pace := rt.Pacer(r); pace != nil { // limit_rate (limitrate.go)
			w = pacedResponse{w, proxy.NewPacedWriter(w, http2Flush(w), pace)}
		}
		switch resp.Kind {
		case proxy.BodyBytes:
			var n int
			n, err = w.Write(resp.Bytes)
			sent = int64(n)
		case proxy.BodyFile:
			sent, err = io.Copy(w, io.NewSectionReader(resp.File, resp.Offset, resp.Length))
		case proxy.BodyStream:
			cw := &proxy.CountWriter{W: w}
			fl, _ := w.(http.Flusher)
			err = resp.Stream(cw, func() error {
				if fl != nil {
					fl.Flush()
				}
				return nil
			})
			sent = cw.N
		}
	}
	if resp.Kind == proxy.BodyFile && resp.File != nil {
		resp.File.Close()
	}
	resp.Release()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		rt.Infof(r, "writing the response failed (%v)", err)
	}
	rt.Done(r, sent)
	if err != nil && resp.Kind == proxy.BodyStream {
		// A body cut on the server's side: what was written goes out, then
		// x/net/http2 resets the stream (INTERNAL_ERROR) rather than end
		// it, as nginx does.
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		panic(http.ErrAbortHandler)
	}
}

// addHeaders adds resp's header fields to h but the ones HTTP/2 frames
// itself or forbids (RFC 9113 8.2.2); for a tunnel's 200, also the
// upgrade's own (websocket.go), which RFC 8441 leaves out.
func addHeaders(h http.Header, resp *proxy.Response, tunnel bool) {
	for i := range resp.Header.Len() {
		name, value := resp.Header.At(i)
		if !framedByH2(name, tunnel) {
			h.Add(name, value)
		}
	}
}

// framedByH2 reports whether a response field stays out of an HTTP/2
// response, both engines': the connection-specific ones RFC 9113 8.2.2
// forbids, Content-Length, which the engine sends from the body's
// length, and for a tunnel's 200 the upgrade's own (RFC 8441).
func framedByH2(name string, tunnel bool) bool {
	switch {
	case strings.EqualFold(name, "Connection"), strings.EqualFold(name, "Keep-Alive"),
		strings.EqualFold(name, "Transfer-Encoding"), strings.EqualFold(name, "Content-Length"):
		return true
	case tunnel:
		return strings.EqualFold(name, "Upgrade") || strings.EqualFold(name, "Sec-WebSocket-Accept")
	}
	return false
}

// http2Flush flushes an HTTP/2 response writer.
func http2Flush(w http.ResponseWriter) func() error {
	fl, _ := w.(http.Flusher)
	return func() error {
		if fl != nil {
			fl.Flush()
		}
		return nil
	}
}

// pacedResponse is an HTTP/2 response writer whose body writes are paced.
type pacedResponse struct {
	http.ResponseWriter
	pw *proxy.PacedWriter
}

func (p pacedResponse) Write(b []byte) (int, error) { return p.pw.Write(b) }
func (p pacedResponse) Flush()                      { _ = p.pw.Flush() }
