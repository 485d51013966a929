// This file starts Debian's nginx with a test's configuration, for
// differential tests that compare edge's responses with nginx's.

package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Nginx is a running nginx master and its workers.
type Nginx struct {
	Proc *Proc
	// Prefix is nginx's -p directory: it holds nginx.conf, nginx.pid,
	// logs/ and the temp directories named by NginxHTTPTemps.
	Prefix string
	// Port is the first port passed to StartNginx (0 if none was).
	Port int
	// Ports are all the ports passed to StartNginx.
	Ports []int
}

// Addr returns "127.0.0.1:Port".
func (n *Nginx) Addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.Port))
}

// ErrorLog returns the path of the error log set on the command line.
func (n *Nginx) ErrorLog() string { return filepath.Join(n.Prefix, "logs", "error.log") }

// AccessLog returns the path NginxHTTPLogs("") points access_log at.
func (n *Nginx) AccessLog() string { return filepath.Join(n.Prefix, "logs", "access.log") }

// StartNginx writes conf, a complete nginx.conf, into a fresh prefix
// directory under t.TempDir() and runs nginx in the foreground with it. It
// returns once each of ports accepts TCP connections on 127.0.0.1.
//
// The command line sets `daemon off; master_process on; pid ...;
// error_log ... info;` with -g, and nginx rejects a directive given both
// there and in the file ("is duplicate"): conf must not set daemon,
// master_process or pid (extra error_log lines are fine). Start conf with
// NginxMain and put NginxHTTPTemps and NginxHTTPLogs in its http block, so
// that nothing is written outside the prefix.
func StartNginx(t testing.TB, conf string, ports ...int) *Nginx {
	t.Helper()
	bin := NginxBinary(t)
	prefix, err := os.MkdirTemp(t.TempDir(), "nginx-")
	if err != nil {
		t.Fatalf("testenv: nginx: %v", err)
	}
	if err := os.Mkdir(filepath.Join(prefix, "logs"), 0o755); err != nil {
		t.Fatalf("testenv: nginx: %v", err)
	}
	confPath := filepath.Join(prefix, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatalf("testenv: nginx: %v", err)
	}
	n := &Nginx{Prefix: prefix, Ports: ports}
	if len(ports) > 0 {
		n.Port = ports[0]
	}
	global := fmt.Sprintf("daemon off; master_process on; pid %s; error_log %s info;",
		filepath.Join(prefix, "nginx.pid"), n.ErrorLog())
	cmd := exec.Command(bin, "-p", prefix+"/", "-c", confPath, "-g", global)
	cmd.Dir = prefix
	n.Proc = Start(t, "nginx", cmd, confPath, n.ErrorLog(), n.AccessLog())
	for _, port := range ports {
		waitListening(t, n.Proc, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	}
	return n
}

// NginxMain returns the main-context lines every test nginx.conf starts
// with. As root, `user root;` lets workers read t.TempDir() (mode 0700),
// which the default user nobody cannot; as another user the directive would
// only draw a warning, so it is left out.
func NginxMain(workers int) string {
	var b strings.Builder
	if os.Geteuid() == 0 {
		b.WriteString("user root;\n")
	}
	fmt.Fprintf(&b, "worker_processes %d;\n", workers)
	b.WriteString("events {\n    worker_connections 1024;\n}\n")
	return b.String()
}

// tempPathDirectives are the http-level directives whose compiled-in
// defaults point outside the prefix (Debian: /var/lib/nginx/...), with the
// directory each gets under the prefix.
var tempPathDirectives = []struct{ directive, dir string }{
	{"client_body_temp_path", "client_body_temp"},
	{"proxy_temp_path", "proxy_temp"},
	{"fastcgi_temp_path", "fastcgi_temp"},
	{"uwsgi_temp_path", "uwsgi_temp"},
	{"scgi_temp_path", "scgi_temp"},
}

// NginxHTTPTemps returns http-level lines that put every temp directory
// under prefix. Pass "" to get paths relative to the prefix, which nginx
// resolves against -p: that suits a conf written before StartNginx picks
// the prefix. nginx creates the directories itself.
func NginxHTTPTemps(prefix string) string {
	var b strings.Builder
	for _, d := range tempPathDirectives {
		fmt.Fprintf(&b, "%s %s;\n", d.directive, prefixed(prefix, d.dir))
	}
	return b.String()
}

// NginxHTTPLogs returns the http-level access_log line for prefix/logs,
// where StartNginx looks for it; without it nginx writes to its compiled-in
// path (Debian: /var/log/nginx/access.log). Pass "" as for NginxHTTPTemps.
func NginxHTTPLogs(prefix string) string {
	return fmt.Sprintf("access_log %s;\n", prefixed(prefix, "logs/access.log"))
}

func prefixed(prefix, rel string) string {
	if prefix == "" {
		return rel
	}
	return filepath.Join(prefix, rel)
}

// confPathRE finds nginx's compiled-in configuration file in `nginx -V`.
var confPathRE = regexp.MustCompile(`--conf-path=(\S+)`)

// NginxConfDir returns the directory of the installed nginx's own
// configuration (Debian: /etc/nginx), as `nginx -V` reports it, so tests can
// compare edge's data files with the ones nginx ships.
func NginxConfDir(t testing.TB) string {
	t.Helper()
	out, err := exec.Command(NginxBinary(t), "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("testenv: nginx -V: %v\n%s", err, out)
	}
	m := confPathRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("testenv: nginx -V names no --conf-path:\n%s", out)
	}
	return filepath.Dir(string(m[1]))
}
