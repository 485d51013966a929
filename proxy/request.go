// This file holds edge's engine-neutral view of a request and the response
// value the pipeline produces. The HTTP/1.x and HTTP/2 adapters (packages
// proxy/h1 and proxy/h2, each beside its engine) fill a Request from their
// engine's view and write a Response out; only they import an engine, and
// the pipeline imports neither (imports_test.go).
package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"edge/conf"
	"edge/internal/rawio"
	"edge/proxy/realip"
)

// HeaderSource reads request headers from an engine.
type HeaderSource interface {
	// Get returns the first value of a header (name in any case).
	Get(name string) string
	// AppendAll appends every header line to dst, in order. It takes a
	// slice rather than a callback so that a caller's state stays on its
	// stack: a closure called through the interface escapes.
	AppendAll(dst []HeaderKV) []HeaderKV
}

// HeaderKV is one request header line.
type HeaderKV struct{ Name, Value string }

// ConnInfo is what a request knows of its connection.
type ConnInfo struct {
	ID     uint64
	Start  time.Time
	Remote netip.AddrPort
	Local  netip.AddrPort
	TLS    *tls.ConnectionState
	Group  *conf.ListenGroup
	Port   string // the local port as text, for $server_port
	// RemoteText and LocalText are $remote_addr and $server_addr, made
	// once per connection rather than per request (RemoteAddr, LocalAddr).
	RemoteText, LocalText string
	// Idle is true while the connection waits for its next request, so a
	// graceful stop may close it.
	Idle atomic.Bool
	// The flags sit together, beside Idle, so that ConnInfo fits 256
	// bytes (issue 20: it is most of what an idle connection keeps).
	// Unix: the connection came to a unix-domain socket.
	Unix bool
	// PlainHTTP: the client sent plain HTTP to a TLS port; each request
	// gets nginx's 497 (handle).
	PlainHTTP bool
	// Linger makes the HTTP/1 wrappers' Close drain what the client still
	// sends before closing (after an error response; proxy/h1's
	// lingeringClose).
	Linger bool
	// Conn is the accepted connection.
	Conn net.Conn
	// Raw reads and writes it (under TLS, the records): its write timeout
	// is send_timeout, and its read timeout client_body_timeout while a
	// body is read (proxy/h1's deadlineReader), each between two
	// successive operations as nginx's are.
	Raw *rawio.Conn
	// SendTimeout and BodyTimeout start as the default server's. Over
	// HTTP/1, useLocation replaces SendTimeout with the answering
	// location's and sets Keepalive, the wait for the next request, to
	// its keepalive_timeout; a body is read under its location's
	// client_body_timeout (Request.BodyTimeout).
	SendTimeout time.Duration
	BodyTimeout time.Duration
	Keepalive   time.Duration
	// Proxy is the PROXY protocol header a proxy_protocol listener read
	// (access.go), nil otherwise.
	Proxy *realip.Header
	// Finish ends the connection's accounting (proxy/listen's serveConn
	// sets it; an adapter that keeps a connection past it, parked, calls
	// it when the connection ends).
	Finish func()
	// Adapter is the engine adapter's own state of the connection
	// (proxy/h1's h1conn), which the pipeline does not look at: the
	// listener hands the ConnInfo back to the adapter (CloseParked).
	Adapter atomic.Value
}

// Request is one request going through the pipeline. The engine fields are
// valid until the engine's handler returns: anything kept longer (a
// FastCGI job, a log line written later) must copy what it keeps.
// context is the request's context: Background unless the engine gave one.
func (r *Request) context() context.Context {
	if r.Ctx == nil {
		return context.Background()
	}
	return r.Ctx
}

