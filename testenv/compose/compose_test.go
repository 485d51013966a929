// This file holds the stack's tests: compose.yaml's validation with its
// variables unset and set, then one stack brought up with "up --wait" and
// driven as a user would over HTTPS through edge: WordPress's web
// installer, the front page, a permalink, assets with their expiry, the
// front page rendered by headless Chromium (EDGE_COMPOSE_SCREENSHOT=FILE
// keeps its screenshot),
// "edge fpm status" on the php-fpm container's pool, a stopped php-fpm (a
// 502 at once, then recovery), and a broken edge configuration (the
// container running but never healthy, edge's [emerg] in its logs).

package compose

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"edge/fastcgi/fpm"
	"edge/testenv"
)

// project is the Compose project name of every stack these tests start.
const project = "edge-compose-test"

// stackVars are the variables compose.yaml reads.
var stackVars = []string{"EDGE_HTTP_PORT", "EDGE_HTTPS_PORT", "EDGE_STATUS_PORT", "EDGE_CONF_DIR", "EDGE_CA_DIR",
	"DB_NAME", "DB_USER", "DB_PASSWORD", "WORDPRESS_OFFLINE", "WORDPRESS_DEBUG"}

// stack runs docker compose on deploy/compose.yaml.
type stack struct {
	t      testing.TB
	deploy string   // the deploy directory
	env    []string // the environment, stackVars removed, plus vars
	// envFile, when set, replaces deploy/.env.
	envFile string
}

