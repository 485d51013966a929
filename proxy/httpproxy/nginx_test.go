package httpproxy

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"
)

// TestRequestAsNginx sends the same client requests through Debian's
// nginx and through this package to one recording backend, and compares
// the requests the backend received, byte for byte (bodies de-chunked).
func TestRequestAsNginx(t *testing.T) {
	b := newBackend(t, "tcp", "127.0.0.1:0", respond("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"))
	up := b.ln.Addr().String()
	port := testenv.FreePort(t)
	conf := testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs("") + fmt.Sprintf(`
server {
    listen 127.0.0.1:%d;
    location /plain/ { proxy_pass http://%[2]s; }
    location /uri/ { proxy_pass http://%[2]s/remote/; }
    location /set/ {
        proxy_pass http://%[2]s;
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header Accept-Encoding "";
        proxy_set_header User-Agent edge-test;
    }
    location /ka/ {
        proxy_pass http://%[2]s;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
    }
    location /stream/ {
        proxy_pass http://%[2]s;
        proxy_http_version 1.1;
        proxy_request_buffering off;
    }
    location /buffered/ { proxy_pass http://%[2]s; }
}
}
`, port, up)
	ngx := testenv.StartNginx(t, conf, port)

	const clientHeaders = "Host: front\r\nUser-Agent: t\r\nConnection: keep-alive\r\nAccept-Encoding: gzip\r\n" +
		"X-Foo: 1\r\nx-foo: 2\r\nTE: trailers\r\nCookie: a=b\r\n"
	tests := []struct {
		name, method, target, extra, body string
		chunked                           bool
		r                                 URIRequest
		set                               []Header
		http11, stream                    bool
	}{
		{name: "no URI part", method: "GET", target: "/plain/a%20b?x=1",
			r: URIRequest{URI: "/plain/a b", Args: "x=1", RequestURI: "/plain/a%20b?x=1", RequestURIValid: true, Escape: true}},
		{name: "URI part", method: "GET", target: "/uri/a%20b/./c?x=1",
			r: URIRequest{PassURI: "/remote/", Location: "/uri/", URI: "/uri/a b/c", Args: "x=1", RequestURI: "/uri/a%20b/./c?x=1", RequestURIValid: true, Escape: true}},
		{name: "proxy_set_header", method: "GET", target: "/set/x",
			r:   URIRequest{URI: "/set/x", RequestURI: "/set/x", RequestURIValid: true},
			set: []Header{{"X-Real-IP", "127.0.0.1"}, {"Accept-Encoding", ""}, {"User-Agent", "edge-test"}}},
		{name: "HTTP/1.1 and Connection cleared", method: "GET", target: "/ka/x",
			r:   URIRequest{URI: "/ka/x", RequestURI: "/ka/x", RequestURIValid: true},
			set: []Header{{"Connection", ""}}, http11: true},
		{name: "buffered body", method: "POST", target: "/buffered/p", extra: "Content-Length: 11\r\n", body: "hello world",
			r: URIRequest{URI: "/buffered/p", RequestURI: "/buffered/p", RequestURIValid: true}},
		{name: "chunked body, buffered: sent with its length", method: "POST", target: "/buffered/c", chunked: true, body: "chunked body",
			r: URIRequest{URI: "/buffered/c", RequestURI: "/buffered/c", RequestURIValid: true}},
		{name: "chunked body, streamed over HTTP/1.1", method: "POST", target: "/stream/c", chunked: true, body: "streamed body",
			r: URIRequest{URI: "/stream/c", RequestURI: "/stream/c", RequestURIValid: true}, http11: true, stream: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(b.got())
			head := tt.method + " " + tt.target + " HTTP/1.1\r\n" + clientHeaders + tt.extra
			raw, rest := head, ""
			if tt.chunked {
				raw += "Transfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(tt.body)), 16) + "\r\n" + tt.body + "\r\n"
				rest = "0\r\n\r\n"
			} else {
				raw += "\r\n" + tt.body
			}
			accepted := b.accepted.Load()
			nginxAnswer(t, ngx.Addr(), raw, rest, func() {
				if tt.stream {
					// The body's end comes after nginx connected, so that
					// nginx is still reading it (r->reading_body) and
					// streams it: a body read whole before goes with its
					// length even here.
					testEventually(t, func() bool { return b.accepted.Load() > accepted })
				}
			})
			got := b.got()
			if len(got) != before+1 {
				t.Fatalf("backend saw %d requests", len(got)-before)
			}
			fromNginx := got[before]

			req := &Request{Method: tt.method, URI: UpstreamURI(&tt.r), HTTP11: tt.http11, ProxyHost: up, Set: tt.set, BodyLength: -1}
			for _, line := range strings.Split(strings.TrimSuffix(clientHeaders+tt.extra, "\r\n"), "\r\n") {
				name, value, _ := strings.Cut(line, ": ")
				req.Client = append(req.Client, Header{name, value})
			}
			if tt.chunked {
				req.Client = append(req.Client, Header{"Transfer-Encoding", "chunked"})
			}
			if tt.body != "" {
				req.Body = strings.NewReader(tt.body)
				if !tt.stream {
					// Buffered, the pipeline knows the length.
					req.BodyLength = int64(len(tt.body))
				}
			}
			u := b.upstream()
			resp, err := u.Do(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp)
			resp.Close()
			got = b.got()
			if mine := got[len(got)-1]; mine != fromNginx {
				t.Errorf("nginx sent\n%q\nhttpproxy sent\n%q", fromNginx, mine)
			}
		})
	}
}

// nginxAnswer sends a raw request to nginx, raw then (after between)
// rest, and reads its answer's status line, failing unless it is 200.
func nginxAnswer(t *testing.T, addr, raw, rest string, between func()) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	between()
	if _, err := io.WriteString(c, rest); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("nginx answered %q %v", line, err)
	}
}

