// Package h1 is edge's HTTP/1.x: the engine, github.com/valyala/fasthttp
// serving one connection at a time (this file: Server.ServeConn), and the
// adapter between it and the pipeline (package proxy): http1.go turns a
// Ctx into the engine-neutral proxy.Request and writes its Response,
// http1conn.go holds the connection wrappers the engine reads and writes
// through, http1head.go nginx's head rules that fasthttp lacks, and
// park_linux.go the parking of idle connections. The listener
// (proxy/listen) hands it connections through an Adapter. It is the only
// package of the server that imports fasthttp (proxy's imports_test.go
// holds that). Ctx and Header are values wrapping the engine's pointers,
// whose methods say in edge's terms what the engine is asked to do; they
// cost no allocation and, like the engine's buffers, what they return is
// valid until the handler returns.
package h1

import (
	"bufio"
	"errors"
	"io"
	"iter"
	"net"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"
)

// Config is the settings of one engine instance (proxy makes one per
// listen group, from its default server).
type Config struct {
	Handler      func(Ctx)
	ErrorHandler func(Ctx, error)     // a request the engine could not read
	Logf         func(string, ...any) // the engine's own messages
	// ConnState is told of every change of a connection's state; idle is
	// true while it waits for its next request.
	ConnState func(c net.Conn, idle bool)
	// HeadRead is told of each request head once the engine has read it,
	// before it reads any of the body, and returns how much of a
	// Content-Length body the engine is to read before the handler runs
	// (0: its own choice, up to 8 KiB, which it waits for). It may make
	// the head's Content-Length 0 for the engine (Header.SetContentLength):
	// the engine then reads none of the body, which the handler reads
	// from the connection itself.
	HeadRead func(Ctx) int

	ReadBufferSize, WriteBufferSize int
	ReadTimeout, IdleTimeout        time.Duration
	MaxRequestsPerConn              int
}

// Server is one engine instance.
type Server struct{ fs *fasthttp.Server }

type logger func(string, ...any)

func (l logger) Printf(format string, args ...any) { l(format, args...) }

// NewServer makes an engine instance. Bodies are streamed to the handler
// (StreamRequestBody), never parsed as forms, and of any size (the
// pipeline applies client_max_body_size); the engine adds no Server or
// Content-Type header of its own.
func NewServer(c Config) *Server {
	return &Server{fs: &fasthttp.Server{
		Handler:      func(ctx *fasthttp.RequestCtx) { c.Handler(Ctx{ctx}) },
		ErrorHandler: func(ctx *fasthttp.RequestCtx, err error) { c.ErrorHandler(Ctx{ctx}, err) },
		HeaderReceived: func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
			if c.HeadRead == nil {
				return fasthttp.RequestConfig{}
			}
			return fasthttp.RequestConfig{MaxRequestBodySize: c.HeadRead(Ctx{headerCtx(h)})}
		},
		// No Name: fasthttp would send it as the Server of a response
		// that has none, and "more_clear_headers Server" must leave a
		// response without one; the pipeline names edge itself.
		ReadBufferSize: c.ReadBufferSize,
		// An idle keep-alive connection gives its 16 KiB write buffer back
		// (issue 20: 22 KB per idle connection against nginx's 0.5); its read
		// buffer stays, as StreamRequestBody needs it. No cost measured
		// (BenchmarkStatic1K/http1, six runs each way).
		ReduceMemoryUsage:             true,
		WriteBufferSize:               c.WriteBufferSize,
		ReadTimeout:                   c.ReadTimeout,
		IdleTimeout:                   c.IdleTimeout,
		MaxRequestsPerConn:            c.MaxRequestsPerConn,
		MaxRequestBodySize:            1 << 62,
		StreamRequestBody:             true,
		DisablePreParseMultipartForm:  true,
		NoDefaultServerHeader:         true,
		NoDefaultContentType:          true,
		DisableHeaderNamesNormalizing: false,
		SecureErrorLogMessage:         true,
		Logger:                        logger(c.Logf),
		ConnState: func(conn net.Conn, st fasthttp.ConnState) {
			c.ConnState(conn, st == fasthttp.StateIdle)
		},
	}}
}

// headerCtx is the context whose request's head h is. fasthttp calls
// HeaderReceived with &ctx.Request.Header and nothing else, and the hook
// needs the connection (ctx.Conn) to tell how much of the body came with
// the head; TestAnswerBeforeBody would not pass if they did not.
func headerCtx(h *fasthttp.RequestHeader) *fasthttp.RequestCtx {
	return (*fasthttp.RequestCtx)(unsafe.Add(unsafe.Pointer(h), -int(ctxHeaderOffset)))
}

