// This file tests that the timeouts nginx reads from a request's location
// (send_timeout, keepalive_timeout) are that location's, not the default
// server's: a site whose default is long and whose /short/ location is
// short must time out under /short/ only, over HTTP and HTTPS. HTTP/2,
// whose streams share a connection, takes send_timeout from the default
// server.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"edge/testenv"
)

// timeoutsConf keeps connections for long by default and briefly under
// /short/, on a plain listener and on a TLS one ({{TLS}}: its port and
// certificate).
const timeoutsConf = `daemon off;
error_log logs/error.log info;
events { worker_connections 256; }
http {
    access_log logs/access.log;
    keepalive_timeout 300s;
    send_timeout 300s;
    server {
        listen 127.0.0.1:{{PORT}};
        {{TLS}}
        root html;
        location /short/ {
            keepalive_timeout 1s;
            send_timeout 1s;
        }
    }
}
`

// newTimeoutsSite writes conf with a TLS listener on its own port in place
// of {{TLS}} and returns the site and that port's address.
func newTimeoutsSite(t *testing.T, conf string) (*site, string) {
	t.Helper()
	tlsPort := testenv.FreePort(t)
	s := newSite(t, conf)
	cert, key := testenv.NewPKI(t, s.dir).Leaf(t, "localhost", false, "localhost")
	s.writeConf(strings.Replace(conf, "{{TLS}}", fmt.Sprintf("listen 127.0.0.1:%d ssl; ssl_certificate %s; ssl_certificate_key %s;", tlsPort, cert, key), 1))
	return s, net.JoinHostPort("127.0.0.1", strconv.Itoa(tlsPort))
}

// TestLocationSendTimeout: a client that reads nothing has its response
// cut after the location's send_timeout, over HTTP and over HTTPS, while
// one served by the default location still gets all of it.
func TestLocationSendTimeout(t *testing.T) {
	s, tlsAddr := newTimeoutsSite(t, timeoutsConf)
	writeBigFile(t, s.path("html/big.bin"), bigFileSize)
	if err := os.MkdirAll(s.path("html/short"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeBigFile(t, s.path("html/short/big.bin"), bigFileSize)
	s.start()
	insecure := &tls.Config{InsecureSkipVerify: true}
	downloads := []struct {
		name string
		dl   *slowDownload
		cut  bool
	}{
		{"http default", startSlowDownload(t, s.addr, "/big.bin"), false},
		{"http /short/", startSlowDownload(t, s.addr, "/short/big.bin"), true},
		{"https default", startSlowDownloadOver(t, tlsAddr, "/big.bin", insecure), false},
		{"https /short/", startSlowDownloadOver(t, tlsAddr, "/short/big.bin", insecure), true},
	}
	// None of the clients reads; edge logs each response it gives up on,
	// naming the request as nginx does although fasthttp writes the
	// response after the handler has returned.
	waitFor(t, "two send timeouts in the error log", func() bool {
		b, _ := os.ReadFile(s.errorLog())
		return strings.Count(string(b), "client timed out (110: Connection timed out) while sending response to client") == 2
	})
	b, _ := os.ReadFile(s.errorLog())
	if n := strings.Count(string(b), `while sending response to client, client: 127.0.0.1, server: , request: "GET /short/big.bin HTTP/1.1", host: "localhost"`); n != 2 {
		t.Errorf("%d send timeouts name the request, want 2:\n%s", n, b)
	}
	for _, d := range downloads {
		n, err := d.dl.finish()
		if d.cut && (n >= bigFileSize || err == nil) {
			t.Errorf("%s (send_timeout 1s): read %d of %d bytes (%v), want the response cut", d.name, n, bigFileSize, err)
		}
		if !d.cut && (n != bigFileSize || err != nil) {
			t.Errorf("%s (send_timeout 300s): read %d of %d bytes (%v), want all of it", d.name, n, bigFileSize, err)
		}
	}
}

func TestLocationKeepaliveTimeout(t *testing.T) {
	s, _ := newTimeoutsSite(t, timeoutsConf)
	s.write("html/index.html", "home")
	s.write("html/short/index.html", "short")
	s.start()
	long, short := keptConn(t, s.addr, "/", "home"), keptConn(t, s.addr, "/short/", "short")
	// edge closes the connection whose last request was under /short/...
	short.SetReadDeadline(time.Now().Add(waitTimeout))
	if n, err := short.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("after /short/ (keepalive_timeout 1s): read %d, %v; want edge to close the idle connection", n, err)
	}
	// ...and keeps the other one open for its next request.
	askKept(t, long, "/", "home")
}

// h2TimeoutConf serves HTTP/2 over TLS with a short send_timeout in its
// default server, which an HTTP/2 connection takes it from.
const h2TimeoutConf = `daemon off;
error_log logs/error.log info;
events { worker_connections 256; }
http {
    access_log logs/access.log;
    server {
        listen 127.0.0.1:{{PORT}};
        {{TLS}}
        http2 on;
        send_timeout 1s;
        root html;
    }
}
`

// TestHTTP2SendTimeout: an HTTP/2 client that stops reading the socket
// has its connection closed after send_timeout.
func TestHTTP2SendTimeout(t *testing.T) {
	s, tlsAddr := newTimeoutsSite(t, h2TimeoutConf)
	writeBigFile(t, s.path("html/big.bin"), bigFileSize)
	s.start()
	var sc *stallConn
	tr := &http.Transport{
		ForceAttemptHTTP2: true,
		// A window larger than the file: the server is held back by the
		// socket, not by flow control.
		HTTP2: &http.HTTP2Config{MaxReceiveBufferPerConnection: 1 << 30, MaxReceiveBufferPerStream: 1 << 30},
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := net.Dial(network, addr)
			if err != nil {
				return nil, err
			}
			sc = &stallConn{Conn: c, release: make(chan struct{})}
			tc := tls.Client(sc, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
			return tc, tc.HandshakeContext(ctx)
		},
	}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 2 * waitTimeout}).Get("https://" + tlsAddr + "/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 {
		t.Fatalf("%s %d, want HTTP/2 200", resp.Proto, resp.StatusCode)
	}
	sc.stall()
	// edge's handler finds the connection gone and logs the request.
	waitLog(t, s.accessLog(), `"GET /big.bin HTTP/2.0" 200`)
	close(sc.release)
	if n, err := io.Copy(io.Discard, resp.Body); n >= bigFileSize || err == nil {
		t.Errorf("read %d of %d bytes (%v), want the response cut", n, bigFileSize, err)
	}
}

