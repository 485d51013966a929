// apply.go holds what "edge fpm tune" does around the formula in
// tune.go: measuring a pool (a second look after a window when growth per
// request is not known yet), and writing the result where it takes
// effect. A pool edge owns gets a tuning state file that the fpm_pool
// block reads (edge then reloads); an external pool gets its pool file
// rewritten in place, with a backup, checked by php-fpm -t and loaded by
// SIGUSR2 to its master.
package fpm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"edge/conf"
)

// applyWait bounds the wait for a pool to come back with new settings.
const applyWait = 90 * time.Second

// Describe is the settings in one line, the way "edge fpm tune" prints
// them.
func (s Settings) Describe() string {
	t := fmt.Sprintf("pm %s, max_children %d", s.PM, s.MaxChildren)
	switch s.PM {
	case "dynamic":
		t += fmt.Sprintf(", start_servers %d, min_spare_servers %d, max_spare_servers %d", s.StartServers, s.MinSpareServers, s.MaxSpareServers)
	case "ondemand":
		t += fmt.Sprintf(", process_idle_timeout %ds", s.IdleTimeoutSeconds)
	}
	return t + fmt.Sprintf(", max_requests %d", s.MaxRequests)
}

// TuneInputOf turns a report into the tuner's input, for a machine of
// cpus CPUs with mem available and reserve bytes kept back.
func TuneInputOf(r *Report, mem Memory, reserve uint64, cpus int) TuneInput {
	in := TuneInput{Pool: r.Name, Current: r.Settings, CPUs: cpus, Memory: mem, Reserve: reserve,
		PoolPSS: r.PSSTotal, WorkerPSS: r.History.WorkerPSS, PeakActive: r.History.PeakActive, PeakWaiting: r.History.PeakWaiting,
		GrowthPerRequest: r.History.GrowthPerRequest, GrowthSamples: r.History.GrowthSamples}
	if st := r.FPM; st != nil {
		// php-fpm's "max active processes" also counts the workers that
		// answered its status page, so it can pass max_children.
		in.PeakActive = max(in.PeakActive, min(st.MaxActiveProcesses, r.Settings.MaxChildren))
		in.MaxChildrenReached = st.MaxChildrenReached
		if len(in.WorkerPSS) == 0 {
			for _, p := range st.Processes {
				if p.PSS > 0 {
					in.WorkerPSS = append(in.WorkerPSS, p.PSS)
				}
			}
		}
	}
	if sv := r.Supervisor; sv != nil {
		in.MaxChildrenReached = max(in.MaxChildrenReached, uint64(sv.MaxChildrenWarnings))
	}
	if e := r.Edge; e != nil {
		in.PeakWaiting = max(in.PeakWaiting, e.PeakWaiting)
		in.Queued = e.Queued
	}
	return in
}

// Measure returns the pool's report, from the running edge (ctl) or,
// when it does not answer, from php-fpm itself (the note then says why).
// When no growth per request is known yet it looks again after window,
// so workers that served requests meanwhile show how they grow.
func Measure(ctl *ControlClient, p *conf.FPMPool, window time.Duration) (*Report, string) {
	look := func(mon *Monitor) (*Report, string) {
		if rs, err := ctl.Reports(p.Name); err == nil && len(rs) == 1 {
			if mon != nil && rs[0].FPM != nil {
				mon.Observe(rs[0].FPM, nil, time.Now())
			}
			return rs[0], ""
		} else if err != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			return Collect(ctx, ReportInput{Pool: p, Monitor: mon}), err.Error()
		}
		return nil, "control socket: unexpected answer"
	}
	var mon Monitor
	r, note := look(&mon)
	if r == nil || r.History.GrowthSamples > 0 || window <= 0 {
		return r, note
	}
	time.Sleep(window)
	r2, _ := look(&mon)
	if r2 == nil {
		return r, note
	}
	h := mon.History()
	r2.History.GrowthPerRequest, r2.History.GrowthSamples = h.GrowthPerRequest, h.GrowthSamples
	r2.History.PeakActive = max(r2.History.PeakActive, h.PeakActive, r.History.PeakActive)
	r2.History.WorkerPSS = append(r2.History.WorkerPSS, h.WorkerPSS...)
	return r2, note
}

// WriteTuneState writes the tuning state file of a pool edge owns, with
// the reasoning as its comment. restore puts back what was there before
// (or removes the file), for a caller whose reload then fails.
func WriteTuneState(p *conf.FPMPool, res TuneResult, now time.Time) (restore func(), err error) {
	old, oldErr := os.ReadFile(p.StateFile)
	restore = func() {
		if oldErr == nil {
			_ = os.WriteFile(p.StateFile, old, 0o644)
		} else {
			_ = os.Remove(p.StateFile)
		}
	}
	comment := fmt.Sprintf("written by \"edge fpm tune --apply\" at %s; delete this file to return to the fpm_pool block's values\n%s",
		now.Format(time.RFC3339), strings.Join(res.Reasons, "\n"))
	if err := os.MkdirAll(filepath.Dir(p.StateFile), 0o755); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(p.StateFile, []byte(conf.FormatTuneState(res.Settings.Values(), comment)), 0o644); err != nil {
		return nil, err
	}
	return restore, nil
}

// writeFileAtomic replaces path through a temporary file and a rename.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// ExternalOptions are the choices of ApplyExternal. The zero value
// refuses a master whose process_control_timeout is 0 and does nothing
// before the reload.
type ExternalOptions struct {
	// Force reloads even when process_control_timeout is 0, which cuts
	// the requests running at that moment.
	Force bool
	// BeforeReload runs just before SIGUSR2: edge closes its kept
	// connections to the pool there, since a worker waiting on one holds
	// the reload until process_control_timeout.
	BeforeReload func()
}

