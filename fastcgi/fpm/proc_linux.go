package fpm

import "syscall"

// masterProcAttr puts php-fpm's master in its own process group, and has
// the kernel send it SIGTERM if edge dies without stopping it.
func masterProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