// stallConn stops reading once stall is called, until release is closed.
type stallConn struct {
	net.Conn
	stalled atomic.Bool
	release chan struct{}
}

func (c *stallConn) stall() { c.stalled.Store(true) }

func (c *stallConn) Read(p []byte) (int, error) {
	if c.stalled.Load() {
		<-c.release
	}
	return c.Conn.Read(p)
}

// keptConn opens a connection, makes one keep-alive request on it and
// checks the answer.
func keptConn(t *testing.T, addr, path, want string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, waitTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	askKept(t, c, path, want)
	return c
}

func askKept(t *testing.T, c net.Conn, path, want string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(waitTimeout))
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	// One byte at a time, so that nothing past the response is consumed.
	resp, err := http.ReadResponse(bufio.NewReaderSize(oneByteReader{c}, 16), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 || string(body) != want || resp.Close {
		t.Fatalf("GET %s: %d %q (%v), close %v; want 200 %q kept open", path, resp.StatusCode, body, err, resp.Close, want)
	}
}

type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

// TestResponsesAroundWriteBuffer fetches files on either side of the
// HTTP/1 write buffer (16 KiB; a longer response leaves its first write
// with MSG_MORE) one after another on one kept connection, with HEAD
// requests between them: each must arrive whole and the connection must
// stay usable.
func TestResponsesAroundWriteBuffer(t *testing.T) {
	s := newSite(t, siteConf(""))
	sizes := []int{100, 16<<10 - 300, 16<<10 - 1, 16 << 10, 16<<10 + 1, 64 << 10, 100000, 3 << 20}
	for _, n := range sizes {
		s.write(fmt.Sprintf("html/f%d.bin", n), strings.Repeat(string(rune('a'+n%26)), n))
	}
	s.start()
	c, err := net.DialTimeout("tcp", s.addr, waitTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * waitTimeout))
	br := bufio.NewReader(c)
	for round := range 2 {
		for _, n := range sizes {
			for _, method := range []string{"GET", "HEAD"} {
				path := fmt.Sprintf("/f%d.bin", n)
				if _, err := io.WriteString(c, method+" "+path+" HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
					t.Fatal(err)
				}
				resp, err := http.ReadResponse(br, &http.Request{Method: method})
				if err != nil {
					t.Fatalf("round %d: %s %s: %v", round, method, path, err)
				}
				body, err := io.ReadAll(resp.Body)
				want := strings.Repeat(string(rune('a'+n%26)), n)
				if method == "HEAD" {
					want = ""
				}
				if err != nil || resp.StatusCode != 200 || string(body) != want || resp.ContentLength != int64(n) {
					t.Fatalf("round %d: %s %s: %d, %d of %d bytes, Content-Length %d (%v)", round, method, path, resp.StatusCode, len(body), len(want), resp.ContentLength, err)
				}
			}
		}
	}
}

