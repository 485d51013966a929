// fpm_test.go starts a real php-fpm 8.2 pool for the tests and benchmarks
// of this package, and holds the PHP scripts they call. (A general version
// of the starter is meant to move to testenv.)
package fastcgi

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// phpScripts are written into the pool's document root.
var phpScripts = map[string]string{
	"hello.php": `<?php echo "hello";`,
	// sha.php hashes the body PHP received, so a test can check every byte.
	"sha.php": `<?php $in = file_get_contents('php://input');
header('X-Body-Length: ' . strlen($in));
echo hash('sha256', $in);`,
	"header.php": `<?php header('X-Big: ' . str_repeat('a', (int)$_GET['n'])); echo "ok";`,
	// stream.php flushes a first chunk, then waits for the test to create
	// a file before it writes the second: the first chunk must arrive
	// while the script still runs.
	"stream.php": `<?php echo "first\n"; flush();
$f = $_GET['file']; $until = microtime(true) + 20;
while (!file_exists($f) && microtime(true) < $until) { usleep(5000); clearstatcache(); }
echo file_exists($f) ? "second\n" : "timeout\n";`,
	"stderr.php":   `<?php error_log("first message"); echo "body"; error_log("second message"); error_log("multi\nline");`,
	"sleep.php":    `<?php usleep((int)$_GET['us']); echo "slept";`,
	"status.php":   `<?php http_response_code(404); header('x-case-kept: yes'); echo "missing";`,
	"redirect.php": `<?php header('Location: http://example.com/next'); `,
}

// fpmPool is a php-fpm master started by startFPM.
type fpmPool struct {
	Socket string // unix socket the pool listens on
	Root   string // document root holding phpScripts
	cmd    *exec.Cmd
	exited chan error
	log    string
	once   sync.Once
}

// startFPM starts php-fpm8.2 with a static pool of maxChildren workers on a
// unix socket in a temporary directory, waits until the socket accepts,
// and stops the master by PID when the test ends, printing its log if the
// test failed. A missing php-fpm fails the test: it is a dependency.
func startFPM(tb testing.TB, maxChildren int) *fpmPool {
	tb.Helper()
	bin, err := exec.LookPath("php-fpm8.2")
	if err != nil {
		tb.Fatalf("php-fpm8.2 is required (Debian package php8.2-fpm): %v", err)
	}
	dir := tb.TempDir()
	p := &fpmPool{
		Socket: filepath.Join(dir, "fpm.sock"),
		Root:   filepath.Join(dir, "www"),
		log:    filepath.Join(dir, "fpm.log"),
		exited: make(chan error, 1),
	}
	if err := os.Mkdir(p.Root, 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, src := range phpScripts {
		if err := os.WriteFile(filepath.Join(p.Root, name), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	conf := filepath.Join(dir, "fpm.conf")
	if err := os.WriteFile(conf, []byte(fpmConfig(p, maxChildren)), 0o644); err != nil {
		tb.Fatal(err)
	}
	// -R: tests run as root here, and the pool sets no user.
	// -O copies the log to stderr; that goes to a file beside the log so
	// that a passing test stays quiet.
	out, err := os.Create(p.log + ".out")
	if err != nil {
		tb.Fatal(err)
	}
	defer out.Close()
	p.cmd = exec.Command(bin, "-F", "-O", "-y", conf, "-R")
	p.cmd.Stdout, p.cmd.Stderr = out, out
	if err := p.cmd.Start(); err != nil {
		tb.Fatalf("starting php-fpm: %v", err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	tb.Cleanup(func() {
		p.stop()
		if tb.Failed() {
			tb.Logf("php-fpm log:\n%s", p.readLog())
		}
	})
	p.waitReady(tb)
	return p
}

func fpmConfig(p *fpmPool, maxChildren int) string {
	return fmt.Sprintf(`[global]
error_log = %s
daemonize = no
log_level = notice

[www]
listen = %s
pm = static
pm.max_children = %d
catch_workers_output = yes
php_admin_value[output_buffering] = 0
php_admin_value[post_max_size] = 64M
php_admin_value[memory_limit] = 256M
php_admin_flag[log_errors] = on
`, p.log, p.Socket, maxChildren)
}

// waitReady polls until the socket accepts a connection. The probe is
// closed at once, which frees the worker that accepted it (php-fpm would
// otherwise wait five seconds for a request on it).
func (p *fpmPool) waitReady(tb testing.TB) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		select {
		case err := <-p.exited:
			p.exited <- err
			tb.Fatalf("php-fpm exited during start: %v\n%s", err, p.readLog())
		default:
		}
		c, err := net.Dial("unix", p.Socket)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("php-fpm not ready after 30s: %v\n%s", err, p.readLog())
		}
		time.Sleep(delay)
	}
}

// stop ends the master by PID, once: SIGTERM makes php-fpm stop its
// workers and exit at once; SIGKILL follows if it does not.
func (p *fpmPool) stop() {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
}

// readLog returns php-fpm's log and what it wrote to stdout and stderr.
func (p *fpmPool) readLog() string {
	var s string
	for _, name := range []string{p.log, p.log + ".out"} {
		b, err := os.ReadFile(name)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			b = []byte(err.Error())
		}
		s += fmt.Sprintf("--- %s\n%s", filepath.Base(name), b)
	}
	return s
}

// client returns a Client for the pool.
func (p *fpmPool) client() *Client {
	return &Client{Network: "unix", Address: p.Socket}
}

// request fills req for a call of script with query and a body of
// contentLength bytes (-1: no body), the way a web server would.
func (p *fpmPool) request(req *Request, method, script, query string, contentLength int) {
	req.Params.Reset()
	req.Params.Add("GATEWAY_INTERFACE", "CGI/1.1")
	req.Params.Add("SERVER_SOFTWARE", "edge")
	req.Params.Add("SERVER_PROTOCOL", "HTTP/1.1")
	req.Params.Add("SERVER_NAME", "localhost")
	req.Params.Add("SERVER_PORT", "80")
	req.Params.Add("REMOTE_ADDR", "127.0.0.1")
	req.Params.Add("REQUEST_METHOD", method)
	req.Params.Add("DOCUMENT_ROOT", p.Root)
	req.Params.Add("SCRIPT_FILENAME", filepath.Join(p.Root, script))
	req.Params.Add("SCRIPT_NAME", "/"+script)
	req.Params.Add("REQUEST_URI", "/"+script+"?"+query)
	req.Params.Add("QUERY_STRING", query)
	req.Params.Add("HTTP_HOST", "localhost")
	if contentLength >= 0 {
		req.Params.Add("CONTENT_TYPE", "application/octet-stream")
		req.Params.Add("CONTENT_LENGTH", strconv.Itoa(contentLength))
	}
}
