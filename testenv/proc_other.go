//go:build !linux

// This file holds the process attributes for children started by Start on
// systems without Pdeathsig.

package testenv

import "syscall"

// childAttr puts the child in its own process group, so that a SIGKILL
// reaches its workers too.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