func newStack(t testing.TB, vars map[string]string) *stack {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Fatalf("docker not found: install Debian's docker.io (./scripts/deps.sh test)")
	}
	s := &stack{t: t, deploy: filepath.Join(testenv.RepoRoot(t), "deploy")}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !contains(stackVars, name) && name != "COMPOSE_PROJECT_NAME" && name != "COMPOSE_FILE" {
			s.env = append(s.env, kv)
		}
	}
	for k, v := range vars {
		s.env = append(s.env, k+"="+v)
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// run runs "docker compose ARGS" and returns its combined output.
func (s *stack) run(timeout time.Duration, args ...string) (string, error) {
	s.t.Helper()
	full := []string{"compose", "-f", filepath.Join(s.deploy, "compose.yaml"), "-p", project}
	if s.envFile != "" {
		full = append(full, "--env-file", s.envFile)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", append(full, args...)...)
	cmd.Dir = s.deploy
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%v (gave up after %v)", err, timeout)
	}
	return string(out), err
}

// must is run that fails the test on an error.
func (s *stack) must(timeout time.Duration, args ...string) string {
	s.t.Helper()
	out, err := s.run(timeout, args...)
	if err != nil {
		s.t.Fatalf("docker compose %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// config is compose.yaml as "docker compose config" resolves it.
type config struct {
	Services map[string]struct {
		Ports []struct {
			HostIP    string `json:"host_ip"`
			Published string `json:"published"`
			Target    int    `json:"target"`
		} `json:"ports"`
		Healthcheck *struct {
			Test []string `json:"test"`
		} `json:"healthcheck"`
		DependsOn map[string]struct {
			Condition string `json:"condition"`
		} `json:"depends_on"`
		Environment map[string]*string `json:"environment"`
		Volumes     []struct {
			Source string `json:"source"`
			Target string `json:"target"`
		} `json:"volumes"`
	} `json:"services"`
}

func (s *stack) config() *config {
	s.t.Helper()
	out := s.must(time.Minute, "config", "--format", "json")
	var c config
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		s.t.Fatalf("docker compose config: %v\n%s", err, out)
	}
	return &c
}

// published returns the host port of service's container port target.
func (c *config) published(t testing.TB, service string, target int) string {
	t.Helper()
	for _, p := range c.Services[service].Ports {
		if p.Target == target {
			return p.Published
		}
	}
	t.Fatalf("service %s publishes no port %d", service, target)
	return ""
}

// oneShot are the steps that run once before the services, and so have
// no health check: others wait for them to exit 0.
var oneShot = map[string]bool{"edge-ca-dir": true}

// checkShape asserts what must hold whatever the variables say: ports
// on 127.0.0.1 only, a health check on every service, dependencies that
// wait for health (or for a one-shot step to succeed).
func (c *config) checkShape(t testing.TB) {
	t.Helper()
	for name := range oneShot {
		if _, ok := c.Services[name]; !ok {
			t.Fatalf("no service %s", name)
		}
	}
	for _, name := range []string{"edge", "php-fpm", "mariadb"} {
		svc, ok := c.Services[name]
		if !ok {
			t.Fatalf("no service %s", name)
		}
		if svc.Healthcheck == nil || len(svc.Healthcheck.Test) == 0 {
			t.Errorf("service %s has no health check", name)
		}
		for _, p := range svc.Ports {
			if p.HostIP != "127.0.0.1" {
				t.Errorf("service %s publishes %d on %q, want 127.0.0.1", name, p.Target, p.HostIP)
			}
		}
		for dep, d := range svc.DependsOn {
			if oneShot[dep] && d.Condition == "service_completed_successfully" {
				continue
			}
			if d.Condition != "service_healthy" {
				t.Errorf("service %s waits for %s to be %q, want service_healthy", name, dep, d.Condition)
			}
		}
	}
	if hc := c.Services["edge"].Healthcheck; hc != nil && (hc.Test[0] != "CMD" || !contains(hc.Test, "healthcheck")) {
		t.Errorf("edge's health check is %q, want the exec form of edge healthcheck", hc.Test)
	}
}

// mount returns the host path the service mounts at target ("" if none).
func (c *config) mount(service, target string) string {
	for _, v := range c.Services[service].Volumes {
		if v.Target == target {
			return v.Source
		}
	}
	return ""
}

// expectCADir asserts that edge copies its CA's root into dir, a host
// directory the one-shot edge-ca-dir step makes writable for it.
func (c *config) expectCADir(t testing.TB, dir string) {
	t.Helper()
	if got := c.mount("edge", "/var/lib/edge-ca"); got != dir {
		t.Errorf("edge mounts %q at /var/lib/edge-ca, want %s", got, dir)
	}
	if got := c.mount("edge-ca-dir", "/ca"); got != dir {
		t.Errorf("edge-ca-dir mounts %q at /ca, want %s", got, dir)
	}
	if v := c.Services["edge"].Environment["EDGE_CA_EXPORT"]; v == nil || *v != "/var/lib/edge-ca/edge-ca.crt" {
		t.Errorf("edge's EDGE_CA_EXPORT is %v, want /var/lib/edge-ca/edge-ca.crt", v)
	}
}

// expect asserts the host ports edge's container ports are published on,
// and one environment variable of one service.
func (c *config) expect(t testing.TB, ports map[int]string, service, name, value string) {
	t.Helper()
	for target, want := range ports {
		if got := c.published(t, "edge", target); got != want {
			t.Errorf("edge's port %d is published on %s, want %s", target, got, want)
		}
	}
	if v := c.Services[service].Environment[name]; v == nil || *v != value {
		t.Errorf("service %s has %s=%v, want %s", service, name, v, value)
	}
}

func TestConfig(t *testing.T) {
	t.Run("variables unset", func(t *testing.T) {
		s := newStack(t, nil)
		s.envFile = filepath.Join(t.TempDir(), "empty.env")
		if err := os.WriteFile(s.envFile, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		c := s.config()
		c.checkShape(t)
		c.expect(t, map[int]string{80: "8080", 443: "8443", 8081: "8081"}, "mariadb", "MARIADB_PASSWORD", "wordpress-dev")
		c.expectCADir(t, filepath.Join(s.deploy, "ca"))
	})
	t.Run("from .env", func(t *testing.T) {
		c := newStack(t, nil).config()
		c.checkShape(t)
		if got := c.published(t, "edge", 443); got != "8443" {
			t.Errorf("edge's port 443 is published on %s, want .env's 8443", got)
		}
	})
	t.Run("variables set", func(t *testing.T) {
		conf, ca := t.TempDir(), t.TempDir()
		c := newStack(t, map[string]string{"EDGE_HTTPS_PORT": "9443", "EDGE_HTTP_PORT": "9080",
			"EDGE_STATUS_PORT": "9081", "DB_PASSWORD": "other", "EDGE_CONF_DIR": conf, "EDGE_CA_DIR": ca}).config()
		c.checkShape(t)
		c.expectCADir(t, ca)
		c.expect(t, map[int]string{80: "9080", 443: "9443", 8081: "9081"}, "php-fpm", "WORDPRESS_DB_PASSWORD", "other")
		found := false
		for _, v := range c.Services["edge"].Volumes {
			found = found || (v.Target == "/etc/edge" && v.Source == conf)
		}
		if !found {
			t.Errorf("EDGE_CONF_DIR=%s is not mounted at /etc/edge: %+v", conf, c.Services["edge"].Volumes)
		}
	})
}

const (
	wpTitle    = "Edge Compose Blog"
	wpUser     = "admin"
	wpPassword = "edge-Compose-passw0rd-4711"
)

func TestStack(t *testing.T) {
	ports := map[string]int{"EDGE_HTTP_PORT": testenv.FreeListenPort(t), "EDGE_HTTPS_PORT": testenv.FreeListenPort(t),
		"EDGE_STATUS_PORT": testenv.FreeListenPort(t)}
	// edge copies its CA's root here: a directory of this host, owned by
	// the test's user, as deploy/ca is by the user who cloned the
	// repository.
	caDir := t.TempDir()
	vars := map[string]string{"WORDPRESS_OFFLINE": "1", "EDGE_CA_DIR": caDir}
	for k, v := range ports {
		vars[k] = strconv.Itoa(v)
	}
	s := newStack(t, vars)
	// A stack an interrupted run left behind goes first.
	s.must(5*time.Minute, "down", "-v", "--remove-orphans")
	start := time.Now()
	s.must(30*time.Minute, "build")
	t.Logf("docker compose build took %v", time.Since(start).Round(time.Second))
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := s.run(time.Minute, "logs", "--no-color", "--tail", "200")
			t.Logf("docker compose logs:\n%s", out)
		}
		s.must(5*time.Minute, "down", "-v", "--remove-orphans")
	})
	start = time.Now()
	s.must(10*time.Minute, "up", "-d", "--wait", "--wait-timeout", "300")
	t.Logf("docker compose up --wait took %v", time.Since(start).Round(time.Second))

	// The local CA's root, in the host directory, is what the HTTPS
	// client trusts: nothing else signs edge's certificate. The status
	// port hands out the same file.
	caPEM := hostCA(t, filepath.Join(caDir, "edge-ca.crt"))
	status := fmt.Sprintf("http://127.0.0.1:%d", ports["EDGE_STATUS_PORT"])
	if served := get(t, status+"/ca.crt"); served != caPEM {
		t.Fatalf("%s/ca.crt is not the root in %s:\n%.200q\n%.200q", status, caDir, served, caPEM)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(caPEM)) {
		t.Fatalf("%s/edge-ca.crt is not a PEM certificate: %.200q", caDir, caPEM)
	}
	httpsAddr := fmt.Sprintf("127.0.0.1:%d", ports["EDGE_HTTPS_PORT"])
	jar, _ := cookiejar.New(nil)
	client := &http.Client{
		Timeout: 60 * time.Second,
		Jar:     jar,
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "localhost"},
			// https://localhost:PORT is the site's address; the
			// connection goes to the port published on 127.0.0.1.
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "tcp", httpsAddr)
			},
			ForceAttemptHTTP2: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	base := fmt.Sprintf("https://localhost:%d", ports["EDGE_HTTPS_PORT"])
	b := &testenv.WPBrowser{T: t, Base: base, HTTP: client}

	t.Run("install", func(t *testing.T) {
		b.T = t
		b.Install(wpTitle, wpUser, wpPassword)
	})
	t.Run("front page over HTTP/2", func(t *testing.T) {
		b.T = t
		resp, _ := b.Expect("GET", "/", nil, 200, "<title>"+wpTitle, "Hello world!")
		if resp.ProtoMajor != 2 {
			t.Errorf("front page over %s, want HTTP/2", resp.Proto)
		}
	})
	t.Run("permalink", func(t *testing.T) {
		b.T = t
		b.Login(wpUser, wpPassword)
		b.SetPostnamePermalinks()
		b.ExpectPermalink()
	})
	t.Run("assets expire", func(t *testing.T) {
		b.T = t
		b.ExpectExpires("/wp-includes/css/dashicons.min.css", "/wp-content/themes/twentytwentythree/style.css")
	})
	t.Run("chromium renders the front page", func(t *testing.T) {
		resp, err := client.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.TLS == nil || len(resp.TLS.PeerCertificates) == 0 {
			t.Fatalf("no TLS certificate from %s", base)
		}
		// Chromium trusts exactly the certificate edge serves.
		spki := sha256.Sum256(resp.TLS.PeerCertificates[0].RawSubjectPublicKeyInfo)
		png := filepath.Join(t.TempDir(), "front-page.png")
		dom := chromium(t, "--ignore-certificate-errors-spki-list="+base64.StdEncoding.EncodeToString(spki[:]),
			"--dump-dom", base+"/")
		if !strings.Contains(dom, "<title>"+wpTitle) || !strings.Contains(dom, "Hello world!") {
			t.Fatalf("Chromium's DOM of %s/ is not the front page: %.500q", base, dom)
		}
		chromium(t, "--ignore-certificate-errors-spki-list="+base64.StdEncoding.EncodeToString(spki[:]),
			"--window-size=1280,960", "--hide-scrollbars", "--screenshot="+png, base+"/")
		data, err := os.ReadFile(png)
		if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
			t.Fatalf("no PNG screenshot (%v)", err)
		}
		// EDGE_COMPOSE_SCREENSHOT=docs/compose-wordpress.png keeps it
		// (relative to the repository).
		if out := os.Getenv("EDGE_COMPOSE_SCREENSHOT"); out != "" {
			if !filepath.IsAbs(out) {
				out = filepath.Join(testenv.RepoRoot(t), out)
			}
			if err := os.WriteFile(out, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("edge fpm status", func(t *testing.T) {
		out := s.must(time.Minute, "exec", "-T", "edge", "/usr/bin/edge", "fpm", "status", "--json",
			"-c", "/etc/edge/edge.conf", "-p", "/var/lib/edge")
		var reports []fpm.Report
		if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &reports); err != nil {
			t.Fatalf("edge fpm status --json: %v\n%s", err, out)
		}
		// The configuration has no fpm_pool: the pool is the one
		// fastcgi_pass names.
		if len(reports) != 1 || reports[0].Name != "php-fpm:9000" || reports[0].Pass != "php-fpm:9000" {
			t.Fatalf("edge fpm status reports %d pools, want the one behind fastcgi_pass php-fpm:9000:\n%s", len(reports), out)
		}
		r := reports[0]
		// "wordpress" is the pool's name in the php-fpm container's
		// pool file: edge read it from that container's status page,
		// found at its pm.status_path (/status answers 404 first).
		if r.FPM == nil || r.FPM.Pool != "wordpress" || r.FPM.TotalProcesses < 1 || r.FPM.AcceptedConn < 1 ||
			r.Status != "tcp:php-fpm:9000/fpm-status" {
			t.Fatalf("edge fpm status did not reach the php-fpm container's pool (error %q):\n%s", r.FPMError, out)
		}
		if r.Edge == nil || r.Edge.Requests < 1 {
			t.Errorf("edge fpm status has no figures from the running edge:\n%s", out)
		}
		// A status path php-fpm does not serve: the reason, exit 1.
		out, err := s.run(time.Minute, "exec", "-T", "edge", "/usr/bin/edge", "fpm", "status", "--status-path", "/nope",
			"-c", "/etc/edge/edge.conf", "-p", "/var/lib/edge")
		if want := "edge: pool php-fpm:9000: php-fpm at php-fpm:9000 has no status page at /nope (it answered 404)"; err == nil || !strings.Contains(out, want) {
			t.Errorf("edge fpm status --status-path /nope: %v, want exit 1 and %q:\n%s", err, want, out)
		}
		page := get(t, status+"/")
		if !strings.Contains(page, "php-fpm:9000") {
			t.Errorf("the status page does not show the pool: %.500q", page)
		}
	})
	t.Run("php-fpm stopped: 502, then back", func(t *testing.T) {
		b.T = t
		s.must(2*time.Minute, "stop", "php-fpm")
		// The client's 60s timeout bounds a stuck request; edge answers
		// at once because nothing accepts the connection.
		b.Expect("GET", "/", nil, 502, "502 Bad Gateway")
		s.must(2*time.Minute, "start", "php-fpm")
		poll(t, "the front page after php-fpm started again", func() bool {
			resp, body := b.Do("GET", "/", nil)
			return resp.StatusCode == 200 && strings.Contains(body, "Hello world!")
		})
	})
	t.Run("broken edge config", func(t *testing.T) {
		// A copy of deploy/edge with an unknown directive, readable by
		// the container's www-data.
		dir := t.TempDir()
		for _, name := range []string{"edge.conf", "wordpress.conf", "status.conf"} {
			data, err := os.ReadFile(filepath.Join(s.deploy, "edge", name))
			if err != nil {
				t.Fatal(err)
			}
			if name == "wordpress.conf" {
				data = append(data, []byte("\nno_such_directive on;\n")...)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for d := dir; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		broken := newStack(t, vars)
		broken.env = append(broken.env, "EDGE_CONF_DIR="+dir)
		out, err := broken.run(5*time.Minute, "up", "-d", "--wait", "--wait-timeout", "30", "edge")
		if err == nil {
			t.Fatalf("up --wait succeeded with a broken edge.conf:\n%s", out)
		}
		logs := s.must(time.Minute, "logs", "--no-color", "edge")
		want := "[emerg] unknown directive \"no_such_directive\" in /etc/edge/wordpress.conf:"
		if !strings.Contains(logs, want) {
			t.Errorf("docker compose logs edge lacks %q:\n%s", want, tail(logs, 2000))
		}
		if want := "waiting for a configuration that loads"; !strings.Contains(logs, want) {
			t.Errorf("docker compose logs edge lacks %q:\n%s", want, tail(logs, 2000))
		}
		// EDGE_CONFIG_WAIT (the image's): running and unhealthy, not a
		// restart loop.
		health := strings.TrimSpace(s.must(time.Minute, "ps", "-a", "--format", "{{.State}} {{.Health}}", "edge"))
		if health != "running unhealthy" {
			t.Errorf("edge is %q with a broken configuration, want running unhealthy", health)
		}
		t.Logf("with the broken configuration: health %q; up --wait said:\n%s", health, tail(out, 600))
		// The repository's configuration brings it back.
		s.must(5*time.Minute, "up", "-d", "--wait", "--wait-timeout", "120", "edge")
		b.T = t
		b.Expect("GET", "/", nil, 200, "Hello world!")
	})
}

// hostCA reads the CA root edge copied to the host (edge writes it while
// it starts; "up --wait" returns once it serves), and checks how it is
// owned: by edge's www-data, readable by all, in a directory whose owner
// did not change.
func hostCA(t *testing.T, path string) string {
	t.Helper()
	var data []byte
	poll(t, path+" on the host", func() bool {
		var err error
		data, err = os.ReadFile(path)
		return err == nil
	})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != 33 || fi.Mode().Perm() != 0o644 {
		t.Errorf("%s: mode %v, owner %+v; want 0644 and www-data (33)", path, fi.Mode(), fi.Sys())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := di.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() || st.Gid != 33 {
		t.Errorf("%s: owner %+v; want the test's user, group www-data (33)", filepath.Dir(path), di.Sys())
	}
	return string(data)
}

// chromium runs headless Chromium with args and returns its stdout.
// localhost is 127.0.0.1, where the stack's ports are published.
func chromium(t *testing.T, args ...string) string {
	t.Helper()
	bin := testenv.Binary(t, "chromium", "chromium", "chromium-browser")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run",
		"--host-resolver-rules=MAP localhost 127.0.0.1", "--virtual-time-budget=5000",
		"--user-data-dir=" + filepath.Join(t.TempDir(), "chromium")}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, tail(stderr.String(), 2000))
	}
	return string(out)
}

// get fetches an http:// URL on 127.0.0.1 and returns the body of a 200.
func get(t testing.TB, url string) string {
	t.Helper()
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: status %d: %.300q", url, resp.StatusCode, body)
	}
	return string(body)
}

// poll calls cond until it holds, failing after a deadline that bounds a
// stuck test (it is not a timing assertion).
func poll(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not so after 2 minutes", what)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
