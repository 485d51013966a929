// This file runs issue 20's HTTP/2 attacks against edge, and the cheap
// ones against nginx as the reference: floods of frames that carry no
// payload (empty CONTINUATION, SETTINGS, PING, PRIORITY, WINDOW_UPDATE,
// empty DATA) must end the connection, streams opened and reset from
// several reconnecting clients must leave edge's memory bounded, a header
// past the header buffers must not reach the application, and a :path
// with a space gets 400. Each bound is a count of frames or bytes, never a
// time: a flood runs until the server closes or a frame count is reached.
package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"edge/testenv"
)

// h2AbuseHTTP is the http{} body both servers run: a TLS listener with
// HTTP/2, a static file and a PHP location ({{FPM}}), with nginx's
// defaults for everything else. {{ROOT}}, {{CERT}} and {{KEY}} are filled
// in by the test.
const h2AbuseHTTP = `
    server {
        listen 127.0.0.1:{{PORT}} ssl http2;
        ssl_certificate {{CERT}};
        ssl_certificate_key {{KEY}};
        root {{ROOT}};
        {{EXTRA}}
        location ~ \.php$ {
            fastcgi_pass {{FPM}};
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
            fastcgi_param HTTP_X_BIG $http_x_big;
            include {{FASTCGI_PARAMS}};
        }
    }
`

// floodLimit bounds every flood: a server that has not closed the
// connection after this many frames never will.
const floodLimit = 2_000_000

// h2Server is one server under attack.
type h2Server struct {
	name string
	addr string
	pid  int
	root string
}

// h2Env starts php-fpm and the servers the test asks for.
type h2Env struct {
	t     *testing.T
	extra string // server-level directives for both servers
	fpm   *testenv.FPM
	cert  string
	key   string
	root  string
}

func newH2Env(t *testing.T) *h2Env {
	t.Helper()
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	e := &h2Env{t: t, root: filepath.Join(dir, "www")}
	e.cert, e.key = testenv.NewPKI(t, dir).Leaf(t, "localhost", false, "localhost")
	writeFile(t, filepath.Join(e.root, "hello.txt"), "hello\n")
	writeFile(t, filepath.Join(e.root, "hello.php"), "<?php echo 'hello from php', \"\\n\";")
	writeFile(t, filepath.Join(e.root, "big.php"), "<?php echo strlen($_SERVER['HTTP_X_BIG'] ?? ''), \"\\n\";")
	writeFile(t, filepath.Join(e.root, "xff.php"), "<?php echo 'xff=', $_SERVER['HTTP_X_FORWARDED_FOR'] ?? 'none', \"\\n\";")
	e.fpm = testenv.StartFPM(t, testenv.FPMOptions{Listen: "127.0.0.1:0"})
	return e
}

func (e *h2Env) body(port int) string {
	return strings.NewReplacer("{{PORT}}", strconv.Itoa(port), "{{CERT}}", e.cert, "{{KEY}}", e.key,
		"{{ROOT}}", e.root, "{{FPM}}", e.fpm.Address, "{{EXTRA}}", e.extra,
		"{{FASTCGI_PARAMS}}", filepath.Join(testenv.RepoRoot(e.t), "conf", "fastcgi_params")).Replace(h2AbuseHTTP)
}

// edge starts edge on the site.
func (e *h2Env) edge() *h2Server {
	e.t.Helper()
	s := newSite(e.t, "daemon off;\nerror_log logs/error.log info;\nevents {}\nhttp {\n access_log off;\n"+e.body(0)+"}\n")
	s.writeConf("daemon off;\nerror_log logs/error.log info;\nevents {}\nhttp {\n access_log off;\n" + e.body(s.port) + "}\n")
	p := s.start()
	return &h2Server{name: "edge", addr: s.addr, pid: p.Cmd.Process.Pid, root: e.root}
}

// nginx starts Debian's nginx on the same site.
func (e *h2Env) nginx() *h2Server {
	e.t.Helper()
	port := testenv.FreePort(e.t)
	conf := testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + "access_log off;\n" + e.body(port) + "}\n"
	ng := testenv.StartNginx(e.t, conf, port)
	return &h2Server{name: "nginx", addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), pid: ng.Proc.Cmd.Process.Pid, root: e.root}
}

