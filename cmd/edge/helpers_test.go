// This file holds what the process-contract tests share: a site directory
// (the -p prefix with a configuration, a document root and logs/), running
// the real edge binary on it, and polling for what the process does.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"edge/testenv"
)

// waitTimeout bounds every poll: it is a failure deadline, never a
// measurement, and a poll returns as soon as its condition holds.
const waitTimeout = 15 * time.Second

// pollInterval is the pause between two checks of a poll.
const pollInterval = 10 * time.Millisecond

// cmdTimeout bounds one run of a command that is expected to return.
const cmdTimeout = 60 * time.Second

// site is a prefix directory edge runs in: conf is its main configuration,
// html/ its document root, logs/ its logs and pid file.
type site struct {
	t    *testing.T
	dir  string
	conf string
	port int
	addr string
}

// newSite makes a prefix directory under t.TempDir() and writes conf into
// edge.conf with {{PORT}} and {{DIR}} replaced by a free port and the
// directory.
func newSite(t *testing.T, conf string) *site {
	t.Helper()
	port := testenv.FreeListenPort(t)
	s := &site{t: t, dir: t.TempDir(), port: port, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	s.conf = filepath.Join(s.dir, "edge.conf")
	for _, d := range []string{"html", "logs"} {
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.writeConf(conf)
	return s
}

// expand replaces the placeholders of a configuration template.
func (s *site) expand(text string) string {
	return strings.NewReplacer("{{PORT}}", strconv.Itoa(s.port), "{{DIR}}", s.dir).Replace(text)
}

// writeConf rewrites the main configuration from a template.
func (s *site) writeConf(conf string) { s.write("edge.conf", s.expand(conf)) }

// path returns a path under the site directory.
func (s *site) path(rel string) string { return filepath.Join(s.dir, rel) }

// write writes a file under the site directory, creating its parents.
func (s *site) write(rel, data string) {
	s.t.Helper()
	writeFile(s.t, s.path(rel), data)
}

// writeFile writes a text file, creating its parent directories.
func writeFile(t testing.TB, path, data string) {
	t.Helper()
	testenv.WriteFile(t, path, []byte(data), 0o644)
}

// pidFile is where the configurations of these tests leave the pid file:
// nginx's default, logs/nginx.pid under the prefix.
func (s *site) pidFile() string { return s.path("logs/nginx.pid") }

func (s *site) errorLog() string  { return s.path("logs/error.log") }
func (s *site) accessLog() string { return s.path("logs/access.log") }

// result is how a command that returned ended.
type result struct {
	stdout, stderr string
	code           int
}

// edge runs the edge binary with "-p DIR -c CONF" and args, and returns
// once it exits.
func (s *site) edge(args ...string) result {
	s.t.Helper()
	return runEdge(s.t, s.dir, append([]string{"-p", s.dir, "-c", s.conf}, args...)...)
}

// runEdge runs the edge binary in dir with args and waits for it.
func runEdge(t testing.TB, dir string, args ...string) result {
	t.Helper()
	return runCommand(t, dir, testenv.EdgeBinary(t), args...)
}

// runCommand runs a program to its end (bounded by cmdTimeout) and returns
// its output and exit status; a program that cannot start fails the test.
func runCommand(t testing.TB, dir, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	default:
		t.Fatalf("%s %s: %v", filepath.Base(bin), strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %s did not return within %v", filepath.Base(bin), strings.Join(args, " "), cmdTimeout)
	}
	return res
}

// start runs edge in the foreground (the configuration says "daemon off")
// and returns once its pid file exists and its port accepts connections.
// extra arguments follow "-p DIR -c CONF".
func (s *site) start(extra ...string) *testenv.Proc {
	s.t.Helper()
	return testenv.StartEdge(s.t, testenv.EdgeOptions{
		Prefix:       s.dir,
		ConfFile:     s.conf,
		Args:         extra,
		PidFile:      s.pidFile(),
		Ports:        []int{s.port},
		ReadyTimeout: waitTimeout,
	}).Proc
}

// get sends "GET path" over a fresh connection and returns the response.
func (s *site) get(path string) *testenv.RawResponse {
	s.t.Helper()
	return testenv.RawHTTP(s.t, s.addr, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
}

// waitBody polls GET path until its body is want.
func (s *site) waitBody(path, want string) {
	s.t.Helper()
	var last string
	ok := poll(func() bool {
		resp, err := testenv.DoRaw(s.addr, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
		if err != nil {
			last = err.Error()
			return false
		}
		last = fmt.Sprintf("%d %q", resp.Status, resp.Body)
		return resp.Status == 200 && string(resp.Body) == want
	})
	if !ok {
		s.t.Fatalf("GET %s never answered 200 %q within %v; last answer: %s", path, want, waitTimeout, last)
	}
}

// readPid returns the pid in the pid file, or 0 when there is none.
func (s *site) readPid() int {
	data, err := os.ReadFile(s.pidFile())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		s.t.Fatalf("pid file %s holds %q", s.pidFile(), data)
	}
	return pid
}

// waitLog polls a log file until it contains want and returns its text.
func waitLog(t testing.TB, path, want string) string {
	t.Helper()
	var text string
	if !poll(func() bool {
		b, _ := os.ReadFile(path)
		text = string(b)
		return strings.Contains(text, want)
	}) {
		t.Fatalf("%s does not contain %q after %v; it holds:\n%s", path, want, waitTimeout, text)
	}
	return text
}

// waitFor polls cond and fails the test when it does not hold in time.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !poll(cond) {
		t.Fatalf("timed out after %v waiting for %s", waitTimeout, what)
	}
}

// poll checks cond every pollInterval until it holds or waitTimeout ends.
func poll(cond func() bool) bool {
	deadline := time.Now().Add(waitTimeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollInterval)
	}
}

