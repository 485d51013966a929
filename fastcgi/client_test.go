// client_test.go runs Client against real FastCGI responders: Go's
// net/http/fcgi in-process, php-fpm 8.2 started by startFPM, and for
// faults no real responder can be made to produce on cue (a connection
// dropped at a given request, a backend that stops reading), rawServer.
package fastcgi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/fcgi"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"edge/testenv"
)

// testBackend is a responder that serves the scripts in phpScripts (or Go
// handlers that behave the same), with a Client factory and a way to fill
// a Request's params for it.
type testBackend struct {
	name   string
	client func() *Client
	fill   func(req *Request, method, script, query string, contentLength int)
}

func phpBackend(t *testing.T, maxChildren int) (*testBackend, *fpmPool) {
	p := startFPM(t, maxChildren)
	return &testBackend{name: "php-fpm", client: p.client, fill: p.request}, p
}

// goServer is net/http/fcgi serving handlers that mimic phpScripts.
type goServer struct {
	addr  string
	done  chan struct{} // closed when the test ends; blocked handlers return
	gate  chan struct{} // gate.php waits for a value here
	mu    sync.Mutex
	order []string // queries gate.php saw, in arrival order
}

func startGoServer(t *testing.T) (*testBackend, *goServer) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &goServer{addr: l.Addr().String(), done: make(chan struct{}), gate: make(chan struct{})}
	go fcgi.Serve(l, s.mux())
	t.Cleanup(func() { close(s.done); l.Close() })
	b := &testBackend{
		name:   "go-fcgi",
		client: func() *Client { return &Client{Network: "tcp", Address: s.addr} },
		fill:   goParams,
	}
	return b, s
}

func goParams(req *Request, method, script, query string, contentLength int) {
	req.Params.Reset()
	req.Params.Add("REQUEST_METHOD", method)
	req.Params.Add("SERVER_PROTOCOL", "HTTP/1.1")
	req.Params.Add("REQUEST_URI", "/"+script+"?"+query)
	req.Params.Add("QUERY_STRING", query)
	req.Params.Add("HTTP_HOST", "localhost")
	if contentLength >= 0 {
		req.Params.Add("CONTENT_LENGTH", strconv.Itoa(contentLength))
	}
}

func (s *goServer) mux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("/hello.php", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
	m.HandleFunc("/sha.php", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, _ := io.Copy(h, r.Body)
		w.Header().Set("X-Body-Length", strconv.FormatInt(n, 10))
		io.WriteString(w, hex.EncodeToString(h.Sum(nil)))
	})
	m.HandleFunc("/header.php", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("X-Big", strings.Repeat("a", n))
		io.WriteString(w, "ok")
	})
	m.HandleFunc("/stream.php", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		for {
			if _, err := os.Stat(r.URL.Query().Get("file")); err == nil {
				io.WriteString(w, "second\n")
				return
			}
			select {
			case <-s.done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	m.HandleFunc("/status.php", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["x-case-kept"] = []string{"yes"}
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "missing")
	})
	m.HandleFunc("/redirect.php", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://example.com/next")
		w.WriteHeader(http.StatusFound)
	})
	m.HandleFunc("/block.php", func(w http.ResponseWriter, r *http.Request) { <-s.done })
	m.HandleFunc("/gate.php", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.order = append(s.order, r.URL.RawQuery)
		s.mu.Unlock()
		select {
		case <-s.gate:
		case <-s.done:
		}
		io.WriteString(w, "passed")
	})
	return m
}

// fetch runs one request to completion and returns the response (already
// closed: only Status is still meaningful) and its body.
func fetch(t *testing.T, c *Client, req *Request) (status int, header map[string]string, body []byte) {
	t.Helper()
	resp, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	status = resp.Status
	header = map[string]string{}
	for _, f := range resp.Header {
		header[string(f.Name)] = string(f.Value)
	}
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	resp.Close()
	return status, header, body
}

func shaHex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func randomBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// onlyReader hides every method but Read, such as Seek and WriteTo.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// pipeBody yields data through an io.Pipe in uneven writes, so the client
// cannot know its length or seek it.
func pipeBody(data []byte) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		for i, n := 0, 1000; len(data) > 0; i, n = i+1, n*3%70001+1 {
			n = min(n, len(data))
			if _, err := pw.Write(data[:n]); err != nil {
				return
			}
			data = data[n:]
		}
		pw.Close()
	}()
	return pr
}

// TestBackends runs the same exchanges against Go's FastCGI server and
// php-fpm.
func TestBackends(t *testing.T) {
	goB, _ := startGoServer(t)
	phpB, _ := phpBackend(t, 2)
	for _, b := range []*testBackend{goB, phpB} {
		t.Run(b.name, func(t *testing.T) { testExchanges(t, b) })
	}
}

