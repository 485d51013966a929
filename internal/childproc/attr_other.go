//go:build !linux

package childproc

import "syscall"

// Attr puts a child in its own process group, so that a SIGKILL reaches
// its workers; there is no parent-death signal here, so a child outlives
// a starter that dies without stopping it.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
