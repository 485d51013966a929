// This file holds Proc: one started child process, its captured output, and
// the stop/dump logic every helper in this package relies on.

package testenv

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
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
	outPaths []string // captured stdout and stderr, when Start set them
	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
}

// Start starts cmd and registers a cleanup that stops it and, if the test
// failed, prints its output and logs. If cmd.Stdout or cmd.Stderr is nil it
// is captured to a file under t.TempDir(). Unless cmd.SysProcAttr is already
// set, the child gets its own process group (so a SIGKILL reaches its
// workers too) and, on Linux, SIGTERM when the test process dies.
func Start(t testing.TB, name string, cmd *exec.Cmd, logs ...string) *Proc {
	t.Helper()
	p := &Proc{Name: name, Cmd: cmd, Logs: logs, t: t, done: make(chan struct{})}
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
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = childAttr()
	}
	err := cmd.Start()
	// The child holds its own copies of the descriptors.
	for _, f := range files {
		f.Close()
	}
	if err != nil {
		t.Fatalf("testenv: start %s: %v", name, err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
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
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait blocks until the process exits and returns cmd.Wait's error.
func (p *Proc) Wait() error {
	<-p.done
	return p.waitErr
}

// Stop sends SIGTERM, waits up to Grace, then SIGKILLs the process group. It
// is idempotent and safe to call after the process exited on its own, which
// it logs, since an unexpected exit often explains a later failure.
func (p *Proc) Stop() {
	p.stopOnce.Do(p.stop)
}

func (p *Proc) stop() {
	if p.Exited() {
		p.t.Logf("testenv: %s (pid %d) had already exited: %v", p.Name, p.PID(), p.waitErr)
		return
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	grace := p.Grace
	if grace == 0 {
		grace = defaultGrace
	}
	if p.awaitExit(grace) {
		return
	}
	p.t.Logf("testenv: %s (pid %d) ignored SIGTERM for %v; sending SIGKILL", p.Name, p.PID(), grace)
	p.kill()
	if !p.awaitExit(defaultGrace) {
		p.t.Errorf("testenv: %s (pid %d) survived SIGKILL", p.Name, p.PID())
	}
}

// kill sends SIGKILL to the whole process group when the child leads one:
// an nginx or php-fpm master killed alone would orphan its workers. The
// leader is not reaped yet here, so the group ID still names our group.
func (p *Proc) kill() {
	if attr := p.Cmd.SysProcAttr; attr != nil && attr.Setpgid && attr.Pgid == 0 {
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
		return
	}
	_ = p.Cmd.Process.Kill()
}

func (p *Proc) awaitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.done:
		return true
	case <-timer.C:
		return false
	}
}

// dump prints the captured output and log files through t.Logf.
func (p *Proc) dump() {
	for _, path := range append(append([]string{}, p.outPaths...), p.Logs...) {
		text, err := readTail(path, dumpLimit)
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

// readTail returns at most limit bytes from the end of the file at path.
func readTail(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	prefix := ""
	if st.Size() > limit {
		if _, err := f.Seek(-limit, io.SeekEnd); err != nil {
			return nil, err
		}
		prefix = fmt.Sprintf("[... %d bytes cut ...]\n", st.Size()-limit)
	}
	b, err := io.ReadAll(f)
	return append([]byte(prefix), b...), err
}
