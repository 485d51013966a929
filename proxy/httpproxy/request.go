// request.go builds the request nginx sends upstream
// (ngx_http_proxy_create_request): the request line, proxy_set_header's
// list followed by the defaults it does not override, the client's
// headers minus every name in either list, and the body with the framing
// nginx chooses.

package httpproxy

import (
	"io"
	"strconv"
	"strings"
)

// Header is one header line.
type Header struct{ Name, Value string }

// Request is what Do sends. The caller fills it per request; Do does
// not keep it past its return (a streamed body is read until then).
type Request struct {
	// Method is the request method ("GET", ...; proxy_method's value if
	// set).
	Method string
	// URI is the request target, as UpstreamURI makes it.
	URI string
	// HTTP11 sends HTTP/1.1 (proxy_http_version 1.1); the default is
	// nginx's HTTP/1.0.
	HTTP11 bool
	// ProxyHost is the default Host header's value, $proxy_host
	// (Target.ProxyHost).
	ProxyHost string
	// Set is proxy_set_header's list with its values evaluated, in the
	// order of the level that has one (nginx inherits the list whole).
	// Each name in it replaces the client's header of that name; an
	// empty value sends no header at all. The defaults (DefaultSet)
	// follow for the names Set does not have.
	Set []Header
	// Client is the client's request headers in the order they came.
	// Those named in Set or DefaultSet are left out.
	Client []Header
	// NoClientHeaders leaves Client out (proxy_pass_request_headers off).
	NoClientHeaders bool
	// Body is the request body; nil for none (or proxy_pass_request_body
	// off). BodyLength is its length, the client's Content-Length or the
	// size of a buffered body (proxy_request_buffering on), sent as
	// Content-Length; -1 when the length is not known, which streams the
	// body chunked over HTTP/1.1, and over HTTP/1.0 reads it whole first
	// (nginx buffers such a body whatever proxy_request_buffering says).
	// With Body nil, BodyLength 0 still sends "Content-Length: 0" (the
	// client sent one) and -1 sends none. Reading a body whole for
	// HTTP/1.0 is bounded only by what the caller allows
	// (client_max_body_size). A body that is an io.Seeker can be sent
	// again on a retry whatever its size; any other only when it fits in
	// the first write (16 KiB).
	Body       io.Reader
	BodyLength int64
	// Streamed says that Body arrives from the client as it is read
	// (proxy_request_buffering off), of which BodyReady bytes can be
	// read now without a wait: the head goes with those, as nginx's goes
	// with what it read of the body with the client's head, rather than
	// after the body's first 16 KiB.
	Streamed  bool
	BodyReady int64
	// NoRetry: proxy_next_upstream has no "error", so a request that
	// finds a kept-alive connection closed is not sent again on another.
	NoRetry bool
	// NonIdempotent: proxy_next_upstream non_idempotent, so such a
	// retry may resend POST, LOCK and PATCH too.
	NonIdempotent bool
}

// DefaultSet is nginx's built-in proxy_set_header list (1.22,
// ngx_http_proxy_headers), which follows the configured one: Host is
// $proxy_host, Content-Length and Transfer-Encoding carry the body's
// framing, and the rest, being empty, drop the client's hop-by-hop
// headers. The values of Host, Content-Length and Transfer-Encoding are
// filled in per request.
var DefaultSet = []Header{
	{"Host", "$proxy_host"},
	{"Connection", "close"},
	{"Content-Length", "$proxy_internal_body_length"},
	{"Transfer-Encoding", "$proxy_internal_chunked"},
	{"TE", ""},
	{"Keep-Alive", ""},
	{"Expect", ""},
	{"Upgrade", ""},
}

// inSet tells whether name is one of set's names.
func inSet(set []Header, name string) bool {
	for i := range set {
		if strings.EqualFold(set[i].Name, name) {
			return true
		}
	}
	return false
}

// appendHead appends the request line and header block for r, with
// bodyLen the length to announce (-1: none) and chunked set when the body
// goes chunked.
func appendHead(b []byte, r *Request, bodyLen int64, chunked bool) []byte {
	b = append(b, r.Method...)
	b = append(b, ' ')
	b = append(b, r.URI...)
	if r.HTTP11 {
		b = append(b, " HTTP/1.1\r\n"...)
	} else {
		b = append(b, " HTTP/1.0\r\n"...)
	}
	for i := range r.Set {
		if r.Set[i].Value != "" {
			b = appendHeader(b, r.Set[i].Name, r.Set[i].Value)
		}
	}
	for i := range DefaultSet {
		d := &DefaultSet[i]
		if inSet(r.Set, d.Name) {
			continue
		}
		switch i {
		case 0:
			b = appendHeader(b, d.Name, r.ProxyHost)
		case 1:
			b = appendHeader(b, d.Name, d.Value)
		case 2:
			if bodyLen >= 0 {
				b = append(b, "Content-Length: "...)
				b = strconv.AppendInt(b, bodyLen, 10)
				b = append(b, "\r\n"...)
			}
		case 3:
			if chunked {
				b = append(b, "Transfer-Encoding: chunked\r\n"...)
			}
		}
	}
	if !r.NoClientHeaders {
		for i := range r.Client {
			h := &r.Client[i]
			if inSet(r.Set, h.Name) || inSet(DefaultSet, h.Name) {
				continue
			}
			b = appendHeader(b, h.Name, h.Value)
		}
	}
	return append(b, "\r\n"...)
}

func appendHeader(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, ": "...)
	b = append(b, value...)
	return append(b, "\r\n"...)
}

// clientUpgrade is nginx's r->headers_in.upgrade: the client sent an
// Upgrade header, so a 101 from the upstream opens a tunnel.
func (r *Request) clientUpgrade() bool {
	for i := range r.Client {
		if strings.EqualFold(r.Client[i].Name, "Upgrade") {
			return true
		}
	}
	return false
}

// AddXForwardedFor is $proxy_add_x_forwarded_for: the client's
// X-Forwarded-For values (every such header, in order) joined by ", ",
// then the client's address; the address alone when there are none.
func AddXForwardedFor(client []Header, remoteAddr string) string {
	n := 0
	for i := range client {
		if strings.EqualFold(client[i].Name, "X-Forwarded-For") {
			n += len(client[i].Value) + 2
		}
	}
	if n == 0 {
		return remoteAddr
	}
	b := make([]byte, 0, n+len(remoteAddr))
	for i := range client {
		if strings.EqualFold(client[i].Name, "X-Forwarded-For") {
			b = append(b, client[i].Value...)
			b = append(b, ", "...)
		}
	}
	return string(append(b, remoteAddr...))
}
