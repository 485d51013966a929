// This file compares how edge and nginx resolve the paths of a
// configuration against the prefix (-p) and the conf prefix (the
// directory of the main file), for -c, -e, -g and the directives that take
// a path (issue 14 item 3). nginx's rule: the main file (-c) and the
// paths of pid, error_log (and -e), access_log and root are relative to
// the prefix; include and the TLS files (ssl_certificate and its
// neighbours) are relative to the conf prefix, even when the include
// sits in a file of another directory.
//
// Each case builds the same tree twice, once for each server, with decoys
// at the places a wrong rule would read, runs both servers in the
// foreground with the same command line and working directory, and
// compares what they serve and which log and pid files they create.
package main

import (
	"crypto/tls"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"
)

// prefixMain is the main configuration of every case; {{PID}} and
// {{ERRLOG}} are left out when a case gives them on the command line.
const prefixMain = `{{USER}}daemon off;
{{PID}}{{ERRLOG}}events { worker_connections 64; }
http {
    include mime/types.conf;
    access_log logs/site-access.log;
    server {
        listen 127.0.0.1:{{PORT}};
        root html;
        include inc/loc.conf;
    }
    server {
        listen 127.0.0.1:{{TLSPORT}} ssl;
        ssl_certificate certs/site.pem;
        ssl_certificate_key certs/site.key;
        root html;
    }
}
`

// prefixCase is one command line: args get {{ROOT}} (the tree's top) and
// {{SITE}} (its prefix directory) replaced; dir is the working directory,
// relative to the tree's top; confDir is the directory the main file and
// its includes are written to, relative to the tree's top.
type prefixCase struct {
	name    string
	args    []string
	dir     string
	confDir string
	noPid   bool // the command line gives pid
	noError bool // the command line gives the error log
}

var prefixCases = []prefixCase{
	{name: "p_abs_c_rel", args: []string{"-p", "{{SITE}}/", "-c", "conf/nginx.conf"}, dir: "elsewhere", confDir: "site/conf"},
	{name: "p_rel_c_rel", args: []string{"-p", "site/", "-c", "conf/nginx.conf"}, dir: ".", confDir: "site/conf"},
	{name: "p_abs_c_abs_elsewhere", args: []string{"-p", "{{SITE}}/", "-c", "{{ROOT}}/other/nginx.conf"}, dir: "elsewhere", confDir: "other"},
	{name: "e_relative", args: []string{"-p", "{{SITE}}/", "-c", "conf/nginx.conf", "-e", "logs/from-e.log"}, dir: "elsewhere", confDir: "site/conf", noError: true},
	{name: "p_abs_no_slash", args: []string{"-p", "{{SITE}}", "-c", "conf/nginx.conf"}, dir: "elsewhere", confDir: "site/conf"},
	{name: "g_error_log_relative", args: []string{"-p", "{{SITE}}/", "-c", "conf/nginx.conf", "-g", "error_log logs/from-g.log;"}, dir: "elsewhere", confDir: "site/conf", noError: true},
	{name: "g_pid_relative", args: []string{"-p", "{{SITE}}/", "-c", "conf/nginx.conf", "-g", "pid run/from-g.pid;"}, dir: "elsewhere", confDir: "site/conf", noPid: true},
}

