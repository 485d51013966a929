package ab

import "syscall"

// childAttr gives the child its own process group (so SIGKILL reaches a
// master's workers) and SIGTERM when the harness dies, so an interrupted
// run leaves no nginx holding ports.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
