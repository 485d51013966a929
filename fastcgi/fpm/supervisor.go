// supervisor.go holds the Supervisor: it turns an fpm_pool{} into php-fpm's own
// configuration, checks it with `php-fpm -t`, runs the master in the
// foreground as edge's child (-F -O -y CONF, and -R as root), passes its
// output to edge's error log line by line, restarts it with backoff when
// it dies, reloads it in place with SIGUSR2 (only after -t passed: a
// broken config given to a live master kills the pool) and stops it
// gracefully. It also finds the php-fpm binary.
package fpm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"edge/conf"
	"edge/internal/childproc"
)

// FindBinary returns the php-fpm binary to run: explicit when it is set
// (it must exist), else "php-fpm" in PATH or the sbin directories
// (childproc.SbinDirs: Debian installs php-fpm in /usr/sbin, which a
// non-root PATH often lacks), else the highest "php-fpmX.Y" found there.
func FindBinary(explicit string) (string, error) {
	if explicit != "" {
		if st, err := os.Stat(explicit); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("fastcgi: php-fpm binary \"%s\" is not an executable file", explicit)
		}
		return explicit, nil
	}
	dirs := append(filepath.SplitList(os.Getenv("PATH")), childproc.SbinDirs...)
	for _, d := range dirs {
		if p := filepath.Join(d, "php-fpm"); childproc.IsExecutable(p) {
			return p, nil
		}
	}
	var versioned []string
	for _, d := range dirs {
		matches, _ := filepath.Glob(filepath.Join(d, "php-fpm[0-9]*"))
		for _, m := range matches {
			if childproc.IsExecutable(m) {
				versioned = append(versioned, m)
			}
		}
	}
	if len(versioned) == 0 {
		return "", errors.New("fastcgi: no php-fpm binary found (php-fpm or php-fpmX.Y in PATH or /usr/sbin); install php-fpm or set \"binary\" in fpm_pool")
	}
	sort.SliceStable(versioned, func(i, j int) bool {
		return versionLess(filepath.Base(versioned[j]), filepath.Base(versioned[i]))
	})
	return versioned[0], nil
}

// versionLess orders "php-fpm8.2" before "php-fpm8.10" numerically.
func versionLess(a, b string) bool {
	pa := strings.Split(strings.TrimPrefix(a, "php-fpm"), ".")
	pb := strings.Split(strings.TrimPrefix(b, "php-fpm"), ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, _ := strconv.Atoi(pa[i])
		nb, _ := strconv.Atoi(pb[i])
		if na != nb {
			return na < nb
		}
	}
	return len(pa) < len(pb)
}

// RenderConfig writes php-fpm's configuration for an owned pool: a
// [global] section that logs to stderr (which edge reads) and lets
// workers finish their request on reload and stop, and one pool section.
func RenderConfig(p *conf.FPMPool) string {
	var b strings.Builder
	line := func(k string, v any) { fmt.Fprintf(&b, "%s = %v\n", k, v) }
	b.WriteString("; written by edge from fpm_pool \"" + p.Name + "\"; edits are overwritten\n[global]\n")
	line("error_log", "/proc/self/fd/2")
	// notice: "ready to handle connections" is how edge knows a start or
	// a reload is done.
	line("log_level", "notice")
	line("daemonize", "no")
	line("process_control_timeout", seconds(p.ProcessControlTimeout))
	fmt.Fprintf(&b, "\n[%s]\n", p.Name)
	line("listen", p.Address)
	line("listen.mode", "0660")
	if p.User != "" {
		line("user", p.User)
	}
	if p.Group != "" {
		line("group", p.Group)
	}
	line("pm", p.PM)
	line("pm.max_children", p.MaxChildren)
	if p.PM == "dynamic" {
		line("pm.start_servers", p.StartServers)
		line("pm.min_spare_servers", p.MinSpareServers)
		line("pm.max_spare_servers", p.MaxSpareServers)
		line("pm.max_spawn_rate", p.MaxSpawnRate)
	}
	if p.PM == "ondemand" {
		line("pm.process_idle_timeout", seconds(p.ProcessIdleTimeout))
	}
	line("pm.max_requests", p.MaxRequests)
	if p.StatusPath != "" {
		line("pm.status_path", p.StatusPath)
		if p.StatusAddress != "" && p.StatusAddress != p.Address {
			line("pm.status_listen", p.StatusAddress)
		}
	}
	if p.RequestTerminateTimeout > 0 {
		line("request_terminate_timeout", seconds(p.RequestTerminateTimeout))
	}
	if p.RequestSlowlogTimeout > 0 {
		line("request_slowlog_timeout", seconds(p.RequestSlowlogTimeout))
		line("slowlog", iniValue(p.Slowlog))
	}
	line("catch_workers_output", yesNo(p.CatchWorkersOutput))
	line("clear_env", yesNo(p.ClearEnv))
	for _, e := range p.Env {
		line("env["+e.Name+"]", iniValue(e.Value))
	}
	for _, s := range p.PHPSettings {
		line(s.Kind+"["+s.Name+"]", iniValue(s.Value))
	}
	return b.String()
}

