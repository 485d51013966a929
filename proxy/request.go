// This file holds edge's engine-neutral view of a request and the response
// value the pipeline produces. The HTTP/1.x and HTTP/2 adapters (http1.go
// over package h1, http2.go over package h2) fill a Request from their
// engine's view and write a Response out; only h1 and h2 import an engine
// (imports_test.go).
package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"edge/conf"
	"edge/internal/rawio"
	"edge/proxy/h1"
	"edge/proxy/realip"
)

// headerSource reads request headers from an engine.
type headerSource interface {
	// get returns the first value of a header (name in any case).
	get(name string) string
	// appendAll appends every header line to dst, in order. It takes a
	// slice rather than a callback so that a caller's state stays on its
	// stack: a closure called through the interface escapes.
	appendAll(dst []headerKV) []headerKV
}

// headerKV is one request header line.
type headerKV struct{ name, value string }

// connInfo is what a request knows of its connection.
type connInfo struct {
	id     uint64
	start  time.Time
	remote netip.AddrPort
	local  netip.AddrPort
	unix   bool
	tls    *tls.ConnectionState
	group  *conf.ListenGroup
	port   string // the local port as text, for $server_port
	// remoteText and localText are $remote_addr and $server_addr, made
	// once per connection rather than per request (remoteAddr, localAddr).
	remoteText, localText string
	// idle is true while the connection waits for its next request, so a
	// graceful stop may close it.
	idle atomic.Bool
	// conn is the accepted connection.
	conn net.Conn
	// raw reads and writes it (under TLS, the records): its write timeout
	// is send_timeout, and its read timeout client_body_timeout while a
	// body is read (deadlineReader), each between two successive
	// operations as nginx's are.
	raw *rawio.Conn
	// sendTimeout and bodyTimeout start as the default server's. Over
	// HTTP/1, useLocation replaces sendTimeout with the answering
	// location's and sets keepalive, the wait for the next request, to
	// its keepalive_timeout; a body is read under its location's
	// client_body_timeout (Request.bodyTimeout).
	sendTimeout time.Duration
	bodyTimeout time.Duration
	keepalive   time.Duration
	// bodyPreRead is set while the engine reads the start of a body
	// before the handler runs (connInfo.received).
	bodyPreRead bool
	// waitTimedOut: the connection sent nothing before client_header_timeout.
	waitTimedOut bool
	// plainHTTP: the client sent plain HTTP to a TLS port; each request
	// gets nginx's 497 (handle).
	plainHTTP bool
	// head counts the bytes the client sent and watches HTTP/1 request
	// heads as they arrive (the wrappers' Read).
	head headWatch
	// linger makes the HTTP/1 wrappers' Close drain what the client still
	// sends before closing (after an error response; lingeringClose).
	linger bool
	// more says that the next write is the first of a response that more
	// writes follow: it goes out with MSG_MORE (tcpEdgeConn.Write).
	more moreWrites
	// lastRequest names the connection's latest HTTP/1 request as an error
	// log line does (appendRequestContext): fasthttp writes a response
	// after the handler has returned, and a send_timeout that cuts it is
	// logged naming the request, as nginx's line does.
	lastRequest []byte
	// proxy is the PROXY protocol header a proxy_protocol listener read
	// (access.go), nil otherwise.
	proxy *realip.Header
	// finish ends the connection's accounting (Server.serveConn).
	finish func()
	// What parking needs (park_linux.go, tcpEdgeConn.Read): the deadline
	// of the engine's wait for the next request, and parkWait when the
	// socket's is parkAfter instead; parking, set when that wait ends to
	// park; resumed, set when a parked connection is served again; the
	// parker's token (under its lock) and whether the descriptor is in
	// its epoll set; the engine serving the connection; and the requests
	// served before the engine's count restarted.
	idleDeadline time.Time
	parkWait     bool
	parking      bool
	resumed      bool
	parkToken    uint64
	epollAdded   bool
	h1           *h1.Server
	requestsBase int
	lastRequests int
}

type moreWrites uint8

const (
	moreNone       moreWrites = iota
	moreFullBuffer            // when it fills the write buffer (BodyBytes)
	moreFirst                 // whatever it is: the headers, before sendfile
)

