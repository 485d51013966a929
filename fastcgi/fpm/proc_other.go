//go:build !linux

package fpm

import "syscall"

// masterProcAttr puts php-fpm's master in its own process group; no
// parent-death signal exists here, so a master that edge did not stop
// outlives it.
func masterProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