const ctxHeaderOffset = unsafe.Offsetof((*fasthttp.RequestCtx)(nil).Request) +
	unsafe.Offsetof((*fasthttp.Request)(nil).Header)

// idleWait is how long the engine waits for a kept connection's next
// request: the deadline it asks for then is its clock plus this
// (fasthttp's idleTimeout, ReadTimeout without an IdleTimeout).
func (s *Server) idleWait() time.Duration {
	if s.fs.IdleTimeout > 0 {
		return s.fs.IdleTimeout
	}
	return s.fs.ReadTimeout
}

// ServeConn serves c to its end.
func (s *Server) ServeConn(c net.Conn) error { return s.fs.ServeConn(c) }

// HeadTooLarge reports an error for a request head larger than the read
// buffer.
func HeadTooLarge(err error) bool {
	var e *fasthttp.ErrSmallBuffer
	return errors.As(err, &e)
}

// AuthorityRefused reports whether err is the engine's refusal of the
// request's authority (an absolute target's host, else the Host header),
// which fasthttp checks once the head is read and before the body: the
// head is then whole in c, and nothing of the body has been read.
// fasthttp keeps these errors unexported, so its own parser is asked
// again and must fail the same way.
func AuthorityRefused(c Ctx, err error) bool {
	if err == nil {
		return false
	}
	h := &c.c.Request.Header
	var u fasthttp.URI
	e := u.Parse(h.Host(), h.RequestURI())
	return e != nil && e.Error() == err.Error()
}

// BodyTooLarge reports an error for a body over the engine's limit.
func BodyTooLarge(err error) bool { return errors.Is(err, fasthttp.ErrBodyTooLarge) }

// Header is a request's head as the engine parsed it.
type Header struct{ h *fasthttp.RequestHeader }

// ReadHeader reads a request head as the engine's server does (for
// tests of the checks made on it).
func ReadHeader(r *bufio.Reader) (Header, error) {
	h := &fasthttp.RequestHeader{}
	return Header{h}, h.Read(r)
}

func (h Header) Method() []byte     { return h.h.Method() }
func (h Header) RequestURI() []byte { return h.h.RequestURI() }
func (h Header) Protocol() []byte   { return h.h.Protocol() }
func (h Header) Host() []byte       { return h.h.Host() }
func (h Header) IsHTTP11() bool     { return h.h.IsHTTP11() }

// RawHeaders is the header lines as received.
func (h Header) RawHeaders() []byte { return h.h.RawHeaders() }

// ContentLength is the body's length: -1 chunked, -2 for "identity"
// without a length (read to the close), 0 without a body.
func (h Header) ContentLength() int { return h.h.ContentLength() }

// SetContentLength changes the length the engine reads the body by.
func (h Header) SetContentLength(n int) { h.h.SetContentLength(n) }

// Peek returns a header's first value.
func (h Header) Peek(name string) []byte { return h.h.Peek(name) }

// All yields the header lines, names as the engine normalized them.
func (h Header) All() iter.Seq2[[]byte, []byte] { return h.h.All() }

// Ctx is one request on a connection and the response being made.
type Ctx struct{ c *fasthttp.RequestCtx }

func (c Ctx) Conn() net.Conn         { return c.c.Conn() }
func (c Ctx) ConnRequestNum() uint64 { return c.c.ConnRequestNum() }
func (c Ctx) Time() time.Time        { return c.c.Time() }
func (c Ctx) Header() Header         { return Header{&c.c.Request.Header} }

// BodyStream is the body as it arrives, nil when the engine read it
// whole with the head (Body).
func (c Ctx) BodyStream() io.Reader { return c.c.RequestBodyStream() }
func (c Ctx) Body() []byte          { return c.c.Request.Body() }

// NoResponse ends the request without writing anything.
func (c Ctx) NoResponse() {
	c.c.HijackSetNoResponse(true)
	c.c.Hijack(func(net.Conn) {})
}

// Hijack hands the connection to run once the response header is out
// (a 101); the engine closes it when run returns.
func (c Ctx) Hijack(run func(net.Conn)) { c.c.Hijack(run) }

func (c Ctx) SetStatus(code int)       { c.c.Response.SetStatusCode(code) }
func (c Ctx) SetReason(reason []byte)  { c.c.Response.Header.SetStatusMessage(reason) }
func (c Ctx) SetContentType(v string)  { c.c.Response.Header.SetContentType(v) }
func (c Ctx) SetContentLength(n int)   { c.c.Response.Header.SetContentLength(n) }
func (c Ctx) AddHeader(name, v string) { c.c.Response.Header.Add(name, v) }

