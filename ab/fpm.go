// This file runs the php-fpm pools the servers forward PHP to, one per
// server and alike, so that edge and nginx are compared on the same
// workers and neither holds one of the other's: a static pool on a unix
// socket in a short temporary directory (sun_path holds 108 bytes).

package ab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// fpmPool is the running php-fpm.
type fpmPool struct {
	proc *process
	dir  string
	// Socket is the pool's unix socket.
	Socket string
}

// fastcgiPass is the socket as fastcgi_pass and upstream servers name it.
func (f *fpmPool) fastcgiPass() string { return "unix:" + f.Socket }

// fpmConfig renders php-fpm's configuration for a static pool of children
// workers. Scripts see the harness's environment (clear_env = no) and
// their errors land in dir/php-error.log.
func fpmConfig(dir string, children int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nerror_log = %s\npid = %s\ndaemonize = no\n\n",
		filepath.Join(dir, "php-fpm.log"), filepath.Join(dir, "php-fpm.pid"))
	fmt.Fprintf(&b, "[edge-ab]\nlisten = %s\n", filepath.Join(dir, "php-fpm.sock"))
	// nginx's workers and edge may run as another user than php-fpm.
	b.WriteString("listen.mode = 0666\n")
	// A deep accept queue: a burst beyond the workers waits instead of
	// failing, for both servers alike.
	b.WriteString("listen.backlog = 4096\n")
	fmt.Fprintf(&b, "pm = static\npm.max_children = %d\n", children)
	b.WriteString("clear_env = no\ncatch_workers_output = yes\ndecorate_workers_output = no\n")
	fmt.Fprintf(&b, "php_admin_flag[log_errors] = on\nphp_admin_value[error_log] = %s\n", filepath.Join(dir, "php-error.log"))
	return b.String()
}

// startFPM runs php-fpm (`-F -O -y conf`, and -R as root, where its
// workers then run as root and can read any docroot) pinned to cpus.
func startFPM(bin string, children int, cpus CPUSet) (*fpmPool, error) {
	dir, err := os.MkdirTemp("", "edge-ab-fpm-")
	if err != nil {
		return nil, fmt.Errorf("ab: php-fpm: %w", err)
	}
	f := &fpmPool{dir: dir, Socket: filepath.Join(dir, "php-fpm.sock")}
	confPath := filepath.Join(dir, "php-fpm.conf")
	if err := os.WriteFile(confPath, []byte(fpmConfig(dir, children)), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("ab: php-fpm: %w", err)
	}
	argv := []string{bin, "-F", "-O", "-y", confPath}
	if os.Geteuid() == 0 {
		argv = append(argv, "-R")
	}
	f.proc, err = startProcess("php-fpm", dir, cpus, nil, argv...)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := f.proc.waitListening("unix", f.Socket); err != nil {
		f.stop()
		return nil, err
	}
	return f, nil
}

// logs returns the end of php-fpm's own log and PHP's error log.
func (f *fpmPool) logs() string {
	var out []string
	for _, name := range []string{"php-fpm.log", "php-error.log"} {
		if b, err := os.ReadFile(filepath.Join(f.dir, name)); err == nil && len(b) > 0 {
			out = append(out, name+":\n"+tail(string(b), 1000))
		}
	}
	return strings.Join(out, "\n")
}

// stop ends php-fpm and removes its directory.
func (f *fpmPool) stop() {
	if f == nil {
		return
	}
	f.proc.stop()
	os.RemoveAll(f.dir)
}
