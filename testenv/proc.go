// This file holds Proc: one started child process (an
// internal/childproc.Process tied to a test), its captured output, and
// the stop/dump logic every helper in this package relies on.

package testenv

import (
	"edge/internal/childproc"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// defaultGrace is how long Stop waits after SIGTERM before SIGKILL. nginx and
// php-fpm both stop their workers within milliseconds of SIGTERM; the margin
// is for a loaded CI machine.
const defaultGrace = 5 * time.Second

// dumpLimit caps how much of each output or log file is printed on failure:
// the tail is what explains a failure, and go test output stays readable.
const dumpLimit = 32 << 10

// Proc is a process started by Start. Stop it with Stop, or let t.Cleanup do
// it.
type Proc struct {
	// Name labels the process in messages and names its output files.
	Name string
	// Cmd is the started command; Cmd.Process.Pid is its PID.
	Cmd *exec.Cmd
	// Logs are files (for example an error log) printed with the process's
	// stdout and stderr when the test failed. Missing files are skipped.
	Logs []string
	// Grace is how long Stop waits after SIGTERM before it sends SIGKILL to
	// the process group. Zero means 5s.
	Grace time.Duration

	t        testing.TB
	proc     *childproc.Process
	outPaths []string // captured stdout and stderr, when Start set them
	stopOnce sync.Once
}

// Start starts cmd and registers a cleanup that stops it and, if the test
// failed, prints its output and logs. If cmd.Stdout or cmd.Stderr is nil it
// is captured to a file under t.TempDir(). Unless cmd.SysProcAttr is already
// set, the child gets childproc.Attr: its own process group (so a SIGKILL
// reaches its workers too) and, on Linux, SIGTERM when the test process
// dies.
func Start(t testing.TB, name string, cmd *exec.Cmd, logs ...string) *Proc {
	t.Helper()
	p := &Proc{Name: name, Cmd: cmd, Logs: logs, t: t}
	dir := t.TempDir()
	var files []*os.File
	capture := func(stream string) *os.File {
		path := filepath.Join(dir, name+"."+stream)
		f, err := os.Create(path)
		if err != nil {
			t.Fatalf("testenv: %s: %v", name, err)
		}
		files = append(files, f)
		p.outPaths = append(p.outPaths, path)
		return f
	}
	if cmd.Stdout == nil {
		cmd.Stdout = capture("stdout")
	}
	if cmd.Stderr == nil {
		cmd.Stderr = capture("stderr")
	}
	proc, err := childproc.Start(name, cmd)
	// The child holds its own copies of the descriptors.
	for _, f := range files {
		f.Close()
	}
	if err != nil {
		t.Fatalf("testenv: start %s: %v", name, err)
	}
	p.proc = proc
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			p.dump()
		}
	})
	return p
}

// PID returns the process ID.
func (p *Proc) PID() int { return p.Cmd.Process.Pid }

// Signal sends sig to the process (not its group).
func (p *Proc) Signal(sig os.Signal) error {
	if p.Exited() {
		return fmt.Errorf("testenv: %s: %w", p.Name, os.ErrProcessDone)
	}
	return p.Cmd.Process.Signal(sig)
}

// Exited reports whether the process has exited and been reaped.
func (p *Proc) Exited() bool { return p.proc.Exited() }

// Wait blocks until the process exits and returns cmd.Wait's error.
func (p *Proc) Wait() error { return p.proc.Wait() }

// exitErr is cmd.Wait's error once the process exited.
func (p *Proc) exitErr() error { return p.proc.Err() }

// Stop sends SIGTERM, waits up to Grace, then SIGKILLs the process group. It
// is idempotent and safe to call after the process exited on its own, which
// it logs, since an unexpected exit often explains a later failure.
func (p *Proc) Stop() {
	p.stopOnce.Do(p.stop)
}

func (p *Proc) stop() {
	grace := p.Grace
	if grace == 0 {
		grace = defaultGrace
	}
	switch p.proc.Stop(grace) {
	case childproc.AlreadyExited:
		p.t.Logf("testenv: %s (pid %d) had already exited: %v", p.Name, p.PID(), p.exitErr())
	case childproc.Killed:
		p.t.Logf("testenv: %s (pid %d) ignored SIGTERM for %v; sent SIGKILL", p.Name, p.PID(), grace)
	case childproc.Survived:
		p.t.Errorf("testenv: %s (pid %d) survived SIGKILL", p.Name, p.PID())
	}
}

// dump prints the captured output and log files through t.Logf.
func (p *Proc) dump() {
	for _, path := range append(append([]string{}, p.outPaths...), p.Logs...) {
		text, err := childproc.Tail(path, dumpLimit)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			p.t.Logf("testenv: %s: %v", p.Name, err)
		case len(text) == 0:
			p.t.Logf("testenv: %s: %s is empty", p.Name, path)
		default:
			p.t.Logf("testenv: %s: %s:\n%s", p.Name, path, text)
		}
	}
}
