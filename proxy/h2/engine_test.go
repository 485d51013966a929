// Tests of HTTP/2 flow control, both directions, against the process's
// engine (EDGE_H2_ENGINE picks x/net/http2's).

package h2_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"edge/proxy/internal/plantest"
	"edge/proxy/internal/servetest"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// rawH2 is a client that writes frames by hand and keeps to the
// server's flow-control windows for the bodies it sends.
type rawH2 struct {
	t      *testing.T
	c      net.Conn
	fr     *http2.Framer
	dec    *hpack.Decoder
	window int64 // the server's initial stream window
}

// dialRaw opens an h2c connection announcing settings.
func dialRaw(t *testing.T, addr string, settings ...http2.Setting) *rawH2 {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(c, http2.ClientPreface)
	cl := &rawH2{t: t, c: c, fr: http2.NewFramer(c, c), dec: hpack.NewDecoder(4096, nil), window: 65535}
	cl.fr.WriteSettings(settings...)
	for {
		f, err := cl.fr.ReadFrame()
		if err != nil {
			t.Fatalf("reading the server's SETTINGS: %v", err)
		}
		if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
			if v, ok := sf.Value(http2.SettingInitialWindowSize); ok {
				cl.window = int64(v)
			}
			cl.fr.WriteSettingsAck()
			return cl
		}
	}
}

func (cl *rawH2) request(id uint32, method, path string, end bool, extra ...string) {
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	fields := []string{":method", method, ":scheme", "http", ":path", path, ":authority", "localhost"}
	fields = append(fields, extra...)
	for i := 0; i < len(fields); i += 2 {
		enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	if err := cl.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndHeaders: true, EndStream: end}); err != nil {
		cl.t.Fatal(err)
	}
}

// TestH2SendWindow: a response larger than the client's stream
// window stops at the window and goes on with each WINDOW_UPDATE (RFC
// 9113 6.9), as frames no larger than what the window allows.
func TestH2SendWindow(t *testing.T) {
	body := strings.Repeat("0123456789abcdef", 256) // 4 KiB
	root := plantest.Root(t, map[string]string{"4k.txt": body})
	addr := servetest.Serve(t, plantest.Load(t, root, `error_log stderr emerg;
events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080 http2;
        root `+root+`/html;
    }
}
`))
	const window = 1000
	cl := dialRaw(t, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: window})
	cl.request(1, "GET", "/4k.txt", true)
	var got []byte
	allowed := window
	for {
		f, err := cl.fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %d bytes: %v", len(got), err)
		}
		switch f := f.(type) {
		case *http2.HeadersFrame:
			fields, _ := cl.dec.DecodeFull(f.HeaderBlockFragment())
			if len(fields) == 0 || fields[0].Value != "200" {
				t.Fatalf("response head %v", fields)
			}
		case *http2.DataFrame:
			got = append(got, f.Data()...)
			if len(got) > allowed {
				t.Fatalf("%d bytes sent with a window of %d", len(got), allowed)
			}
			if f.StreamEnded() {
				if string(got) != body {
					t.Fatalf("body of %d bytes differs", len(got))
				}
				return
			}
			if len(got) == allowed {
				// The window is used up: open it by another 1000.
				allowed += window
				cl.fr.WriteWindowUpdate(1, window)
			}
		case *http2.RSTStreamFrame, *http2.GoAwayFrame:
			t.Fatalf("after %d bytes: %v", len(got), f)
		}
	}
}

