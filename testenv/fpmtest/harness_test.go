// This file starts what the tests run against: the edge binary with a
// configuration holding fpm_pool blocks, a docroot of PHP scripts, and
// helpers to run "edge fpm ..." and read the reports.

package fpmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"edge/fastcgi/fpm"
	"edge/testenv"
)

// scripts are written into every docroot.
var scripts = map[string]string{
	"hello.php": `<?php echo "hello";`,
	"sleep.php": `<?php usleep((int)$_GET['ms'] * 1000); echo "slept";`,
}

// site is one running edge with its prefix and docroot.
type site struct {
	prefix string // -p, short: unix socket paths live under it
	conf   string
	root   string
	addr   string
	port   int
	proc   *testenv.Proc
}

// errorLog is where the test configuration sends edge's error log.
func (s *site) errorLog() string { return filepath.Join(s.prefix, "logs", "error.log") }

// shortDir makes a directory under the system temp directory: socket
// paths must stay under 108 bytes, which t.TempDir() under a long test
// name can exceed.
func shortDir(t *testing.T, pattern string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// siteConf is the configuration of a test site: http-level pools, and a
// server passing PHP to the pool named pass, with fpm_status, edge_metrics
// and stub_status locations.
func siteConf(port int, root, pools, pass string) string {
	return `worker_processes 1;
daemon off;
pid logs/edge.pid;
error_log logs/error.log info;
events { worker_connections 1024; }
http {
    access_log off;
` + pools + `
    server {
        listen 127.0.0.1:` + strconv.Itoa(port) + `;
        root ` + root + `;
        location ~ \.php$ {
            fastcgi_pass ` + pass + `;
            include fastcgi_params;
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        }
        location = /fpm { fpm_status; }
        location = /metrics { edge_metrics; }
        location = /stub { stub_status; }
    }
}
`
}

// newSite writes a site's files without starting edge.
func newSite(t *testing.T, pools, pass string) *site {
	t.Helper()
	if _, err := fpm.FindBinary(""); err != nil {
		t.Fatalf("%v: install the Debian package php8.2-fpm (./scripts/deps.sh test)", err)
	}
	s := &site{prefix: shortDir(t, "edge-fpmtest-")}
	s.root = filepath.Join(s.prefix, "www")
	for _, d := range []string{s.root, filepath.Join(s.prefix, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, src := range scripts {
		if err := os.WriteFile(filepath.Join(s.root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.port = testenv.FreePort(t)
	s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	s.conf = filepath.Join(s.prefix, "edge.conf")
	s.writeConf(t, siteConf(s.port, s.root, pools, pass))
	return s
}

func (s *site) writeConf(t *testing.T, text string) {
	t.Helper()
	if err := os.WriteFile(s.conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startSite writes the site and runs edge until the test ends.
func startSite(t *testing.T, pools, pass string) *site {
	t.Helper()
	s := newSite(t, pools, pass)
	s.start(t)
	return s
}

// start runs edge and waits until it serves (its pools are up before it
// listens, hence the long deadline).
func (s *site) start(t *testing.T) {
	t.Helper()
	s.proc = testenv.StartEdge(t, testenv.EdgeOptions{
		Prefix:       s.prefix,
		ConfFile:     s.conf,
		ErrorLog:     s.errorLog(),
		Ports:        []int{s.port},
		ReadyTimeout: 60 * time.Second,
	}).Proc
}

// edge runs the edge binary with args (the site's -c and -p appended)
// and returns its stdout, stderr and exit code.
func (s *site) edge(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	args = append(args, "-c", s.conf, "-p", s.prefix)
	cmd := exec.Command(testenv.EdgeBinary(t), args...)
	cmd.Dir = s.prefix
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("edge %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), code
}

// reports runs "edge fpm status NAME --json".
func (s *site) reports(t *testing.T, pool string) []*fpm.Report {
	t.Helper()
	out, errOut, code := s.edge(t, "fpm", "status", pool, "--json")
	if code != 0 {
		t.Fatalf("edge fpm status: exit %d\n%s", code, errOut)
	}
	var rs []*fpm.Report
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("edge fpm status --json: %v\n%s", err, out)
	}
	return rs
}

// report is the one pool's report from the running edge.
func (s *site) report(t *testing.T, pool string) *fpm.Report {
	t.Helper()
	rs := s.reports(t, pool)
	if len(rs) != 1 {
		t.Fatalf("%d reports for pool %s", len(rs), pool)
	}
	return rs[0]
}

var httpClient = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// get fetches a path from the site.
func (s *site) get(t *testing.T, path string) (int, string) {
	t.Helper()
	code, body, err := s.tryGet(path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return code, body
}

func (s *site) tryGet(path string) (int, string, error) {
	resp, err := httpClient.Get("http://" + s.addr + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// poll calls cond until it holds; the deadline only bounds a stuck test.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for delay := 5 * time.Millisecond; !cond(); delay = min(2*delay, 100*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(delay)
	}
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
