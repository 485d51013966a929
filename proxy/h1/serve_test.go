// This file tests, on a real Server over loopback, how the HTTP/1
// adapter writes a response's head.
package h1_test

import (
	"bufio"
	"edge/proxy/internal/servetest"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestResponseHeaderNamesAsSpelled: a response header goes out named as
// the config or edge spelled it, as nginx sends it (nginx-tests index.t
// looks for "X-URI"); the HTTP/1 engine would send "X-Uri" and "Etag".
func TestResponseHeaderNamesAsSpelled(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := servetest.Config(t, `location / { root `+dir+`; add_header X-URI $uri always; add_header x-lower 1 always; }`)
	for _, target := range []string{"/a.txt", "/missing"} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		resp, _ := io.ReadAll(c)
		c.Close()
		head, _, _ := strings.Cut(string(resp), "\r\n\r\n")
		want := []string{"\r\nX-URI: " + target + "\r\n", "\r\nx-lower: 1\r\n"}
		if target == "/a.txt" {
			want = append(want, "\r\nETag: ", "\r\nLast-Modified: ")
		}
		for _, w := range want {
			if !strings.Contains(head+"\r\n", w) {
				t.Errorf("GET %s: no %q in\n%s", target, strings.TrimSpace(w), head)
			}
		}
	}
}

// TestHeadWatchPipelined: the head watch follows a kept connection's next
// head only where the last request ended; a pipelined request already in
// the engine's buffer must not have its body taken for a head (a ZIP
// upload starts "PK" and holds bare CRs), while on an ordinary kept
// connection a bare CR in the next head still gets its 400 at once.
func TestHeadWatchPipelined(t *testing.T) {
	addr := servetest.Config(t, `location / { return 200 "ok\n"; }`)
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(10 * time.Second))
		return c, bufio.NewReader(c)
	}
	status := func(br *bufio.Reader, method string) int {
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("reading a response: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}

	c, br := dial()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\nPUT /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
	time.Sleep(50 * time.Millisecond) // the engine has both heads before the body comes
	io.WriteString(c, "PK\x03\x04\r\x00abcd")
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	for i, m := range []string{"GET", "PUT", "GET"} {
		if st := status(br, m); st != 200 {
			t.Errorf("pipelined request %d: status %d, want 200", i, st)
		}
	}

	c, br = dial()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if st := status(br, "GET"); st != 200 {
		t.Fatalf("first request: %d", st)
	}
	io.WriteString(c, "GET / HTTP/1.1\r\nX: a\rb")
	if st := status(br, "GET"); st != 400 {
		t.Errorf("a bare CR in a kept connection's next head: status %d, want 400", st)
	}
}

// TestConnectionHeader: an HTTP/1.1 response on a connection that stays
// open says "Connection: keep-alive", as nginx's do, and one after which
// the connection closes says "close"; never both, and never one that the
// connection then belies.
func TestConnectionHeader(t *testing.T) {
	addr := servetest.Config(t, `keepalive_requests 3;
        error_page 500 /page;
        location = /page { return 200 "page\n"; }
        location = /e500 { return 500; }
        location / { return 200 "ok\n"; }`)
	type exchange struct {
		request string
		want    string // the Connection header's one value
	}
	cases := []struct {
		name string
		seq  []exchange
	}{
		{"kept, then closed by the client", []exchange{
			{"GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "keep-alive"},
			{"GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "close"},
		}},
		{"keepalive_requests", []exchange{
			{"GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "keep-alive"},
			{"GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "keep-alive"},
			{"GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "close"},
		}},
		// nginx stops keep-alive for a 500 before it finds the error page.
		{"error page of a 500", []exchange{{"GET /e500 HTTP/1.1\r\nHost: x\r\n\r\n", "close"}}},
		{"HTTP/1.0 keep-alive", []exchange{
			{"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "keep-alive"},
			{"GET /a HTTP/1.0\r\n\r\n", "close"},
		}},
		// A host the engine refuses and edge serves from the head: the
		// engine closes after it.
		{"IPvFuture host", []exchange{{"GET /a HTTP/1.1\r\nHost: [v1.x]\r\n\r\n", "close"}}},
		// An unread chunked body: the engine decides after the response
		// whether it can skip it, so the response does not promise.
		{"unread chunked body", []exchange{
			{"POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", ""},
			{"GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "keep-alive"},
		}},
	}
	for _, tc := range cases {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(c)
		for i, ex := range tc.seq {
			io.WriteString(c, ex.request)
			got, err := rawConnectionHeaders(br)
			if err != nil {
				t.Fatalf("%s, request %d: %v", tc.name, i+1, err)
			}
			if ex.want == "" && len(got) != 0 || ex.want != "" && (len(got) != 1 || got[0] != ex.want) {
				t.Errorf("%s, request %d: Connection %q, want %q", tc.name, i+1, got, ex.want)
			}
		}
		// The last answer said what happens next: close, or a connection
		// that still answers.
		last := tc.seq[len(tc.seq)-1].want
		io.WriteString(c, "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		switch {
		case last == "keep-alive" && err != nil:
			t.Errorf("%s: said keep-alive, then: %v", tc.name, err)
		case last == "close" && err == nil:
			t.Errorf("%s: said %q, then answered %s", tc.name, last, resp.Status)
		}
		c.Close()
	}
}

// rawConnectionHeaders reads one response with a Content-Length from br
// and returns its Connection lines' values as sent (http.ReadResponse
// drops a "close" it acts on).
func rawConnectionHeaders(br *bufio.Reader) ([]string, error) {
	var conn []string
	length := 0
	for first := true; ; first = false {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if first {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "connection":
			conn = append(conn, value)
		case "content-length":
			length, _ = strconv.Atoi(value)
		}
	}
	_, err := io.CopyN(io.Discard, br, int64(length))
	return conn, err
}