// TestResponseAsNginx sends each upstream response through Debian's
// nginx and through this package, and compares what nginx made of it
// (its status to the client, or the raw bytes of an HTTP/0.9 answer)
// with what Do reports. Where edge is stricter than nginx 1.22.1 on
// purpose (framing headers that disagree, which later nginx versions
// refuse too), the case says so and both answers are checked.
func TestResponseAsNginx(t *testing.T) {
	tests := []struct {
		resp        string
		nginx, edge int // the status each answers; 9 for HTTP/0.9
		body        string
	}{
		{resp: "garbage\r\nmore", nginx: 9, edge: 9},
		{resp: "HTTP/1.1 2x0 OK\r\n\r\nbody", nginx: 9, edge: 9},
		{resp: "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", nginx: 502, edge: 502},
		{resp: "HTTP/1.1 200 OK\r\nNoColon\r\nContent-Length: 1\r\n\r\nx", nginx: 200, edge: 200, body: "x"},
		{resp: "HTTP/1.1 200 OK\r\nX.Y: 1\r\nContent-Length: 1\r\n\r\nx", nginx: 200, edge: 200, body: "x"},
		{resp: "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nx", nginx: 404, edge: 404, body: "x"},
		{resp: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n", nginx: 502, edge: 502},
		{resp: "HTTP/1.1 200 OK\r\nContent", nginx: 502, edge: 502},
		// Stricter than 1.22.1, on purpose:
		{resp: "HTTP/1.1 200 OK\r\nContent-Length: abcd\r\n\r\nxx", nginx: 200, edge: 502},
		{resp: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", nginx: 200, edge: 502},
		{resp: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", nginx: 200, edge: 502},
		{resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxx", nginx: 200, edge: 502},
	}
	b := newBackend(t, "tcp", "127.0.0.1:0", func(b *backend, c net.Conn, br *bufio.Reader) {
		head, _, ok := b.readRequest(br)
		if !ok {
			return
		}
		var i int
		fmt.Sscanf(head, "GET /%d ", &i)
		io.WriteString(c, tests[i].resp)
	})
	port := testenv.FreePort(t)
	conf := testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs("") +
		fmt.Sprintf("server { listen 127.0.0.1:%d; location / { proxy_pass http://%s; } }\n}\n", port, b.ln.Addr())
	ngx := testenv.StartNginx(t, conf, port)
	for i, tt := range tests {
		c, err := net.Dial("tcp", ngx.Addr())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET /%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", i)
		all, _ := io.ReadAll(c)
		c.Close()
		nginx := 9
		if code, _, _, ok := parseStatusLine([]byte(strings.SplitAfter(string(all), "\n")[0])); ok {
			nginx = code
		} else if string(all) != tt.resp {
			t.Errorf("%q: nginx's HTTP/0.9 answer %q", tt.resp, all)
		}
		if nginx != tt.nginx {
			t.Errorf("%q: nginx answered %d, want %d", tt.resp, nginx, tt.nginx)
		}

		resp, body, err := fetch(t, b.upstream(), get(fmt.Sprintf("/%d", i)))
		edge := 0
		switch {
		case err != nil && resp == nil:
			edge = err.(*Error).Status()
		case resp.HTTP09:
			edge = 9
			if body != tt.resp {
				t.Errorf("%q: HTTP/0.9 body %q", tt.resp, body)
			}
		default:
			edge = resp.Status
			if body != tt.body {
				t.Errorf("%q: body %q", tt.resp, body)
			}
		}
		if edge != tt.edge {
			t.Errorf("%q: httpproxy answered %d (%v), want %d", tt.resp, edge, err, tt.edge)
		}
	}
}

// TestNginxUpstream uses Debian's nginx as the upstream: its
// keepalive_requests ends a kept connection with "Connection: close",
// its keepalive_timeout closes an idle one under the pool (the next
// request is sent again on a new connection), and gzip makes it answer
// chunked.
func TestNginxUpstream(t *testing.T) {
	port := testenv.FreePort(t)
	conf := testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs("") + fmt.Sprintf(`
server {
    listen 127.0.0.1:%d;
    keepalive_requests 3;
    keepalive_timeout 1s;
    gzip on;
    gzip_min_length 1;
    gzip_types text/plain;
    default_type text/plain;
    location / { return 200 "conn $connection\n"; }
}
}
`, port)
	ngx := testenv.StartNginx(t, conf, port)
	u := &Upstream{Network: "tcp", Address: ngx.Addr(), Keepalive: &Keepalive{Max: 2}}
	conn := func(req *Request) string {
		t.Helper()
		resp, body, err := fetch(t, u, req)
		if err != nil || resp.Status != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		return body
	}
	seen := map[string]bool{}
	for i := 0; i < 7; i++ {
		seen[conn(keepaliveGet())] = true
	}
	if len(seen) != 3 {
		t.Errorf("7 requests over %d connections, want 3 (keepalive_requests 3): %v", len(seen), seen)
	}

	last := conn(keepaliveGet())
	waitClosed(t, u) // nginx's keepalive_timeout
	if again := conn(keepaliveGet()); again == last {
		t.Errorf("the request after nginx closed the idle connection came over it: %q", again)
	}

	req := keepaliveGet()
	req.Client = []Header{{"Accept-Encoding", "gzip"}}
	resp, err := u.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if !resp.Chunked || resp.ContentLength != -1 {
		t.Fatalf("chunked %v length %d", resp.Chunked, resp.ContentLength)
	}
	zr, err := gzip.NewReader(resp)
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil || !strings.HasPrefix(string(text), "conn ") {
		t.Errorf("gunzipped %q %v", text, err)
	}
}