// seconds writes a duration in php-fpm's time syntax, rounding up so that
// a sub-second value never becomes 0 ("off").
func seconds(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(s, 10) + "s"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// iniValue quotes a value php-fpm's ini parser would otherwise read
// differently (spaces, ";", "=", ...).
func iniValue(v string) string {
	if v != "" && strings.IndexFunc(v, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-:,+@", r))
	}) < 0 {
		return v
	}
	return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
}

// SupervisorOptions configure a Supervisor. The zero value is usable.
type SupervisorOptions struct {
	// ConfPath is where the php-fpm configuration is written. Default:
	// php-fpm-NAME.conf next to the pool's tuning state file.
	ConfPath string
	// Log receives php-fpm's output (levels mapped from php-fpm's) and
	// the Supervisor's own events. nil drops them. It must not block.
	Log func(level conf.Level, msg string)
	// BeforeReload runs right before SIGUSR2. The FastCGI client closes
	// its idle kept connections there: a worker waiting on a kept
	// connection holds the reload until process_control_timeout.
	BeforeReload func()
	// MinBackoff and MaxBackoff bound the wait before a restart; it
	// doubles after each quick death. Defaults 100ms and 10s.
	MinBackoff, MaxBackoff time.Duration
	// ReadyTimeout bounds a start or a reload. Default 30s.
	ReadyTimeout time.Duration
}

// Supervisor runs one php-fpm master for one pool. Its methods are safe
// for concurrent use.
type Supervisor struct {
	opts SupervisorOptions
	name string

	op sync.Mutex // serializes Start, Reload, Stop and restarts

	mu       sync.Mutex
	pool     *conf.FPMPool
	binary   string
	text     string // the configuration the master runs
	proc     *master
	stopping bool
	ready    *sync.Cond // signalled on every "ready" line and exit
	info     SupervisorInfo
}

// SupervisorInfo is what the Supervisor saw, for reports.
type SupervisorInfo struct {
	Binary      string    `json:"binary"`
	ConfPath    string    `json:"conf_path"`
	PID         int       `json:"pid"`
	Running     bool      `json:"running"`
	Started     time.Time `json:"started"`
	Restarts    int       `json:"restarts"`
	Reloads     int       `json:"reloads"`
	LastRestart string    `json:"last_restart,omitempty"`
	// WorkerExits counts workers that ended (max_requests, idle, ...);
	// WorkerCrashes those that died by a signal or a non-zero code.
	WorkerExits   int    `json:"worker_exits"`
	WorkerCrashes int    `json:"worker_crashes"`
	LastCrash     string `json:"last_crash,omitempty"`
	// MaxChildrenWarnings counts php-fpm's "server reached
	// pm.max_children setting" warnings.
	MaxChildrenWarnings int    `json:"max_children_warnings"`
	SlowWarnings        int    `json:"slow_warnings"`
	LastWarning         string `json:"last_warning,omitempty"`
}

// master is one started php-fpm process (kept across SIGUSR2 reloads,
// which exec in place).
type master struct {
	cmd      *exec.Cmd
	started  time.Time
	readyGen int  // "ready to handle connections" lines seen
	exited   bool // reaped
	replaced bool // stopped on purpose to start another
	waitErr  error
}

// NewSupervisor prepares a Supervisor for p; nothing runs until Start.
func NewSupervisor(p *conf.FPMPool, o SupervisorOptions) *Supervisor {
	if o.ConfPath == "" {
		o.ConfPath = filepath.Join(filepath.Dir(p.StateFile), "php-fpm-"+p.Name+".conf")
	}
	if o.MinBackoff == 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 30 * time.Second
	}
	s := &Supervisor{opts: o, name: p.Name, pool: p}
	s.ready = sync.NewCond(&s.mu)
	s.info.ConfPath = o.ConfPath
	return s
}

// Pool returns the pool the master currently runs.
func (s *Supervisor) Pool() *conf.FPMPool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pool
}

