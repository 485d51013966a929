// Package childproc runs the outside programs edge and its tools start
// (php-fpm, nginx, load generators, edge itself under test): finding a
// binary the way Debian installs it, starting it in its own process
// group, waiting until it listens, stopping it and its workers, and
// reading the end of what it printed. testenv and "edge ab" both build on
// it; edge's own php-fpm supervisor (fastcgi/fpm) takes its process
// attributes and binary search from here.
//
// This file holds Process: one started child and how it is stopped.
package childproc

import (
	"os/exec"
	"syscall"
	"time"
)

// Process is a child started by Start.
type Process struct {
	// Name labels the process in messages.
	Name string
	// Cmd is the started command; Cmd.Process.Pid is its PID.
	Cmd *exec.Cmd

	done chan struct{}
	err  error // cmd.Wait's result, once done is closed
}

// Start starts cmd. Unless cmd.SysProcAttr is already set, the child
// gets Attr: its own process group and, on Linux, SIGTERM when the
// starting process dies. A goroutine reaps it when it exits.
func Start(name string, cmd *exec.Cmd) (*Process, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = Attr()
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Name: name, Cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// PID is the child's process ID.
func (p *Process) PID() int { return p.Cmd.Process.Pid }

// Done is closed once the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the child has exited and been reaped.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait blocks until the child exits and returns cmd.Wait's error.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Err is cmd.Wait's error once the child has exited, nil before.
func (p *Process) Err() error {
	if !p.Exited() {
		return nil
	}
	return p.err
}

// StopResult says how Stop ended.
type StopResult int

const (
	// AlreadyExited: the child had exited before Stop was called.
	AlreadyExited StopResult = iota
	// Terminated: the child exited after SIGTERM.
	Terminated
	// Killed: the child ignored SIGTERM for the grace time and was
	// killed.
	Killed
	// Survived: the child was still there a grace time after SIGKILL.
	Survived
)

// killWait bounds the wait for a child after SIGKILL, which it cannot
// ignore: the margin is for a loaded machine.
const killWait = 5 * time.Second

// Stop sends SIGTERM to the child, waits up to grace for it to exit, then
// sends SIGKILL to its process group (an nginx or php-fpm master killed
// alone would orphan its workers) and waits up to killWait (5s). It is
// safe to call after the child exited.
func (p *Process) Stop(grace time.Duration) StopResult {
	if p.Exited() {
		return AlreadyExited
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	if p.awaitExit(grace) {
		return Terminated
	}
	p.Kill()
	if p.awaitExit(killWait) {
		return Killed
	}
	return Survived
}

// Kill sends SIGKILL to the child's process group when it leads one (the
// leader is not reaped yet while it runs, so the group ID still names its
// group), else to the child alone.
func (p *Process) Kill() {
	if attr := p.Cmd.SysProcAttr; attr != nil && attr.Setpgid && attr.Pgid == 0 {
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
		return
	}
	_ = p.Cmd.Process.Kill()
}

func (p *Process) awaitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.done:
		return true
	case <-timer.C:
		return false
	}
}
