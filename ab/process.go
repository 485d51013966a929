// This file starts and stops the harness's child processes (edge, nginx,
// php-fpm, the load generators), each optionally pinned to CPUs with
// taskset, with its output in a file, in its own process group, and
// signalled when the harness dies. The process handling itself is
// internal/childproc's, shared with testenv; readiness is polled, never
// slept for.

package ab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"edge/internal/childproc"
)

const (
	// readyTimeout bounds how long a server may take to listen. It is a
	// failure deadline, not a measurement.
	readyTimeout = 15 * time.Second
	// stopGrace is how long a server gets after SIGTERM before SIGKILL.
	stopGrace = 5 * time.Second
)

// process is one started child.
type process struct {
	*childproc.Process
	outPath string // stdout and stderr
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
	p, err := childproc.Start(name, cmd)
	if err != nil {
		return nil, fmt.Errorf("ab: start %s: %w", name, err)
	}
	return &process{Process: p, outPath: out.Name()}, nil
}

// output returns the end of what the process printed. (taskset execs the
// command, so the PID and the output are the server's own.)
func (p *process) output() string {
	b, _ := childproc.Tail(p.outPath, 4000)
	return tail(strings.TrimSpace(string(b)), 2000)
}

// waitListening polls until network/addr accepts a connection, failing
// at once, with its output, if the process exits first.
func (p *process) waitListening(network, addr string) error {
	if err := childproc.WaitListening(p.Process, network, addr, readyTimeout); err != nil {
		return fmt.Errorf("ab: %v\n%s", err, p.output())
	}
	return nil
}

// stop ends the process and its group (SIGTERM, then SIGKILL after
// stopGrace). It is safe to call more than once, and on nil.
func (p *process) stop() {
	if p != nil {
		p.Stop(stopGrace)
	}
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
	p, err := childproc.Start(argv[0], cmd)
	if err != nil {
		return "", "", fmt.Errorf("ab: start %s: %w", argv[0], err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.Done():
		if err = p.Err(); err != nil {
			err = fmt.Errorf("ab: %s: %w", strings.Join(argv, " "), err)
		}
	case <-timer.C:
		p.Kill()
		<-p.Done()
		err = fmt.Errorf("ab: %s did not finish within %v", strings.Join(argv, " "), timeout)
	case <-ctx.Done():
		p.Kill()
		<-p.Done()
		err = ctx.Err()
	}
	return out.String(), errOut.String(), err
}
