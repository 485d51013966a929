// This file starts Debian's php-fpm 8.2 with a generated pool config.

package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FPMOptions configures StartFPM. The zero value is a static pool of four
// workers on a unix socket.
type FPMOptions struct {
	// Listen is "" for a unix socket Dir/php-fpm.sock, or "127.0.0.1:0" for
	// a free TCP port on loopback. Any other value is passed to php-fpm's
	// `listen` as written.
	Listen string
	// PM is the process manager: "static" (default), "dynamic" or
	// "ondemand". For "dynamic" the spare-server settings php-fpm requires
	// are filled in (start 1, min spare 1, max spare MaxChildren); Extra may
	// override them, since php-fpm keeps the last value of a repeated key.
	PM string
	// MaxChildren is pm.max_children. Zero means 4.
	MaxChildren int
	// Extra holds raw lines appended to the [www] pool section, for example
	// "pm.status_path = /status".
	Extra string
	// Global holds raw lines appended to the [global] section, for example
	// "process_control_timeout = 10s".
	Global string
	// StderrToServer leaves PHP's error_log unset, as Debian's pool does,
	// so that error_log() messages go to the web server over FastCGI's
	// stderr instead of to PHPErrorLog.
	StderrToServer bool
}

// FPM is a running php-fpm master and its pool.
type FPM struct {
	Proc *Proc
	// Network and Address are what a FastCGI client dials: "unix" and the
	// socket path, or "tcp" and "127.0.0.1:port".
	Network, Address string
	// Dir holds the config, the socket, the pid file and the logs.
	Dir string
	// ConfPath is the generated php-fpm config.
	ConfPath string
}

// ErrorLog returns the path of php-fpm's own log (the [global] error_log).
func (f *FPM) ErrorLog() string { return filepath.Join(f.Dir, "php-fpm.log") }

// PHPErrorLog returns the path PHP's error_log points at in the pool.
func (f *FPM) PHPErrorLog() string { return filepath.Join(f.Dir, "php-error.log") }

// maxSocketPath stays under the 108-byte sun_path limit with a margin:
// t.TempDir() under a long test name can exceed it.
const maxSocketPath = 100

// StartFPM runs php-fpm in the foreground (`-F -O -y conf -R`) with a config
// generated from o, and returns once its socket or port accepts
// connections. -R lets it run as root (workers then run as root too, which
// lets them read t.TempDir()); it is harmless for other users.
func StartFPM(t testing.TB, o FPMOptions) *FPM {
	t.Helper()
	bin := FPMBinary(t)
	f := &FPM{Dir: fpmDir(t)}
	f.Network, f.Address = "unix", filepath.Join(f.Dir, "php-fpm.sock")
	listen := f.Address
	switch o.Listen {
	case "":
	case "127.0.0.1:0":
		f.Network, f.Address = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(FreePort(t)))
		listen = f.Address
	default:
		f.Network, f.Address = listenNetwork(o.Listen), o.Listen
		listen = o.Listen
	}
	f.ConfPath = filepath.Join(f.Dir, "php-fpm.conf")
	if err := os.WriteFile(f.ConfPath, []byte(fpmConfig(f, listen, o)), 0o644); err != nil {
		t.Fatalf("testenv: php-fpm: %v", err)
	}
	cmd := exec.Command(bin, "-F", "-O", "-y", f.ConfPath, "-R")
	cmd.Dir = f.Dir
	f.Proc = Start(t, "php-fpm", cmd, f.ConfPath, f.ErrorLog(), f.PHPErrorLog())
	waitListening(t, f.Proc, f.Network, f.Address)
	return f
}

// fpmDir makes the pool's directory under t.TempDir(), or under the system
// temp directory when the socket path would be too long for a unix socket.
func fpmDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp(t.TempDir(), "fpm-")
	if err == nil && len(dir)+len("/php-fpm.sock") > maxSocketPath {
		dir, err = os.MkdirTemp("", "fpm-")
		if err == nil {
			short := dir
			t.Cleanup(func() { os.RemoveAll(short) })
		}
	}
	if err != nil {
		t.Fatalf("testenv: php-fpm: %v", err)
	}
	return dir
}

// listenNetwork tells a php-fpm listen value that names a socket path from
// one that names a TCP address or port.
func listenNetwork(listen string) string {
	if strings.HasPrefix(listen, "/") {
		return "unix"
	}
	return "tcp"
}

// fpmConfig renders the php-fpm config for f.
func fpmConfig(f *FPM, listen string, o FPMOptions) string {
	pm := o.PM
	if pm == "" {
		pm = "static"
	}
	maxChildren := o.MaxChildren
	if maxChildren == 0 {
		maxChildren = 4
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\n")
	fmt.Fprintf(&b, "error_log = %s\n", f.ErrorLog())
	fmt.Fprintf(&b, "pid = %s\n", filepath.Join(f.Dir, "php-fpm.pid"))
	fmt.Fprintf(&b, "daemonize = no\n")
	if o.Global != "" {
		fmt.Fprintf(&b, "%s\n", o.Global)
	}
	fmt.Fprintf(&b, "\n[www]\n")
	fmt.Fprintf(&b, "listen = %s\n", listen)
	// Any user may connect: the test process and nginx workers are not
	// always the user php-fpm runs as.
	fmt.Fprintf(&b, "listen.mode = 0666\n")
	fmt.Fprintf(&b, "pm = %s\n", pm)
	fmt.Fprintf(&b, "pm.max_children = %d\n", maxChildren)
	if pm == "dynamic" {
		fmt.Fprintf(&b, "pm.start_servers = 1\npm.min_spare_servers = 1\npm.max_spare_servers = %d\n", maxChildren)
	}
	// The test's environment (PATH, TMPDIR, ...) reaches scripts, and what
	// workers print lands in the log dumped on failure.
	fmt.Fprintf(&b, "clear_env = no\n")
	fmt.Fprintf(&b, "catch_workers_output = yes\n")
	fmt.Fprintf(&b, "decorate_workers_output = no\n")
	fmt.Fprintf(&b, "php_admin_flag[log_errors] = on\n")
	if !o.StderrToServer {
		fmt.Fprintf(&b, "php_admin_value[error_log] = %s\n", f.PHPErrorLog())
	}
	if o.Extra != "" {
		fmt.Fprintf(&b, "%s\n", o.Extra)
	}
	return b.String()
}
