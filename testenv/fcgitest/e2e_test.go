// This file tests edge's FastCGI forwarding end to end on a real php-fpm
// pool: hello, GET and POST forms, a 20 MiB multipart upload and a chunked
// POST checked by hash in PHP, a 16 KiB request header and a 32 KiB
// response header, a streamed response, cookies and redirects, error
// statuses, and the backend failures: down (502), slow (504) and saturated
// (every queued request completes).

package fcgitest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"edge/testenv"
)

// phpSite is the WordPress-style site most tests use: front controller
// fallback, PHP only for scripts that exist, large headers allowed.
const phpSite = `
client_max_body_size 64m;
large_client_header_buffers 4 32k;
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    index index.php;

    location / {
        try_files $uri $uri/ /index.php?$args;
    }
    location ~ \.php$ {
        try_files $uri =404;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
    location = /slowbody.php {
        client_body_timeout 1s;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/form.php;
    }
    location /nobuffer/ {
        fastcgi_buffering off;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/stream.php;
    }
}
`

// e2e is one edge in front of one pool, shared by the tests of this file
// that do not change either.
type e2e struct {
	site *site
	edge *server
	http *http.Client
}

func startE2E(t *testing.T) *e2e {
	t.Helper()
	s := newSite(t, phpScripts, testenv.FPMOptions{})
	return &e2e{site: s, edge: s.startEdge(t, phpSite), http: client()}
}

// get fetches target from edge and returns the response with its body
// read.
func (e *e2e) do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	return resp, string(body)
}

func (e *e2e) get(t *testing.T, target string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", e.edge.url(target), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e.do(t, req)
}

func wantStatus(t *testing.T, resp *http.Response, body string, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d; body %.300q", resp.Request.Method, resp.Request.URL, resp.StatusCode, want, body)
	}
}

func TestFastCGIEndToEnd(t *testing.T) {
	e := startE2E(t)
	t.Run("hello", func(t *testing.T) { testHello(t, e) })
	t.Run("get form", func(t *testing.T) { testGetForm(t, e) })
	t.Run("post urlencoded", func(t *testing.T) { testPostForm(t, e) })
	t.Run("multipart upload 20MiB", func(t *testing.T) { testUpload(t, e) })
	t.Run("chunked post", func(t *testing.T) { testChunkedPost(t, e) })
	t.Run("client_body_timeout", func(t *testing.T) { testBodyTimeout(t, e) })
	t.Run("16KiB request header", func(t *testing.T) { testLargeRequestHeader(t, e) })
	t.Run("32KiB response header", func(t *testing.T) { testLargeResponseHeader(t, e) })
	t.Run("streamed response", func(t *testing.T) { testStream(t, e) })
	t.Run("cookies and redirect", func(t *testing.T) { testCookies(t, e) })
	t.Run("statuses", func(t *testing.T) { testStatuses(t, e) })
	t.Run("front controller", func(t *testing.T) { testFrontController(t, e) })
	t.Run("concurrent header names", func(t *testing.T) { testConcurrentHeaders(t, e) })
}

// testConcurrentHeaders checks that every answer keeps its own header
// names while many requests are in flight: names read from a backend
// answer must not share memory with the next answer read.
func testConcurrentHeaders(t *testing.T, e *e2e) {
	const workers, perWorker = 16, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				id := w*perWorker + i
				resp, err := e.http.Get(e.edge.url(fmt.Sprintf("/idheader.php?id=%d", id)))
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				name := fmt.Sprintf("X-Id-%d", id)
				if got := resp.Header.Get(name); got != fmt.Sprint(id) || string(body) != fmt.Sprint(id) {
					t.Errorf("request %d: %s = %q, body %q; headers %v", id, name, got, body, resp.Header)
					return
				}
			}
		})
	}
	wg.Wait()
}