type Request struct {
	// from the engine
	Method        string
	RawTarget     string // the request-target as sent: $request_uri
	Proto         string // "HTTP/1.0", "HTTP/1.1", "HTTP/2.0"
	HostHeader    string // Host header or :authority, as sent
	HostEmpty     bool   // a Host header was sent with an empty value
	Header        HeaderSource
	Body          io.Reader // nil when there is no body
	ContentLength int64     // -1 when unknown (chunked, HTTP/2 without a length)
	RequestLength int64     // bytes of the request line and headers (and body, once read)
	Conn          *ConnInfo
	ConnRequests  int // requests on this connection so far, this one included
	Start         time.Time
	// Ctx is the HTTP/2 stream's context, which a reset cancels, so that
	// upstream work stops with its stream; nil on HTTP/1.
	Ctx context.Context

	// acc is the access modules' state (access.go, limits.go).
	acc accessState

	// pipeline state
	rt         *Site
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
	resp      *Response
	scratch   []byte
	headers   []HeaderKV // for Header.appendAll; kept across requests
	params    []HeaderKV // the CGI params (cgiParams); kept across requests
	fileCache *fileEntry
	requestID string
	bodySent  int64
	// ended: the log phase has begun (Site.Done).
	ended       bool
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
	mh      moreHeaders // the headers once headers-more changed them (headersmore.go)

	// parent is the request a subrequest serves, nil for a main request
	// (subrequest.go).
	parent *Request
	// ssi is the SSI filter's state of this request's response, nil
	// when it is not processed (ssi.go); ssiVars, on a main request, the
	// SSI variables, blocks and captures its subrequests share.
	ssi     *ssiCtx
	ssiVars *ssiShared
	// stub: an SSI include with stub= waits for this subrequest, and an
	// error status ends it without a body (nginx's post-subrequest
	// handler takes the status); stubbed says that happened.
	stub, stubbed bool
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
	// Mirror, when set, is a file that holds Bytes (or the bytes they
	// were cut from): an adapter that can may send them from it
	// (mirror.go). A filter that makes Bytes anew may leave it.
	Mirror FileMirror
	File   *os.File
	// CloseFile tells the adapter to close File after sending it.
	CloseFile bool
	Offset    int64
	// Length is the body length; -1 when unknown (streams only).
	Length int64
	// Unsized: the body, though its length is known, goes out as nginx
	// sends a body its gzip or brotli filter made, which it compresses as
	// it sends: without a Content-Length, chunked over HTTP/1.1 (HTTP/1.0
	// keeps the length, and the connection).
	Unsized bool
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

// Release returns a pooled body buffer; Bytes must not be used after.
func (resp *Response) Release() {
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

// headerBytes is the bytes of the status line and header an HTTP/1
// response goes out with, for $bytes_sent (nginx's count of what the
// connection sent): the response's fields, and those the HTTP/1 engine
// adds as it writes (Date, the framing, Connection). The reason is
// counted as net/http words it where the response has none of its own;
// nginx's and fasthttp's are the same for the statuses edge sends. Over
// HTTP/2 the fields are counted as text, which HPACK sends shorter.
func (r *Request) headerBytes() int64 {
	resp := r.resp
	reason := resp.Reason
	if reason == "" || resp.ReasonFor != resp.Status {
		reason = http.StatusText(resp.Status)
	}
	n := int64(len("HTTP/1.1 200 \r\n\r\n") + len(reason))
	sized := false
	for _, f := range resp.Header.list {
		n += int64(len(f.name) + len(f.value) + 4)
		sized = sized || strings.EqualFold(f.name, "Content-Length") || strings.EqualFold(f.name, "Transfer-Encoding")
	}
	if r.Proto == "HTTP/2.0" {
		return n
	}
	n += int64(len("Date: Mon, 02 Jan 2006 15:04:05 GMT\r\n"))
	switch {
	case sized || resp.Status == 304 || resp.Status == 204 || resp.Upgrade != nil:
	case resp.Length >= 0:
		n += int64(len("Content-Length: \r\n") + digits(resp.Length))
	case r.Proto == "HTTP/1.1":
		n += int64(len("Transfer-Encoding: chunked\r\n"))
	}
	if resp.Upgrade == nil {
		n += int64(len("Connection: \r\n") + len(r.connectionField()))
	}
	return n
}

// connectionField is the Connection field of the response, as nginx's
// $sent_http_connection has it: "upgrade" for a 101, else "keep-alive"
// when the connection is to serve another request, else "close".
func (r *Request) connectionField() string {
	switch {
	case r.resp.Status == 101:
		return "upgrade"
	case r.resp.Close:
		return "close"
	case r.Proto == "HTTP/2.0":
		return "keep-alive"
	}
	asked := ""
	if r.Header != nil {
		asked = r.Header.Get("Connection")
	}
	// nginx looks for the words anywhere in the field, in any case
	// (ngx_http_process_connection's ngx_strcasestrn).
	if r.Proto == "HTTP/1.1" && indexFold(asked, "close") < 0 || r.Proto == "HTTP/1.0" && indexFold(asked, "keep-alive") >= 0 {
		return "keep-alive"
	}
	return "close"
}

// digits is the length of n written in decimal.
func digits(n int64) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// RemoteAddr is the client's address as text ($remote_addr).
func (c *ConnInfo) RemoteAddr() string {
	if c.RemoteText == "" { // a ConnInfo made without a listener (tests)
		return c.Remote.Addr().Unmap().String()
	}
	return c.RemoteText
}

// LocalAddr is the address the connection came in on ($server_addr).
func (c *ConnInfo) LocalAddr() string {
	if c.LocalText == "" {
		return c.Local.Addr().Unmap().String()
	}
	return c.LocalText
}

// useLocation applies the timeouts of the location that answered an
// HTTP/1 request to its connection: send_timeout for the rest of the
// response, keepalive_timeout for the wait that follows. (HTTP/2 streams
// share their connection and keep the default server's.)
func (info *ConnInfo) useLocation(l *conf.Location) {
	info.Keepalive = l.KeepaliveTimeout
	if info.SendTimeout == l.SendTimeout {
		return
	}
	info.SendTimeout = l.SendTimeout
	if info.Raw != nil {
		info.Raw.SetWriteTimeout(l.SendTimeout)
	}
}

// UseRaw makes raw the connection's reader and writer, which bounds its
// writes by send_timeout.
func (info *ConnInfo) UseRaw(raw *rawio.Conn) {
	info.Raw = raw
	raw.SetWriteTimeout(info.SendTimeout)
}

// b2s views bytes as a string without copying; valid while the bytes are.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// CountWriter counts body bytes for $body_bytes_sent.
type CountWriter struct {
	W io.Writer
	N int64
}

func (c *CountWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}

// BodyTimeout is client_body_timeout: that of the location reading the
// body (nginx's), or the default server's before one is chosen.
func (r *Request) BodyTimeout() time.Duration {
	if r.loc != nil {
		return r.loc.ClientBodyTimeout
	}
	return r.Conn.BodyTimeout
}

// arrivalOrder is a header view whose appendAll does not list the lines
// in the order they came (fasthttp lists Cookie apart from the rest).
type arrivalOrder interface {
	AppendArrived(dst []HeaderKV) []HeaderKV
}

// appendArrived appends h's header lines to dst in the order they came,
// as nginx keeps them.
func appendArrived(h HeaderSource, dst []HeaderKV) []HeaderKV {
	if a, ok := h.(arrivalOrder); ok {
		return a.AppendArrived(dst)
	}
	return h.AppendAll(dst)
}
