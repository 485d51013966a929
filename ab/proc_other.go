//go:build !linux

package ab

import "syscall"

// childAttr gives the child its own process group, so that a SIGKILL
// reaches a master's workers; there is no parent-death signal here.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