// TestH2RequestBody: a request body several times the server's
// stream window reaches the upstream whole: the server gives the window
// back as it reads, and the client never sends past it.
func TestH2RequestBody(t *testing.T) {
	up := plantest.Loopback(t, func(c net.Conn, _ int) {
		br := bufio.NewReader(c)
		head, err := plantest.ReadHead(br)
		if err != nil {
			return
		}
		n := 0
		for _, line := range strings.Split(head, "\r\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return
		}
		sum := 0
		for _, x := range b {
			sum += int(x)
		}
		reply := fmt.Sprintf("%d %d", n, sum)
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(reply), reply)
	})
	addr := servetest.Serve(t, plantest.Load(t, t.TempDir(), `error_log stderr emerg;
events {}
http {
    access_log off;
    client_max_body_size 10m;
    server {
        listen 127.0.0.1:8080 http2;
        location / { proxy_pass http://`+up+`; }
    }
}
`))
	cl := dialRaw(t, addr)
	const size = 300 << 10
	body := make([]byte, size)
	sum := 0
	for i := range body {
		body[i] = byte(i * 7)
		sum += int(body[i])
	}
	cl.request(1, "POST", "/upload", false, "content-length", strconv.Itoa(size))
	streamWin, connWin := cl.window, int64(65535)
	sent := 0
	var status string
	var reply []byte
	for {
		for sent < size && streamWin > 0 && connWin > 0 {
			n := int(min(int64(size-sent), streamWin, connWin, 16384))
			if err := cl.fr.WriteData(1, sent+n == size, body[sent:sent+n]); err != nil {
				t.Fatal(err)
			}
			sent += n
			streamWin -= int64(n)
			connWin -= int64(n)
		}
		f, err := cl.fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %d bytes sent: %v", sent, err)
		}
		switch f := f.(type) {
		case *http2.WindowUpdateFrame:
			if f.StreamID == 0 {
				connWin += int64(f.Increment)
			} else {
				streamWin += int64(f.Increment)
			}
		case *http2.HeadersFrame:
			fields, _ := cl.dec.DecodeFull(f.HeaderBlockFragment())
			status = fields[0].Value
		case *http2.DataFrame:
			reply = append(reply, f.Data()...)
			if f.StreamEnded() {
				if want := fmt.Sprintf("%d %d", size, sum); status != "200" || string(reply) != want {
					t.Fatalf("%s %q, want 200 %q", status, reply, want)
				}
				return
			}
		case *http2.RSTStreamFrame, *http2.GoAwayFrame:
			t.Fatalf("after %d bytes sent: %v", sent, f)
		}
	}
}

// TestH2KeepaliveRequestsInFlight: past keepalive_requests the GOAWAY
// names the last stream the server read, and every stream up to it is
// answered, however many are in flight; x/net/http2's client retries the
// later ones on a new connection, so no request fails.
func TestH2KeepaliveRequestsInFlight(t *testing.T) {
	root := plantest.Root(t, map[string]string{"a.txt": "a\n"})
	addr := servetest.Serve(t, plantest.Load(t, root, `error_log stderr emerg;
events {}
http {
    access_log off;
    keepalive_requests 20;
    server {
        listen 127.0.0.1:8080 http2;
        root `+root+`/html;
    }
}
`))
	tr := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, a string, _ *tls.Config) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				resp, err := client.Get("http://localhost/a.txt")
				if err != nil {
					errs <- err
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || string(b) != "a\n" {
					errs <- fmt.Errorf("status %d, body %q", resp.StatusCode, b)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestH2CutBodyResets: a body that fails on the server's side after
// part of it went out (an SSI include answered 444 after 2.9 KB of
// output) ends its stream with RST_STREAM INTERNAL_ERROR, not with
// END_STREAM, so that the client can tell it was cut, as nginx's does.
func TestH2CutBodyResets(t *testing.T) {
	page := strings.Repeat("long text before the include\n", 100) + `[<!--#include virtual="/close" -->]after`
	root := plantest.Root(t, map[string]string{"cut.html": page})
	addr := servetest.Serve(t, plantest.Load(t, root, `error_log stderr emerg;
events {}
http {
    access_log off;
    default_type text/html;
    server {
        listen 127.0.0.1:8080 http2;
        root `+root+`/html;
        ssi on;
        location = /close { return 444; }
    }
}
`))
	cl := dialRaw(t, addr)
	cl.request(1, "GET", "/cut.html", true)
	var got int
	for {
		f, err := cl.fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %d bytes: %v", got, err)
		}
		switch f := f.(type) {
		case *http2.DataFrame:
			got += len(f.Data())
			if f.StreamEnded() {
				t.Fatalf("the stream ended normally after %d bytes", got)
			}
		case *http2.RSTStreamFrame:
			if f.ErrCode != http2.ErrCodeInternal || got < 2900 {
				t.Fatalf("RST_STREAM %v after %d bytes, want INTERNAL_ERROR after the 2.9 KB before the include", f.ErrCode, got)
			}
			return
		case *http2.GoAwayFrame:
			t.Fatalf("GOAWAY after %d bytes", got)
		}
	}
}

// TestH2GracefulStop: a graceful stop sends each HTTP/2 connection a
// GOAWAY (NO_ERROR) naming the last stream it took, lets a stream in
// flight finish, then closes the connection, as nginx's exiting worker
// does; the stop returns without cutting anything.
func TestH2GracefulStop(t *testing.T) {
	if os.Getenv("EDGE_H2_ENGINE") == "xnet" {
		t.Skip("EDGE_H2_ENGINE=xnet: the x/net fallback has no graceful drain (docs/architecture.md)")
	}
	release, arrived := make(chan struct{}), make(chan struct{}, 1)
	up := plantest.Loopback(t, func(c net.Conn, _ int) {
		br := bufio.NewReader(c)
		if _, err := plantest.ReadHead(br); err != nil {
			return
		}
		arrived <- struct{}{}
		<-release
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nslow\n")
	})
	root := plantest.Root(t, nil)
	srv, addr := servetest.Start(t, plantest.Load(t, root, `error_log stderr emerg;
events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080 http2;
        root `+root+`/html;
        location /slow { proxy_pass http://`+up+`; }
    }
}
`))
	cl := dialRaw(t, addr)
	cl.request(1, "GET", "/slow", true)
	idle := dialRaw(t, addr) // a connection with no stream
	// The stop comes once stream 1 is open (its request is upstream),
	// else its GOAWAY names no stream.
	<-arrived
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		stopped <- srv.Shutdown(ctx)
	}()
	if ga, err := cl.goAway(); err != nil || ga.ErrCode != http2.ErrCodeNo || ga.LastStreamID != 1 {
		t.Fatalf("after the stop: %v (%v), want GOAWAY NO_ERROR naming stream 1", ga, err)
	}
	close(release)
	var body []byte
	for done := false; !done; {
		f, err := cl.fr.ReadFrame()
		if err != nil {
			t.Fatalf("stream 1 after the GOAWAY: %v (%d bytes)", err, len(body))
		}
		if d, ok := f.(*http2.DataFrame); ok {
			body = append(body, d.Data()...)
			done = d.StreamEnded()
		}
	}
	if string(body) != "slow\n" {
		t.Errorf("stream 1 after the GOAWAY: body %q", body)
	}
	if _, err := cl.fr.ReadFrame(); err == nil {
		t.Error("the connection stays open after its last stream")
	}
	if ga, err := idle.goAway(); err != nil || ga.ErrCode != http2.ErrCodeNo || ga.LastStreamID != 0 {
		t.Errorf("the idle connection: %v (%v), want GOAWAY NO_ERROR naming no stream", ga, err)
	}
	if err := <-stopped; err != nil {
		t.Errorf("the stop: %v", err)
	}
}

