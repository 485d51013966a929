// This file implements "daemon on" (nginx's default): a Go program cannot
// fork safely, so edge starts itself again in a new session with its
// standard streams on /dev/null, waits until that child has bound its
// listeners and written the pid file (or failed), and exits with the
// child's verdict. Scripts that run "nginx" and expect it to return once
// the server is up get the same from edge.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// daemonEnv marks the child and names the fd of the readiness pipe.
const daemonEnv = "EDGE_DAEMON_READY_FD"

func daemonize() int {
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: [emerg] pipe() failed (%v)\n", err)
		return 1
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: [emerg] open() \"%s\" failed (%v)\n", os.DevNull, err)
		return 1
	}
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), daemonEnv+"=3")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "edge: [emerg] could not start the daemon (%v)\n", err)
		return 1
	}
	w.Close()
	line, _ := bufio.NewReader(r).ReadString('\n')
	line = strings.TrimSpace(line)
	if line == "ok" {
		_ = cmd.Process.Release()
		return 0
	}
	if line == "" {
		line = "the daemon exited during startup"
	}
	fmt.Fprintf(os.Stderr, "edge: [emerg] %s\n", line)
	return 1
}

// daemonReady tells a waiting parent that startup finished (err == nil)
// or failed. It does nothing when edge was not started by daemonize.
func daemonReady(err error) {
	if os.Getenv(daemonEnv) == "" {
		return
	}
	f := os.NewFile(3, "ready")
	if f == nil {
		return
	}
	if err != nil {
		fmt.Fprintf(f, "%s\n", strings.ReplaceAll(err.Error(), "\n", " "))
	} else {
		fmt.Fprintf(f, "ok\n")
	}
	f.Close()
	os.Unsetenv(daemonEnv)
}
