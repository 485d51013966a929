// This file sends raw HTTP/1.x requests, so that differential tests reach
// the server with a request line no client library has cleaned up.

package testenv

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawTimeout bounds one raw exchange, so that a server that never answers
// fails the test instead of hanging it.
const rawTimeout = 30 * time.Second

// RawResponse is one parsed HTTP response.
type RawResponse struct {
	Status int
	// Reason is the status line's text after the code ("Moved Temporarily").
	Reason string
	Proto  string // "HTTP/1.1"
	// Header has canonicalized names. Transfer-Encoding is not in it (net/http
	// moves it to TransferEncoding) and the body is already de-chunked.
	Header           http.Header
	TransferEncoding []string
	Body             []byte
	// Trailer is the chunked body's trailer fields that came (a field
	// the Trailer header announced but that did not come is not in it).
	Trailer http.Header
}

// RawHTTP sends raw unchanged over a fresh TCP connection to addr and
// returns the first response with its whole body. The method is taken from
// raw's request line, so that the body of a response to HEAD is not read.
// Any error fails the test; use DoRaw where "no response" is an outcome.
func RawHTTP(t testing.TB, addr, raw string) *RawResponse {
	t.Helper()
	resp, err := DoRaw(addr, raw)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return resp
}

// DoRaw is RawHTTP returning its error: a server may answer a malformed
// request by closing the connection, and a differential test compares that
// too.
func DoRaw(addr, raw string) (*RawResponse, error) {
	conn, err := net.DialTimeout("tcp", addr, rawTimeout)
	if err != nil {
		return nil, fmt.Errorf("testenv: raw http: %w", err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(rawTimeout)); err != nil {
		return nil, fmt.Errorf("testenv: raw http: %w", err)
	}
	if _, err := io.WriteString(conn, raw); err != nil {
		return nil, fmt.Errorf("testenv: raw http: write: %w", err)
	}
	return readRawResponse(bufio.NewReader(conn), requestMethod(raw))
}

// readRawResponse parses one response to a request with the given method.
func readRawResponse(br *bufio.Reader, method string) (*RawResponse, error) {
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return nil, fmt.Errorf("testenv: raw http: read response: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("testenv: raw http: read body: %w", err)
	}
	return &RawResponse{
		Status:           resp.StatusCode,
		Reason:           strings.TrimPrefix(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)), " "),
		Proto:            resp.Proto,
		Header:           resp.Header,
		TransferEncoding: resp.TransferEncoding,
		Body:             body,
		Trailer:          sentTrailer(resp.Trailer),
	}, nil
}

// sentTrailer keeps the trailer fields that have values.
func sentTrailer(h http.Header) http.Header {
	var out http.Header
	for name, vals := range h {
		if len(vals) > 0 {
			if out == nil {
				out = http.Header{}
			}
			out[name] = vals
		}
	}
	return out
}

// requestMethod returns the first word of raw's request line.
func requestMethod(raw string) string {
	line, _, _ := strings.Cut(raw, "\n")
	method, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	return method
}