// KeepHeaderNames sends names as given ("X-URI", "ETag"), not as the
// engine would normalize them ("X-Uri", "Etag").
func (c Ctx) KeepHeaderNames() { c.c.Response.Header.DisableNormalizing() }

// SetConnectionClose closes the connection after the response.
func (c Ctx) SetConnectionClose() { c.c.SetConnectionClose() }

// maxUnreadBody is what the engine reads past of a body the handler left
// unread before it closes the connection instead (fasthttp's
// maxUnreadStreamBodySize).
const maxUnreadBody = 256 << 10

// SayKeepAlive adds "Connection: keep-alive" to an HTTP/1.1 response
// when the engine will keep the connection, as nginx sends it on every
// such response. maxRequests is the engine's MaxRequestsPerConn;
// bodyRead says the request's body, if any, was read to its end. The
// engine decides some closes only after the response is written (a body
// left unread past maxUnreadBody, a chunked one it cannot skip): a
// request with such a body gets no header, so that a response never says
// both keep-alive and close.
func (c Ctx) SayKeepAlive(maxRequests int, bodyRead bool) {
	req := &c.c.Request.Header
	if !req.IsHTTP11() || c.c.Response.ConnectionClose() || req.ConnectionClose() {
		return
	}
	if maxRequests > 0 && c.c.ConnRequestNum() >= uint64(maxRequests) {
		return
	}
	if n := req.ContentLength(); !bodyRead && (n == -1 || n > maxUnreadBody) {
		return
	}
	c.c.Response.Header.Add("Connection", "keep-alive")
}

// WillClose reports that the engine closes the connection after this
// response: the request or the response says close (an HTTP/1.0 request
// without keep-alive does), or it is the connection's maxRequests-th
// (MaxRequestsPerConn). A close the engine decides only while it writes
// the response (an unread body it cannot skip) is not foreseen.
func (c Ctx) WillClose(maxRequests int) bool {
	return c.c.Request.Header.ConnectionClose() || c.c.Response.ConnectionClose() ||
		maxRequests > 0 && c.c.ConnRequestNum() >= uint64(maxRequests)
}

// SetBody sends a copy of b; SetBodyRaw sends b itself, which must stay
// unchanged until the response is written.
func (c Ctx) SetBody(b []byte)    { c.c.Response.SetBody(b) }
func (c Ctx) SetBodyRaw(b []byte) { c.c.Response.SetBodyRaw(b) }

// SkipBody sends the headers only (HEAD, 204, 304).
func (c Ctx) SkipBody() { c.c.Response.SkipBody = true }

// SetBodyStream sends size bytes read from r (by sendfile when r is a
// file and the connection allows it), closing r after.
func (c Ctx) SetBodyStream(r io.Reader, size int) { c.c.Response.SetBodyStream(r, size) }

// SetBodySection sends size bytes read from r after the headers have
// gone out on their own, so that the connection's ReadFrom gets r with
// nothing buffered before it (a mirrorSection, sent by sendfile).
func (c Ctx) SetBodySection(r io.Reader, size int) {
	c.c.Response.ImmediateHeaderFlush = true
	c.c.Response.SetBodyStream(r, size)
}

// StreamBody sends the headers at once and then what write writes,
// chunked; write runs after the handler returns, in a goroutine of its
// own. The engine resets the request (whose views write's log phase
// reads) once it closes the stream, which it does on a failed write as
// well as at the end; the close waits for write to return, so a client
// gone mid-stream cannot pull the request from under it.
//
// A write that returns an error ends the body there, without its last
// chunk, and the connection closes: the client can tell the response
// was cut, as nginx's does when its upstream fails mid-body.
func (c Ctx) StreamBody(write func(w *bufio.Writer) error) {
	c.c.Response.ImmediateHeaderFlush = true
	s := &awaitedStream{done: make(chan struct{})}
	s.ReadCloser = fasthttp.NewStreamReader(func(w *bufio.Writer) {
		defer close(s.done)
		if err := write(w); err != nil {
			s.failed.Store(&err)
		}
	})
	c.c.Response.SetBodyStream(s, -1)
}

// awaitedStream is a stream whose Close returns when its writer has, and
// whose end is its writer's error, if any.
type awaitedStream struct {
	io.ReadCloser
	done   chan struct{}
	failed atomic.Pointer[error]
}

func (s *awaitedStream) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if err == io.EOF {
		if failed := s.failed.Load(); failed != nil {
			return n, *failed
		}
	}
	return n, err
}

func (s *awaitedStream) Close() error {
	err := s.ReadCloser.Close() // the writer's next write fails
	<-s.done
	return err
}