// waitExit waits for p to exit and returns its exit code; a process that
// does not exit within waitTimeout fails the test.
func waitExit(t testing.TB, p *testenv.Proc) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatalf("edge: %v", err)
		}
		return 0
	case <-time.After(waitTimeout):
		t.Fatalf("edge (pid %d) did not exit within %v", p.PID(), waitTimeout)
		return -1
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// processAlive reports whether pid names a running process. A zombie
// counts as gone: a daemon edge is not our child, and where nothing reaps
// orphans it stays a zombie after it exited.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the command name, which is in parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// canConnect reports whether a TCP connect to addr succeeds now.
func canConnect(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// slowDownload is a GET whose client reads the body only when told to:
// its receive buffer is small, so the server stays busy writing a large
// file for as long as the test does not read.
type slowDownload struct {
	conn net.Conn
	resp *http.Response
	read int64 // body bytes read so far
}

// startSlowDownload sends GET path and reads the headers and the first
// bytes of the body.
func startSlowDownload(t testing.TB, addr, path string) *slowDownload {
	t.Helper()
	return startSlowDownloadOver(t, addr, path, nil)
}

// startSlowDownloadOver is startSlowDownload over TLS when tlsConf is set.
func startSlowDownloadOver(t testing.TB, addr, path string, tlsConf *tls.Config) *slowDownload {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if tlsConf != nil {
		conn = tls.Client(conn, tlsConf)
	}
	if err := conn.SetDeadline(time.Now().Add(2 * waitTimeout)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 4096), &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: status %d", path, resp.StatusCode)
	}
	sd := &slowDownload{conn: conn, resp: resp}
	n, err := io.CopyN(io.Discard, resp.Body, 64<<10)
	sd.read += n
	if err != nil {
		t.Fatalf("GET %s: reading the first bytes: %v", path, err)
	}
	return sd
}

// finish reads the rest of the body and returns the total read and the
// error that ended it (nil when the body was complete).
func (sd *slowDownload) finish() (int64, error) {
	n, err := io.Copy(io.Discard, sd.resp.Body)
	sd.read += n
	return sd.read, err
}

// writeBigFile writes size bytes of a repeating pattern.
func writeBigFile(t testing.TB, path string, size int) {
	t.Helper()
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for size > 0 {
		n := min(size, len(chunk))
		if _, err := f.Write(chunk[:n]); err != nil {
			t.Fatal(err)
		}
		size -= n
	}
}
