// This file turns a raw response into a comparable outcome and compares
// nginx's with edge's. Normalizing removes only what cannot match by
// design: the server's name in built-in pages and in Server, the port
// each server listens on, multipart boundaries, gzip's compressed bytes
// (bodies are compared decompressed) and the second a date was computed
// in. Everything else a
// client can see in the status, the body and the compared headers must
// be equal, or be a difference listed in docs/nginx-differences.md and
// encoded by the case that meets it.

package difftest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"edge/testenv"
)

// outcome is one server's answer to one request, normalized.
type outcome struct {
	closed  bool   // the server closed the connection without a response
	err     string // why there is no response
	status  int
	reason  string // the status line's text
	proto   string
	header  http.Header // compared headers only, values normalized
	chunked bool
	body    []byte // decompressed and normalized
	// bodyDelta is how many bytes normalizing removed from the body: a
	// Content-Length is compared after subtracting it.
	bodyDelta int
	// rawLen is the length of the body as received (compressed or not).
	rawLen int
	head   bool // the answer to a HEAD request: no body came
}

// ignoredHeaders are never compared: Date is the clock.
var ignoredHeaders = map[string]bool{"Date": true}

// serverNameRE is a Server header that names the server itself
// ("nginx/1.22.1", "edge/0.1.0", or the bare name with server_tokens
// off): edge names itself on purpose, as in its built-in pages, so that
// value is compared as "SERVER". Any other value (more_set_headers
// 'Server: ...') and its absence (more_clear_headers Server) are compared
// as they are.
var serverNameRE = regexp.MustCompile(`^(nginx|edge)(/[0-9][0-9.]*)?$`)

// signatureRE is the last line of a built-in page: "<hr><center>nginx/1.22.1</center>"
// from nginx, "<hr><center>edge/0.1.0</center>" from edge ("nginx" and
// "edge" alone with server_tokens off).
var signatureRE = regexp.MustCompile(`<hr><center>(nginx|edge)(/[0-9][0-9.]*)?</center>`)

// boundaryRE finds a multipart boundary in a Content-Type.
var boundaryRE = regexp.MustCompile(`boundary=([0-9A-Za-z'()+_,./:=?-]+)`)

// newOutcome normalizes a response from the server listening on port. A
// nil resp means the connection closed (or failed) without one.
func newOutcome(resp *testenv.RawResponse, err error, port int) *outcome {
	if err != nil {
		return &outcome{closed: true, err: err.Error()}
	}
	o := &outcome{status: resp.Status, reason: resp.Reason, proto: resp.Proto, header: http.Header{}, rawLen: len(resp.Body)}
	o.chunked = slices.Contains(resp.TransferEncoding, "chunked")
	portText := ":" + strconv.Itoa(port)
	for name, vals := range resp.Header {
		if ignoredHeaders[name] {
			continue
		}
		for _, v := range vals {
			if name == "Server" && serverNameRE.MatchString(v) {
				v = "SERVER"
			}
			o.header.Add(name, strings.ReplaceAll(v, portText, ":PORT"))
		}
	}
	// Trailer fields are compared as headers of their own name.
	for name, vals := range resp.Trailer {
		for _, v := range vals {
			o.header.Add("Trailer-Field-"+name, v)
		}
	}
	body := resp.Body
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") && len(body) > 0 {
		zr, zerr := gzip.NewReader(bytes.NewReader(body))
		if zerr == nil {
			body, zerr = io.ReadAll(zr)
		}
		if zerr != nil {
			body = []byte(fmt.Sprintf("[undecodable gzip body: %v]", zerr))
		}
	}
	norm := signatureRE.ReplaceAll(body, []byte("<hr><center>SERVER</center>"))
	norm = bytes.ReplaceAll(norm, []byte(portText), []byte(":PORT"))
	if m := boundaryRE.FindStringSubmatch(o.header.Get("Content-Type")); m != nil {
		norm = bytes.ReplaceAll(norm, []byte(m[1]), []byte("BOUNDARY"))
		o.header.Set("Content-Type", strings.Replace(o.header.Get("Content-Type"), m[1], "BOUNDARY", 1))
	}
	o.bodyDelta = len(body) - len(norm)
	o.body = norm
	return o
}

// summary is a one-line description for messages.
func (o *outcome) summary() string {
	if o.closed {
		return "no response (" + o.err + ")"
	}
	return fmt.Sprintf("%s %d, %d body bytes", o.proto, o.status, len(o.body))
}

// gzipped reports whether the body came compressed.
func (o *outcome) gzipped() bool {
	return strings.EqualFold(o.header.Get("Content-Encoding"), "gzip")
}

// diffOutcomes lists every compared difference between nginx's outcome and
// edge's; nil means identical.
func diffOutcomes(ng, ed *outcome) []string {
	if ng.closed || ed.closed {
		if ng.closed && ed.closed {
			return nil
		}
		return []string{fmt.Sprintf("nginx: %s\n  edge:  %s", ng.summary(), ed.summary())}
	}
	var out []string
	if ng.status != ed.status {
		out = append(out, fmt.Sprintf("status: nginx %d, edge %d", ng.status, ed.status))
	} else if ng.reason != ed.reason && ng.reason != "" {
		// nginx sends no text for a status it has none for ("418 "); the
		// engine always sends one (docs/nginx-differences.md, "Statuses
		// nginx has no text for").
		out = append(out, fmt.Sprintf("status line: nginx %d %q, edge %d %q", ng.status, ng.reason, ed.status, ed.reason))
	}
	if ng.proto != ed.proto {
		out = append(out, fmt.Sprintf("protocol: nginx %s, edge %s", ng.proto, ed.proto))
	}
	out = append(out, diffHeaders(ng, ed)...)
	if !bytes.Equal(ng.body, ed.body) {
		out = append(out, diffBodies(ng.body, ed.body))
	}
	return out
}

