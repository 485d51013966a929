// This file tests proxy_pass through the pipeline: a configuration text
// compiled, a fake request served, and a backend on a loopback listener
// in the test's own process that records the request it got.
package proxy

import (
	"bufio"
	"edge/proxy/internal/plantest"
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// recordingBackend answers every request with resp (its "%s" replaced by
// the request's target) and keeps the request heads it read.
type recordingBackend struct {
	addr  string
	mu    sync.Mutex
	heads []string
}

func startRecordingBackend(t *testing.T, resp string) *recordingBackend {
	t.Helper()
	b := &recordingBackend{}
	b.addr = plantest.Loopback(t, func(c net.Conn, _ int) {
		br := bufio.NewReader(c)
		head, err := plantest.ReadHead(br)
		if err != nil {
			return
		}
		b.mu.Lock()
		b.heads = append(b.heads, head)
		b.mu.Unlock()
		target := strings.Fields(head)[1]
		fmt.Fprintf(c, strings.ReplaceAll(strings.ReplaceAll(resp, "BACKEND", b.addr), "%s", "%[1]s"), target)
	})
	return b
}

func (b *recordingBackend) last() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.heads) == 0 {
		return ""
	}
	return b.heads[len(b.heads)-1]
}

func TestProxyPass(t *testing.T) {
	be := startRecordingBackend(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nSet-Cookie: s=1; Domain=backend.example; Path=/app/x\r\n"+
		"Location: http://BACKEND/app/moved\r\nX-Pad: p\r\nConnection: close\r\n\r\nok")
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()
	text := strings.NewReplacer("BACKEND", be.addr, "DEAD", deadAddr).Replace(`
events {}
http {
    upstream pool { server DEAD; server BACKEND; }
    upstream pool2 { server DEAD; server BACKEND; }
    server {
        listen 8080;
        root {{ROOT}}/html;
        location /a/ { proxy_pass http://BACKEND/app/; }
        location /hdr/ {
            proxy_set_header X-Real-IP $remote_addr;
            proxy_set_header X-FF $proxy_add_x_forwarded_for;
            proxy_set_header X-PH $proxy_host;
            proxy_pass http://BACKEND/;
        }
        location /cookie/ {
            proxy_cookie_domain backend.example example.com;
            proxy_cookie_path /app/ /;
            proxy_cookie_flags s secure httponly;
            proxy_pass http://BACKEND/app/;
        }
        location /next/ { proxy_pass http://pool/; }
        location /dead/ { proxy_pass http://DEAD/; }
        location /body/ { proxy_set_body "replaced"; proxy_method POST; proxy_pass http://BACKEND/; }
        location /v/ { proxy_pass http://$arg_to/x; }
        location /ct/ {
            add_header X-CT $upstream_connect_time;
            add_header X-Addr $upstream_addr;
            add_header X-St $upstream_status;
            proxy_pass http://pool2/;
        }
    }
}
`)
	rt, _ := testPipeline(t, text, nil)
	cases := []struct {
		name, target string
		headers      benchHeaders
		status       int
		sent         []string // lines the backend must have got
		got          map[string]string
		match        map[string]string // header -> regexp
	}{
		{name: "uri part replaces the prefix", target: "/a/b?c=d", status: 200,
			sent: []string{"GET /app/b?c=d HTTP/1.0\r\n", "Host: " + be.addr + "\r\n", "Connection: close\r\n"},
			got:  map[string]string{"Location": "http://example.com:8080/a/moved"}},
		{name: "set headers and variables", target: "/hdr/x", headers: benchHeaders{{"X-Forwarded-For", "10.0.0.1"}}, status: 200,
			sent: []string{"X-Real-IP: 192.0.2.10\r\n", "X-FF: 10.0.0.1, 192.0.2.10\r\n", "X-PH: " + be.addr + "\r\n"}},
		{name: "cookie rewrite", target: "/cookie/x", status: 200,
			got: map[string]string{"Set-Cookie": "s=1; Domain=example.com; Path=/x; Secure; HttpOnly", "X-Pad": ""}},
		{name: "next upstream after a refused connection", target: "/next/y", status: 200, sent: []string{"GET /y HTTP/1.0\r\n"}},
		{name: "dead upstream is 502", target: "/dead/", status: 502},
		{name: "set body and method", target: "/body/z", status: 200, sent: []string{"POST /z HTTP/1.0\r\n", "Content-Length: 8\r\n"}},
		{name: "variables with an address", target: "/v/?to=" + be.addr, status: 200, sent: []string{"GET /x HTTP/1.0\r\n"}},
		{name: "variables with a name and no resolver", target: "/v/?to=unknown.invalid", status: 502},
		// $upstream_connect_time: "-" for the refused connection, the
		// connect's seconds for the next (nginx's format, ms).
		{name: "upstream_connect_time per try", target: "/ct/", status: 200,
			got: map[string]string{"X-Addr": deadAddr + ", " + be.addr, "X-St": "502, 200"}, match: map[string]string{"X-CT": `^-, \d+\.\d{3}$`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := serveFake(t, rt, "GET", c.target, c.headers)
			if r.resp.Status != c.status {
				t.Fatalf("status %d, want %d", r.resp.Status, c.status)
			}
			head := be.last()
			for _, l := range c.sent {
				if !strings.Contains(head, l) {
					t.Errorf("backend got %q, want a line %q", head, l)
				}
			}
			for name, want := range c.got {
				if v := r.resp.Header.Get(name); v != want {
					t.Errorf("%s: %q, want %q", name, v, want)
				}
			}
			for name, re := range c.match {
				if v := r.resp.Header.Get(name); !regexp.MustCompile(re).MatchString(v) {
					t.Errorf("%s: %q, want %s", name, v, re)
				}
			}
		})
	}
}
