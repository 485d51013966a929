package childproc

import "syscall"

// Attr puts a child in its own process group, so that a SIGKILL reaches
// its workers, and asks the kernel to send it SIGTERM if the process that
// started it dies first (an interrupted "edge ab" or a killed "go test"
// must not leave an nginx holding ports; a dead edge must not leave its
// php-fpm masters). SIGTERM, not SIGKILL, lets nginx and php-fpm masters
// take their workers down with them. Pdeathsig follows the OS thread that
// forked, so a child started from a goroutine under runtime.LockOSThread
// that later exits is signalled early.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