// diffHeaders compares every header either side sent, except the ignored
// ones, with the rules of headerEqual.
func diffHeaders(ng, ed *outcome) []string {
	names := map[string]bool{}
	for n := range ng.header {
		names[n] = true
	}
	for n := range ed.header {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	slices.Sort(sorted)
	var out []string
	for _, name := range sorted {
		nv, ev := ng.header.Values(name), ed.header.Values(name)
		if name == "Content-Length" {
			if msg := diffContentLength(ng, ed); msg != "" {
				out = append(out, msg)
			}
			continue
		}
		if !headerEqual(name, nv, ev) {
			out = append(out, fmt.Sprintf("header %s: nginx %s, edge %s", name, quoteValues(nv), quoteValues(ev)))
		}
	}
	return out
}

func quoteValues(v []string) string {
	if len(v) == 0 {
		return "(absent)"
	}
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// headerEqual compares one header's values. Dates computed from the
// clock (Expires) may differ by the seconds between the two requests, and
// so may a max-age computed from them.
func headerEqual(name string, nv, ev []string) bool {
	if len(nv) != len(ev) {
		return false
	}
	for i := range nv {
		if nv[i] == ev[i] {
			continue
		}
		switch name {
		case "Expires":
			if !datesClose(nv[i], ev[i]) {
				return false
			}
		case "Cache-Control":
			if !maxAgeClose(nv[i], ev[i]) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// clockSlack is how far apart two clock-derived values may be: the two
// requests of a case run one after the other, within a second or two.
const clockSlack = 2 * time.Second

func datesClose(a, b string) bool {
	ta, errA := http.ParseTime(a)
	tb, errB := http.ParseTime(b)
	if errA != nil || errB != nil {
		return false
	}
	d := ta.Sub(tb)
	return d <= clockSlack && d >= -clockSlack
}

var maxAgeRE = regexp.MustCompile(`max-age=(-?[0-9]+)`)

func maxAgeClose(a, b string) bool {
	ma, mb := maxAgeRE.FindStringSubmatchIndex(a), maxAgeRE.FindStringSubmatchIndex(b)
	if ma == nil || mb == nil || a[:ma[0]] != b[:mb[0]] || a[ma[1]:] != b[mb[1]:] {
		return false
	}
	na, _ := strconv.Atoi(a[ma[2]:ma[3]])
	nb, _ := strconv.Atoi(b[mb[2]:mb[3]])
	d := na - nb
	return d <= int(clockSlack/time.Second) && d >= -int(clockSlack/time.Second)
}

// diffContentLength compares Content-Length after taking out what
// normalizing removed from each body. One framing difference is allowed
// and checked (docs/nginx-differences.md, "Complete bodies carry a
// Content-Length"): where nginx streams a body chunked without a length
// (gzip output, FastCGI responses), edge may send the complete body with
// a Content-Length, which must then be the length of what it sent.
// Compressed lengths are never compared: two gzip implementations make
// different bytes, so bodies are compared decompressed.
func diffContentLength(ng, ed *outcome) string {
	ncl, nok := contentLength(ng)
	ecl, eok := contentLength(ed)
	if !nok && eok && framedByLength(ng, ed) {
		if ecl != ed.rawLen && !ed.head {
			return fmt.Sprintf("Content-Length: edge sent %d for a %d-byte body", ecl, ed.rawLen)
		}
		return ""
	}
	if ng.gzipped() && ed.gzipped() && nok == eok {
		return ""
	}
	if nok != eok || ncl-ng.bodyDelta != ecl-ed.bodyDelta {
		return fmt.Sprintf("header Content-Length: nginx %s, edge %s (normalized %d vs %d)",
			quoteValues(ng.header.Values("Content-Length")), quoteValues(ed.header.Values("Content-Length")),
			ncl-ng.bodyDelta, ecl-ed.bodyDelta)
	}
	return ""
}

// framedByLength reports whether nginx delimited a body it had no length
// for (chunked, or by closing the connection for HTTP/1.0) where edge,
// holding the whole body, sent a Content-Length instead. 204 and 304 have
// no body to frame.
func framedByLength(ng, ed *outcome) bool {
	return !ed.chunked && ng.status != 204 && ng.status != 304
}

// framingOnly reports whether the framing rule of diffContentLength was
// needed for this pair.
func framingOnly(ng, ed *outcome) bool {
	_, nok := contentLength(ng)
	_, eok := contentLength(ed)
	return !ng.closed && !ed.closed && !nok && eok && framedByLength(ng, ed)
}

func contentLength(o *outcome) (int, bool) {
	v := o.header.Get("Content-Length")
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return -1, true
	}
	return n, true
}

// diffBodies describes where two bodies part.
func diffBodies(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-40)
	return fmt.Sprintf("body: %d vs %d bytes, first difference at byte %d:\n    nginx: %q\n    edge:  %q",
		len(a), len(b), i, excerpt(a, from), excerpt(b, from))
}

func excerpt(b []byte, from int) string {
	if from > len(b) {
		return ""
	}
	end := min(len(b), from+160)
	return string(b[from:end])
}