// Info returns a snapshot of what the Supervisor saw.
func (s *Supervisor) Info() SupervisorInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.info
	if s.proc != nil && !s.proc.exited {
		in.Running = true
		in.PID = s.proc.cmd.Process.Pid
		in.Started = s.proc.started
	}
	return in
}

// PID returns the master's PID, or 0 when it does not run.
func (s *Supervisor) PID() int { return s.Info().PID }

func (s *Supervisor) logf(level conf.Level, format string, args ...any) {
	if s.opts.Log != nil {
		s.opts.Log(level, fmt.Sprintf(format, args...))
	}
}

// Check renders p and runs `php-fpm -t` on it without touching the
// running master.
func (s *Supervisor) Check(p *conf.FPMPool) error {
	bin, err := FindBinary(p.Binary)
	if err != nil {
		return err
	}
	tmp, err := s.writeTemp(RenderConfig(p))
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return testConfig(bin, tmp, p.Name)
}

// writeTemp writes text next to the config path, for -t and an atomic
// rename.
func (s *Supervisor) writeTemp(text string) (string, error) {
	dir := filepath.Dir(s.opts.ConfPath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("fastcgi: fpm_pool \"%s\": %w", s.name, err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(s.opts.ConfPath)+".*.new")
	if err != nil {
		return "", fmt.Errorf("fastcgi: fpm_pool \"%s\": %w", s.name, err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("fastcgi: fpm_pool \"%s\": %w", s.name, err)
	}
	return f.Name(), nil
}

// testConfig runs `php-fpm -t -y path` and turns a failure into php-fpm's
// own first ALERT/ERROR message.
func testConfig(bin, path, pool string) error {
	args := []string{"-t", "-y", path}
	if os.Geteuid() == 0 {
		args = append(args, "-R")
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(string(out))
	for _, l := range strings.Split(msg, "\n") {
		if lvl, text := parseFPMLine(l); lvl <= conf.LevelError && text != "" {
			msg = text
			break
		}
	}
	return fmt.Errorf("fastcgi: fpm_pool \"%s\": \"%s -t\" failed: %s", pool, filepath.Base(bin), msg)
}

// Start writes the configuration, checks it, starts the master and
// returns once php-fpm says it is ready to handle connections.
func (s *Supervisor) Start(ctx context.Context) error {
	s.op.Lock()
	defer s.op.Unlock()
	p := s.Pool()
	bin, err := FindBinary(p.Binary)
	if err != nil {
		return err
	}
	text := RenderConfig(p)
	if err := s.install(bin, text); err != nil {
		return err
	}
	for _, a := range []string{p.Address, p.StatusAddress} {
		if filepath.IsAbs(a) {
			_ = os.MkdirAll(filepath.Dir(a), 0o755)
		}
	}
	s.mu.Lock()
	s.binary, s.text, s.stopping = bin, text, false
	s.info.Binary = bin
	s.mu.Unlock()
	m, err := s.spawn()
	if err != nil {
		return err
	}
	if err := s.waitReady(ctx, m, 0); err != nil {
		s.kill(m)
		return err
	}
	go s.watch(m)
	return nil
}

// install checks text with -t and puts it at the config path.
func (s *Supervisor) install(bin, text string) error {
	tmp, err := s.writeTemp(text)
	if err != nil {
		return err
	}
	if err := testConfig(bin, tmp, s.name); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, s.opts.ConfPath); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("fastcgi: fpm_pool \"%s\": %w", s.name, err)
	}
	return nil
}

// spawn starts a master in its own process group (so that its workers
// can be killed with it) that gets SIGTERM if edge dies.
func (s *Supervisor) spawn() (*master, error) {
	s.mu.Lock()
	bin := s.binary
	s.mu.Unlock()
	args := []string{"-F", "-O", "-y", s.opts.ConfPath}
	if os.Geteuid() == 0 {
		args = append(args, "-R")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("fastcgi: fpm_pool \"%s\": %w", s.name, err)
	}
	// An absolute argv[0]: php-fpm re-execs itself with it on SIGUSR2.
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.Dir = filepath.Dir(s.opts.ConfPath)
	cmd.SysProcAttr = childproc.Attr()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("fastcgi: fpm_pool \"%s\": starting %s: %w", s.name, bin, err)
	}
	m := &master{cmd: cmd, started: time.Now()}
	go s.readOutput(m, pr)
	go func() {
		// Not waiting for the output: orphaned workers of a killed master
		// may hold the pipe until the watcher kills their group.
		err := cmd.Wait()
		s.mu.Lock()
		m.exited, m.waitErr = true, err
		s.ready.Broadcast()
		s.mu.Unlock()
	}()
	s.mu.Lock()
	s.proc = m
	s.mu.Unlock()
	s.logf(conf.LevelNotice, "fpm_pool \"%s\": php-fpm master started, pid %d", s.name, cmd.Process.Pid)
	return m, nil
}