// ApplyExternal rewrites an external pool's pool file (keeping a backup),
// checks php-fpm's whole configuration with -t (restoring the file when
// it is refused), and reloads the master with SIGUSR2; it waits for the
// status page to show the new master and returns what it did, in a line.
func ApplyExternal(p *conf.FPMPool, r *Report, s Settings, o ExternalOptions) (string, error) {
	if p.PoolFile == "" || p.PidFile == "" {
		return "", fmt.Errorf("fpm_pool \"%s\" is external: name its pool_file and pid_file to apply", p.Name)
	}
	pid := r.MasterPID
	if pid <= 0 {
		return "", fmt.Errorf("no php-fpm master pid in %s", p.PidFile)
	}
	bin, mainConf, err := masterCommand(pid, p.ConfigFile)
	if err != nil {
		return "", err
	}
	if t := processControlTimeout(mainConf); t == 0 && !o.Force {
		return "", fmt.Errorf("process_control_timeout is 0 in %s: a reload would cut running requests; set it (for example 30s) or pass --force", mainConf)
	}
	orig, err := os.ReadFile(p.PoolFile)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(p.PoolFile)
	if err != nil {
		return "", err
	}
	backup := p.PoolFile + ".edge-" + time.Now().Format("20060102-150405")
	if err := os.WriteFile(backup, orig, st.Mode().Perm()); err != nil {
		return "", err
	}
	if err := writeFileAtomic(p.PoolFile, []byte(rewritePoolINI(string(orig), s)), st.Mode().Perm()); err != nil {
		return "", err
	}
	args := []string{"-t", "-y", mainConf}
	if os.Geteuid() == 0 {
		args = append(args, "-R")
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		_ = writeFileAtomic(p.PoolFile, orig, st.Mode().Perm())
		return "", fmt.Errorf("php-fpm -t refused the tuned pool file (restored from %s):\n%s", backup, out)
	}
	before := r.FPM.StartTime
	if o.BeforeReload != nil {
		o.BeforeReload()
	}
	if err := syscall.Kill(pid, syscall.SIGUSR2); err != nil {
		return "", fmt.Errorf("kill(%d, SIGUSR2): %w", pid, err)
	}
	deadline := time.Now().Add(applyWait)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, err := ReadStatus(ctx, p.StatusNetwork, p.StatusAddress, p.StatusPath)
		cancel()
		if err == nil && st.StartTime != before {
			return fmt.Sprintf("applied: %s rewritten (backup %s), php-fpm %d reloaded", p.PoolFile, backup, pid), nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return "", fmt.Errorf("php-fpm %d did not come back within 90s after SIGUSR2 (backup %s)", pid, backup)
}

// processControlTimeout reads process_control_timeout from a php-fpm main
// configuration (0 when unset, php-fpm's default; -1 when the file cannot
// be read, so that php-fpm -t speaks).
func processControlTimeout(path string) time.Duration {
	data, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	var d time.Duration
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "process_control_timeout" {
			d, _ = conf.ParseDuration(strings.TrimSpace(v))
		}
	}
	return d
}

// rewritePoolINI sets the pm.* keys of the first pool section of a
// php-fpm ini file, keeping every other line (comments included) as it
// was; keys the section lacks are added at its end.
func rewritePoolINI(text string, s Settings) string {
	want := [][2]string{{"pm", s.PM}, {"pm.max_children", strconv.Itoa(s.MaxChildren)}, {"pm.max_requests", strconv.Itoa(s.MaxRequests)}}
	switch s.PM {
	case "dynamic":
		want = append(want, [2]string{"pm.start_servers", strconv.Itoa(s.StartServers)},
			[2]string{"pm.min_spare_servers", strconv.Itoa(s.MinSpareServers)}, [2]string{"pm.max_spare_servers", strconv.Itoa(s.MaxSpareServers)})
	case "ondemand":
		want = append(want, [2]string{"pm.process_idle_timeout", strconv.Itoa(s.IdleTimeoutSeconds) + "s"})
	}
	lines := strings.Split(text, "\n")
	done := map[string]bool{}
	start, end := -1, len(lines)
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			if start >= 0 {
				end = i
				break
			}
			if !strings.EqualFold(t, "[global]") {
				start = i
			}
			continue
		}
		if start < 0 || strings.HasPrefix(t, ";") || strings.HasPrefix(t, "#") {
			continue
		}
		k, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		for _, kv := range want {
			if strings.TrimSpace(k) == kv[0] {
				lines[i] = kv[0] + " = " + kv[1]
				done[kv[0]] = true
			}
		}
	}
	var add []string
	for _, kv := range want {
		if !done[kv[0]] {
			add = append(add, kv[0]+" = "+kv[1])
		}
	}
	// Insert before trailing blank lines of the section.
	at := end
	for at > start+1 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	out := append([]string{}, lines[:at]...)
	out = append(out, add...)
	return strings.Join(append(out, lines[at:]...), "\n")
}

// WaitForSettings polls the running edge until the pool reports s with
// php-fpm answering, for up to 90s; false when it never does.
func (c *ControlClient) WaitForSettings(pool string, s Settings) bool {
	deadline := time.Now().Add(applyWait)
	for time.Now().Before(deadline) {
		if rs, err := c.Reports(pool); err == nil && len(rs) == 1 && rs[0].Settings == s && rs[0].FPM != nil {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}