func testExchanges(t *testing.T, b *testBackend) {
	big := randomBytes(t, 20<<20)
	odd := randomBytes(t, 3<<20+17)
	small := randomBytes(t, 100)
	edge16k := randomBytes(t, inlineBody)
	tests := []struct {
		name       string
		method     string
		script     string
		query      string
		body       io.Reader
		bodyLen    int
		wantStatus int
		wantReason string
		wantHeader map[string]string
		wantBody   string
	}{
		{name: "hello", method: "GET", script: "hello.php", bodyLen: -1, wantStatus: 200, wantBody: "hello"},
		{name: "status and name case", method: "GET", script: "status.php", bodyLen: -1, wantStatus: 404,
			wantReason: "Not Found", wantHeader: map[string]string{"x-case-kept": "yes"}, wantBody: "missing"},
		{name: "redirect", method: "GET", script: "redirect.php", bodyLen: -1, wantStatus: 302,
			wantHeader: map[string]string{"Location": "http://example.com/next"}},
		{name: "32 KiB header line", method: "GET", script: "header.php", query: "n=32768", bodyLen: -1,
			wantStatus: 200, wantHeader: map[string]string{"X-Big": strings.Repeat("a", 32768)}, wantBody: "ok"},
		{name: "small body", method: "POST", script: "sha.php", body: bytes.NewReader(small), bodyLen: len(small),
			wantStatus: 200, wantHeader: map[string]string{"X-Body-Length": "100"}, wantBody: shaHex(small)},
		{name: "body of exactly the inline size", method: "POST", script: "sha.php", body: bytes.NewReader(edge16k),
			bodyLen: len(edge16k), wantStatus: 200, wantBody: shaHex(edge16k)},
		{name: "20 MiB body", method: "POST", script: "sha.php", body: bytes.NewReader(big), bodyLen: len(big),
			wantStatus: 200, wantHeader: map[string]string{"X-Body-Length": strconv.Itoa(len(big))}, wantBody: shaHex(big)},
		{name: "body of unknown length", method: "POST", script: "sha.php", body: pipeBody(odd), bodyLen: len(odd),
			wantStatus: 200, wantHeader: map[string]string{"X-Body-Length": strconv.Itoa(len(odd))}, wantBody: shaHex(odd)},
		{name: "empty body", method: "POST", script: "sha.php", body: strings.NewReader(""), bodyLen: 0,
			wantStatus: 200, wantBody: shaHex(nil)},
	}
	c := b.client()
	c.MaxIdle = 1
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req Request
			b.fill(&req, tt.method, tt.script, tt.query, tt.bodyLen)
			req.Body = tt.body
			status, header, body := fetch(t, c, &req)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d", status, tt.wantStatus)
			}
			for name, want := range tt.wantHeader {
				if got, ok := header[name]; !ok || got != want {
					t.Errorf("header %s = %.80q (present %v), want %.80q", name, got, ok, want)
				}
			}
			if string(body) != tt.wantBody {
				t.Errorf("body = %.200q, want %.200q", body, tt.wantBody)
			}
		})
	}
	t.Run("reason phrase", func(t *testing.T) {
		var req Request
		b.fill(&req, "GET", "status.php", "", -1)
		resp, err := c.Do(context.Background(), &req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Close()
		if string(resp.Reason) != "Not Found" {
			t.Errorf("reason = %q", resp.Reason)
		}
	})
	t.Run("streamed output", func(t *testing.T) { testStreaming(t, b) })
	if s := c.Stats(); s.Reused == 0 {
		t.Errorf("no connection reused: %+v", s)
	}
}

