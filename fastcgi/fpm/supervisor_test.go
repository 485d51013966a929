// pool_test.go runs the Supervisor against real php-fpm 8.2: the seed 000
// settings reach php-fpm exactly, a killed master is restarted, a killed
// worker is counted, a reload changes the pool in place without cutting a
// request, and a configuration php-fpm refuses never reaches the master.
package fpm

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"edge/conf"
	"edge/testenv"
)

// poolEnv is a prefix directory with a document root for supervised pools.
type poolEnv struct {
	prefix string
	root   string
	logMu  sync.Mutex
	log    []string
}

// newPoolEnv makes a short prefix (unix socket paths are limited to 107
// bytes, and t.TempDir() under a long test name can exceed that).
func newPoolEnv(t *testing.T) *poolEnv {
	t.Helper()
	if _, err := FindBinary(""); err != nil {
		t.Fatalf("%v (Debian package php8.2-fpm)", err)
	}
	dir, err := os.MkdirTemp("", "edge-fpm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &poolEnv{prefix: dir, root: filepath.Join(dir, "www")}
	if err := os.Mkdir(e.root, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range phpScripts {
		if err := os.WriteFile(filepath.Join(e.root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// pool compiles an fpm_pool block with the prefix.
func (e *poolEnv) pool(t *testing.T, block string) *conf.FPMPool {
	t.Helper()
	path := filepath.Join(e.prefix, "edge.conf")
	if err := os.WriteFile(path, []byte("events { }\nhttp {\n"+block+"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := conf.Load(path, conf.LoadOptions{Prefix: e.prefix})
	if err != nil {
		t.Fatal(err)
	}
	return plan.HTTP.Pools[0]
}

// supervisor starts p and stops it when the test ends, printing what
// php-fpm said if the test failed.
func (e *poolEnv) supervisor(t *testing.T, p *conf.FPMPool, o SupervisorOptions) *Supervisor {
	t.Helper()
	o.Log = func(level conf.Level, msg string) {
		e.logMu.Lock()
		e.log = append(e.log, "["+level.String()+"] "+msg)
		e.logMu.Unlock()
	}
	s := NewSupervisor(p, o)
	t.Cleanup(func() {
		s.Stop(false)
		if t.Failed() {
			e.logMu.Lock()
			t.Logf("supervisor log:\n%s", strings.Join(e.log, "\n"))
			e.logMu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *poolEnv) logged(substr string) bool {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	for _, l := range e.log {
		if strings.Contains(l, substr) {
			return true
		}
	}
	return false
}

// hello runs hello.php on the pool.
func (e *poolEnv) hello(t *testing.T, p *conf.FPMPool) {
	t.Helper()
	resp, err := runScript(context.Background(), p, e.root, "hello.php", "")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.Status != 200 || string(body) != "hello" {
		t.Fatalf("hello.php: %d %q %v", resp.Status, body, err)
	}
}

// status reads the pool's status page, failing the test on error.
func status(t *testing.T, p *conf.FPMPool) *Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := ReadStatus(ctx, p.StatusNetwork, p.StatusAddress, p.StatusPath)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// workersUp waits until php-fpm's status page lists n started workers
// and counts n in total: php-fpm forks them before "ready to handle
// connections" but each writes its own scoreboard slot a little later,
// and the master recounts idle and active once a second.
func workersUp(t *testing.T, p *conf.FPMPool, n int) *Status {
	t.Helper()
	var st *Status
	testenv.Eventually(t, fmt.Sprintf("%d workers in the status page", n), func() bool {
		st = status(t, p)
		return len(st.Processes) == n && st.Starting == 0 && st.TotalProcesses == n
	})
	return st
}

const seed000 = `fpm_pool www {
    pm dynamic;
    pm.max_children 160;
    pm.start_servers 24;
    pm.min_spare_servers 20;
    pm.max_spare_servers 35;
    pm.max_requests 1500;
}`

// The first check: seed 000's values reach php-fpm exactly, as
// its own -tt output and status page show.
func TestSupervisorSeed000(t *testing.T) {
	e := newPoolEnv(t)
	p := e.pool(t, seed000)
	s := e.supervisor(t, p, SupervisorOptions{})
	bin, _ := FindBinary("")
	out, err := exec.Command(bin, "-tt", "-y", s.Info().ConfPath, "-R").CombinedOutput()
	if err != nil {
		t.Fatalf("php-fpm -tt: %v\n%s", err, out)
	}
	for _, want := range []string{"pm = dynamic", "pm.max_children = 160", "pm.start_servers = 24",
		"pm.min_spare_servers = 20", "pm.max_spare_servers = 35", "pm.max_requests = 1500", "process_control_timeout = 30s"} {
		if !strings.Contains(string(out), "\t"+want+"\n") {
			t.Errorf("php-fpm -tt lacks %q", want)
		}
	}
	if st := workersUp(t, p, 24); st.ProcessManager != "dynamic" {
		t.Errorf("status: pm %q, want dynamic", st.ProcessManager)
	}
	e.hello(t, p)
}

// A configuration php-fpm refuses is reported in php-fpm's words and never
// reaches the running master.
func TestSupervisorRefusesBadConfig(t *testing.T) {
	e := newPoolEnv(t)
	p := e.pool(t, "fpm_pool www { pm static; pm.max_children 2; }")
	s := e.supervisor(t, p, SupervisorOptions{})
	pid := s.PID()
	bad := e.pool(t, "fpm_pool www { pm static; pm.max_children 3; user no-such-user-here; }")
	err := s.Reload(context.Background(), bad)
	if err == nil || !strings.Contains(err.Error(), "cannot get uid for user 'no-such-user-here'") {
		t.Fatalf("reload with an unknown user: %v", err)
	}
	if err := s.Check(bad); err == nil {
		t.Fatal("Check accepted an unknown user")
	}
	if s.PID() != pid || s.Info().Reloads != 0 {
		t.Fatalf("master changed after a refused config: pid %d -> %d", pid, s.PID())
	}
	workersUp(t, p, 2)
	e.hello(t, p)
}

// Reload changes the pool in place (same master PID, SIGUSR2) while a
// request runs, and the request completes.
func TestSupervisorReload(t *testing.T) {
	e := newPoolEnv(t)
	p := e.pool(t, "fpm_pool www { pm static; pm.max_children 2; }")
	s := e.supervisor(t, p, SupervisorOptions{})
	pid := s.PID()
	done := make(chan error, 1)
	go func() {
		resp, err := runScript(context.Background(), p, e.root, "sleep.php", "us=1500000")
		if err == nil {
			defer resp.Close()
			var b [16]byte
			n, _ := resp.Body.Read(b[:])
			if resp.Status != 200 || string(b[:n]) != "slept" {
				err = os.ErrInvalid
			}
		}
		done <- err
	}()
	testenv.Eventually(t, "the slow request to start", func() bool {
		select {
		case err := <-done:
			t.Fatalf("the request ended before the reload: %v", err)
		default:
		}
		return status(t, p).ActiveProcesses >= 1
	})
	next := e.pool(t, "fpm_pool www { pm dynamic; pm.max_children 6; pm.start_servers 3; pm.min_spare_servers 2; pm.max_spare_servers 4; }")
	if err := s.Reload(context.Background(), next); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("request across the reload: %v", err)
	}
	if s.PID() != pid {
		t.Errorf("reload changed the master PID %d -> %d", pid, s.PID())
	}
	if in := s.Info(); in.Reloads != 1 || in.Restarts != 0 {
		t.Errorf("reloads %d restarts %d, want 1 and 0", in.Reloads, in.Restarts)
	}
	if st := status(t, next); st.ProcessManager != "dynamic" {
		t.Errorf("after reload pm is %q", st.ProcessManager)
	}
	// The same configuration again is not a reload.
	if err := s.Reload(context.Background(), next); err != nil || s.Info().Reloads != 1 {
		t.Errorf("an unchanged reload: %v, reloads %d", err, s.Info().Reloads)
	}
	e.hello(t, next)
}

// A master killed with SIGKILL is restarted (its orphaned workers killed
// with it) and requests resume; a worker killed is replaced by php-fpm and
// counted.
func TestSupervisorRestartsAndCountsCrashes(t *testing.T) {
	e := newPoolEnv(t)
	p := e.pool(t, "fpm_pool www { pm static; pm.max_children 2; }")
	s := e.supervisor(t, p, SupervisorOptions{})

	var worker int
	testenv.Eventually(t, "a worker", func() bool {
		st := status(t, p)
		if len(st.Processes) == 0 {
			return false
		}
		worker = st.Processes[0].PID
		return true
	})
	if err := syscall.Kill(worker, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the worker crash to be counted", func() bool { return s.Info().WorkerCrashes == 1 })
	if in := s.Info(); !strings.Contains(in.LastCrash, "exited on signal 9 (SIGKILL)") {
		t.Errorf("last crash: %q", in.LastCrash)
	}
	testenv.Eventually(t, "php-fpm to replace the worker", func() bool {
		st := status(t, p)
		return len(st.Processes) == 2 && st.Processes[0].PID != worker && st.Processes[1].PID != worker
	})

	old := s.PID()
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the master to be restarted", func() bool {
		in := s.Info()
		return in.Restarts == 1 && in.Running && in.PID != old && accepts(p.Network, p.Address)
	})
	testenv.Eventually(t, "the old workers to be gone", func() bool { return syscall.Kill(-old, 0) != nil })
	e.hello(t, p)
	if !e.logged("php-fpm master") || !e.logged("restarting") {
		t.Error("the restart is not in the log")
	}
}

// A graceful stop lets a running request finish and removes the sockets.
func TestSupervisorGracefulStop(t *testing.T) {
	e := newPoolEnv(t)
	p := e.pool(t, "fpm_pool www { pm static; pm.max_children 1; }")
	s := e.supervisor(t, p, SupervisorOptions{})
	done := make(chan int, 1)
	go func() {
		resp, err := runScript(context.Background(), p, e.root, "sleep.php", "us=500000")
		if err != nil {
			t.Logf("request: %v", err)
			done <- 0
			return
		}
		code := resp.Status
		body, err := io.ReadAll(resp.Body)
		resp.Close()
		if err != nil || string(body) != "slept" {
			t.Logf("request body %q: %v", body, err)
			code = 0
		}
		done <- code
	}()
	testenv.Eventually(t, "the request to run", func() bool { return status(t, p).ActiveProcesses == 1 })
	s.Stop(true)
	if code := <-done; code != 200 {
		t.Fatalf("request during a graceful stop: %d", code)
	}
	if s.Info().Running {
		t.Fatal("master still running after Stop")
	}
	if _, err := os.Stat(p.Address); err == nil {
		t.Error("socket left behind")
	}
}

func TestFindBinary(t *testing.T) {
	if _, err := FindBinary(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing explicit binary was accepted")
	}
	bin, err := FindBinary("")
	if err != nil || !strings.Contains(filepath.Base(bin), "php-fpm") {
		t.Fatalf("FindBinary: %q %v", bin, err)
	}
	for _, c := range []struct{ a, b string }{{"php-fpm7.4", "php-fpm8.2"}, {"php-fpm8.2", "php-fpm8.10"}, {"php-fpm8", "php-fpm8.1"}} {
		if !versionLess(c.a, c.b) || versionLess(c.b, c.a) {
			t.Errorf("versionLess(%s, %s) wrong", c.a, c.b)
		}
	}
}

func TestParseFPMLine(t *testing.T) {
	for _, c := range []struct {
		in    string
		level conf.Level
		text  string
	}{
		{"[30-Nov-2026 05:30:06] WARNING: [pool www] child 1 exited on signal 9 (SIGKILL) after 2.6 seconds from start", conf.LevelWarn, "[pool www] child 1 exited on signal 9 (SIGKILL) after 2.6 seconds from start"},
		{"[30-Nov-2026 05:27:45] ALERT: [pool www] pm.max_children must be a positive value", conf.LevelAlert, "[pool www] pm.max_children must be a positive value"},
		{"[30-Nov-2026 05:27:45] NOTICE: ready to handle connections", conf.LevelNotice, "ready to handle connections"},
		{"plain text", conf.LevelNotice, "plain text"},
	} {
		level, text := parseFPMLine(c.in)
		if level != c.level || text != c.text {
			t.Errorf("parseFPMLine(%q) = %v %q", c.in, level, text)
		}
	}
}

func TestRenderConfig(t *testing.T) {
	p := &conf.FPMPool{Name: "www", Network: "unix", Address: "/run/www.sock", PM: "ondemand", MaxChildren: 3,
		ProcessIdleTimeout: 1500 * time.Millisecond, ProcessControlTimeout: 30 * time.Second, StatusPath: "/s",
		StatusNetwork: "unix", StatusAddress: "/run/www.status.sock", ClearEnv: true,
		PHPSettings: []conf.PHPSetting{{Kind: "php_admin_value", Name: "error_log", Value: "/var/log/php errors.log"}},
		Env:         []conf.EnvVar{{Name: "PATH", Value: "/usr/bin:/bin"}}}
	got := RenderConfig(p)
	for _, want := range []string{"[global]\n", "process_control_timeout = 30s\n", "[www]\n", "listen = /run/www.sock\n",
		"pm = ondemand\n", "pm.process_idle_timeout = 2s\n", "pm.status_path = /s\n", "pm.status_listen = /run/www.status.sock\n",
		"catch_workers_output = no\n", "clear_env = yes\n", `php_admin_value[error_log] = "/var/log/php errors.log"` + "\n",
		"env[PATH] = /usr/bin:/bin\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("config lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "start_servers") {
		t.Errorf("ondemand config has spare-server settings:\n%s", got)
	}
}
