// This file holds the Linux process attributes for children started by
// Start.

package testenv

import "syscall"

// childAttr puts the child in its own process group, so that a SIGKILL
// reaches its workers, and asks the kernel to send it SIGTERM if the test
// process dies first (a panicking or killed `go test` must not leave an nginx
// holding ports). SIGTERM, not SIGKILL, lets nginx and php-fpm masters take
// their workers down with them. Pdeathsig follows the OS thread that forked,
// so a child started from a goroutine under runtime.LockOSThread that later
// exits is signalled early.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