// TestH2CPriorKnowledge serves HTTP/2 without TLS on a plain listener
// with http2 on, the path that goes through the peeked-connection
// wrapper, and the same listener still serves HTTP/1.1. A stream that
// "return 444" drops is reset and logged, and the streams after it are
// served.
func TestH2CPriorKnowledge(t *testing.T) {
	s := newSite(t, siteConf("http2 on; location = /drop { return 444; }"))
	s.write("html/small.txt", "small")
	writeBigFile(t, s.path("html/big.bin"), 1<<20)
	s.start()
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &protos}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: waitTimeout}
	for _, path := range []string{"/small.txt", "/drop", "/big.bin", "/drop", "/small.txt"} {
		resp, err := c.Get("http://" + s.addr + path)
		if path == "/drop" {
			if err == nil {
				resp.Body.Close()
				t.Fatalf("GET /drop over h2c: %s %d; want the stream reset", resp.Proto, resp.StatusCode)
			}
			continue
		}
		if err != nil {
			t.Fatalf("GET %s over h2c: %v", path, err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.ProtoMajor != 2 || resp.StatusCode != 200 || n != resp.ContentLength {
			t.Fatalf("GET %s over h2c: %s %d, %d of %d bytes (%v)", path, resp.Proto, resp.StatusCode, n, resp.ContentLength, err)
		}
	}
	if resp := s.get("/small.txt"); resp.Status != 200 || string(resp.Body) != "small" {
		t.Errorf("HTTP/1.1 on the h2c listener: %d %q", resp.Status, resp.Body)
	}
	waitFor(t, "two 444 lines in the access log", func() bool {
		b, _ := os.ReadFile(s.accessLog())
		return strings.Count(string(b), `"GET /drop HTTP/2.0" 444`) == 2
	})
}

// TestClientHeaderTimeout: a client that sends nothing, or stops in the
// middle of its headers or of a body that is read (proxy_pass reads it
// before it connects), is cut off with no answer after
// client_header_timeout (client_body_timeout for the body), as nginx
// does; the last two are logged with 408 (a connection without a request
// is not). A location that does not read the body answers at once, as
// nginx's does (TestAnswerBeforeBody in proxy/h1).
func TestClientHeaderTimeout(t *testing.T) {
	// Port 9 is never connected to: the body does not come.
	s := newSite(t, siteConf("client_header_timeout 1s; client_body_timeout 1s; location /up { proxy_pass http://127.0.0.1:9; }"))
	s.start()
	for _, tc := range []struct{ name, sent, logged string }{
		{"nothing", "", "while waiting for request"},
		{"headers", "GET /x HTTP/1.1\r\nHost: localhost\r\n", "while reading client request headers"},
		{"body", "POST /up HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nabc", "while reading client request body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.DialTimeout("tcp", s.addr, waitTimeout)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(waitTimeout))
			io.WriteString(c, tc.sent)
			if got, err := io.ReadAll(c); len(got) != 0 || err != nil {
				t.Errorf("edge answered %q (%v); want the connection closed without an answer", got, err)
			}
			waitLog(t, s.errorLog(), "client timed out (110: Connection timed out) "+tc.logged)
		})
	}
	waitFor(t, "two 408 lines in the access log", func() bool {
		b, _ := os.ReadFile(s.accessLog())
		return strings.Count(string(b), `"" 408 0`) == 1 && strings.Count(string(b), `"POST /up HTTP/1.1" 408 0`) == 1
	})
}

