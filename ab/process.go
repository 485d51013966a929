// This file starts and stops the harness's child processes (edge, nginx,
// php-fpm, the load generators), each optionally pinned to CPUs with
// taskset, with its output in a file, in its own process group, and
// signalled when the harness dies. Readiness is polled, never slept for.

package ab

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const (
	// readyTimeout bounds how long a server may take to listen. It is a
	// failure deadline, not a measurement.
	readyTimeout = 15 * time.Second
	// pollInterval is the pause between connect attempts.
	pollInterval = 10 * time.Millisecond
	// stopGrace is how long a server gets after SIGTERM before SIGKILL.
	stopGrace = 5 * time.Second
)

// process is one started child.
type process struct {
	name    string
	cmd     *exec.Cmd
	outPath string // stdout and stderr
	done    chan struct{}
	waitErr error
}

// pinned prefixes argv with taskset when cpus is not empty.
func pinned(cpus CPUSet, argv []string) []string {
	if len(cpus) == 0 {
		return argv
	}
	return append([]string{"taskset", "-c", cpus.String()}, argv...)
}

// startProcess runs argv (pinned to cpus) in dir with its output in
// dir/name.out. env entries are added to the harness's environment.
func startProcess(name, dir string, cpus CPUSet, env []string, argv ...string) (*process, error) {
	argv = pinned(cpus, argv)
	out, err := os.Create(filepath.Join(dir, name+".out"))
	if err != nil {
		return nil, fmt.Errorf("ab: %s: %w", name, err)
	}
	defer out.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ab: start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, outPath: out.Name(), done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// pid is the child's process ID (taskset execs the command, so the PID
// is the server's own).
func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// output returns the end of what the process printed.
func (p *process) output() string {
	b, _ := os.ReadFile(p.outPath)
	return tail(strings.TrimSpace(string(b)), 2000)
}

// waitListening polls until network/addr accepts a connection, failing
// at once if the process exits first.
func (p *process) waitListening(network, addr string) error {
	deadline := time.Now().Add(readyTimeout)
	for {
		c, err := net.DialTimeout(network, addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if p.exited() {
			return fmt.Errorf("ab: %s exited before listening on %s (%v):\n%s", p.name, addr, p.waitErr, p.output())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ab: %s does not listen on %s after %v: %v\n%s", p.name, addr, readyTimeout, err, p.output())
		}
		time.Sleep(pollInterval)
	}
}

// stop sends SIGTERM, waits, then SIGKILLs the process group. It is safe
// to call more than once.
func (p *process) stop() {
	if p == nil || p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(stopGrace):
	}
	_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
	<-p.done
}

// runTool runs a load generator to completion (pinned to cpus) and
// returns what it printed on stdout and stderr; it is killed if it
// outlives timeout.
func runTool(ctx context.Context, cpus CPUSet, timeout time.Duration, env []string, stdin string, argv ...string) (stdout, stderr string, err error) {
	argv = pinned(cpus, argv)
	cmd := exec.Command(argv[0], argv[1:]...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return "", "", fmt.Errorf("ab: start %s: %w", argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
		if err != nil {
			err = fmt.Errorf("ab: %s: %w", strings.Join(argv, " "), err)
		}
	case <-time.After(timeout):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		err = fmt.Errorf("ab: %s did not finish within %v", strings.Join(argv, " "), timeout)
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		err = ctx.Err()
	}
	return out.String(), errOut.String(), err
}
