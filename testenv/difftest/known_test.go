// This file encodes the differences from nginx listed in
// docs/nginx-differences.md: each function below is one documented
// difference, turning nginx's answer into the one edge must give (and
// checking first that nginx still answers as the doc says). Cases attach
// them with reqCase.with.

package difftest

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// comparisonRules are the doc sections for what the comparison itself
// allows on every request (compare_test.go).
var comparisonRules = []string{
	"edge names itself",
	"Complete bodies carry a Content-Length",
	"Compressed bytes differ",
	"Statuses nginx has no text for",
}

// Sections of docs/nginx-differences.md.
const (
	docHTTP09       = "HTTP/0.9 requests get a 400"
	docHeaderLine   = "Header lines without a colon are refused"
	docHostChars    = "Host values with a backslash or an unclosed bracket are refused"
	docCookieJoined = "Repeated Cookie lines reach PHP joined"
	docAccelType    = "Pending: X-Accel-Redirect drops the application's Content-Type"
	docNameBytes    = "Header names with bytes outside the token set are refused"
	docHeadControl  = "Control characters in a request head are refused"
	docCodingList   = "Some unknown Transfer-Encodings get a 400, not a 501"
)

// builtinPage turns o into one of the built-in pages both servers make
// (normalized: the signature line reads SERVER). The pages of nginx's
// 494-497 say "400 Bad Request" with the reason on a line of its own.
func builtinPage(o *outcome, status int, title string) {
	heading := "<center><h1>" + title + "</h1></center>\r\n"
	if reason, ok := strings.CutPrefix(title, "400 "); ok && reason != "Bad Request" {
		heading = "<center><h1>400 Bad Request</h1></center>\r\n<center>" + reason + "</center>\r\n"
	}
	body := "<html>\r\n<head><title>" + title + "</title></head>\r\n<body>\r\n" + heading +
		"<hr><center>SERVER</center>\r\n</body>\r\n</html>\r\n"
	reason := strings.TrimPrefix(title, strconv.Itoa(status)+" ")
	if status == 400 {
		reason = "Bad Request" // the status line of 494-497's pages too
	}
	*o = outcome{status: status, reason: reason, proto: "HTTP/1.1", body: []byte(body), rawLen: len(body), head: o.head,
		header: http.Header{"Server": {"SERVER"}, "Content-Type": {"text/html"}, "Content-Length": {strconv.Itoa(len(body))}}}
}

func wantStatus(o *outcome, status int) error {
	if o.closed || o.status != status {
		return fmt.Errorf("expected nginx to answer %d, got %s", status, o.summary())
	}
	return nil
}

// replaceBody swaps one text in the body for another, keeping a
// Content-Length in step.
func replaceBody(o *outcome, old, new string) error {
	if !bytes.Contains(o.body, []byte(old)) {
		return fmt.Errorf("expected nginx's body to hold %q", old)
	}
	o.body = bytes.Replace(o.body, []byte(old), []byte(new), 1)
	if cl, ok := contentLength(o); ok {
		o.header.Set("Content-Length", strconv.Itoa(cl+len(new)-len(old)))
	}
	return nil
}

// http09Refused: nginx answers an HTTP/0.9 request with the bare file (no
// status line, which the client here cannot parse); edge sends a 400.
var http09Refused = &known{doc: docHTTP09, expect: func(o *outcome) error {
	if !o.closed || !strings.Contains(o.err, "malformed HTTP") {
		return fmt.Errorf("expected a response without a status line, got %s", o.summary())
	}
	builtinPage(o, 400, "400 Bad Request")
	return nil
}}

// codingList400: nginx answers 501 to a Transfer-Encoding other than
// chunked; edge's engine refuses one without a Content-Length (a list,
// an empty value) with 400 before edge sees the head.
var codingList400 = &known{doc: docCodingList, expect: func(o *outcome) error {
	if err := wantStatus(o, 501); err != nil {
		return err
	}
	builtinPage(o, 400, "400 Bad Request")
	return nil
}}

// refused400 is edge's stricter HTTP/1.x parser answering 400 where nginx
// served the request.
func refused400(doc string) *known {
	return &known{doc: doc, expect: func(o *outcome) error {
		if err := wantStatus(o, 200); err != nil {
			return err
		}
		builtinPage(o, 400, "400 Bad Request")
		return nil
	}}
}

// closesAfter: edge answers as nginx does but closes the connection
// after, where nginx keeps it.
func closesAfter(doc string) *known {
	return &known{doc: doc, expect: func(o *outcome) error {
		if got := o.header.Get("Connection"); got != "keep-alive" {
			return fmt.Errorf("expected nginx to keep the connection (Connection: keep-alive), got %q", got)
		}
		o.header.Del("Connection")
		return nil
	}}
}

var cookieJoined = &known{doc: docCookieJoined, expect: func(o *outcome) error {
	return replaceBody(o, "HTTP_COOKIE=b=2\n", "HTTP_COOKIE=a=1; b=2\n")
}}

// accelType: edge types the file by its extension instead of keeping the
// application's Content-Type.
func accelType(from, to string) *known {
	return &known{doc: docAccelType, expect: func(o *outcome) error {
		if got := o.header.Get("Content-Type"); got != from {
			return fmt.Errorf("expected Content-Type %q, got %q", from, got)
		}
		o.header.Set("Content-Type", to)
		return nil
	}}
}