// goAway reads up to the server's GOAWAY, past its control frames
// (SETTINGS, its acknowledgement, WINDOW_UPDATE); any other frame before
// it is an error.
func (cl *rawH2) goAway() (*http2.GoAwayFrame, error) {
	for {
		f, err := cl.fr.ReadFrame()
		if err != nil {
			return nil, err
		}
		switch f := f.(type) {
		case *http2.GoAwayFrame:
			return f, nil
		case *http2.SettingsFrame, *http2.WindowUpdateFrame:
		default:
			return nil, fmt.Errorf("%v before the GOAWAY", f)
		}
	}
}

// TestH2CompressedUnsized: a gzip-compressed answer has no
// content-length, as nginx's (its filter compresses as it sends); the
// identity one has its length. Edge's own engine: x/net/http2 adds a
// content-length itself to a body the handler wrote whole.
func TestH2CompressedUnsized(t *testing.T) {
	if os.Getenv("EDGE_H2_ENGINE") == "xnet" {
		t.Skip("x/net/http2 sends a content-length of its own for a body written whole")
	}
	body := strings.Repeat("compressible text\n", 200)
	root := plantest.Root(t, map[string]string{"a.txt": body})
	addr := servetest.Serve(t, plantest.Load(t, root, `error_log stderr emerg;
events {}
http {
    access_log off;
    gzip on;
    gzip_types text/plain;
    server {
        listen 127.0.0.1:8080 http2;
        root `+root+`/html;
    }
}
`))
	tr := &http2.Transport{AllowHTTP: true, DisableCompression: true,
		DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}
	defer tr.CloseIdleConnections()
	for _, ae := range []string{"", "gzip"} {
		for _, method := range []string{"GET", "HEAD"} {
			req, _ := http.NewRequest(method, "http://"+addr+"/a.txt", nil)
			if ae != "" {
				req.Header.Set("Accept-Encoding", ae)
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			cl := resp.Header.Get("Content-Length")
			if resp.Header.Get("Content-Encoding") != ae || (ae == "") != (cl != "") {
				t.Errorf("%s, Accept-Encoding %q: Content-Encoding %q, content-length %q (%d bytes)",
					method, ae, resp.Header.Get("Content-Encoding"), cl, len(b))
			}
		}
	}
}
