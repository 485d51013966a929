// This file starts the edge binary (built once by EdgeBinary) with a
// test's configuration in a prefix directory, and waits until it serves.

package testenv

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// EdgeOptions says how StartEdge runs edge. The zero value runs edge's
// built-in site (no -c) in a fresh prefix and waits for nothing.
type EdgeOptions struct {
	// Name labels the process in messages and names its configuration file
	// Prefix/NAME.conf. Empty means "edge".
	Name string
	// Prefix is edge's -p directory; StartEdge writes nothing into it but
	// the Conf file. Empty means a fresh EdgePrefix. On the command line it
	// ends in "/", as nginx's -p is written (edge, like nginx, reads it
	// either way).
	Prefix string
	// Dir is the working directory of the process. Empty means Prefix.
	Dir string
	// Conf, when not empty, is the whole main configuration: StartEdge
	// writes it to Prefix/NAME.conf and passes that file with -c.
	Conf string
	// ConfFile is a configuration file passed with -c as it is, when Conf
	// is empty. With both empty edge gets no -c and serves its built-in
	// site.
	ConfFile string
	// Global, when not empty, is passed with -g (for example
	// "daemon off;"): edge, like nginx, refuses a directive given both
	// there and in the file.
	Global string
	// Args follow -p, -c and -g on the command line.
	Args []string
	// Env is added to the test process's environment; nil leaves the
	// environment as it is.
	Env []string
	// ErrorLog is the error log the configuration (or Global) names: it is
	// printed when the test fails and returned by Edge.ErrorLog. Empty
	// means Prefix/logs/error.log.
	ErrorLog string
	// Logs are more files printed when the test fails; the configuration
	// file and ErrorLog always are.
	Logs []string
	// PidFile, when set, is polled for first: edge writes its pid file only
	// after every listener is bound, so a test of that contract can wait
	// for it alone.
	PidFile string
	// Ports are loopback TCP ports StartEdge waits for, in order, after
	// PidFile.
	Ports []int
	// ReadyTimeout bounds each wait (the pid file, each port). It is a
	// failure deadline, never a measurement; zero means 10s. A
	// configuration with fpm_pool blocks wants more: edge starts its pools
	// before it listens.
	ReadyTimeout time.Duration
	// Prep, when set, is called with the command before it starts, to
	// change what environment or argument fields cannot say (a taskset
	// prefix pinning edge to a CPU from its first instruction).
	Prep func(cmd *exec.Cmd)
}

// Edge is a running edge process.
type Edge struct {
	Proc *Proc
	// Prefix is the -p directory.
	Prefix string
	// ConfPath is the -c file, "" for the built-in site.
	ConfPath string
	// Port is the first of EdgeOptions.Ports (0 if none was given).
	Port int
	// Ports are all of EdgeOptions.Ports.
	Ports []int

	errorLog string
}

// Addr returns "127.0.0.1:Port".
func (e *Edge) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(e.Port)) }

// ErrorLog returns the path of the error log (EdgeOptions.ErrorLog).
func (e *Edge) ErrorLog() string { return e.errorLog }

// AccessLog returns Prefix/logs/access.log, where a configuration that
// says "access_log logs/access.log" writes.
func (e *Edge) AccessLog() string { return filepath.Join(e.Prefix, "logs", "access.log") }

// PID returns the process ID.
func (e *Edge) PID() int { return e.Proc.PID() }

// Signal sends sig to edge: HUP reloads, USR1 reopens the logs, QUIT stops
// gracefully, TERM at once.
func (e *Edge) Signal(sig os.Signal) error { return e.Proc.Signal(sig) }

// Stop stops edge now (SIGTERM, then SIGKILL after a grace period); the
// test's cleanup would do it anyway.
func (e *Edge) Stop() { e.Proc.Stop() }

// StartEdge runs the edge binary as o says, in the foreground (the
// configuration or o.Global must say "daemon off"), and returns once its
// pid file exists and its ports accept connections. A process that exits
// first fails the test at once with its output.
func StartEdge(t testing.TB, o EdgeOptions) *Edge {
	t.Helper()
	bin := EdgeBinary(t)
	if o.Name == "" {
		o.Name = "edge"
	}
	if o.Prefix == "" {
		o.Prefix = EdgePrefix(t)
	}
	e := &Edge{Prefix: o.Prefix, ConfPath: o.ConfFile, Ports: o.Ports, errorLog: o.ErrorLog}
	if len(o.Ports) > 0 {
		e.Port = o.Ports[0]
	}
	if e.errorLog == "" {
		e.errorLog = filepath.Join(o.Prefix, "logs", "error.log")
	}
	if o.Conf != "" {
		e.ConfPath = filepath.Join(o.Prefix, o.Name+".conf")
		if err := os.WriteFile(e.ConfPath, []byte(o.Conf), 0o644); err != nil {
			t.Fatalf("testenv: %s: %v", o.Name, err)
		}
	}
	cmd := exec.Command(bin, edgeArgs(o.Prefix, e.ConfPath, o.Global, o.Args)...)
	cmd.Dir = o.Dir
	if cmd.Dir == "" {
		cmd.Dir = o.Prefix
	}
	if o.Env != nil {
		cmd.Env = append(os.Environ(), o.Env...)
	}
	if o.Prep != nil {
		o.Prep(cmd)
	}
	logs := append([]string{e.errorLog}, o.Logs...)
	if e.ConfPath != "" {
		logs = append([]string{e.ConfPath}, logs...)
	}
	e.Proc = Start(t, o.Name, cmd, logs...)
	if o.PidFile != "" {
		waitPidFile(t, e.Proc, o.PidFile, o.ReadyTimeout)
	}
	for _, port := range o.Ports {
		WaitProcPort(t, e.Proc, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), o.ReadyTimeout)
	}
	return e
}

// edgeArgs is edge's command line: -p PREFIX/ [-c CONF] [-g GLOBAL] args.
func edgeArgs(prefix, confPath, global string, args []string) []string {
	argv := []string{"-p", strings.TrimSuffix(prefix, "/") + "/"}
	if confPath != "" {
		argv = append(argv, "-c", confPath)
	}
	if global != "" {
		argv = append(argv, "-g", global)
	}
	return append(argv, args...)
}

// EdgePrefix makes a fresh prefix directory under t.TempDir() with an
// empty logs/ in it: what StartEdge uses when EdgeOptions.Prefix is empty,
// for a test whose configuration text names paths in the prefix.
func EdgePrefix(t testing.TB) string {
	t.Helper()
	prefix, err := os.MkdirTemp(t.TempDir(), "edge-")
	if err != nil {
		t.Fatalf("testenv: edge: %v", err)
	}
	if err := os.Mkdir(filepath.Join(prefix, "logs"), 0o755); err != nil {
		t.Fatalf("testenv: edge: %v", err)
	}
	return prefix
}

// waitPidFile polls until path exists, failing at once if p exits first.
func waitPidFile(t testing.TB, p *Proc, path string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(orReadyTimeout(timeout))
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if p.Exited() {
			t.Fatalf("testenv: %s exited before writing its pid file %s: %v", p.Name, path, p.exitErr())
		}
		if time.Now().After(deadline) {
			t.Fatalf("testenv: %s wrote no pid file %s within %v", p.Name, path, orReadyTimeout(timeout))
		}
		time.Sleep(pollInterval)
	}
}