func dialH2(t *testing.T, s *h2Server) *testenv.H2Client {
	t.Helper()
	c, err := testenv.DialH2(s.addr)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// checkServes makes one ordinary request on a new connection: after an
// attack the server must still answer others.
func checkServes(t *testing.T, s *h2Server) {
	t.Helper()
	c := dialH2(t, s)
	if err := c.Request(1, "GET", "/hello.txt"); err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	c.Flush()
	if st, _ := c.WaitStatus(1, waitTimeout); st != 200 {
		t.Errorf("%s: GET /hello.txt after the attack: status %d, want 200", s.name, st)
	}
}

// floodCase is one flood of frames that carry no payload.
type floodCase struct {
	name string
	// open runs once before the flood (a stream it needs).
	open func(c *testenv.H2Client)
	// frame writes one frame of the flood.
	frame func(c *testenv.H2Client, fr *http2.Framer, i int)
}

var floodCases = []floodCase{
	{name: "empty_continuation",
		open: func(c *testenv.H2Client) {
			c.Framer().WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: c.HeaderBlock("GET", "/hello.txt"), EndStream: true})
		},
		frame: func(c *testenv.H2Client, fr *http2.Framer, i int) { fr.WriteContinuation(1, false, nil) }},
	{name: "settings",
		frame: func(c *testenv.H2Client, fr *http2.Framer, i int) { fr.WriteSettings() }},
	{name: "ping",
		frame: func(c *testenv.H2Client, fr *http2.Framer, i int) { fr.WritePing(false, [8]byte{byte(i)}) }},
	{name: "priority",
		frame: func(c *testenv.H2Client, fr *http2.Framer, i int) {
			fr.WritePriority(uint32(2*i+1), http2.PriorityParam{StreamDep: 0, Weight: 15})
		}},
	{name: "window_update",
		frame: func(c *testenv.H2Client, fr *http2.Framer, i int) { fr.WriteWindowUpdate(0, 1) }},
	{name: "empty_data",
		open: func(c *testenv.H2Client) {
			c.Framer().WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: c.HeaderBlock("POST", "/hello.txt"), EndHeaders: true})
		},
		frame: func(c *testenv.H2Client, fr *http2.Framer, i int) { fr.WriteData(1, false, nil) }},
}

// TestH2FloodsClose: each flood of payload-free frames ends the connection
// on nginx, and on edge within the same order of frames, while the server
// goes on answering other connections.
func TestH2FloodsClose(t *testing.T) {
	e := newH2Env(t)
	for _, s := range []*h2Server{e.nginx(), e.edge()} {
		for _, fc := range floodCases {
			t.Run(s.name+"/"+fc.name, func(t *testing.T) {
				c := dialH2(t, s)
				if fc.open != nil {
					fc.open(c)
				}
				i := 0
				n := c.Flood(floodLimit, 2*waitTimeout, func(fr *http2.Framer) bool {
					fc.frame(c, fr, i)
					i++
					return true
				})
				if !c.WaitClosed(waitTimeout) {
					t.Fatalf("%s kept the connection open after %d %s frames", s.name, n, fc.name)
				}
				code, ok := c.GoAway()
				t.Logf("%s closed after %d frames (GOAWAY %v %v)", s.name, n, ok, code)
				checkServes(t, s)
			})
		}
	}
}

// rssGrowth runs attack and returns how much the server's resident memory
// grew, at its highest, while the attack ran.
func rssGrowth(t *testing.T, s *h2Server, attack func()) int64 {
	t.Helper()
	before, err := testenv.RSS(s.pid)
	if err != nil {
		t.Fatal(err)
	}
	var peak int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if rss, err := testenv.RSS(s.pid); err == nil && rss > peak {
				peak = rss
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	attack()
	close(stop)
	wg.Wait()
	if rss, err := testenv.RSS(s.pid); err == nil && rss > peak {
		peak = rss
	}
	t.Logf("%s: RSS %d MB before, %d MB at its peak", s.name, before>>20, peak>>20)
	return peak - before
}

// rapidReset runs clients goroutines, each on connections one after
// another, opening a stream for path and resetting it at once, up to
// perConn streams per connection and total streams in all.
func rapidReset(t *testing.T, s *h2Server, clients, perConn, total int, path string, reset bool) (conns, streams int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < clients; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if streams >= total {
					mu.Unlock()
					return
				}
				conns++
				mu.Unlock()
				c, err := testenv.DialH2(s.addr)
				if err != nil {
					t.Errorf("%s: %v", s.name, err)
					return
				}
				id := uint32(1)
				sent := c.Flood(perConn, 2*waitTimeout, func(fr *http2.Framer) bool {
					c.Request(id, "GET", path)
					if reset {
						fr.WriteRSTStream(id, http2.ErrCodeCancel)
					}
					id += 2
					return true
				})
				mu.Lock()
				streams += sent
				mu.Unlock()
				c.Close()
			}
		}()
	}
	wg.Wait()
	return conns, streams
}