// prefixTree writes one case's tree under top for a server on port and
// tlsPort: the configuration in confDir with its includes, TLS files and
// mime types beside it; the document root under site/; decoys where a
// wrong rule would look.
func prefixTree(t *testing.T, top string, c prefixCase, port, tlsPort int, cert, key []byte) {
	t.Helper()
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n"
	}
	pid, errLog := "pid run/site.pid;\n", "error_log logs/site-error.log info;\n"
	if c.noPid {
		pid = ""
	}
	if c.noError {
		errLog = ""
	}
	main := strings.NewReplacer("{{USER}}", user, "{{PID}}", pid, "{{ERRLOG}}", errLog,
		"{{PORT}}", strconv.Itoa(port), "{{TLSPORT}}", strconv.Itoa(tlsPort)).Replace(prefixMain)
	files := map[string]string{
		c.confDir + "/nginx.conf":        main,
		c.confDir + "/mime/types.conf":   "types { text/html html; text/plain txt; }\n",
		c.confDir + "/inc/loc.conf":      "location /inc/ { include inc/more.conf; }\n",
		c.confDir + "/inc/more.conf":     "return 200 \"include from the conf prefix\\n\";\n",
		c.confDir + "/inc/inc/more.conf": "return 200 \"include from the including file's directory\\n\";\n",
		c.confDir + "/certs/site.pem":    string(cert),
		c.confDir + "/certs/site.key":    string(key),
		c.confDir + "/html/index.html":   "root under the conf prefix\n",
		"site/html/index.html":           "root under the prefix\n",
		"elsewhere/html/index.html":      "root under the working directory\n",
	}
	for rel, data := range files {
		writeFile(t, filepath.Join(top, rel), data)
	}
	for _, d := range []string{"site/logs", "site/run", "elsewhere/logs", "elsewhere/run"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// prefixOutcome is what one server did with a case's tree.
type prefixOutcome struct {
	index, inc, tlsIndex string
	files                []string // log and pid files created, relative to the top
}

// runPrefixCase runs bin on a fresh tree for c and reports what it served
// and created.
func runPrefixCase(t *testing.T, bin string, c prefixCase, cert, key []byte) prefixOutcome {
	t.Helper()
	top := t.TempDir()
	port, tlsPort := testenv.FreePort(t), testenv.FreePort(t)
	prefixTree(t, top, c, port, tlsPort, cert, key)
	args := make([]string, len(c.args))
	r := strings.NewReplacer("{{ROOT}}", top, "{{SITE}}", filepath.Join(top, "site"))
	for i, a := range c.args {
		args[i] = r.Replace(a)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Join(top, c.dir)
	p := testenv.Start(t, filepath.Base(bin), cmd,
		filepath.Join(top, "site/logs/site-error.log"), filepath.Join(top, "site/logs/from-e.log"))
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	tlsAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(tlsPort))
	testenv.WaitProcPort(t, p, addr, waitTimeout)
	testenv.WaitProcPort(t, p, tlsAddr, waitTimeout)
	var o prefixOutcome
	o.index = answer(addr, "/", false)
	o.inc = answer(addr, "/inc/x", false)
	o.tlsIndex = answer(tlsAddr, "/", true)
	p.Stop()
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(path, ".log") || strings.HasSuffix(path, ".pid") {
			rel, _ := filepath.Rel(top, path)
			o.files = append(o.files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(o.files)
	return o
}

// answer is "STATUS BODY" of GET path, over TLS when tlsOn.
func answer(addr, path string, tlsOn bool) string {
	if !tlsOn {
		resp, err := testenv.DoRaw(addr, "GET "+path+" HTTP/1.0\r\nHost: localhost\r\n\r\n")
		if err != nil {
			return err.Error()
		}
		return strconv.Itoa(resp.Status) + " " + string(resp.Body)
	}
	client := &http.Client{Timeout: waitTimeout, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}}
	resp, err := client.Get("https://" + addr + path)
	if err != nil {
		return "TLS: " + err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return strconv.Itoa(resp.StatusCode) + " " + string(body)
}

// TestPrefixPathsMatchNginx runs every case under nginx and edge and
// compares what they serve and which files they create.
func TestPrefixPathsMatchNginx(t *testing.T) {
	pki := testenv.NewPKI(t, t.TempDir())
	certFile, keyFile := pki.Leaf(t, "site", false, "localhost")
	cert, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	nginx, edge := testenv.NginxBinary(t), testenv.EdgeBinary(t)
	for _, c := range prefixCases {
		t.Run(c.name, func(t *testing.T) {
			want := runPrefixCase(t, nginx, c, cert, key)
			got := runPrefixCase(t, edge, c, cert, key)
			if want.index != "200 root under the prefix\n" || want.inc != "200 include from the conf prefix\n" {
				t.Errorf("nginx did not follow the rule this test states: / %q, /inc/x %q", want.index, want.inc)
			}
			for _, f := range []struct{ what, got, want string }{
				{"GET /", got.index, want.index},
				{"GET /inc/x", got.inc, want.inc},
				{"GET / over TLS", got.tlsIndex, want.tlsIndex},
				{"log and pid files", strings.Join(got.files, " "), strings.Join(want.files, " ")},
			} {
				if f.got != f.want {
					t.Errorf("%s: edge %q, nginx %q", f.what, f.got, f.want)
				}
			}
		})
	}
}
