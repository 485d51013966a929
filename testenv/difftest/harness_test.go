// This file starts the two servers of a scenario: Debian's nginx and edge,
// each on its own free loopback port, both reading one docroot and one
// configuration text (the scenario's http{} body with its placeholders
// filled in), and both with edge's own mime.types and fastcgi_params.

package difftest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"
)

// env is what every scenario of one test run shares.
type env struct {
	root     string // the docroot
	outside  string // a directory next to the docroot (traversal targets)
	mime     string // edge's conf/mime.types
	fcParams string // edge's conf/fastcgi_params
	fcConf   string // edge's conf/fastcgi.conf
	fcPHP    string // Debian's snippets/fastcgi-php.conf, including fcConf
	fpm      string // fastcgi_pass address of the shared php-fpm pool
	backend  string // the HTTP backend both proxy_pass to (corpus_proxy_test.go)
	dns      string // the DNS server both resolvers ask (corpus_proxy_test.go)
}

// newEnv builds the docroot and starts the php-fpm pool both servers use.
func newEnv(t *testing.T) *env {
	t.Helper()
	repo := testenv.RepoRoot(t)
	base := t.TempDir()
	e := &env{
		root:     filepath.Join(base, "www"),
		outside:  base,
		mime:     filepath.Join(repo, "conf", "mime.types"),
		fcParams: filepath.Join(repo, "conf", "fastcgi_params"),
		fcConf:   filepath.Join(repo, "conf", "fastcgi.conf"),
		fcPHP:    filepath.Join(base, "fastcgi-php.conf"),
	}
	// nginx's workers run as root in a test run by root (NginxMain); under
	// another user they read the docroot as that user's "other", and
	// t.TempDir() directories are 0700.
	for _, dir := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatalf("difftest: %v", err)
		}
	}
	buildDocroot(t, e.root, e.outside)
	writeFile(t, e.fcPHP, strings.ReplaceAll(debianFastCGIPHP, "{{FASTCGI_CONF}}", e.fcConf), 0o644)
	fpm := testenv.StartFPM(t, testenv.FPMOptions{})
	e.fpm = "unix:" + fpm.Address
	if fpm.Network == "tcp" {
		e.fpm = fpm.Address
	}
	e.backend = startBackend(t)
	e.dns = startDNS(t)
	return e
}

// pair is the two running servers of one scenario.
type pair struct {
	nginxAddr, edgeAddr string
	nginxPort, edgePort int
}

// render fills a scenario's http{} body for a server on port.
func (e *env) render(body string, port int) string {
	return strings.NewReplacer(
		"{{LISTEN}}", "127.0.0.1:"+strconv.Itoa(port),
		"{{PORT}}", strconv.Itoa(port),
		"{{ROOT}}", e.root,
		"{{OUTSIDE}}", e.outside,
		"{{FPM}}", e.fpm,
		"{{FASTCGI_PARAMS}}", e.fcParams,
		"{{FASTCGI_CONF}}", e.fcConf,
		"{{FASTCGI_PHP}}", e.fcPHP,
		"{{MIME_TYPES}}", e.mime,
		"{{BACKEND}}", e.backend,
		"{{BACKEND_PORT}}", e.backend[strings.LastIndexByte(e.backend, ':')+1:],
		"{{DNS}}", e.dns,
	).Replace(body)
}

// loadModules are the main-level lines both servers read first: nginx
// loads the dynamic modules Debian packages for the third-party modules
// edge has built in (libnginx-mod-http-headers-more-filter, installed by
// scripts/deps.sh), and edge reads the same lines, which it accepts with
// a [notice] (conf/modules.go): a configuration copied from such a
// server runs unchanged.
const loadModules = "load_module /usr/lib/nginx/modules/ngx_http_headers_more_filter_module.so;\n"

// startPair starts nginx and edge for one scenario's http{} body.
func (e *env) startPair(t *testing.T, body string) *pair {
	t.Helper()
	p := &pair{nginxPort: testenv.FreePort(t), edgePort: testenv.FreePort(t)}
	nginxConf := loadModules + testenv.NginxMain(1) + "http {\n" +
		testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs("") +
		"include " + e.mime + ";\n" + e.render(body, p.nginxPort) + "}\n"
	ng := testenv.StartNginx(t, nginxConf, p.nginxPort)
	p.nginxAddr = ng.Addr()
	p.edgeAddr = startEdge(t, e.render(body, p.edgePort), e.mime, p.edgePort)
	return p
}

// debianFastCGIPHP is the directives of Debian's snippets/fastcgi-php.conf
// (nginx-common), which configs include as "snippets/fastcgi-php.conf",
// with its "include fastcgi.conf" pointing at edge's file.
const debianFastCGIPHP = `fastcgi_split_path_info ^(.+?\.php)(/.*)$;
try_files $fastcgi_script_name =404;
set $path_info $fastcgi_path_info;
fastcgi_param PATH_INFO $path_info;
fastcgi_index index.php;
include {{FASTCGI_CONF}};
`

// edgeConf is the main configuration edge runs for an http{} body. edge
// refuses nginx's *_temp_path directives (it has no such files), so its
// file leaves them out; everything else is the text nginx gets.
func edgeConf(prefix, httpBody, mime string) string {
	errLog := filepath.Join(prefix, "logs", "error.log")
	return loadModules + testenv.NginxMain(1) + "error_log " + errLog + " info;\n" +
		"http {\n" + testenv.NginxHTTPLogs("") + "include " + mime + ";\n" + httpBody + "}\n"
}

// edgeTest runs "edge -t" on the configuration startEdge would run and
// returns its output and whether it accepted the file.
func (e *env) edgeTest(t *testing.T, body string) (string, bool) {
	t.Helper()
	prefix := testenv.EdgePrefix(t)
	conf := filepath.Join(prefix, "edge.conf")
	if err := os.WriteFile(conf, []byte(edgeConf(prefix, e.render(body, testenv.FreePort(t)), e.mime)), 0o644); err != nil {
		t.Fatalf("difftest: %v", err)
	}
	out, err := exec.Command(testenv.EdgeBinary(t), "-t", "-p", prefix+"/", "-c", conf).CombinedOutput()
	return string(out), err == nil
}

// startEdge runs edge in the foreground with the same http{} body.
func startEdge(t *testing.T, httpBody, mime string, port int) string {
	t.Helper()
	prefix := testenv.EdgePrefix(t)
	conf := edgeConf(prefix, httpBody, mime)
	return testenv.StartEdge(t, testenv.EdgeOptions{Prefix: prefix, Conf: conf, Global: "daemon off;", Ports: []int{port}}).Addr()
}