// Request is one request going through the pipeline. The engine fields are
// valid until the engine's handler returns: anything kept longer (a
// FastCGI job, a log line written later) must copy what it keeps.
// context is the request's context: Background unless the engine gave one.
func (r *Request) context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

type Request struct {
	// from the engine
	Method        string
	RawTarget     string // the request-target as sent: $request_uri
	Proto         string // "HTTP/1.0", "HTTP/1.1", "HTTP/2.0"
	HostHeader    string // Host header or :authority, as sent
	hostEmpty     bool   // a Host header was sent with an empty value
	Header        headerSource
	Body          io.Reader // nil when there is no body
	ContentLength int64     // -1 when unknown (chunked, HTTP/2 without a length)
	RequestLength int64     // bytes of the request line and headers (and body, once read)
	conn          *connInfo
	connRequests  int // requests on this connection so far, this one included
	start         time.Time
	// ctx is the HTTP/2 stream's context, which a reset cancels, so that
	// upstream work stops with its stream; nil on HTTP/1.
	ctx context.Context

	// acc is the access modules' state (access.go, limits.go).
	acc accessState

	// pipeline state
	rt         *site
	srv        *conf.Server
	loc        *conf.Location
	host       string // $host: validated, lowercased, no port
	uri        string // $uri
	args       string // $args
	exten      string
	internal   bool
	uriChanges int
	errorPage  bool // an error page is being served
	errStatus  int  // the status an error_page keeps
	// addURIToAlias is nginx's r->add_uri_to_alias: try_files found a
	// file under a regex location's alias, so the path is the alias and
	// the URI from then on.
	addURIToAlias bool

	// captures of the last successful regex match
	capSubject string
	caps       []int
	slots      []slotValue

	// response (for $status, $sent_http_*, $body_bytes_sent)
	resp        *Response
	scratch     []byte
	headers     []headerKV // for Header.appendAll; kept across requests
	params      []headerKV // the CGI params (cgiParams); kept across requests
	fileCache   *fileEntry
	requestID   string
	bodySent    int64
	gzipRatio   string
	brotliRatio string
	// gzipVary asks for "Vary: Accept-Encoding" where gzip_vary is on
	// (nginx's r->gzip_vary, set by gzip, brotli and brotli_static).
	gzipVary   bool
	up         upstreamState
	px         proxyVars // $proxy_host, $proxy_port; locChanged: rewrite ... break changed $uri
	locChanged bool
	cache      requestCache // fastcgi_cache (fastcgi_cache.go)
	bodyLength int64        // the request body's length once read (-1 unknown)
	// bodyMem is $request_body: the body when it was read into memory,
	// whole (bufferBody) or as it was passed on (bodyTee).
	bodyMem []byte
	fh      fastHeaders
	mh      moreHeaders // the headers once headers-more changed them (headersmore.go)
	dr      deadlineReader
	h2b     h2Body
	hh      h2Headers
}

// slotValue is a per-request variable (set, map, named capture).
type slotValue struct {
	val   string
	valid bool
}

// BodyKind says how a Response's body is held.
type BodyKind int

const (
	BodyNone   BodyKind = iota
	BodyBytes           // Bytes holds the whole body
	BodyFile            // File, from Offset, Length bytes (sendfile where possible)
	BodyStream          // Stream produces the body (chunked unless Length >= 0)
)

