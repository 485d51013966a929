// This file measures what an idle client connection costs edge and nginx
// in resident memory (issue 20): N keep-alive connections each make one
// request and then wait, over HTTP/1.1 and over HTTP/2 with TLS, and the
// servers' RSS before and after gives the cost of one. The figures are
// logged (docs/performance.md keeps them); the test asserts only that
// every connection was served and stayed open, and that edge's cost per
// connection stays within connMemBound.
//
// EDGE_CONNMEM_N sets N (default 1000; docs/performance.md reports 2000
// and 10000, run by hand).
package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// connMemBoundH1 and connMemBoundH2 are the most an idle connection may
// cost edge, guards against regressions. Measured (docs/performance.md):
// 1.0-1.2 KB over HTTP/1.1, where nginx holds 0.5 KB beyond the
// connection structures it allocates at start (an idle connection parks
// in edge's epoll set as a small record and a bare descriptor,
// proxy/h1/park_linux.go; before parking, it kept a goroutine and the
// engine's 32 KiB reader, 18 KB), and 27-29 KB over h2 (37-72 KB from
// run to run before its serve loop got a goroutine of its own), where
// nginx holds 18.5 KB. The goal is twice nginx's figure; the log
// line says how far off it is.
const (
	connMemBoundH1 = 8 << 10
	connMemBoundH2 = 96 << 10
)

const connMemHTTP = `
    keepalive_timeout 300s;
    keepalive_requests 1000;
    server {
        listen 127.0.0.1:{{PORT}};
        listen 127.0.0.1:{{TLSPORT}} ssl http2;
        ssl_certificate {{CERT}};
        ssl_certificate_key {{KEY}};
        root {{ROOT}};
    }
`

// serverRSS is the resident memory of a server's processes: the process
// and its children (nginx's workers).
func serverRSS(t *testing.T, pid int) int64 {
	t.Helper()
	total, err := testenv.RSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(c); err == nil {
				if rss, err := testenv.RSS(n); err == nil {
					total += rss
				}
			}
		}
	}
	return total
}

// openIdle opens n connections that each make one request and keep the
// connection; it returns them, to be closed by the caller.
func openIdle(t *testing.T, addr string, n int, h2 bool) []io.Closer {
	t.Helper()
	conns := make([]io.Closer, 0, n)
	for i := 0; i < n; i++ {
		if h2 {
			c, err := testenv.DialH2(addr)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			c.Request(1, "GET", "/hello.txt")
			c.Flush()
			if st, _ := c.WaitStatus(1, waitTimeout); st != 200 {
				t.Fatalf("connection %d: status %d", i, st)
			}
			conns = append(conns, c)
			continue
		}
		c, err := net.DialTimeout("tcp", addr, waitTimeout)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		c.SetDeadline(time.Now().Add(waitTimeout))
		io.WriteString(c, "GET /hello.txt HTTP/1.1\r\nHost: localhost\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d: %v %v", i, resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		conns = append(conns, c)
	}
	return conns
}

// TestIdleConnectionMemory logs the memory an idle HTTP/1.1 and HTTP/2
// connection costs each server.
func TestIdleConnectionMemory(t *testing.T) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("EDGE_CONNMEM_N")); err == nil && v > 0 {
		n = v
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	root := filepath.Join(dir, "www")
	writeFile(t, filepath.Join(root, "hello.txt"), "hello\n")
	cert, key := testenv.NewPKI(t, dir).Leaf(t, "localhost", false, "localhost")
	body := func(port, tlsPort int) string {
		return strings.NewReplacer("{{PORT}}", strconv.Itoa(port), "{{TLSPORT}}", strconv.Itoa(tlsPort),
			"{{CERT}}", cert, "{{KEY}}", key, "{{ROOT}}", root).Replace(connMemHTTP)
	}
	type server struct {
		name      string
		pid       int
		addr, tls string
		perConnH1 int64
		perConnH2 int64
	}
	var servers []*server
	{
		port, tlsPort := testenv.FreePort(t), testenv.FreePort(t)
		conf := fmt.Sprintf("user root;\nworker_processes 1;\nworker_rlimit_nofile %d;\nevents { worker_connections %d; }\n", 2*n+100, 2*n+100) +
			"http {\n" + testenv.NginxHTTPTemps("") + "access_log off;\n" + body(port, tlsPort) + "}\n"
		ng := testenv.StartNginx(t, conf, port)
		servers = append(servers, &server{name: "nginx", pid: ng.Proc.Cmd.Process.Pid,
			addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), tls: net.JoinHostPort("127.0.0.1", strconv.Itoa(tlsPort))})
	}
	{
		tlsPort := testenv.FreePort(t)
		s := newSite(t, "")
		s.writeConf(fmt.Sprintf("daemon off;\nerror_log logs/error.log warn;\nevents { worker_connections %d; }\nhttp {\naccess_log off;\n", 2*n+100) +
			body(s.port, tlsPort) + "}\n")
		p := s.start()
		servers = append(servers, &server{name: "edge", pid: p.Cmd.Process.Pid, addr: s.addr, tls: net.JoinHostPort("127.0.0.1", strconv.Itoa(tlsPort))})
	}
	for _, s := range servers {
		for _, h2 := range []bool{false, true} {
			addr, what := s.addr, "HTTP/1.1"
			if h2 {
				addr, what = s.tls, "h2"
			}
			// Warm up: the first connections grow pools once.
			for _, c := range openIdle(t, addr, 50, h2) {
				c.Close()
			}
			time.Sleep(200 * time.Millisecond)
			before := serverRSS(t, s.pid)
			conns := openIdle(t, addr, n, h2)
			// edge parks an HTTP/1 connection idle for a twentieth of a second
			// and gives the buffers of a burst back half a second after it
			// (proxy/park_linux.go).
			time.Sleep(1500 * time.Millisecond)
			after := serverRSS(t, s.pid)
			per := (after - before) / int64(n)
			t.Logf("%s %s: %d idle connections: RSS %d -> %d KB, %.1f KB per connection", s.name, what, n, before>>10, after>>10, float64(after-before)/float64(n)/1024)
			if h2 {
				s.perConnH2 = per
			} else {
				s.perConnH1 = per
			}
			for _, c := range conns {
				c.Close()
			}
		}
	}
	ng, ed := servers[0], servers[1]
	for _, x := range []struct {
		what             string
		edge, ngin, most int64
	}{{"HTTP/1.1", ed.perConnH1, ng.perConnH1, connMemBoundH1}, {"h2", ed.perConnH2, ng.perConnH2, connMemBoundH2}} {
		t.Logf("%s per idle connection: edge %.1f KB, nginx %.1f KB (%.1fx)", x.what, float64(x.edge)/1024, float64(x.ngin)/1024,
			float64(x.edge)/float64(max(x.ngin, 1)))
		if x.edge > x.most {
			t.Errorf("%s: an idle connection costs edge %d KB, want at most %d KB", x.what, x.edge>>10, x.most>>10)
		}
	}
}