// readOutput passes php-fpm's lines to the log and counts what reports
// need (ready lines, worker deaths, warnings).
func (s *Supervisor) readOutput(m *master, r io.ReadCloser) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		level, text := parseFPMLine(sc.Text())
		if text == "" {
			continue
		}
		s.observe(m, text)
		s.logf(level, "php-fpm: %s", text)
	}
}

var (
	reSignalExit = regexp.MustCompile(`child (\d+) exited on signal (\d+)`)
	reCodeExit   = regexp.MustCompile(`child (\d+) exited with code (\d+)`)
)

// observe updates counters from one line of php-fpm's log.
func (s *Supervisor) observe(m *master, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := &s.info
	switch {
	case strings.Contains(text, "ready to handle connections"):
		m.readyGen++
		s.ready.Broadcast()
	case reSignalExit.MatchString(text):
		in.WorkerExits++
		in.WorkerCrashes++
		in.LastCrash = time.Now().Format(time.RFC3339) + " " + text
	case reCodeExit.MatchString(text):
		in.WorkerExits++
		if sm := reCodeExit.FindStringSubmatch(text); sm[2] != "0" {
			in.WorkerCrashes++
			in.LastCrash = time.Now().Format(time.RFC3339) + " " + text
		}
	case strings.Contains(text, "reached pm.max_children"), strings.Contains(text, "reached max_children"):
		in.MaxChildrenWarnings++
		in.LastWarning = text
	case strings.Contains(text, "executing too slow"):
		in.SlowWarnings++
		in.LastWarning = text
	}
}

// fpmLevels maps php-fpm's log levels to edge's.
var fpmLevels = map[string]conf.Level{"ALERT": conf.LevelAlert, "ERROR": conf.LevelError,
	"WARNING": conf.LevelWarn, "NOTICE": conf.LevelNotice, "DEBUG": conf.LevelDebug}

// parseFPMLine splits "[30-Nov-2026 05:30:06] WARNING: text" into
// edge's level and the text; other lines are [notice].
func parseFPMLine(l string) (conf.Level, string) {
	l = strings.TrimSpace(l)
	if strings.HasPrefix(l, "[") {
		if i := strings.Index(l, "] "); i > 0 {
			l = l[i+2:]
		}
	}
	if word, rest, ok := strings.Cut(l, ": "); ok {
		if lvl, known := fpmLevels[word]; known {
			return lvl, strings.TrimSpace(rest)
		}
	}
	return conf.LevelNotice, l
}

// waitReady waits for a "ready to handle connections" line beyond gen.
func (s *Supervisor) waitReady(ctx context.Context, m *master, gen int) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.ReadyTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.ready.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for m.readyGen <= gen && !m.exited && ctx.Err() == nil {
		s.ready.Wait()
	}
	switch {
	case m.readyGen > gen:
		return nil
	case m.exited:
		return fmt.Errorf("fastcgi: fpm_pool \"%s\": php-fpm exited before it was ready (%v)", s.name, m.waitErr)
	}
	return fmt.Errorf("fastcgi: fpm_pool \"%s\": php-fpm not ready after %v", s.name, s.opts.ReadyTimeout)
}

// watch restarts the master when it dies, with backoff, until Stop.
func (s *Supervisor) watch(m *master) {
	backoff := s.opts.MinBackoff
	for {
		s.mu.Lock()
		for !m.exited {
			s.ready.Wait()
		}
		stopping := s.stopping || m.replaced
		s.mu.Unlock()
		// Workers outlive a killed master and keep the old socket's
		// connections; the process group goes with it.
		_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
		if stopping {
			return
		}
		if time.Since(m.started) > 30*time.Second {
			backoff = s.opts.MinBackoff
		}
		s.logf(conf.LevelAlert, "fpm_pool \"%s\": php-fpm master %d exited (%v); restarting in %v", s.name, m.cmd.Process.Pid, m.waitErr, backoff)
		time.Sleep(backoff)
		backoff = min(backoff*2, s.opts.MaxBackoff)
		next, err := s.restart(m)
		if err != nil {
			s.logf(conf.LevelAlert, "%v", err)
			if next == nil {
				continue // m is still the exited one: wait out the backoff again
			}
		}
		if next == nil {
			return // stopped meanwhile
		}
		m = next
	}
}

