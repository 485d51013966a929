// This file tests Proc: stopping by PID, the SIGKILL fallback for the whole
// process group, and the output dump on failure.

package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestProcStopIsIdempotentAndLeavesNoProcess(t *testing.T) {
	p := Start(t, "sleep", exec.Command(Binary(t, "coreutils", "sleep"), "60"))
	pid := p.PID()
	if p.Exited() {
		t.Fatalf("sleep exited at once: %v", p.Wait())
	}
	p.Stop()
	p.Stop()
	if !p.Exited() {
		t.Fatal("Stop returned before the process exited")
	}
	waitGone(t, pid)
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Signal after Stop = %v, want os.ErrProcessDone", err)
	}
}

func TestProcStopKillsGroupThatIgnoresTERM(t *testing.T) {
	sh := Binary(t, "dash", "sh")
	// The shell ignores SIGTERM and waits on a child in its process group:
	// only the group SIGKILL ends both.
	p := Start(t, "stubborn", exec.Command(sh, "-c", `trap "" TERM; sleep 60; :`))
	p.Grace = 50 * time.Millisecond
	child := waitChild(t, p.PID())
	p.Stop()
	waitGone(t, p.PID())
	waitGone(t, child)
}

func TestProcDumpsOutputWhenTestFailed(t *testing.T) {
	ft := newFakeTB(t)
	sh := Binary(t, "dash", "sh")
	logFile := t.TempDir() + "/extra.log"
	if err := os.WriteFile(logFile, []byte("marker-from-log-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Start(ft, "talker", exec.Command(sh, "-c", "echo marker-from-stdout; echo marker-from-stderr >&2; exec sleep 60"), logFile)
	waitFileContains(t, p.outPaths[1], "marker-from-stderr")
	ft.fail()
	ft.runCleanups()
	logs := ft.logText()
	for _, want := range []string{"marker-from-stdout", "marker-from-stderr", "marker-from-log-file"} {
		if !strings.Contains(logs, want) {
			t.Errorf("dump lacks %q:\n%s", want, logs)
		}
	}
}

func TestProcNoDumpWhenTestPassed(t *testing.T) {
	ft := newFakeTB(t)
	p := Start(ft, "quiet", exec.Command(Binary(t, "coreutils", "echo"), "marker-quiet"))
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	ft.runCleanups()
	if logs := ft.logText(); strings.Contains(logs, "marker-quiet") {
		t.Errorf("output dumped for a passing test:\n%s", logs)
	}
}

// waitGone polls until pid has no /proc entry or is a zombie. Stop reaps its
// own child, so a zombie can only be a grandchild waiting for whoever
// adopted it (PID 1 in a container may reap late or never): it is dead
// either way.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	poll(t, "pid "+strconv.Itoa(pid)+" to disappear", func() bool {
		state, err := procState(pid)
		return errors.Is(err, os.ErrNotExist) || state == "Z"
	})
}

// procState returns the state letter from /proc/PID/stat.
func procState(pid int) (string, error) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	fields := statFieldsAfterComm(stat)
	if len(fields) == 0 {
		return "", fmt.Errorf("short /proc/%d/stat", pid)
	}
	return fields[0], nil
}

// statFieldsAfterComm returns the fields of a /proc/PID/stat line after the
// command name, which sits in parentheses and may hold spaces: state, ppid,
// and so on.
func statFieldsAfterComm(stat []byte) []string {
	s := string(stat)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// waitChild polls until pid has a child and returns the first one.
func waitChild(t *testing.T, pid int) int {
	t.Helper()
	var kids []int
	poll(t, "a child of pid "+strconv.Itoa(pid), func() bool {
		kids = childPIDs(t, pid)
		return len(kids) > 0
	})
	return kids[0]
}

// childPIDs lists the processes whose parent is pid, from /proc/*/stat.
func childPIDs(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("read /proc: %v", err)
	}
	var kids []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		fields := statFieldsAfterComm(stat)
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			kids = append(kids, child)
		}
	}
	return kids
}

func waitFileContains(t *testing.T, path, want string) {
	t.Helper()
	poll(t, path+" to contain "+want, func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), want)
	})
}

// poll calls cond until it holds, failing after a generous deadline (a
// bound for a stuck test, not a timing assertion).
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fakeTB stands in for a test whose outcome the test controls: it records
// logs, failure and cleanups, and turns Fatal into runtime.Goexit like the
// real thing, so call functions that may fail through ft.run.
type fakeTB struct {
	testing.TB // the real test, for TempDir and Helper
	mu         sync.Mutex
	failed     bool
	logs       []string
	cleanups   []func()
}

func newFakeTB(t *testing.T) *fakeTB { return &fakeTB{TB: t} }

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *fakeTB) fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

func (f *fakeTB) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.Logf(format, args...)
	f.fail()
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

// run calls fn in its own goroutine, as Fatalf ends the goroutine, and
// reports whether fn returned normally.
func (f *fakeTB) run(fn func()) (returned bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
		returned = true
	}()
	<-done
	return returned
}

func (f *fakeTB) runCleanups() {
	f.mu.Lock()
	fns := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

func (f *fakeTB) logText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.logs, "\n")
}
