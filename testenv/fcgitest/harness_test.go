// This file starts what every test here runs against: a docroot of PHP
// scripts, a php-fpm pool serving it (testenv.StartFPM), and edge or
// nginx in front of the pool with one configuration text, each on its
// own free loopback port and prefix directory.

package fcgitest

import (
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

// poolLimits lets the upload test's 20 MiB through PHP (its defaults are
// 2M per file and 8M per POST) and keeps the scripts' own time limits out
// of the way of the slow-backend cases.
const poolLimits = `php_admin_value[upload_max_filesize] = 64M
php_admin_value[post_max_size] = 64M
php_admin_value[max_execution_time] = 60
php_admin_value[output_buffering] = 0
`

// site is a docroot and the php-fpm pool that serves it.
type site struct {
	root   string       // the docroot, holding phpScripts
	fpm    *testenv.FPM // the pool
	pass   string       // fastcgi_pass argument for the pool: "unix:/x.sock" or "127.0.0.1:port"
	params string       // edge's conf/fastcgi_params, included by both servers
	mime   string       // edge's conf/mime.types
}

// newSite writes files (docroot-relative path -> content) into a fresh
// docroot and starts a php-fpm pool for it. o.Extra is kept and
// poolLimits added to it.
func newSite(t testing.TB, files map[string]string, o testenv.FPMOptions) *site {
	t.Helper()
	root := filepath.Join(t.TempDir(), "www")
	for name, content := range files {
		writeFile(t, filepath.Join(root, name), content)
	}
	return newSiteAt(t, root, o)
}

// newSiteAt starts a pool for an existing docroot.
func newSiteAt(t testing.TB, root string, o testenv.FPMOptions) *site {
	t.Helper()
	repo := testenv.RepoRoot(t)
	s := &site{
		root:   root,
		params: filepath.Join(repo, "conf", "fastcgi_params"),
		mime:   filepath.Join(repo, "conf", "mime.types"),
	}
	o.Extra = poolLimits + o.Extra
	s.fpm = testenv.StartFPM(t, o)
	s.pass = passArg(s.fpm)
	return s
}

// passArg is the fastcgi_pass argument naming a pool's address.
func passArg(f *testenv.FPM) string {
	if f.Network == "unix" {
		return "unix:" + f.Address
	}
	return f.Address
}

// writeFile writes a text file, creating its parent directories.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	testenv.WriteFile(t, path, []byte(content), 0o644)
}

// render fills the placeholders of an http{} body for a server on port:
// {{LISTEN}} {{PORT}} {{ROOT}} {{PASS}} {{PARAMS}}.
func (s *site) render(body string, port int) string {
	return strings.NewReplacer(
		"{{LISTEN}}", "127.0.0.1:"+strconv.Itoa(port),
		"{{PORT}}", strconv.Itoa(port),
		"{{ROOT}}", s.root,
		"{{PASS}}", s.pass,
		"{{PARAMS}}", s.params,
	).Replace(body)
}

// server is one running edge or nginx.
type server struct {
	name     string // "edge" or "nginx"
	addr     string // "127.0.0.1:port"
	port     int
	prefix   string // its -p directory
	errorLog string
	proc     *testenv.Proc
}

// url returns the http URL of target (which starts with "/") on s.
func (s *server) url(target string) string { return "http://" + s.addr + target }

// errorLogText returns what s wrote to its error log so far.
func (s *server) errorLogText(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(s.errorLog)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// quitAndRead stops s with SIGQUIT, which makes edge flush its access
// logs, and returns the text of the log at path.
func (s *server) quitAndRead(t testing.TB, path string) string {
	t.Helper()
	if err := s.proc.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	if err := s.proc.Wait(); err != nil {
		t.Fatalf("%s after SIGQUIT: %v", s.name, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// startEdge runs the edge binary in the foreground with the http{} body
// (placeholders filled for its port) and returns once it accepts
// connections.
func (s *site) startEdge(t testing.TB, body string) *server {
	t.Helper()
	return s.startEdgeOn(t, body, testenv.FreePort(t))
}

// startEdgeOn is startEdge on a port the caller chose.
func (s *site) startEdgeOn(t testing.TB, body string, port int) *server {
	t.Helper()
	return startEdgeConf(t, func(errLog string) string {
		return testenv.NginxMain(1) + "error_log " + errLog + " info;\n" +
			"http {\n" + testenv.NginxHTTPLogs("") + "include " + s.mime + ";\n" +
			s.render(body, port) + "}\n"
	}, port)
}

// startEdgeConf runs edge with the whole configuration text that conf
// returns for the error log path, listening on port. prep, if given, may
// change the command before it starts (environment, a taskset prefix).
func startEdgeConf(t testing.TB, conf func(errLog string) string, port int, prep ...func(*exec.Cmd)) *server {
	t.Helper()
	prefix := testenv.EdgePrefix(t)
	errLog := filepath.Join(prefix, "logs", "error.log")
	ed := testenv.StartEdge(t, testenv.EdgeOptions{
		Prefix:       prefix,
		Conf:         conf(errLog),
		Global:       "daemon off;",
		Ports:        []int{port},
		ReadyTimeout: readyTimeout,
		Prep: func(cmd *exec.Cmd) {
			for _, p := range prep {
				p(cmd)
			}
		},
	})
	return &server{name: "edge", addr: ed.Addr(), port: port, prefix: prefix, errorLog: ed.ErrorLog(), proc: ed.Proc}
}

// startNginx runs Debian's nginx with the same http{} body.
func (s *site) startNginx(t testing.TB, body string) *server {
	t.Helper()
	return s.startNginxOn(t, body, testenv.FreePort(t))
}

// startNginxOn is startNginx on a port the caller chose.
func (s *site) startNginxOn(t testing.TB, body string, port int) *server {
	t.Helper()
	conf := testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs("") +
		"include " + s.mime + ";\n" + s.render(body, port) + "}\n"
	ng := testenv.StartNginx(t, conf, port)
	return &server{name: "nginx", addr: ng.Addr(), port: port, prefix: ng.Prefix, errorLog: ng.ErrorLog(), proc: ng.Proc}
}

// readyTimeout bounds the wait for a server to listen: a failure
// deadline, not a measurement.
const readyTimeout = 15 * time.Second

// client is an HTTP client that reports redirects instead of following
// them and does not ask for gzip, so tests see what the server sent.
func client() *http.Client {
	return &http.Client{
		Timeout:       60 * time.Second,
		Transport:     &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 64},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// poll calls cond until it holds, failing after a deadline that bounds a
// stuck test (it is not a timing assertion).
func poll(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("fcgitest: gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