// Response is what the pipeline answers. Adapters write it out.
type Response struct {
	Status int
	// Reason, when ReasonFor is Status, is the text of the status line
	// the application gave ("Status: 404 Gone Fishing"), which nginx
	// passes on; otherwise the status line carries nginx's own text.
	Reason    string
	ReasonFor int
	Header    ResponseHeader
	Kind      BodyKind
	Bytes     []byte
	File      *os.File
	// CloseFile tells the adapter to close File after sending it.
	CloseFile bool
	Offset    int64
	// Length is the body length; -1 when unknown (streams only).
	Length int64
	// Stream writes the body; flush sends what was written so far. It runs
	// after the headers are out.
	Stream func(w io.Writer, flush func() error) error
	// HeadOnly: send the headers only (HEAD, 304, 204).
	HeadOnly bool
	// Close: close the connection after this response.
	Close bool
	// Upgrade, when set, runs on the client's connection once the header
	// (a 101) is out, which the HTTP/1 engine then hands over: a
	// proxy_pass tunnel (proxyupgrade.go).
	Upgrade func(c net.Conn) error
	// Drop: close the connection instead of answering (444, and 408 as
	// nginx terminates a timed-out request); Status is what the log shows.
	Drop bool
	// moreServer: headers-more set or cleared Server, which the header
	// filter then leaves as it is (headersmore.go).
	moreServer bool
	// pooled, when set, holds Bytes and goes back to respBuffers once the
	// adapter no longer needs them (release; the adapter copies them
	// first if it writes later).
	pooled *bytes.Buffer
}

// release returns a pooled body buffer; Bytes must not be used after.
func (resp *Response) release() {
	if resp.pooled != nil {
		respBuffers.Put(resp.pooled)
		resp.pooled = nil
	}
}

// ResponseHeader is an ordered list of response headers.
type ResponseHeader struct {
	list []headerField
}

type headerField struct {
	name, value string
}

// Set replaces every value of name with value.
func (h *ResponseHeader) Set(name, value string) {
	for i := range h.list {
		if strings.EqualFold(h.list[i].name, name) {
			h.list[i].value = value
			h.removeFrom(name, i+1)
			return
		}
	}
	h.list = append(h.list, headerField{name, value})
}

// Add appends a value.
func (h *ResponseHeader) Add(name, value string) {
	h.list = append(h.list, headerField{name, value})
}

// Get returns the first value of name.
func (h *ResponseHeader) Get(name string) string {
	for i := range h.list {
		if strings.EqualFold(h.list[i].name, name) {
			return h.list[i].value
		}
	}
	return ""
}

// Has reports whether name is present.
func (h *ResponseHeader) Has(name string) bool {
	for i := range h.list {
		if strings.EqualFold(h.list[i].name, name) {
			return true
		}
	}
	return false
}

// Del removes every value of name.
func (h *ResponseHeader) Del(name string) { h.removeFrom(name, 0) }

func (h *ResponseHeader) removeFrom(name string, start int) {
	out := h.list[:start]
	for _, f := range h.list[start:] {
		if !strings.EqualFold(f.name, name) {
			out = append(out, f)
		}
	}
	h.list = out
}

// Each calls fn for every header, in order.
func (h *ResponseHeader) Each(fn func(name, value string)) {
	for _, f := range h.list {
		fn(f.name, f.value)
	}
}

func (h *ResponseHeader) reset() { h.list = h.list[:0] }

// reset clears a Request for reuse from the pool.
func (r *Request) reset() {
	slots := r.slots[:0]
	caps := r.caps[:0]
	scratch := r.scratch[:0]
	clear(r.headers) // drop references to the last request's buffers
	headers := r.headers[:0]
	clear(r.params)
	params := r.params[:0]
	clear(r.up.header.list)
	upHeader := r.up.header.list[:0]
	clear(r.mh.list)
	more := r.mh.list[:0]
	*r = Request{slots: slots, caps: caps, scratch: scratch, headers: headers, params: params}
	r.up.header.list = upHeader
	r.mh.list = more
}

// headerBytes estimates the bytes of the status line and headers sent,
// for $bytes_sent.
func (r *Request) headerBytes() int64 {
	n := int64(len("HTTP/1.1 200 OK\r\n\r\n"))
	for _, f := range r.resp.Header.list {
		n += int64(len(f.name) + len(f.value) + 4)
	}
	return n
}

// remoteAddr is the client's address as text ($remote_addr).
func (c *connInfo) remoteAddr() string {
	if c.remoteText == "" { // a connInfo made without serveConn (tests)
		return c.remote.Addr().Unmap().String()
	}
	return c.remoteText
}

// localAddr is the address the connection came in on ($server_addr).
func (c *connInfo) localAddr() string {
	if c.localText == "" {
		return c.local.Addr().Unmap().String()
	}
	return c.localText
}