// testStreaming reads the first flushed chunk while the script still
// waits for a file that only the test creates after that read.
func testStreaming(t *testing.T, b *testBackend) {
	file := filepath.Join(t.TempDir(), "go-on")
	var req Request
	b.fill(&req, "GET", "stream.php", "file="+file, -1)
	c := b.client()
	resp, err := c.Do(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	br := bufio.NewReader(resp.Body)
	first, err := br.ReadString('\n')
	if err != nil || first != "first\n" {
		t.Fatalf("first chunk = %q, %v", first, err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(br)
	if err != nil || string(rest) != "second\n" {
		t.Fatalf("rest = %q, %v", rest, err)
	}
}

func TestPHPStderr(t *testing.T) {
	b, _ := phpBackend(t, 2)
	var lines []string
	var req Request
	b.fill(&req, "GET", "stderr.php", "", -1)
	req.Stderr = func(msg []byte) { lines = append(lines, string(msg)) }
	_, _, body := fetch(t, b.client(), &req)
	if string(body) != "body" {
		t.Errorf("body = %q", body)
	}
	// Messages without output between them share a record.
	want := []string{"PHP message: first message", "PHP message: second message; PHP message: multi\nline"}
	if !slices.Equal(lines, want) {
		t.Errorf("stderr lines = %q, want %q", lines, want)
	}
}

// TestPHPReuseDoesNotPin checks that kept connections are reused and that
// MaxIdle below pm.max_children never starves the pool.
func TestPHPReuseDoesNotPin(t *testing.T) {
	b, _ := phpBackend(t, 2)
	c := b.client()
	c.MaxIdle = 1
	for i := range 50 {
		var req Request
		b.fill(&req, "GET", "hello.php", "i="+strconv.Itoa(i), -1)
		if _, _, body := fetch(t, c, &req); string(body) != "hello" {
			t.Fatalf("request %d: body %q", i, body)
		}
	}
	if s := c.Stats(); s.Reused != 49 || s.Connects != 1 {
		t.Errorf("after 50 sequential requests: %+v, want 49 reused and 1 connect", s)
	}
	errs := make(chan error, 10)
	for i := range 10 {
		go func() {
			var req Request
			b.fill(&req, "GET", "sleep.php", "us=20000&i="+strconv.Itoa(i), -1)
			resp, err := c.Do(context.Background(), &req)
			if err == nil {
				var body []byte
				body, err = io.ReadAll(resp.Body)
				resp.Close()
				if err == nil && string(body) != "slept" {
					err = fmt.Errorf("body %q", body)
				}
			}
			errs <- err
		}()
	}
	for range 10 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if s := c.Stats(); s.Idle > 1 || s.InFlight != 0 {
		t.Errorf("after the concurrent requests: %+v", s)
	}
}

// TestPHPSharedIdleDoesNotPin has two Clients of one pool of two workers
// (two locations with different timeouts, say), each allowed one kept
// connection. Each keeping its own, they would pin both workers, and the
// next concurrent pair on either would wait for a worker until the read
// timeout; sharing one set of idle connections, at most one is kept.
func TestPHPSharedIdleDoesNotPin(t *testing.T) {
	b, _ := phpBackend(t, 2)
	shared := NewIdleConns(1)
	clients := make([]*Client, 2)
	for i := range clients {
		clients[i] = b.client()
		clients[i].MaxIdle, clients[i].Idle = 1, shared
		clients[i].ReadTimeout = time.Duration(10+i) * time.Second // a bound for a failure, never reached
	}
	for _, c := range clients {
		var req Request
		b.fill(&req, "GET", "hello.php", "", -1)
		if _, _, body := fetch(t, c, &req); string(body) != "hello" {
			t.Fatalf("body %q", body)
		}
	}
	if n := shared.Len(); n != 1 {
		t.Fatalf("%d idle connections kept, want 1", n)
	}
	if s := clients[1].Stats(); s.Reused != 1 || s.Idle != 1 {
		t.Errorf("second client: %+v, want the first client's connection reused", s)
	}
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			var req Request
			b.fill(&req, "GET", "sleep.php", "us=20000&i="+strconv.Itoa(i), -1)
			resp, err := clients[0].Do(context.Background(), &req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Close()
			if body, err := io.ReadAll(resp.Body); err != nil || string(body) != "slept" {
				t.Errorf("body %q, %v", body, err)
			}
		})
	}
	wg.Wait()
	shared.SetLimit(0)
	if n := shared.Len(); n != 0 {
		t.Errorf("SetLimit(0) left %d idle connections", n)
	}
}

func TestPHPReadTimeout(t *testing.T) {
	b, _ := phpBackend(t, 2)
	c := b.client()
	c.ReadTimeout = time.Second
	var req Request
	b.fill(&req, "GET", "sleep.php", "us=3000000", -1)
	_, err := c.Do(context.Background(), &req)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if s := c.Stats(); s.Timeouts != 1 || s.InFlight != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestPHPSaturation(t *testing.T) {
	b, _ := phpBackend(t, 2)
	c := b.client()
	c.MaxConns, c.MaxIdle = 2, 1
	var wg sync.WaitGroup
	var failed atomic.Int32
	for i := range 10 {
		wg.Go(func() {
			var req Request
			b.fill(&req, "GET", "sleep.php", "us=200000&i="+strconv.Itoa(i), -1)
			resp, err := c.Do(context.Background(), &req)
			if err != nil {
				t.Error(err)
				failed.Add(1)
				return
			}
			defer resp.Close()
			if body, err := io.ReadAll(resp.Body); err != nil || string(body) != "slept" {
				t.Errorf("body %q, %v", body, err)
			}
		})
	}
	wg.Wait()
	s := c.Stats()
	if s.Queued == 0 || s.QueueWaitMax == 0 || s.QueueWait < s.QueueWaitMax {
		t.Errorf("no queueing seen: %+v", s)
	}
	if s.InFlight != 0 || s.Waiting != 0 || s.Requests != 10 {
		t.Errorf("gauges not back to rest: %+v", s)
	}
}

// TestPHPBackendDown stops php-fpm under a kept connection: the stale
// connection must be noticed and the dead backend reported at once, with
// a single dial.
func TestPHPBackendDown(t *testing.T) {
	b, p := phpBackend(t, 2)
	c := b.client()
	c.MaxIdle = 1
	var req Request
	b.fill(&req, "GET", "hello.php", "", -1)
	fetch(t, c, &req)
	p.stop()
	_, err := c.Do(context.Background(), &req)
	if !errors.Is(err, ErrConnect) {
		t.Fatalf("err = %v, want ErrConnect", err)
	}
	if s := c.Stats(); s.ConnectErrors != 1 || s.InFlight != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestConnectErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := l.Addr().String()
	l.Close()
	tests := []struct{ name, network, address string }{
		{"unix socket missing", "unix", filepath.Join(t.TempDir(), "none.sock")},
		{"tcp port closed", "tcp", closedPort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{Network: tt.network, Address: tt.address, MaxIdle: 4}
			var req Request
			goParams(&req, "GET", "hello.php", "", -1)
			_, err := c.Do(context.Background(), &req)
			if !errors.Is(err, ErrConnect) || !errors.Is(err, ErrNotSent) {
				t.Fatalf("err = %v, want ErrConnect and ErrNotSent", err)
			}
			if msg := err.Error(); strings.HasSuffix(msg, ": ") || strings.Contains(msg, "not sent") {
				t.Errorf("message %q carries the ErrNotSent marker's words", msg)
			}
			if s := c.Stats(); s.ConnectErrors != 1 || s.Connects != 0 || s.InFlight != 0 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

func TestGoServerReuse(t *testing.T) {
	b, _ := startGoServer(t)
	c := b.client()
	c.MaxIdle = 2
	for range 20 {
		var req Request
		b.fill(&req, "GET", "hello.php", "", -1)
		fetch(t, c, &req)
	}
	if s := c.Stats(); s.Connects != 1 || s.Reused != 19 || s.Idle != 1 {
		t.Errorf("stats %+v", s)
	}
	c.CloseIdle()
	if s := c.Stats(); s.Idle != 0 {
		t.Errorf("idle after CloseIdle: %d", s.Idle)
	}
}

func TestGoServerReadTimeout(t *testing.T) {
	b, _ := startGoServer(t)
	c := b.client()
	c.ReadTimeout = 50 * time.Millisecond
	var req Request
	b.fill(&req, "GET", "block.php", "", -1)
	_, err := c.Do(context.Background(), &req)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	// It came after the connect: $upstream_connect_time shows it.
	if ce := (*ConnectedError)(nil); !errors.As(err, &ce) {
		t.Errorf("err = %#v, want a ConnectedError", err)
	}
	// A refused connect is none.
	dead := &Client{Network: "tcp", Address: "127.0.0.1:1"}
	if _, err := dead.Do(context.Background(), &req); !errors.Is(err, ErrConnect) || errors.As(err, new(*ConnectedError)) {
		t.Errorf("refused: err = %v, want ErrConnect without a ConnectedError", err)
	}
	// A request's own ReadTimeout replaces the Client's, on a fresh
	// connection and on a kept one alike.
	c = b.client()
	c.MaxIdle = 1
	var hello Request
	b.fill(&hello, "GET", "hello.php", "", -1)
	fetch(t, c, &hello) // leaves a kept connection
	for _, fresh := range []bool{false, true} {
		if fresh {
			c.Idle = NewIdleConns(0)
		}
		req.ReadTimeout = 50 * time.Millisecond
		if _, err := c.Do(context.Background(), &req); !errors.Is(err, ErrTimeout) {
			t.Fatalf("fresh %v: err = %v, want ErrTimeout from the request's ReadTimeout", fresh, err)
		}
	}
}

// TestReadTimeoutWaitsForBody checks that ReadTimeout starts once the body
// is sent, as nginx's fastcgi_read_timeout does: a body that takes longer
// than ReadTimeout to arrive is no timeout.
func TestReadTimeoutWaitsForBody(t *testing.T) {
	b, _ := startGoServer(t)
	c := b.client()
	c.ReadTimeout = 50 * time.Millisecond
	data := randomBytes(t, 200<<10)
	pr, pw := io.Pipe()
	go func() {
		pw.Write(data[:100<<10])
		// Hold the rest until the server has been silent for longer than
		// ReadTimeout; the response read must not give up meanwhile.
		time.Sleep(4 * c.ReadTimeout)
		pw.Write(data[100<<10:])
		pw.Close()
	}()
	var req Request
	b.fill(&req, "POST", "sha.php", "", len(data))
	req.Body = pr
	if _, _, body := fetch(t, c, &req); string(body) != shaHex(data) {
		t.Errorf("body %q", body)
	}
}

func TestContextCancelWhileReading(t *testing.T) {
	b, _ := startGoServer(t)
	c := b.client()
	ctx, cancel := context.WithCancel(context.Background())
	var req Request
	b.fill(&req, "GET", "stream.php", "file="+filepath.Join(t.TempDir(), "never"), -1)
	resp, err := c.Do(ctx, &req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	first := make([]byte, 6)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.ReadAll(resp.Body); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestContextCancelWhileWaiting cancels a request whose reply has not
// begun: Do returns the cancellation (TestSendWait covers the wait
// itself).
func TestContextCancelWhileWaiting(t *testing.T) {
	b, _ := startGoServer(t)
	c := b.client()
	ctx, cancel := context.WithCancel(context.Background())
	var req Request
	b.fill(&req, "GET", "block.php", "", -1)
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := c.Do(ctx, &req); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if st := c.Stats(); st.InFlight != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestQueue(t *testing.T) {
	b, s := startGoServer(t)
	start := func(c *Client, ctx context.Context, query string) chan error {
		done := make(chan error, 1)
		go func() {
			var req Request
			b.fill(&req, "GET", "gate.php", query, -1)
			resp, err := c.Do(ctx, &req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Close()
			}
			done <- err
		}()
		return done
	}
	waitFor := func(c *Client, cond func(Stats) bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(c.Stats()); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("condition not reached: %+v", c.Stats())
			}
		}
	}

	t.Run("full", func(t *testing.T) {
		c := b.client()
		c.MaxConns, c.QueueLimit = 1, 1
		first := start(c, context.Background(), "first")
		waitFor(c, func(s Stats) bool { return s.InFlight == 1 })
		second := start(c, context.Background(), "second")
		waitFor(c, func(s Stats) bool { return s.Waiting == 1 })
		if err := <-start(c, context.Background(), "third"); !errors.Is(err, ErrQueueFull) {
			t.Errorf("third: %v, want ErrQueueFull", err)
		}
		// A refused request has read nothing of its body: the caller may
		// still send it elsewhere whole.
		body := strings.NewReader("a=1")
		var req Request
		goParams(&req, "POST", "x", "", body.Len())
		req.Body = body
		if _, err := c.Do(context.Background(), &req); !errors.Is(err, ErrQueueFull) || body.Len() != 3 {
			t.Errorf("fourth: %v with %d of 3 body bytes left, want ErrQueueFull and all of them", err, body.Len())
		}
		s.gate <- struct{}{}
		s.gate <- struct{}{}
		if err := errors.Join(<-first, <-second); err != nil {
			t.Error(err)
		}
		if st := c.Stats(); st.QueueFull != 2 || st.Queued != 1 || st.InFlight != 0 {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("timeout and cancel", func(t *testing.T) {
		c := b.client()
		c.MaxConns, c.QueueTimeout = 1, 20*time.Millisecond
		first := start(c, context.Background(), "first")
		waitFor(c, func(s Stats) bool { return s.InFlight == 1 })
		if err := <-start(c, context.Background(), "late"); !errors.Is(err, ErrQueueTimeout) {
			t.Errorf("queued: %v, want ErrQueueTimeout", err)
		}
		c.QueueTimeout = 0
		ctx, cancel := context.WithCancel(context.Background())
		canceled := start(c, ctx, "canceled")
		waitFor(c, func(s Stats) bool { return s.Waiting == 1 })
		cancel()
		if err := <-canceled; !errors.Is(err, context.Canceled) {
			t.Errorf("canceled: %v", err)
		}
		s.gate <- struct{}{}
		if err := <-first; err != nil {
			t.Error(err)
		}
		if st := c.Stats(); st.QueueTimeouts != 1 || st.Waiting != 0 || st.InFlight != 0 {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		c := b.client()
		c.MaxConns = 1
		s.mu.Lock()
		s.order = nil
		s.mu.Unlock()
		var done []chan error
		for i := range 4 {
			done = append(done, start(c, context.Background(), strconv.Itoa(i)))
			waitFor(c, func(s Stats) bool { return s.InFlight == 1 && s.Waiting == i })
		}
		for range 4 {
			s.gate <- struct{}{}
		}
		for _, d := range done {
			if err := <-d; err != nil {
				t.Error(err)
			}
		}
		s.mu.Lock()
		order := slices.Clone(s.order)
		s.mu.Unlock()
		if want := []string{"0", "1", "2", "3"}; !slices.Equal(order, want) {
			t.Errorf("order %q, want %q", order, want)
		}
	})
	// Slots bounded at 2 with 1 kept connection: the connection beyond
	// the kept one goes to a waiting request with its slot instead of
	// being closed and dialled again, and is closed once nobody waits.
	t.Run("hand-off", func(t *testing.T) {
		c := b.client()
		c.MaxConns, c.MaxIdle = 2, 1
		var done []chan error
		for i := range 6 {
			done = append(done, start(c, context.Background(), strconv.Itoa(i)))
			waitFor(c, func(s Stats) bool { return s.InFlight == min(i+1, 2) && s.Waiting == max(i-1, 0) })
		}
		for range 6 {
			s.gate <- struct{}{}
		}
		for _, d := range done {
			if err := <-d; err != nil {
				t.Error(err)
			}
		}
		if st := c.Stats(); st.Connects != 2 || st.Reused != 4 || st.InFlight != 0 || st.Waiting != 0 || st.Idle != 1 {
			t.Errorf("stats %+v, want 2 connections serving 6 requests and the kept one idle", st)
		}
	})
	// A waiter that gives up after the slot and a connection reached it
	// passes both on, and with nobody left the connection is closed.
	t.Run("hand-off too late", func(t *testing.T) {
		c := b.client()
		c.MaxConns, c.MaxIdle = 1, 1
		if cn, _, _, err := c.acquire(context.Background(), 0, nil, nil); cn != nil || err != nil {
			t.Fatalf("the free slot: %v, %v", cn, err)
		}
		cn, err := c.dial(context.Background(), &Request{})
		if err != nil {
			t.Fatal(err)
		}
		w := waiters.Get().(*waiter)
		c.mu.Lock()
		c.queue.push(w)
		c.mu.Unlock()
		if handed, _ := c.handOff(cn); !handed {
			t.Fatal("no hand-off to the waiter")
		}
		c.abandon(w) // what wait does when its context ends first
		if _, err := cn.nc.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
			t.Errorf("the unwanted connection is still open: %v", err)
		}
		if st := c.Stats(); st.InFlight != 0 || st.Waiting != 0 {
			t.Errorf("stats %+v, want the slot freed", st)
		}
	})
}

// rawServer is a minimal FastCGI responder for faults that real responders
// do not produce on cue. It answers each request with the length and
// sha256 of the body it received.
type rawServer struct {
	addr string
	// dropAt makes the first connection close, instead of answering, when
	// its request number dropAt (from 1) has been read completely: what a
	// php-fpm worker at pm.max_requests looks like to a kept connection.
	dropAt int
	// closeIdle closes the first connection right after its first answer.
	closeIdle bool
	// stall stops reading after the params, so the body never drains.
	stall bool
	// closeFirst closes the first connection as soon as it is accepted.
	closeFirst bool

	conns    atomic.Int32
	requests atomic.Int32  // requests read completely
	closed   chan struct{} // signalled when closeIdle closed a connection
	done     chan struct{} // closed when the test ends
}

func startRawServer(t *testing.T, s *rawServer) *rawServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = l.Addr().String()
	s.closed = make(chan struct{}, 1)
	s.done = make(chan struct{})
	t.Cleanup(func() { close(s.done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				go func() { <-s.done; c.Close() }()
				s.serve(c, s.conns.Add(1) == 1)
			}()
		}
	}()
	return s
}

func (s *rawServer) serve(c net.Conn, first bool) {
	if first && s.closeFirst {
		c.Close()
		s.closed <- struct{}{}
		return
	}
	br := bufio.NewReader(c)
	for n := 1; ; n++ {
		keep, sum, length, err := s.readRequest(br)
		if err != nil {
			return
		}
		s.requests.Add(1)
		if first && n == s.dropAt {
			return
		}
		head := fmt.Sprintf("Status: 200 OK\r\nX-Body-Length: %d\r\n\r\n", length)
		var out []byte
		out = appendRecord(out, typeStdout, append([]byte(head), sum...))
		out = appendRecord(out, typeStdout, nil)
		out = appendRecord(out, typeEndRequest, make([]byte, 8))
		if _, err := c.Write(out); err != nil || !keep {
			return
		}
		if first && s.closeIdle {
			c.Close()
			s.closed <- struct{}{}
			return
		}
	}
}

// readRequest reads BEGIN_REQUEST, the params and STDIN up to its empty
// record.
func (s *rawServer) readRequest(br *bufio.Reader) (keep bool, sum string, length int, err error) {
	h := sha256.New()
	for {
		rh, err := readHeader(br)
		if err != nil {
			return false, "", 0, err
		}
		content := make([]byte, int(rh.contentLength)+int(rh.paddingLength))
		if _, err := io.ReadFull(br, content); err != nil {
			return false, "", 0, err
		}
		content = content[:rh.contentLength]
		switch rh.typ {
		case typeBeginRequest:
			keep = content[2]&flagKeepConn != 0
		case typeParams:
			if len(content) == 0 && s.stall {
				<-s.done // stall until the test ends
				return false, "", 0, io.EOF
			}
		case typeStdin:
			if len(content) == 0 {
				return keep, hex.EncodeToString(h.Sum(nil)), length, nil
			}
			h.Write(content)
			length += len(content)
		}
	}
}

// TestKeepConnOnlyWhereKept sends three requests at once with room for
// one kept connection: only that one may carry FCGI_KEEP_CONN. The others
// must let php-fpm close them itself after the answer, or each worker
// would wait for edge to close its connection before taking the next.
func TestKeepConnOnlyWhereKept(t *testing.T) {
	const n = 3
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	flags := make(chan bool, n)
	go func() {
		var conns []net.Conn
		var readers []*bufio.Reader
		s := &rawServer{done: make(chan struct{})}
		for range n { // answer only once all three requests are in
			c, err := l.Accept()
			if err != nil {
				return
			}
			br := bufio.NewReader(c)
			keep, _, _, err := s.readRequest(br)
			if err != nil {
				return
			}
			flags <- keep
			conns, readers = append(conns, c), append(readers, br)
		}
		for i, c := range conns {
			var out []byte
			out = appendRecord(out, typeStdout, []byte("Status: 200 OK\r\n\r\nok"))
			out = appendRecord(out, typeStdout, nil)
			out = appendRecord(out, typeEndRequest, make([]byte, 8))
			c.Write(out)
			go func() { s.readRequest(readers[i]); c.Close() }()
		}
	}()
	c := &Client{Address: l.Addr().String(), MaxIdle: 1, ReadTimeout: 10 * time.Second}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var req Request
			goParams(&req, "GET", "x", "", -1)
			resp, err := c.Do(context.Background(), &req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Close()
			if body, err := io.ReadAll(resp.Body); err != nil || string(body) != "ok" {
				t.Errorf("body %q, %v", body, err)
			}
		})
	}
	wg.Wait()
	kept := 0
	for range n {
		if <-flags {
			kept++
		}
	}
	if kept != 1 {
		t.Errorf("%d of %d requests asked to keep the connection, want 1", kept, n)
	}
	// The kept connection is idle afterwards unless it finished while
	// another of the three still waited for its answer: then it is closed
	// on purpose (TestKeptClosedWhileOtherWaits).
	if s := c.Stats(); s.Idle > 1 {
		t.Errorf("stats %+v, want at most the one kept connection idle", s)
	}
}

// TestKeptClosedWhileOtherWaits: a kept connection that finishes while a
// fresh connection to the same backend still waits for its answer is
// closed, not kept. The fresh one may sit in php-fpm's listen queue until a
// worker is free, and a kept idle connection pins the worker it needs.
func TestKeptClosedWhileOtherWaits(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	answer := func(c net.Conn) {
		var out []byte
		out = appendRecord(out, typeStdout, []byte("Status: 200 OK\r\n\r\nok"))
		out = appendRecord(out, typeStdout, nil)
		out = appendRecord(out, typeEndRequest, make([]byte, 8))
		c.Write(out)
	}
	firstClosed := make(chan bool, 1)
	firstRead := make(chan struct{})
	go func() {
		s := &rawServer{done: make(chan struct{})}
		c1, err := l.Accept()
		if err != nil {
			return
		}
		br1 := bufio.NewReader(c1)
		if _, _, _, err := s.readRequest(br1); err != nil {
			return
		}
		close(firstRead)
		c2, err := l.Accept() // the second request, on a fresh connection
		if err != nil {
			return
		}
		br2 := bufio.NewReader(c2)
		if _, _, _, err := s.readRequest(br2); err != nil {
			return
		}
		answer(c1) // the first finishes while the second still waits
		c1.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, _, _, err = s.readRequest(br1)
		var ne net.Error
		// EOF: edge closed it; a timeout: edge kept it open.
		firstClosed <- err != nil && !(errors.As(err, &ne) && ne.Timeout())
		answer(c2)
		c2.Close()
	}()
	c := &Client{Address: l.Addr().String(), MaxIdle: 1, ReadTimeout: 10 * time.Second}
	do := func() {
		var req Request
		goParams(&req, "GET", "x", "", -1)
		resp, err := c.Do(context.Background(), &req)
		if err != nil {
			t.Error(err)
			return
		}
		io.ReadAll(resp.Body)
		resp.Close()
	}
	var wg sync.WaitGroup
	wg.Go(do)
	// The second starts once the first has been sent, so it dials, and
	// the first connection holds the one kept place: had both dialled at
	// once, the second could have taken it and the roles swapped.
	select {
	case <-firstRead:
	case <-time.After(10 * time.Second):
		t.Fatal("the first request never reached the backend")
	}
	wg.Go(do)
	wg.Wait()
	if !<-firstClosed {
		t.Error("the kept connection was kept while another connection waited for a worker")
	}
	if s := c.Stats(); s.Idle != 0 || s.Connects != 2 {
		t.Errorf("stats %+v, want 2 connects and none idle", s)
	}
}

// TestStaleKeptConnection: a kept connection that the backend closes must
// never surface as an error, whether the close is seen before the request
// is sent or only when no answer comes.
func TestStaleKeptConnection(t *testing.T) {
	large := randomBytes(t, 300<<10)
	small := randomBytes(t, 1000)
	tests := []struct {
		name        string
		dropAt      int
		body        func() io.Reader
		bodyLen     int
		wantErr     error // nil: the request must succeed
		wantRetries uint64
		nonIdem     bool
	}{
		{name: "dropped on request, no body", dropAt: 2, bodyLen: -1, wantRetries: 1},
		{name: "dropped on request, small unseekable body", dropAt: 2,
			body: func() io.Reader { return onlyReader{bytes.NewReader(small)} }, bodyLen: len(small), wantRetries: 1},
		{name: "dropped on request, large seekable body", dropAt: 2,
			body: func() io.Reader { return bytes.NewReader(large) }, bodyLen: len(large), wantRetries: 1},
		// A large body that cannot be rewound cannot be resent: the error
		// surfaces rather than a truncated request.
		{name: "dropped on request, large unseekable body", dropAt: 2,
			body: func() io.Reader { return onlyReader{bytes.NewReader(large)} }, bodyLen: len(large), wantErr: ErrProtocol},
		// A POST the backend took and then dropped may have run: like
		// nginx, edge does not send it again.
		{name: "dropped on request, non-idempotent", dropAt: 2, nonIdem: true,
			body: func() io.Reader { return bytes.NewReader(small) }, bodyLen: len(small), wantErr: ErrProtocol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startRawServer(t, &rawServer{dropAt: tt.dropAt})
			c := &Client{Network: "tcp", Address: s.addr, MaxIdle: 1}
			var req Request
			goParams(&req, "POST", "x", "", tt.bodyLen)
			fetch(t, c, &req) // leaves the connection idle
			req.NonIdempotent = tt.nonIdem
			if tt.body != nil {
				req.Body = tt.body()
			}
			resp, err := c.Do(context.Background(), &req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatalf("Do: %v", err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Close()
				wantLen := max(tt.bodyLen, 0)
				var want []byte
				if tt.body != nil {
					want = map[int][]byte{len(large): large, len(small): small}[wantLen]
				}
				if string(body) != shaHex(want) {
					t.Errorf("backend saw a different body (%s)", body)
				}
			}
			if st := c.Stats(); st.Retries != tt.wantRetries || st.InFlight != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
	for _, tt := range []struct {
		name                   string
		method                 string
		wantStale, wantRetries uint64
	}{
		// A GET is not probed before use: the resend catches the close.
		{"closed while idle", "GET", 0, 1},
		// A POST probes the kept connection first, since it could not
		// be resent once some of it went out (a FIN late enough to miss
		// the probe would fail the request instead).
		{"closed while idle, non-idempotent", "POST", 1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := startRawServer(t, &rawServer{closeIdle: true})
			c := &Client{Network: "tcp", Address: s.addr, MaxIdle: 1}
			var req Request
			goParams(&req, tt.method, "x", "", -1)
			req.NonIdempotent = tt.method == "POST"
			fetch(t, c, &req)
			<-s.closed
			fetch(t, c, &req)
			if st := c.Stats(); st.Stale != tt.wantStale || st.Retries != tt.wantRetries || st.Connects != 2 {
				t.Errorf("stats %+v", st)
			}
		})
	}
	// php-fpm closes a kept connection after a worker's last request: a
	// POST handed such a connection with its slot finds it closed and
	// takes a fresh one rather than failing.
	t.Run("handed connection closed, non-idempotent", func(t *testing.T) {
		s := startRawServer(t, &rawServer{closeFirst: true})
		c, done := queuedBehindOneSlot(t, s.addr, "POST")
		cn, err := c.dial(context.Background(), &Request{})
		if err != nil {
			t.Fatal(err)
		}
		cn.keepConn = true // what the slot's owner had
		<-s.closed
		if handed, _ := c.handOff(cn); !handed {
			t.Fatal("no hand-off")
		}
		if err := <-done; err != nil {
			t.Fatalf("the POST failed on the closed connection: %v", err)
		}
		if st := c.Stats(); st.Stale != 1 || st.Retries != 0 || st.Connects != 2 || st.InFlight != 0 {
			t.Errorf("stats %+v", st)
		}
	})
	// A GET is written on the handed connection by the hand-off itself
	// (no check for idempotent requests); the closed connection shows
	// when the reply does not come, and the GET goes again on a fresh one.
	t.Run("handed connection closed, idempotent", func(t *testing.T) {
		s := startRawServer(t, &rawServer{closeFirst: true})
		c, done := queuedBehindOneSlot(t, s.addr, "GET")
		cn, err := c.dial(context.Background(), &Request{})
		if err != nil {
			t.Fatal(err)
		}
		cn.keepConn = true
		<-s.closed
		if handed, _ := c.handOff(cn); !handed {
			t.Fatal("no hand-off")
		}
		if err := <-done; err != nil {
			t.Fatalf("the GET failed on the closed connection: %v", err)
		}
		if st := c.Stats(); st.Stale+st.Retries != 1 || st.Connects != 2 || st.InFlight != 0 {
			t.Errorf("stats %+v, want one stale connection or retry and two connects", st)
		}
	})
}

// queuedBehindOneSlot makes a Client of one slot, already taken, and
// starts a request of method to addr that waits for it; done has its
// result once its response is read.
func queuedBehindOneSlot(t *testing.T, addr, method string) (*Client, chan error) {
	t.Helper()
	c := &Client{Network: "tcp", Address: addr, MaxConns: 1, MaxIdle: 1}
	return c, queueBehindOneSlot(t, c, context.Background(), method)
}

// queueBehindOneSlot takes c's only slot (MaxConns 1) and starts a request
// of method under ctx that waits for it; done has its result once its
// response is read.
func queueBehindOneSlot(t *testing.T, c *Client, ctx context.Context, method string) chan error {
	t.Helper()
	c.mu.Lock()
	c.inFlight = 1 // another request holds the only slot
	c.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		var req Request
		goParams(&req, method, "x", "", -1)
		req.NonIdempotent = method == "POST"
		resp, err := c.Do(ctx, &req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Close()
		}
		done <- err
	}()
	testenv.Eventually(t, "the request to queue", func() bool { return c.Stats().Waiting == 1 })
	return done
}

// TestHandOffSends: the connection a finished request hands over goes
// with the waiting request already written on it, when that request is
// complete; the waiting goroutine then only reads the reply.
func TestHandOffSends(t *testing.T) {
	for _, method := range []string{"GET", "POST"} {
		t.Run(method, func(t *testing.T) {
			s := startRawServer(t, &rawServer{})
			c, done := queuedBehindOneSlot(t, s.addr, method)
			cn, err := c.dial(context.Background(), &Request{})
			if err != nil {
				t.Fatal(err)
			}
			cn.keepConn = true
			handed, sent := c.handOff(cn)
			if !handed || !sent {
				t.Fatalf("hand-off %v, request sent with it %v; want both", handed, sent)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			// The connection held no kept place (the test dialled it), so
			// with nobody waiting it is closed after the reply.
			if st := c.Stats(); st.Connects != 1 || st.Reused != 1 || st.Stale != 0 || st.Retries != 0 || st.InFlight != 0 || st.Idle != 0 {
				t.Errorf("stats %+v, want the one connection reused once", st)
			}
		})
	}
	// A waiter whose queue timeout fires while the hand-off writes its
	// request (the wait's end needs the lock the hand-off holds) goes on:
	// PHP may run the request, so failing it would tell the client it
	// never ran.
	t.Run("timed out meanwhile", func(t *testing.T) {
		s := startRawServer(t, &rawServer{})
		c := &Client{Network: "tcp", Address: s.addr, MaxConns: 1, MaxIdle: 1, QueueTimeout: 20 * time.Millisecond}
		_, done := handOffWhileWaitEnds(t, c, context.Background(), nil, "POST")
		if err := <-done; err != nil {
			t.Fatalf("the POST whose request went failed: %v", err)
		}
		if st := c.Stats(); s.requests.Load() != 1 || st.QueueTimeouts != 0 || st.InFlight != 0 {
			t.Errorf("backend ran %d requests, stats %+v; want 1, no queue timeout, the slot freed", s.requests.Load(), st)
		}
	})
	// A waiter whose context is already done is not written: it gives
	// the connection up unused.
	t.Run("cancelled before", func(t *testing.T) {
		s := startRawServer(t, &rawServer{})
		c := &Client{Network: "tcp", Address: s.addr, MaxConns: 1, MaxIdle: 1}
		ctx, cancel := context.WithCancel(context.Background())
		cn, done := handOffWhileWaitEnds(t, c, ctx, cancel, "POST")
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if _, err := cn.nc.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
			t.Errorf("the unused connection is still open: %v", err)
		}
		if st := c.Stats(); s.requests.Load() != 0 || st.InFlight != 0 {
			t.Errorf("backend ran %d requests, stats %+v; want none and the slot freed", s.requests.Load(), st)
		}
	})
}

// handOffWhileWaitEnds queues a request of method on c (one slot, taken)
// under ctx, calls cancel (if any) once it waits, holds c's lock until the
// wait has ended by its queue timeout or its context, and hands it a
// fresh connection under that same lock: the hand-off comes between the
// end of the wait and the waiter's look at what it got. done has Do's
// result once the response is read.
func handOffWhileWaitEnds(t *testing.T, c *Client, ctx context.Context, cancel func(), method string) (*conn, chan error) {
	t.Helper()
	cn, err := c.dial(context.Background(), &Request{})
	if err != nil {
		t.Fatal(err)
	}
	cn.keepConn = true
	done := queueBehindOneSlot(t, c, ctx, method)
	// The lock first: a waiter woken by the cancel must find it taken,
	// or it leaves the queue before the hand-off can find it.
	c.mu.Lock()
	if cancel != nil {
		cancel()
	}
	time.Sleep(100 * time.Millisecond) // the wait ends and blocks on the lock
	handed, _ := c.handOffLocked(cn)
	c.mu.Unlock()
	if !handed {
		t.Fatal("no hand-off")
	}
	return cn, done
}

func TestSendTimeout(t *testing.T) {
	s := startRawServer(t, &rawServer{stall: true})
	c := &Client{Network: "tcp", Address: s.addr, SendTimeout: 50 * time.Millisecond}
	data := make([]byte, 64<<20) // more than any socket buffer holds
	var req Request
	goParams(&req, "POST", "x", "", len(data))
	req.Body = bytes.NewReader(data)
	if _, err := c.Do(context.Background(), &req); !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if st := c.Stats(); st.Timeouts != 1 || st.InFlight != 0 {
		t.Errorf("stats %+v", st)
	}
}

// failingReader yields some bytes, then an error, like a client that
// disconnects mid-upload.
type failingReader struct{ n int }

var errClientGone = errors.New("client went away")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errClientGone
	}
	n := min(len(p), f.n)
	clear(p[:n])
	f.n -= n
	return n, nil
}

func TestBodyReadError(t *testing.T) {
	b, _ := startGoServer(t)
	c := b.client()
	c.MaxIdle = 1
	tests := []struct {
		name string
		n    int
	}{
		{"within the inline part", 100},
		{"while streaming", 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req Request
			b.fill(&req, "POST", "sha.php", "", 2<<20)
			req.Body = &failingReader{n: tt.n}
			if _, err := c.Do(context.Background(), &req); !errors.Is(err, errClientGone) {
				t.Fatalf("err = %v, want the body's error", err)
			}
			if st := c.Stats(); st.InFlight != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestParamTooLarge(t *testing.T) {
	c := &Client{Network: "tcp", Address: "127.0.0.1:1"}
	var req Request
	req.Params.Add("HTTP_COOKIE", strings.Repeat("x", maxRecordContent))
	if _, err := c.Do(context.Background(), &req); err == nil || req.Params.Err() == nil {
		t.Fatalf("err = %v, want a param error", err)
	}
	if st := c.Stats(); st.Requests != 0 || st.ConnectErrors != 0 {
		t.Errorf("a request was attempted: %+v", st)
	}
}

// TestIdleConnectionReleased: a kept connection nobody uses is closed
// after IdleTimeout, so the php-fpm worker it pins goes back to the pool
// (to another web server sharing it, or to php-fpm's process manager).
func TestIdleConnectionReleased(t *testing.T) {
	pool := startFPM(t, 2)
	c := &Client{Network: "unix", Address: pool.Socket, MaxIdle: 1, ReadTimeout: 10 * time.Second}
	var req Request
	pool.request(&req, "GET", "hello.php", "", -1)
	resp, err := c.Do(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Close()
	if s := c.Stats(); s.Idle != 1 {
		t.Fatalf("stats %+v, want the connection kept", s)
	}
	deadline := time.Now().Add(10 * IdleTimeout)
	for c.Stats().Idle != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the idle connection is still kept: %+v", c.Stats())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The worker is free again: a fresh connection is served.
	resp, err = c.Do(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Close()
	if string(body) != "hello" {
		t.Errorf("body %q", body)
	}
	if s := c.Stats(); s.Connects != 2 || s.Reused != 0 {
		t.Errorf("stats %+v, want a second connect after the release", s)
	}
}
