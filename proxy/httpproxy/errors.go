// errors.go holds the one error type every failure of a proxied request
// comes back as, so that the caller can answer what nginx answers and
// decide on proxy_next_upstream without reading error text.

package httpproxy

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"
)

// Kind says what failed, in proxy_next_upstream's words.
type Kind int

const (
	// KindConnect: the dial (or the TLS handshake) failed. 502;
	// proxy_next_upstream "error". Nothing was sent.
	KindConnect Kind = iota + 1
	// KindTimeout: proxy_connect_timeout, proxy_send_timeout or
	// proxy_read_timeout passed. 504; proxy_next_upstream "timeout".
	KindTimeout
	// KindInvalidHeader: the status line or a header line is invalid,
	// or the header did not fit in BufferSize. 502; proxy_next_upstream
	// "invalid_header".
	KindInvalidHeader
	// KindClosed: the upstream closed or reset the connection, or a
	// write to it failed ("upstream prematurely closed connection").
	// 502; proxy_next_upstream "error".
	KindClosed
	// KindBody: the response body broke its framing (bad chunk, short
	// body) after the header was accepted. The client's response is cut
	// off; nothing can be retried.
	KindBody
	// KindClient: reading the client's request body failed (the
	// client's fault, not the upstream's): nginx answers 400 or, when
	// the client went away, nothing (499). Never a reason for the next
	// upstream.
	KindClient
	// KindCanceled: the request's context was canceled (the client
	// went away): 499, nothing to retry.
	KindCanceled
)

var kindNames = [...]string{"", "connect", "timeout", "invalid header", "closed", "body", "client body", "canceled"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Error is every error Do, a Response's body and Tunnel return.
type Error struct {
	Kind Kind
	// Op is what was being done, for the error log: "connect", "send
	// request", "read response header", "read response body", ...
	Op string
	// Addr is the upstream address.
	Addr string
	// Sent: some of the request reached the upstream (nginx's
	// u->request_sent), so a non-idempotent request must not go to the
	// next upstream unless proxy_next_upstream has non_idempotent.
	Sent bool
	// Connected: the connection was made (or taken from the idle ones)
	// before the failure, in ConnectTime ($upstream_connect_time; "-"
	// when not connected, as nginx's).
	Connected   bool
	ConnectTime time.Duration
	// Err is the cause.
	Err error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return "httpproxy: " + e.Op + " (" + e.Addr + "): " + e.Kind.String()
	}
	return "httpproxy: " + e.Op + " (" + e.Addr + "): " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Status is the status nginx answers for the failure: 504 for a
// timeout, 499 for a canceled request, 400 for a broken client body,
// 502 otherwise.
func (e *Error) Status() int {
	switch e.Kind {
	case KindTimeout:
		return http.StatusGatewayTimeout
	case KindCanceled:
		return 499
	case KindClient:
		return http.StatusBadRequest
	}
	return http.StatusBadGateway
}

// Retryable tells whether proxy_next_upstream may try the next server
// after err: the failure is one it names, and a non-idempotent request
// (POST, LOCK, PATCH) was not sent, unless nonIdempotent
// (proxy_next_upstream non_idempotent). The caller checks the rest of
// nginx's rule: the kinds its proxy_next_upstream lists, nothing of the
// response went to the client yet, and a streamed body
// (proxy_request_buffering off) that was sent cannot go again.
func Retryable(err error, method string, nonIdempotent bool) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Kind {
	case KindConnect, KindTimeout, KindInvalidHeader, KindClosed:
	default:
		return false
	}
	return !e.Sent || nonIdempotent || Idempotent(method)
}

// Idempotent is nginx's rule (ngx_http_upstream_next): every method but
// POST, LOCK and PATCH may be sent twice.
func Idempotent(method string) bool {
	return method != "POST" && method != "LOCK" && method != "PATCH"
}

// isTimeout tells a passed deadline from other I/O errors.
func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}
