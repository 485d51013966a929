// This file sends pipelined requests, several on one connection before
// any answer, whose lines end in bare LFs (issue 14), to nginx and edge,
// and compares the answers in order.

package difftest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

const pipelineConf = `server {
    listen {{LISTEN}};
    location / { return 200 "uri=$request_uri\n"; }
    location /echo/ { proxy_pass http://{{BACKEND}}; }
}
`

// pipelineAnswer is what the comparison keeps of one response: the
// status and the body: for the backend's echo, the request body it
// received; none for an error page.
type pipelineAnswer struct {
	status int
	body   string
}

// TestPipelinedBareLF: a stream of requests sent at once, with bare LF
// line ends in heads and chunk lines, is answered request by request as
// nginx answers it, at once (nginx-tests proxy_cache.t 15 pipelines such
// requests), whether it arrives in one segment or byte by byte.
func TestPipelinedBareLF(t *testing.T) {
	e := newEnv(t)
	p := e.startPair(t, pipelineConf)
	for _, tc := range []struct{ name, stream string }{
		{"three LF heads", "GET /a HTTP/1.1\nHost: x\n\nGET /b HTTP/1.1\nHost: x\n\nGET /c HTTP/1.1\nHost: x\nConnection: close\n\n"},
		{"mixed line ends", "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\nHost: x\r\n\nGET /c HTTP/1.1\r\nHost: x\nConnection: close\r\n\r\n"},
		{"length body then LF head", "POST /echo/a HTTP/1.1\nHost: x\nContent-Length: 6\n\na\nb\n\nGET /b HTTP/1.1\nHost: x\nConnection: close\n\n"},
		{"chunked body then LF head", "POST /echo/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\na\nb\r\n0\r\n\r\nGET /b HTTP/1.1\nHost: x\nConnection: close\n\n"},
		{"LF chunk lines then LF head", "POST /echo/a HTTP/1.1\nHost: x\nTransfer-Encoding: chunked\n\n3;x=y\na\nb\n2\nc\n\n0\nX-T: 1\n\nGET /b HTTP/1.1\nHost: x\nConnection: close\n\n"},
		{"HTTP/1.0 keep-alive", "GET /a HTTP/1.0\nConnection: keep-alive\n\nGET /b HTTP/1.0\n\n"},
		{"LF head behind a declined upgrade", "GET /a HTTP/1.1\nHost: x\nUpgrade: websocket\nConnection: upgrade\n\nGET /b HTTP/1.1\nHost: x\nConnection: close\n\n"},
		{"bare CR in a pipelined head", "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\nX: a\rb"},
		{"empty lines between", "GET /a HTTP/1.1\nHost: x\n\n\n\r\nGET /b HTTP/1.1\nHost: x\nConnection: close\n\n"},
	} {
		for _, byteByByte := range []bool{false, true} {
			name := tc.name
			if byteByByte {
				name += " byte by byte"
			}
			t.Run(name, func(t *testing.T) {
				want, err := pipeline(p.nginxAddr, tc.stream, byteByByte)
				if err != nil {
					t.Fatalf("nginx: %v", err)
				}
				got, err := pipeline(p.edgeAddr, tc.stream, byteByByte)
				if err != nil {
					t.Fatalf("edge: %v (nginx answered %v)", err, want)
				}
				if len(want) < 2 {
					t.Fatalf("nginx answered %v: not a pipelining case", want)
				}
				if len(got) != len(want) {
					t.Fatalf("edge answered %v, nginx %v", got, want)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("response %d: edge %+v, nginx %+v", i, got[i], want[i])
					}
				}
			})
		}
	}
}

// pipeline sends stream on one connection, at once or a byte a write,
// and reads the responses until the server closes. A server that waits
// for more of a request it has whole fails on the deadline.
func pipeline(addr, stream string, byteByByte bool) ([]pipelineAnswer, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(15 * time.Second)); err != nil {
		return nil, err
	}
	go func() {
		if !byteByByte {
			_, _ = io.WriteString(c, stream)
			return
		}
		for i := 0; i < len(stream); i++ {
			if _, err := io.WriteString(c, stream[i:i+1]); err != nil {
				return
			}
		}
	}()
	br := bufio.NewReader(c)
	var answers []pipelineAnswer
	for _, method := range pipelineMethods(stream) {
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if errors.Is(err, io.EOF) && len(answers) > 0 {
			break
		}
		if err != nil {
			return answers, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return answers, err
		}
		a := pipelineAnswer{status: resp.StatusCode, body: string(body)}
		if _, echoed, ok := strings.Cut(a.body, "\r\n\r\n"); ok {
			a.body = echoed // the request body the backend got
		}
		if a.status >= 400 {
			a.body = "" // an error page, signed by its server (docs/nginx-differences.md)
		}
		answers = append(answers, a)
	}
	return answers, nil
}

// pipelineMethods is the method of each request of a stream, in order,
// for reading the response to each.
func pipelineMethods(stream string) []string {
	var methods []string
	for _, m := range []string{"GET ", "POST "} {
		for s := stream; ; {
			i := strings.Index(s, m)
			if i < 0 {
				break
			}
			methods = append(methods, strings.TrimSpace(m))
			s = s[i+len(m):]
		}
	}
	return methods
}
