// This file tests, on a real Server over loopback, that the head watch
// (http1watch.go) lets pipelined requests with bare LF line ends be
// served.
package h1_test

import (
	"bufio"
	"edge/proxy/internal/servetest"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestWatchServesPipelined: pipelined requests with bare LF line ends,
// after a chunked body too, are all answered, each in turn, without the
// client closing or waiting out a timeout.
func TestWatchServesPipelined(t *testing.T) {
	addr := servetest.Config(t, `location / { return 200 "ok $request_uri\n"; }`)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "GET /a HTTP/1.1\nHost: x\n\n"+
		"POST /b HTTP/1.1\nHost: x\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n"+
		"PUT /c HTTP/1.1\nHost: x\nContent-Length: 2\n\n\n\n"+
		"GET /d HTTP/1.1\nHost: x\n\n")
	br := bufio.NewReader(c)
	for _, want := range []string{"/a", "/b", "/c", "/d"} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("the response for %s: %v", want, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(body) != "ok "+want+"\n" || resp.Close {
			t.Errorf("for %s: %d %q (close %v)", want, resp.StatusCode, body, resp.Close)
		}
	}
}

// TestWatchServesRandomStreams: streams of pipelined requests whose
// lines end in CRLF or bare LF at random, heads and chunk lines alike,
// with bodies by length or in chunks, are each answered in order on one
// connection, sent at once or in small writes.
func TestWatchServesRandomStreams(t *testing.T) {
	addr := servetest.Config(t, `location / { return 200 "ok $request_uri\n"; }`)
	rng := rand.New(rand.NewPCG(14, 2))
	eol := func() string {
		if rng.IntN(2) == 0 {
			return "\n"
		}
		return "\r\n"
	}
	for stream := range 40 {
		var b strings.Builder
		var uris []string
		for i := range 1 + rng.IntN(6) {
			uri := fmt.Sprintf("/s%d-%d", stream, i)
			uris = append(uris, uri)
			body := strings.Repeat("a\nb\r", rng.IntN(5))
			switch rng.IntN(3) {
			case 0:
				b.WriteString("GET " + uri + " HTTP/1.1" + eol() + "Host: x" + eol() + "Accept: */*" + eol() + eol())
			case 1:
				fmt.Fprintf(&b, "POST %s HTTP/1.1%sHost: x%sContent-Length: %d%s%s%s", uri, eol(), eol(), len(body), eol(), eol(), body)
			default:
				b.WriteString("POST " + uri + " HTTP/1.1" + eol() + "Host: x" + eol() + "Transfer-Encoding: chunked" + eol() + eol())
				for rest := body; rest != ""; {
					n := min(len(rest), 1+rng.IntN(5))
					fmt.Fprintf(&b, "%x%s%s%s", n, eol(), rest[:n], eol())
					rest = rest[n:]
				}
				b.WriteString("0" + eol())
				if rng.IntN(2) == 0 {
					b.WriteString("X-Trailer: 1" + eol())
				}
				b.WriteString(eol())
			}
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		data, piece := b.String(), 1+rng.IntN(64)
		go func() {
			for len(data) > 0 {
				n := min(piece, len(data))
				if _, err := io.WriteString(c, data[:n]); err != nil {
					return
				}
				data = data[n:]
			}
		}()
		br := bufio.NewReader(c)
		for _, uri := range uris {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("stream %d %q: the response for %s: %v", stream, b.String(), uri, err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || string(body) != "ok "+uri+"\n" {
				t.Fatalf("stream %d %q: for %s %d %q", stream, b.String(), uri, resp.StatusCode, body)
			}
		}
		c.Close()
	}
}