func testHello(t *testing.T, e *e2e) {
	resp, body := e.get(t, "/hello.php")
	wantStatus(t, resp, body, 200)
	if body != "hello" {
		t.Errorf("body %q, want hello", body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=UTF-8" {
		t.Errorf("Content-Type %q, want PHP's text/html; charset=UTF-8", ct)
	}
	// A kept connection serves the next request too.
	for i := range 20 {
		if _, body := e.get(t, "/hello.php"); body != "hello" {
			t.Fatalf("request %d: body %q", i, body)
		}
	}
}

// formEcho is what form.php prints.
type formEcho struct {
	Get    map[string]any `json:"get"`
	Post   map[string]any `json:"post"`
	Cookie map[string]any `json:"cookie"`
	Method string         `json:"method"`
}

func decodeForm(t *testing.T, body string) formEcho {
	t.Helper()
	var f formEcho
	if err := json.Unmarshal([]byte(body), &f); err != nil {
		t.Fatalf("form.php printed %q: %v", body, err)
	}
	return f
}

func testGetForm(t *testing.T, e *e2e) {
	resp, body := e.get(t, "/form.php?name=J%C3%BCrgen+M&list[]=1&list[]=2&empty=&amp=%26")
	wantStatus(t, resp, body, 200)
	got := decodeForm(t, body).Get
	want := map[string]any{"name": "Jürgen M", "list": []any{"1", "2"}, "empty": "", "amp": "&"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("$_GET = %v, want %v", got, want)
	}
}

func testPostForm(t *testing.T, e *e2e) {
	form := url.Values{"title": {"Hallo Welt"}, "text": {strings.Repeat("x&y=z ", 5000)}, "tags[]": {"a", "b"}}
	req, _ := http.NewRequest("POST", e.edge.url("/form.php?q=1"), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, body := e.do(t, req)
	wantStatus(t, resp, body, 200)
	f := decodeForm(t, body)
	want := map[string]any{"title": "Hallo Welt", "text": strings.Repeat("x&y=z ", 5000), "tags": []any{"a", "b"}}
	if !reflect.DeepEqual(f.Post, want) || f.Method != "POST" || f.Get["q"] != "1" {
		t.Errorf("form.php saw %s %v %.200v", f.Method, f.Get, f.Post)
	}
}

// randomBytes returns n bytes from a fixed seed, so a failure repeats.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func testUpload(t *testing.T, e *e2e) {
	payload := randomBytes(20<<20, 1)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("caption", "a 20 MiB file")
	fw, err := mw.CreateFormFile("file", "big.bin")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(payload)
	mw.Close()
	req, _ := http.NewRequest("POST", e.edge.url("/upload.php"), &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, body := e.do(t, req)
	wantStatus(t, resp, body, 200)
	var got struct {
		Post  map[string]string `json:"post"`
		Files map[string]struct {
			Name   string `json:"name"`
			Error  int    `json:"error"`
			Size   int    `json:"size"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("upload.php printed %.300q: %v", body, err)
	}
	f := got.Files["file"]
	if f.Error != 0 || f.Size != len(payload) || f.SHA256 != sha256Hex(payload) || f.Name != "big.bin" {
		t.Errorf("PHP received %+v, want big.bin of %d bytes with sha256 %s", f, len(payload), sha256Hex(payload))
	}
	if got.Post["caption"] != "a 20 MiB file" {
		t.Errorf("caption field %q", got.Post["caption"])
	}
}

func testChunkedPost(t *testing.T, e *e2e) {
	for _, size := range []int{1, 16 << 10, 3<<20 + 17} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			payload := randomBytes(size, uint64(size))
			pr, pw := io.Pipe()
			go func() {
				// Uneven writes, so the body arrives as many chunks.
				for rest := payload; len(rest) > 0; {
					n := min(len(rest), 7777)
					pw.Write(rest[:n])
					rest = rest[n:]
				}
				pw.Close()
			}()
			req, _ := http.NewRequest("POST", e.edge.url("/sha.php"), pr)
			req.ContentLength = -1 // unknown: net/http sends it chunked
			resp, body := e.do(t, req)
			wantStatus(t, resp, body, 200)
			want := fmt.Sprintf("%d %d %s", size, size, sha256Hex(payload))
			if body != want {
				t.Errorf("sha.php printed %q, want %q (length, CONTENT_LENGTH, hash)", body, want)
			}
		})
	}
}

// testBodyTimeout sends part of a body and stops: after the location's
// client_body_timeout (1s; the default server's is 60s) edge closes the
// connection without a response and logs 408, as nginx terminates a
// request that timed out.
func testBodyTimeout(t *testing.T, e *e2e) {
	c, err := net.Dial("tcp", e.edge.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	// More than fasthttp reads with the headers (8 KiB), so that the
	// handler reads the rest.
	head := "POST /slowbody.php HTTP/1.1\r\nHost: localhost\r\nUser-Agent: slowbody\r\n" +
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n"
	io.WriteString(c, head+"a="+strings.Repeat("x", 20000))
	if n, err := c.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("read %d, %v; want the connection closed with no response", n, err)
	}
	poll(t, "the timeout in the error log", func() bool {
		return strings.Contains(e.edge.errorLogText(t), "client timed out (110: Connection timed out) while reading client request body")
	})
	// The access log (flushed every second) has the request with 408,
	// which no client saw.
	accessLog := filepath.Join(e.edge.prefix, "logs", "access.log")
	poll(t, "the 408 in the access log", func() bool {
		b, err := os.ReadFile(accessLog)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return strings.Contains(string(b), `"POST /slowbody.php HTTP/1.1" 408 0 "-" "slowbody"`)
	})
}

func testLargeRequestHeader(t *testing.T, e *e2e) {
	req, _ := http.NewRequest("GET", e.edge.url("/reqheader.php"), nil)
	req.Header.Set("X-Big", strings.Repeat("a", 16<<10))
	resp, body := e.do(t, req)
	wantStatus(t, resp, body, 200)
	if body != "16384" {
		t.Errorf("PHP saw a header of %s bytes, want 16384", body)
	}
}

func testLargeResponseHeader(t *testing.T, e *e2e) {
	resp, body := e.get(t, "/respheader.php?n=32768")
	wantStatus(t, resp, body, 200)
	if got := resp.Header.Get("X-Big"); got != strings.Repeat("b", 32768) || body != "ok" {
		t.Errorf("X-Big of %d bytes, body %q; want 32768 bytes and ok", len(got), body)
	}
}

// testStream reads the first chunk of stream.php before letting the
// script finish: that only works if edge passes the chunk on while PHP
// still runs.
func testStream(t *testing.T, e *e2e) {
	for _, tt := range []struct{ name, target string }{
		{"X-Accel-Buffering no", "/stream.php?nobuffer=1&file="},
		{"fastcgi_buffering off", "/nobuffer/x?file="},
	} {
		t.Run(tt.name, func(t *testing.T) {
			release := filepath.Join(t.TempDir(), "release")
			resp, err := e.http.Get(e.edge.url(tt.target + url.QueryEscape(release)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			first, err := br.ReadString('\n')
			if err != nil || first != "first\n" {
				t.Fatalf("first chunk %q, %v", first, err)
			}
			writeFile(t, release, "")
			rest, err := io.ReadAll(br)
			if err != nil || string(rest) != "second\n" {
				t.Errorf("rest %q, %v; want the script to see the release file only after the first chunk arrived", rest, err)
			}
			if resp.Header.Get("X-Accel-Buffering") != "" {
				t.Errorf("X-Accel-Buffering passed to the client")
			}
		})
	}
}

func testCookies(t *testing.T, e *e2e) {
	resp, body := e.get(t, "/cookie.php")
	wantStatus(t, resp, body, 302)
	// Passed as PHP sent it: nginx makes absolute only the redirects it
	// makes itself, never an upstream's relative Location
	// (ngx_http_upstream_rewrite_location); TestResponsesMatchNginx
	// compares the two.
	if loc := resp.Header.Get("Location"); loc != "/hello.php?from=cookie" {
		t.Errorf("Location %q", loc)
	}
	cookies := resp.Header.Values("Set-Cookie")
	if len(cookies) != 2 || !strings.HasPrefix(cookies[0], "first=one; path=/; HttpOnly") ||
		!strings.HasPrefix(cookies[1], "second=two%20words; path=/") {
		t.Errorf("Set-Cookie %q, want both cookies in order", cookies)
	}
	// Cookies sent back, in one header and in two (HTTP/2 style): PHP
	// sees them all.
	for _, headers := range [][]string{{"first=one; second=two%20words"}, {"first=one", "second=two%20words"}} {
		req, _ := http.NewRequest("GET", e.edge.url("/form.php"), nil)
		for _, h := range headers {
			req.Header.Add("Cookie", h)
		}
		_, body := e.do(t, req)
		got := decodeForm(t, body).Cookie
		want := map[string]any{"first": "one", "second": "two words"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Cookie headers %q: $_COOKIE = %v, want %v", headers, got, want)
		}
	}
}

func testStatuses(t *testing.T, e *e2e) {
	for _, code := range []int{201, 404, 410, 500, 503} {
		resp, body := e.get(t, fmt.Sprintf("/status.php?code=%d", code))
		wantStatus(t, resp, body, code)
		if body != fmt.Sprintf("status %d", code) {
			t.Errorf("status %d: body %q, want PHP's own", code, body)
		}
	}
	resp, body := e.get(t, "/missing.php")
	wantStatus(t, resp, body, 404)
}

func testFrontController(t *testing.T, e *e2e) {
	resp, body := e.get(t, "/2024/01/some-post/?a=1")
	wantStatus(t, resp, body, 200)
	if body != "front controller /2024/01/some-post/?a=1" {
		t.Errorf("body %q", body)
	}
	resp, body = e.get(t, "/sub/dir/page.php")
	if resp.StatusCode != 200 || body != "page" {
		t.Errorf("/sub/dir/page.php: %d %q", resp.StatusCode, body)
	}
	resp, body = e.get(t, "/assets/style.css")
	if resp.StatusCode != 200 || !strings.Contains(body, "color") {
		t.Errorf("static file through the PHP site: %d %q", resp.StatusCode, body)
	}
}

// TestBackendDown: nothing listens where fastcgi_pass points, so the
// answer is 502 and the error log says why in nginx's words.
func TestBackendDown(t *testing.T) {
	s := newSite(t, phpScripts, testenv.FPMOptions{})
	s.pass = "127.0.0.1:" + fmt.Sprint(testenv.FreePort(t))
	edge := s.startEdge(t, phpSite)
	resp, err := client().Get(edge.url("/hello.php"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 502 {
		t.Errorf("status %d, want 502", resp.StatusCode)
	}
	if log := edge.errorLogText(t); !strings.Contains(log, "connect() failed") {
		t.Errorf("error log lacks connect() failed:\n%s", log)
	}
}

// slowSite gives PHP one second to answer (a configured limit, not a
// measurement) where the script sleeps for five.
const slowSite = `
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~ \.php$ {
        fastcgi_read_timeout 1s;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
}
`

func TestBackendSlow(t *testing.T) {
	s := newSite(t, phpScripts, testenv.FPMOptions{})
	edge := s.startEdge(t, slowSite)
	resp, err := client().Get(edge.url("/sleep.php?us=5000000"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 504 {
		t.Errorf("status %d, want 504", resp.StatusCode)
	}
	if log := edge.errorLogText(t); !strings.Contains(log, "upstream timed out") {
		t.Errorf("error log lacks upstream timed out:\n%s", log)
	}
	// The pool still answers afterwards.
	resp, err = client().Get(edge.url("/hello.php"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("after the timeout: status %d, want 200", resp.StatusCode)
	}
}

// TestPHPStderrLogged: what PHP writes to stderr (error_log()) reaches
// edge's error log at [error] in nginx's words, with the request line,
// for a buffered response and for a streamed one whose stderr comes after
// edge began sending the body.
func TestPHPStderrLogged(t *testing.T) {
	s := newSite(t, phpScripts, testenv.FPMOptions{StderrToServer: true})
	edge := s.startEdge(t, phpSite)
	for _, q := range []string{"id=buffered", "id=streamed&nobuffer=1"} {
		resp, err := client().Get(edge.url("/stderr.php?" + q))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "first\nsecond\n" {
			t.Errorf("%s: %d %q", q, resp.StatusCode, body)
		}
	}
	log := edge.errorLogText(t)
	for _, id := range []string{"buffered", "streamed"} {
		for _, when := range []string{"before output", "after output"} {
			want := `[error] `
			found := false
			for _, line := range strings.Split(log, "\n") {
				if strings.Contains(line, want) && strings.Contains(line, `FastCGI sent in stderr: "PHP message: `+when+" "+id) &&
					strings.Contains(line, `request: "GET /stderr.php?id=`+id) {
					found = true
				}
			}
			if !found {
				t.Errorf("no [error] line for %q of the %s request:\n%s", when, id, log)
			}
		}
	}
}

// upstreamVarsSite logs the $upstream_* variables of each PHP request.
const upstreamVarsSite = `
log_format up '$request_uri|$upstream_addr|$upstream_status|$upstream_connect_time|$upstream_header_time|$upstream_response_length';
server {
    listen {{LISTEN}};
    root {{ROOT}};
    access_log {{UPLOG}} up;
    location ~ \.php$ {
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
    location /intercept/ {
        fastcgi_intercept_errors on;
        error_page 404 /hello.php;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/status.php;
    }
}
`

// TestUpstreamVariables: the $upstream_* variables a log format names
// carry the backend's address, status, times in nginx's "0.000" form
// and the response length; a request sent over a kept connection spent
// no time connecting. A request that error_page sends from one PHP
// location to another lists both passes, " : " between them, as nginx
// does (the intercepted 404's body was never read: length 0, and its
// connection is not kept).
func TestUpstreamVariables(t *testing.T) {
	s := newSite(t, phpScripts, testenv.FPMOptions{})
	logPath := filepath.Join(t.TempDir(), "up.log")
	edge := s.startEdge(t, strings.ReplaceAll(upstreamVarsSite, "{{UPLOG}}", logPath))
	c := client()
	for _, target := range []string{"/hello.php?n=1", "/hello.php?n=2", "/status.php?code=404", "/intercept/?code=404"} {
		resp, err := c.Get(edge.url(target))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	data := edge.quitAndRead(t, logPath)
	lines := strings.Split(strings.TrimSpace(data), "\n")
	seconds := regexp.MustCompile(`^\d+\.\d{3}( : \d+\.\d{3})?$`)
	addr := "unix:" + s.fpm.Address
	want := []struct{ uri, addr, status, length string }{
		{"/hello.php?n=1", addr, "200", "5"},
		{"/hello.php?n=2", addr, "200", "5"},
		{"/status.php?code=404", addr, "404", "10"},
		{"/intercept/?code=404", addr + " : " + addr, "404 : 200", "0 : 5"},
	}
	if len(lines) != len(want) {
		t.Fatalf("log lines:\n%s", data)
	}
	for i, line := range lines {
		f := strings.Split(line, "|")
		if len(f) != 6 || f[0] != want[i].uri || f[1] != want[i].addr || f[2] != want[i].status ||
			!seconds.MatchString(f[3]) || !seconds.MatchString(f[4]) || f[5] != want[i].length {
			t.Errorf("line %q: want %s via %s, status %s, times in seconds, length %s", line, want[i].uri, want[i].addr, want[i].status, want[i].length)
		}
		// The first pass of each later request goes over the kept
		// connection. The intercepted 404's connection is closed with its
		// body unread, as nginx closes it, so error_page's pass may dial,
		// and a dial under load can take a millisecond.
		if connect, _, _ := strings.Cut(f[3], " : "); i > 0 && connect != "0.000" {
			t.Errorf("line %q: a request on a kept connection spent %s connecting", line, connect)
		}
	}
}

// twoPools is an upstream of two pools (A is {{PASS}}, B {{PASS_B}}),
// never marked failed, that gives PHP 300 ms to answer (a configured
// limit the slow requests pass).
const twoPools = `
log_format up '$request_method $request_uri|$upstream_addr|$upstream_status|$upstream_header_time|$upstream_response_time';
upstream two {
    server {{PASS}} max_fails=0;
    server {{PASS_B}} max_fails=0;
}
server {
    listen {{LISTEN}};
    root {{ROOT}};
    access_log {{UPLOG}} up;
    location ~ \.php$ {
        fastcgi_read_timeout 300ms;
        fastcgi_pass two;
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
    location /post/ {
        fastcgi_read_timeout 300ms;
        fastcgi_next_upstream error timeout non_idempotent;
        fastcgi_pass two;
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/ran.php;
    }
}
`

// TestNextUpstream: fastcgi_next_upstream's default (error timeout) sends
// a GET that timed out on one pool to the other, but a POST, which may
// have run, goes to no other pool unless non_idempotent is listed, as in
// nginx. Each pool notes the runs it did, so the test counts them.
func TestNextUpstream(t *testing.T) {
	a := newSite(t, phpScripts, testenv.FPMOptions{Extra: "env[POOL] = a"})
	b := testenv.StartFPM(t, testenv.FPMOptions{Extra: poolLimits + "env[POOL] = b"})
	logPath := filepath.Join(t.TempDir(), "up.log")
	edge := a.startEdge(t, strings.NewReplacer("{{PASS_B}}", passArg(b), "{{UPLOG}}", logPath).Replace(twoPools))
	runs := func() int {
		t.Helper()
		entries, err := os.ReadDir(filepath.Join(a.root, "runs"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			if e.Name() != ".keep" {
				os.Remove(filepath.Join(a.root, "runs", e.Name()))
				n++
			}
		}
		return n
	}
	c := client()
	for _, tc := range []struct {
		method, target string
		wantStatus     int
		wantRuns       int
	}{
		{"GET", "/ran.php?us=1000", 200, 1},
		{"GET", "/ran.php?us=2000000", 504, 2},  // timed out on A, then on B
		{"POST", "/ran.php?us=2000000", 504, 1}, // may have run: not resent
		{"POST", "/post/?us=2000000", 504, 2},   // non_idempotent: resent
		{"POST", "/ran.php?us=1000", 200, 1},
	} {
		req, _ := http.NewRequest(tc.method, edge.url(tc.target), strings.NewReader("x=1"))
		if tc.method == "POST" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		// ran.php notes its run before it sleeps, and edge answers only
		// after its last try: the count is final.
		if got := runs(); resp.StatusCode != tc.wantStatus || got != tc.wantRuns {
			t.Errorf("%s %s: %d with %d runs, want %d with %d", tc.method, tc.target, resp.StatusCode, got, tc.wantStatus, tc.wantRuns)
		}
	}
	if t.Failed() {
		t.Log(edge.errorLogText(t))
	}
	// $upstream_* list every server tried, as nginx lists them.
	data := edge.quitAndRead(t, logPath)
	lines := strings.Split(strings.TrimSpace(data), "\n")
	if len(lines) != 5 {
		t.Fatalf("log lines:\n%s", data)
	}
	both := []string{passArg(a.fpm) + ", " + passArg(b), passArg(b) + ", " + passArg(a.fpm)}
	one := []string{passArg(a.fpm), passArg(b)}
	seconds := `\d+\.\d{3}`
	for i, w := range []struct {
		request string
		addrs   []string
		status  string
		header  string // a regexp
	}{
		{"GET /ran.php?us=1000", one, "200", `^` + seconds + `$`},
		{"GET /ran.php?us=2000000", both, "504, 504", `^-, -$`},
		{"POST /ran.php?us=2000000", one, "504", `^-$`},
		{"POST /post/?us=2000000", both, "504, 504", `^-, -$`},
		{"POST /ran.php?us=1000", one, "200", `^` + seconds + `$`},
	} {
		f := strings.Split(lines[i], "|")
		if len(f) != 5 || f[0] != w.request || !slices.Contains(w.addrs, f[1]) || f[2] != w.status ||
			!regexp.MustCompile(w.header).MatchString(f[3]) ||
			!regexp.MustCompile(`^`+seconds+`(, `+seconds+`)?$`).MatchString(f[4]) ||
			strings.Count(f[4], ",") != strings.Count(f[1], ",") {
			t.Errorf("line %q: want %s via %q, status %s, header time %s, a response time per server", lines[i], w.request, w.addrs, w.status, w.header)
		}
	}
}

// queueSite bounds its pool at one request in flight (max_conns=1), so a
// second request waits in edge's queue, for fastcgi_connect_timeout at
// most (a configured limit, not a measurement).
const queueSite = `
upstream php {
    server {{PASS}} max_conns=1;
}
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~ \.php$ {
        fastcgi_connect_timeout 1s;
        fastcgi_pass php;
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
    location = /metrics {
        edge_metrics;
    }
}
`

// TestQueueTimeout502: a request whose wait for a PHP worker outlasts
// fastcgi_connect_timeout gets 502, the status nginx gives when no server
// can take a request (its "no live upstreams" at max_conns, and the
// upstream queue's answer when its timeout passes), never 503.
func TestQueueTimeout502(t *testing.T) {
	s := newSite(t, phpScripts, testenv.FPMOptions{MaxChildren: 2})
	edge := s.startEdge(t, queueSite)
	c := client()
	first := make(chan int, 1)
	go func() {
		resp, err := c.Get(edge.url("/sleep.php?us=4000000&id=1"))
		if err != nil {
			first <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	testenv.Eventually(t, "the first request to hold the only slot", func() bool {
		resp, err := c.Get(edge.url("/metrics"))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(body), `edge_fastcgi_in_flight_requests{backend="php"} 1`)
	})
	resp, err := c.Get(edge.url("/sleep.php?us=0&id=2"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 502 {
		t.Errorf("queued request: status %d, want 502", resp.StatusCode)
	}
	if log := edge.errorLogText(t); !strings.Contains(log, "no PHP worker became free") || !strings.Contains(log, "queue timeout") {
		t.Errorf("error log lacks the queue timeout:\n%s", log)
	}
	if status := <-first; status != 200 {
		t.Errorf("the request holding the slot: status %d, want 200", status)
	}
}

// saturatedSites reach a pool of two workers directly, through an
// upstream whose max_conns makes edge queue the excess itself, and
// through one without max_conns whose pool edge finds by itself.
const saturatedSites = `
upstream php {
    server {{PASS}} max_conns=2;
    keepalive 1;
}
upstream php_found {
    server {{PASS}};
    keepalive 1;
}
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~ ^/direct/(.+\.php)$ {
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/$1;
    }
    location ~ ^/direct-long/(.+\.php)$ {
        fastcgi_read_timeout 120s;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/$1;
    }
    location ~ ^/upstream/(.+\.php)$ {
        fastcgi_keep_conn on;
        fastcgi_pass php;
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/$1;
    }
    location = /metrics {
        edge_metrics;
    }
    location ~ ^/found/(.+\.php)$ {
        fastcgi_keep_conn on;
        fastcgi_pass php_found;
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/$1;
    }
}
`

// TestPoolSaturated sends ten times as many concurrent requests as the
// pool has workers: they wait in edge's own queue and every one completes
// with its own answer, over no more connections than the pool has workers
// (php-fpm's own count of accepted connections says so).
func TestPoolSaturated(t *testing.T) {
	s := newSite(t, phpScripts, testenv.FPMOptions{MaxChildren: 2, Extra: "pm.status_path = /fpm-status"})
	edge := s.startEdge(t, saturatedSites)
	c := client()
	// counters reads edge's dialled and queued counts for a backend.
	counters := func(backend string) (dialled, queued int) {
		t.Helper()
		resp, err := c.Get(edge.url("/metrics"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(body), "\n") {
			label := `{backend="` + backend + `"} `
			if v, ok := strings.CutPrefix(line, "edge_fastcgi_connections_total"+label); ok {
				dialled, _ = strconv.Atoi(v)
			} else if v, ok := strings.CutPrefix(line, "edge_fastcgi_queued_requests_total"+label); ok {
				queued, _ = strconv.Atoi(v)
			}
		}
		return dialled, queued
	}
	backends := map[string]string{"/direct": "unix:" + s.fpm.Address, "/upstream": "php", "/found": "php_found",
		"/direct,/direct-long": "unix:" + s.fpm.Address}
	// The last case alternates two locations with different timeouts:
	// they share the pool's bound.
	for _, prefixes := range []string{"/direct", "/upstream", "/found", "/direct,/direct-long"} {
		t.Run(prefixes, func(t *testing.T) {
			dialled, queued := counters(backends[prefixes])
			const n = 20
			var wg sync.WaitGroup
			errs := make(chan string, n)
			for i := range n {
				wg.Go(func() {
					list := strings.Split(prefixes, ",")
					prefix := list[i%len(list)]
					resp, err := c.Get(edge.url(fmt.Sprintf("%s/sleep.php?us=50000&id=%d", prefix, i)))
					if err != nil {
						errs <- err.Error()
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if want := fmt.Sprintf("slept %d", i); resp.StatusCode != 200 || string(body) != want {
						errs <- fmt.Sprintf("request %d: %d %q, want 200 %q", i, resp.StatusCode, body, want)
					}
				})
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			// Two connections at most: the kept one, and the one handed
			// from request to request with its slot while others wait.
			d, q := counters(backends[prefixes])
			if d-dialled > 2 || q-queued < n-2 {
				t.Errorf("%d requests took %d new connections and %d waited in edge; want at most 2 and at least %d", n, d-dialled, q-queued, n-2)
			}
		})
	}
}