// rssBound is how much a server's memory may grow under one of the
// stream attacks below: nginx's grew by a few MB.
const rssBound = 64 << 20

// TestH2RapidReset: four clients that reconnect and open and reset
// streams as fast as they can (1,000 per connection), against PHP and a
// static file, leave edge's memory within rssBound of where it started.
func TestH2RapidReset(t *testing.T) {
	e := newH2Env(t)
	s := e.edge()
	for _, path := range []string{"/hello.php", "/hello.txt"} {
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			var conns, streams int
			growth := rssGrowth(t, s, func() { conns, streams = rapidReset(t, s, 4, 1000, 300_000, path, true) })
			t.Logf("%d streams on %d connections", streams, conns)
			if growth > rssBound {
				t.Errorf("edge's RSS grew by %d MB, want at most %d MB", growth>>20, rssBound>>20)
			}
			checkServes(t, s)
		})
	}
}

// TestH2ManyStreams: without resets, 1,000 streams per connection from
// reconnecting clients leave edge's memory bounded too.
func TestH2ManyStreams(t *testing.T) {
	e := newH2Env(t)
	s := e.edge()
	var conns, streams int
	growth := rssGrowth(t, s, func() { conns, streams = rapidReset(t, s, 4, 1000, 40_000, "/hello.php", false) })
	t.Logf("%d streams on %d connections", streams, conns)
	if growth > rssBound {
		t.Errorf("edge's RSS grew by %d MB, want at most %d MB", growth>>20, rssBound>>20)
	}
	checkServes(t, s)
}

// TestH2HugeHeader: a header larger than the header buffers (nginx: 4 x
// 8 KiB) never reaches PHP; nginx closes the connection.
func TestH2HugeHeader(t *testing.T) {
	e := newH2Env(t)
	for _, s := range []*h2Server{e.nginx(), e.edge()} {
		for _, size := range []int{60 << 10, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%dKiB", s.name, size>>10), func(t *testing.T) {
				c := dialH2(t, s)
				block := c.HeaderBlock("GET", "/big.php", "x-big", strings.Repeat("a", size))
				fr := c.Framer()
				first := true
				for len(block) > 0 && !c.Closed() {
					n := min(len(block), 16<<10)
					if first {
						fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block[:n], EndStream: true, EndHeaders: n == len(block)})
						first = false
					} else {
						fr.WriteContinuation(1, n == len(block), block[:n])
					}
					block = block[n:]
					if c.Flush() != nil {
						break
					}
				}
				st, reset := c.WaitStatus(1, waitTimeout)
				if st == 200 {
					t.Fatalf("%s served the request with a %d KiB header", s.name, size>>10)
				}
				code, ok := c.GoAway()
				t.Logf("%s: status %d, reset %v, closed %v, GOAWAY %v %v", s.name, st, reset, c.Closed(), ok, code)
				checkServes(t, s)
			})
		}
	}
}

// TestH2PathWithSpace: a :path with a space gets 400, as from nginx; one
// with a control character gets 400 from nginx and a stream reset from
// edge (x/net/http2 refuses the field value itself, RFC 9113 8.2.1):
// neither server serves it.
func TestH2PathWithSpace(t *testing.T) {
	e := newH2Env(t)
	for _, s := range []*h2Server{e.nginx(), e.edge()} {
		for i, path := range []string{"/hello.txt x", "/hello.txt\x01", "/hello\x7f.txt", "/hello.txt\t"} {
			c := dialH2(t, s)
			c.Request(1, "GET", path)
			c.Flush()
			st, reset := c.WaitStatus(1, waitTimeout)
			ok := st == 400 || reset && s.name == "edge" && i > 0
			if !ok {
				t.Errorf("%s: case %d :path %q: status %d (reset %v), want 400", s.name, i, path, st, reset)
			}
		}
	}
}

