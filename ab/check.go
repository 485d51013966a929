// This file checks, before anything is timed, that edge and nginx answer a
// scenario's request identically: same status (the one expected), same
// body bytes, and the same values of the headers that carry meaning
// (type, encoding, caching, validators, redirects). Headers that differ by
// nature (Server, Date, connection framing) are not compared, and Expires
// only for presence, since it moves with the clock.

package ab

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"golang.org/x/net/http2"
)

// target is one scenario endpoint on one server.
type target struct {
	Addr  string // "127.0.0.1:port"
	TLS   bool
	HTTP2 bool
	Host  string
	Path  string
	// Header holds extra request header lines ("Name: value").
	Header []string
}

// URL is the address the load generators request; Host travels in a
// header, so that the URL never needs name resolution.
func (t target) URL() string {
	scheme := "http"
	if t.TLS {
		scheme = "https"
	}
	return scheme + "://" + t.Addr + t.Path
}

// checkTimeout bounds one check request.
const checkTimeout = 15 * time.Second

// fetched is one response (or the error instead of it).
type fetched struct {
	Status int
	Proto  string
	Header http.Header
	Body   []byte
	Err    error
}

// fetch sends the GET a load generator would send: no compression asked
// for unless the scenario's header asks for it, HTTP/2 only when the
// scenario uses it. Body is as sent (compressed when it was).
func fetch(t target) fetched {
	tlsConf := &tls.Config{InsecureSkipVerify: true} // the harness's own self-signed certificates, or the user's
	var rt http.RoundTripper
	if t.HTTP2 {
		rt = &http2.Transport{TLSClientConfig: tlsConf, DisableCompression: true}
	} else {
		rt = &http.Transport{TLSClientConfig: tlsConf, DisableCompression: true, DisableKeepAlives: true,
			// An empty map turns HTTP/2 off.
			TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
			DialContext:  (&net.Dialer{Timeout: checkTimeout}).DialContext}
	}
	client := &http.Client{Transport: rt, Timeout: checkTimeout,
		// A redirect is the response being compared, not something to follow.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequest("GET", t.URL(), nil)
	if err != nil {
		return fetched{Err: err}
	}
	req.Host = t.Host
	for _, line := range t.Header {
		name, value, _ := strings.Cut(line, ":")
		req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	resp, err := client.Do(req)
	if err != nil {
		return fetched{Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return fetched{Status: resp.StatusCode, Proto: resp.Proto, Header: resp.Header, Body: body, Err: err}
}

// comparedHeaders must have the same values from both servers.
var comparedHeaders = []string{"Content-Type", "Content-Encoding", "Cache-Control", "Last-Modified",
	"ETag", "Location", "Vary", "Accept-Ranges", "X-Powered-By", cacheStatusHeader}

// cacheStatusHeader carries $upstream_cache_status in the built-in
// site's caching locations.
const cacheStatusHeader = "X-Cache"

// primeTries bounds the requests primeCache sends: the first fills the
// cache (MISS), the next should be a HIT; a few more allow for a lock or
// a slow store.
const primeTries = 5

// primeCache requests t until the answer comes from the cache (X-Cache:
// HIT) and returns the last answer; an error says what it was instead.
func primeCache(t target) (fetched, error) {
	var f fetched
	for range primeTries {
		if f = fetch(t); f.Err != nil {
			return f, f.Err
		}
		if f.Header.Get(cacheStatusHeader) == "HIT" {
			return f, nil
		}
	}
	return f, fmt.Errorf("status %d, %s %q after %d requests, want HIT", f.Status, cacheStatusHeader,
		f.Header.Get(cacheStatusHeader), primeTries)
}

// presenceHeaders must be present on both or on neither.
var presenceHeaders = []string{"Expires", "Set-Cookie"}

// compareResponses lists how edge's response differs from nginx's and
// from the status the scenario expects (0: any, as long as both agree);
// nil means identical.
func compareResponses(edge, nginx fetched, wantStatus int, wantHTTP2 bool) []string {
	var diffs []string
	for _, s := range []struct {
		name string
		f    fetched
	}{{"edge", edge}, {"nginx", nginx}} {
		switch {
		case s.f.Err != nil:
			diffs = append(diffs, fmt.Sprintf("%s: %v", s.name, s.f.Err))
		case wantStatus != 0 && s.f.Status != wantStatus:
			diffs = append(diffs, fmt.Sprintf("%s answered %d, want %d", s.name, s.f.Status, wantStatus))
		case wantHTTP2 && s.f.Proto != "HTTP/2.0":
			diffs = append(diffs, fmt.Sprintf("%s answered over %s, want HTTP/2.0", s.name, s.f.Proto))
		}
	}
	if edge.Err != nil || nginx.Err != nil {
		return diffs
	}
	if edge.Status != nginx.Status && len(diffs) == 0 {
		diffs = append(diffs, fmt.Sprintf("status: edge %d, nginx %d", edge.Status, nginx.Status))
	}
	for _, h := range comparedHeaders {
		if e, n := edge.Header.Values(h), nginx.Header.Values(h); fmt.Sprint(e) != fmt.Sprint(n) {
			diffs = append(diffs, fmt.Sprintf("%s: edge %q, nginx %q", h, e, n))
		}
	}
	for _, h := range presenceHeaders {
		if e, n := edge.Header.Get(h) != "", nginx.Header.Get(h) != ""; e != n {
			diffs = append(diffs, fmt.Sprintf("%s: present from edge %v, from nginx %v", h, e, n))
		}
	}
	// Compressed bodies are compared decoded: edge and nginx compress
	// with different libraries, and either is right.
	if e, n := decoded(edge), decoded(nginx); !bytes.Equal(e, n) {
		diffs = append(diffs, bodyDiff(e, n))
	}
	return diffs
}

// decoded is f's body with a gzip Content-Encoding undone (as sent when
// it cannot be, so the comparison still fails).
func decoded(f fetched) []byte {
	if !strings.EqualFold(f.Header.Get("Content-Encoding"), "gzip") {
		return f.Body
	}
	zr, err := gzip.NewReader(bytes.NewReader(f.Body))
	if err != nil {
		return f.Body
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return f.Body
	}
	return out
}

// bodyDiff describes two different bodies by length, hash and the first
// differing byte.
func bodyDiff(edge, nginx []byte) string {
	i := 0
	for i < len(edge) && i < len(nginx) && edge[i] == nginx[i] {
		i++
	}
	e, n := sha256.Sum256(edge), sha256.Sum256(nginx)
	return fmt.Sprintf("body: edge %d bytes (sha256 %x...), nginx %d bytes (sha256 %x...), first difference at byte %d",
		len(edge), e[:6], len(nginx), n[:6], i)
}