// restart starts a new master in place of the dead one m.
func (s *Supervisor) restart(m *master) (*master, error) {
	s.op.Lock()
	defer s.op.Unlock()
	s.mu.Lock()
	if s.stopping || s.proc != m {
		s.mu.Unlock()
		return nil, nil
	}
	s.info.Restarts++
	s.info.LastRestart = fmt.Sprintf("%s master %d exited (%v)", time.Now().Format(time.RFC3339), m.cmd.Process.Pid, m.waitErr)
	s.mu.Unlock()
	next, err := s.spawn()
	if err != nil {
		return nil, err
	}
	if err := s.waitReady(context.Background(), next, 0); err != nil {
		return next, err
	}
	return next, nil
}

// Reload makes the running master use p: nothing happens when php-fpm's
// configuration does not change; otherwise it is written, checked with
// -t and loaded with SIGUSR2 (a new binary means a full restart). It
// returns once php-fpm is ready again. On error the master keeps its
// previous configuration.
func (s *Supervisor) Reload(ctx context.Context, p *conf.FPMPool) error {
	s.op.Lock()
	defer s.op.Unlock()
	bin, err := FindBinary(p.Binary)
	if err != nil {
		return err
	}
	text := RenderConfig(p)
	s.mu.Lock()
	same := text == s.text && bin == s.binary
	m := s.proc
	oldBin := s.binary
	s.mu.Unlock()
	if same {
		s.mu.Lock()
		s.pool = p
		s.mu.Unlock()
		return nil
	}
	if err := s.install(bin, text); err != nil {
		return err
	}
	s.mu.Lock()
	s.pool, s.text, s.binary = p, text, bin
	s.info.Binary = bin
	running := m != nil && !m.exited
	gen := 0
	if running {
		gen = m.readyGen
	}
	s.mu.Unlock()
	if !running {
		return nil // the restart loop starts it with the new config
	}
	if bin != oldBin {
		// A different binary cannot be exec'd by SIGUSR2: restart.
		return s.restartNow(ctx, m)
	}
	if s.opts.BeforeReload != nil {
		s.opts.BeforeReload()
	}
	if err := m.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		return fmt.Errorf("fastcgi: fpm_pool \"%s\": reload: %w", s.name, err)
	}
	if err := s.waitReady(ctx, m, gen); err != nil {
		return err
	}
	s.mu.Lock()
	s.info.Reloads++
	s.mu.Unlock()
	s.logf(conf.LevelNotice, "fpm_pool \"%s\": php-fpm reloaded", s.name)
	return nil
}

// restartNow stops m gracefully and starts a new master (with its own
// watcher), waiting until it is ready.
func (s *Supervisor) restartNow(ctx context.Context, m *master) error {
	s.mu.Lock()
	m.replaced = true
	s.mu.Unlock()
	s.terminate(m, true)
	next, err := s.spawn()
	if err != nil {
		return err
	}
	go s.watch(next)
	return s.waitReady(ctx, next, 0)
}

// Stop ends the master: graceful lets workers finish their requests
// (SIGQUIT, bounded by process_control_timeout), otherwise SIGTERM. The
// process group is killed if it outlives that. Stop is idempotent.
func (s *Supervisor) Stop(graceful bool) {
	s.op.Lock()
	defer s.op.Unlock()
	s.mu.Lock()
	s.stopping = true
	m := s.proc
	s.mu.Unlock()
	if m != nil {
		s.terminate(m, graceful)
	}
}

// terminate signals m and waits for it, killing its group at the end.
func (s *Supervisor) terminate(m *master, graceful bool) {
	sig, wait := syscall.SIGTERM, 3*time.Second
	if graceful {
		sig, wait = syscall.SIGQUIT, s.Pool().ProcessControlTimeout+5*time.Second
	}
	s.mu.Lock()
	exited := m.exited
	s.mu.Unlock()
	if !exited {
		_ = m.cmd.Process.Signal(sig)
	}
	deadline := time.AfterFunc(wait, func() { s.kill(m) })
	defer deadline.Stop()
	s.mu.Lock()
	for !m.exited {
		s.ready.Wait()
	}
	s.mu.Unlock()
	_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
}

// kill ends m's whole process group at once.
func (s *Supervisor) kill(m *master) {
	_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
}