// TestH2KeepaliveRequests: after keepalive_requests streams the server
// says GOAWAY (nginx since 1.19.7 applies keepalive_requests to HTTP/2):
// the streams it accepted are answered, later ones are not, and a client
// that goes on opening streams is cut off.
func TestH2KeepaliveRequests(t *testing.T) {
	e := newH2Env(t)
	e.extra = "keepalive_requests 20;"
	for _, s := range []*h2Server{e.nginx(), e.edge()} {
		c := dialH2(t, s)
		id := uint32(1)
		for i := 0; i < 20; i++ {
			c.Request(id, "GET", "/hello.txt")
			c.Flush()
			if st, _ := c.WaitStatus(id, waitTimeout); st != 200 {
				t.Fatalf("%s: request %d: status %d, want 200", s.name, i+1, st)
			}
			id += 2
		}
		if code, ok := c.GoAway(); !ok || code != http2.ErrCodeNo {
			// The GOAWAY may trail the last response by a moment.
			waitFor(t, s.name+"'s GOAWAY", func() bool { _, ok := c.GoAway(); return ok || c.Closed() })
			code, ok = c.GoAway()
			if !ok || code != http2.ErrCodeNo {
				t.Fatalf("%s: GOAWAY %v %v after 20 requests, want NO_ERROR", s.name, ok, code)
			}
		}
		c.Request(id, "GET", "/hello.txt")
		c.Flush()
		if st, _ := c.WaitStatus(id, time.Second); st != 0 {
			t.Errorf("%s: a stream after the GOAWAY got status %d", s.name, st)
		}
		// A client that ignores the GOAWAY altogether is cut off.
		n := c.Flood(floodLimit, 2*waitTimeout, func(fr *http2.Framer) bool {
			id += 2
			return c.Request(id, "GET", "/hello.txt") == nil
		})
		if !c.WaitClosed(waitTimeout) {
			t.Errorf("%s kept the connection open after %d more streams", s.name, n)
		}
		t.Logf("%s closed after %d streams past the GOAWAY", s.name, n)
	}
}

// TestH2InvalidHeaderNames: over HTTP/2 too, a header name nginx finds
// invalid (with "." or "_") is dropped by default, so that it cannot pass
// for X-Forwarded-For; the real one reaches PHP.
func TestH2InvalidHeaderNames(t *testing.T) {
	e := newH2Env(t)
	for _, s := range []*h2Server{e.nginx(), e.edge()} {
		for i, tc := range []struct {
			extra []string
			want  string
		}{
			{[]string{"x.forwarded-for", "6.6.6.6"}, "xff=none"},
			{[]string{"x_forwarded_for", "6.6.6.6"}, "xff=none"},
			{[]string{"x.forwarded-for", "6.6.6.6", "x-forwarded-for", "1.2.3.4"}, "xff=1.2.3.4"},
		} {
			c := dialH2(t, s)
			c.Request(1, "GET", "/xff.php", tc.extra...)
			c.Flush()
			if st, body := c.Response(1, waitTimeout); st != 200 || strings.TrimSpace(body) != tc.want {
				t.Errorf("%s: case %d %q: %d %q, want 200 %q", s.name, i, tc.extra, st, body, tc.want)
			}
		}
	}
}

// TestH2MaxHeaders: max_headers (1000 by default) holds over HTTP/2 as
// nginx applies it: 999 fields are served, 1001 get 400.
func TestH2MaxHeaders(t *testing.T) {
	e := newH2Env(t)
	for _, s := range []*h2Server{e.nginx(), e.edge()} {
		for _, tc := range []struct{ n, want int }{{999, 200}, {1001, 400}} {
			c := dialH2(t, s)
			var extra []string
			for i := 0; i < tc.n; i++ {
				extra = append(extra, fmt.Sprintf("x-h%d", i), "v")
			}
			c.Request(1, "GET", "/hello.txt", extra...)
			c.Flush()
			if st, _ := c.WaitStatus(1, waitTimeout); st != tc.want {
				t.Errorf("%s: %d header fields: status %d, want %d", s.name, tc.n, st, tc.want)
			}
		}
	}
}

// TestH2MaxConcurrentStreams: http2_max_concurrent_streams is the
// SETTINGS_MAX_CONCURRENT_STREAMS both servers announce (128 when
// unset).
func TestH2MaxConcurrentStreams(t *testing.T) {
	for _, tc := range []struct {
		extra string
		want  uint32
	}{{"", 128}, {"http2_max_concurrent_streams 7;", 7}} {
		e := newH2Env(t)
		e.extra = tc.extra
		for _, s := range []*h2Server{e.nginx(), e.edge()} {
			c := dialH2(t, s)
			got, ok := c.Setting(http2.SettingMaxConcurrentStreams, waitTimeout)
			if !ok || got != tc.want {
				t.Errorf("%s with %q announces %d (given: %v), want %d", s.name, tc.extra, got, ok, tc.want)
			}
		}
	}
}