// slowReaderConf has a short send_timeout on HTTP/1 over TCP and TLS
// ({{TLS}}) and on HTTP/2 over TLS ({{H2}}).
const slowReaderConf = `daemon off;
error_log logs/error.log info;
events { worker_connections 256; }
http {
    access_log logs/access.log;
    send_timeout 1s;
    server {
        listen 127.0.0.1:{{PORT}};
        {{TLS}}
        root html;
    }
    server {
        {{H2}}
        http2 on;
        root html;
    }
}
`

// TestSendTimeoutSlowReader: a client that reads slowly but never stops
// for send_timeout gets the whole of a response that takes several
// send_timeouts to send, over HTTP/1 (TCP: sendfile; TLS) and HTTP/2: the
// timeout is between two writes that make progress, as in nginx.
func TestSendTimeoutSlowReader(t *testing.T) {
	h2Port := testenv.FreePort(t)
	s, tlsAddr := newTimeoutsSite(t, slowReaderConf)
	cert, key := filepath.Join(s.dir, "localhost.crt"), filepath.Join(s.dir, "localhost.key")
	conf, _ := os.ReadFile(s.conf)
	s.write("edge.conf", strings.Replace(string(conf), "{{H2}}",
		fmt.Sprintf("listen 127.0.0.1:%d ssl; ssl_certificate %s; ssl_certificate_key %s;", h2Port, cert, key), 1))
	// Far more than the socket buffers of both ends hold, so that the
	// server's writes wait for the reader.
	const size = 24 << 20
	writeBigFile(t, s.path("html/big.bin"), size)
	s.start()
	h2Addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(h2Port))
	slowDial := func(addr string) net.Conn {
		c, err := net.DialTimeout("tcp", addr, waitTimeout)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(4 * waitTimeout))
		c.(*net.TCPConn).SetReadBuffer(64 << 10)
		// 1 MiB, then a pause of a fifth of send_timeout: about 5 s for
		// the file, far longer than send_timeout and its second of slack.
		return &throttledConn{Conn: c, burst: 1 << 20, pause: 200 * time.Millisecond}
	}
	http1 := func(c net.Conn) (int64, error) {
		io.WriteString(c, "GET /big.bin HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		return io.Copy(io.Discard, resp.Body)
	}
	cases := map[string]func() (int64, error){
		"http": func() (int64, error) { return http1(slowDial(s.addr)) },
		"https": func() (int64, error) {
			return http1(tls.Client(slowDial(tlsAddr), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}}))
		},
		"h2": func() (int64, error) {
			tr := &http.Transport{
				ForceAttemptHTTP2: true,
				// A window larger than the file: the socket holds the
				// server back, not flow control.
				HTTP2: &http.HTTP2Config{MaxReceiveBufferPerConnection: 1 << 30, MaxReceiveBufferPerStream: 1 << 30},
				DialTLSContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
					tc := tls.Client(slowDial(addr), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
					return tc, tc.HandshakeContext(ctx)
				},
			}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Get("https://" + h2Addr + "/big.bin")
			if err != nil {
				return 0, err
			}
			defer resp.Body.Close()
			if resp.ProtoMajor != 2 {
				return 0, fmt.Errorf("answered over %s", resp.Proto)
			}
			return io.Copy(io.Discard, resp.Body)
		},
	}
	for name, fetch := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if n, err := fetch(); n != size || err != nil {
				t.Errorf("read %d of %d bytes (%v), want all of it", n, size, err)
			}
		})
	}
}

// throttledConn reads burst bytes, then pauses, and so on.
type throttledConn struct {
	net.Conn
	burst int
	pause time.Duration
	got   int
}

func (c *throttledConn) Read(p []byte) (int, error) {
	if c.got >= c.burst {
		time.Sleep(c.pause)
		c.got = 0
	}
	n, err := c.Conn.Read(p[:min(len(p), c.burst-c.got)])
	c.got += n
	return n, err
}
