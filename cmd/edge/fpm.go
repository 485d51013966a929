// This file holds "edge fpm status" and "edge fpm tune": the pool reports
// and the tuner on the command line. Both read the configuration the way
// the server does (-c, -p, -g) to find the pools; the figures only a
// running edge has (its queue, peaks, memory growth per request) come over
// its control socket (proxy.ControlSocketPath), and without a running edge
// they fall back to php-fpm's own status page and /proc.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"edge/conf"
	"edge/fastcgi/fpm"
	"edge/proxy"
)

const fpmUsage = `usage: edge fpm status [NAME] [--json] [-c file] [-p prefix] [-g directives]
       edge fpm tune [NAME] [--apply] [--reserve SIZE] [--window TIME] [--force] [--json] [-c file] [-p prefix]

status  shows each pool: mode, limits, processes, accepted requests, "max
        children reached", slow requests, edge's queue and connection
        reuse, and every worker (pid, state, requests, PSS, last duration)
tune    proposes pm.* settings from memory, worker PSS, CPUs and the peaks
        seen, with the reasoning (docs/fpm.md); --apply writes them (a pool
        edge owns: its state file and a reload; an external pool: its
        pool_file with a backup, php-fpm -t, then SIGUSR2)
`

// fpmArgs are the parsed arguments of "edge fpm".
type fpmArgs struct {
	opts    options
	pool    string
	json    bool
	apply   bool
	force   bool
	reserve uint64
	window  time.Duration
}

func parseFPMArgs(args []string) (*fpmArgs, error) {
	a := &fpmArgs{window: 5 * time.Second}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("option \"%s\" requires a value", arg)
			}
			i++
			return args[i], nil
		}
		var err error
		switch arg {
		case "--json":
			a.json = true
		case "--apply":
			a.apply = true
		case "--force":
			a.force = true
		case "-c":
			a.opts.conf, err = value()
		case "-p":
			a.opts.prefix, err = value()
		case "-g":
			a.opts.extra, err = value()
		case "--reserve":
			var v string
			if v, err = value(); err == nil {
				a.reserve, err = parseSizeArg(v)
			}
		case "--window":
			var v string
			if v, err = value(); err == nil {
				var ok bool
				if a.window, ok = conf.ParseDuration(v); !ok {
					err = fmt.Errorf("invalid time \"%s\"", v)
				}
			}
		default:
			if strings.HasPrefix(arg, "-") || a.pool != "" {
				return nil, fmt.Errorf("invalid argument \"%s\"", arg)
			}
			a.pool = arg
		}
		if err != nil {
			return nil, err
		}
	}
	return a, nil
}

// parseSizeArg reads "512m", "2g", "1048576".
func parseSizeArg(s string) (uint64, error) {
	mult := uint64(1)
	switch strings.ToLower(s[len(s)-1:]) {
	case "k":
		mult, s = 1<<10, s[:len(s)-1]
	case "m":
		mult, s = 1<<20, s[:len(s)-1]
	case "g":
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size \"%s\"", s)
	}
	return n * mult, nil
}

// fpmCommand runs "edge fpm ...".
func fpmCommand(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "help" {
		fmt.Fprint(os.Stderr, fpmUsage)
		return 2
	}
	a, err := parseFPMArgs(args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: %s\n%s", err, fpmUsage)
		return 2
	}
	plan, err := load(&a.opts)
	if err != nil {
		emerg(err)
		return 1
	}
	switch args[0] {
	case "status":
		return fpmStatus(plan, a)
	case "tune":
		return fpmTune(plan, a)
	}
	fmt.Fprintf(os.Stderr, "edge: unknown command \"fpm %s\"\n%s", args[0], fpmUsage)
	return 2
}

// controlClient talks HTTP to a running edge's control socket.
func controlClient(plan *conf.Plan) *http.Client {
	path := proxy.ControlSocketPath(plan)
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		},
	}}
}

// edgeReports asks the running edge for its pool reports.
func edgeReports(plan *conf.Plan, pool string) ([]*fpm.Report, error) {
	resp, err := controlClient(plan).Get("http://edge/fpm?pool=" + pool)
	if err != nil {
		return nil, fmt.Errorf("edge is not running with this configuration (control socket %s: %v)", proxy.ControlSocketPath(plan), unwrapNet(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		var e struct{ Error string }
		_ = json.Unmarshal(body, &e)
		return nil, errors.New(e.Error)
	}
	var reports []*fpm.Report
	if err := json.Unmarshal(body, &reports); err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	return reports, nil
}

func unwrapNet(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err
	}
	return err
}

// selectPools returns the plan's pools named (all when name is "").
func selectPools(plan *conf.Plan, name string) ([]*conf.FPMPool, error) {
	var out []*conf.FPMPool
	if plan.HTTP != nil {
		for _, p := range plan.HTTP.Pools {
			if name == "" || p.Name == name {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		if name != "" {
			return nil, fmt.Errorf("no fpm_pool \"%s\" in the configuration", name)
		}
		return nil, errors.New("the configuration has no fpm_pool")
	}
	return out, nil
}

// collectReports gets reports from the running edge, or directly from
// php-fpm when edge does not run (noting why).
func collectReports(plan *conf.Plan, name string) ([]*fpm.Report, string, error) {
	pools, err := selectPools(plan, name)
	if err != nil {
		return nil, "", err
	}
	reports, err := edgeReports(plan, name)
	if err == nil {
		return reports, "", nil
	}
	note := err.Error() + "; showing php-fpm's own figures"
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for _, p := range pools {
		reports = append(reports, fpm.Collect(ctx, fpm.ReportInput{Pool: p}))
	}
	return reports, note, nil
}

// fpmStatus is "edge fpm status".
func fpmStatus(plan *conf.Plan, a *fpmArgs) int {
	reports, note, err := collectReports(plan, a.pool)
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: %s\n", err)
		return 1
	}
	if note != "" {
		fmt.Fprintf(os.Stderr, "edge: %s\n", note)
	}
	if a.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(reports)
		return 0
	}
	fpm.WriteText(os.Stdout, reports)
	return 0
}

// tuneInput turns a report (and a second look after the window) into
// the tuner's input.
func tuneInput(r *fpm.Report, mem fpm.Memory, reserve uint64) fpm.TuneInput {
	in := fpm.TuneInput{Pool: r.Name, Current: r.Settings, CPUs: goruntime.NumCPU(), Memory: mem, Reserve: reserve,
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

// measure returns the pool's report; when no growth per request is known
// yet it looks again after the window, so workers that served requests
// meanwhile show how they grow.
func measure(plan *conf.Plan, p *conf.FPMPool, window time.Duration) (*fpm.Report, string) {
	look := func(mon *fpm.Monitor) (*fpm.Report, string) {
		if rs, err := edgeReports(plan, p.Name); err == nil && len(rs) == 1 {
			if mon != nil && rs[0].FPM != nil {
				mon.Observe(rs[0].FPM, nil, time.Now())
			}
			return rs[0], ""
		} else if err != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			return fpm.Collect(ctx, fpm.ReportInput{Pool: p, Monitor: mon}), err.Error()
		}
		return nil, "control socket: unexpected answer"
	}
	var mon fpm.Monitor
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

// fpmTune is "edge fpm tune".
func fpmTune(plan *conf.Plan, a *fpmArgs) int {
	pools, err := selectPools(plan, a.pool)
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: %s\n", err)
		return 1
	}
	if len(pools) > 1 {
		fmt.Fprintf(os.Stderr, "edge: several pools: name one of them\n")
		return 2
	}
	p := pools[0]
	r, note := measure(plan, p, a.window)
	if note != "" {
		fmt.Fprintf(os.Stderr, "edge: %s; tuning from php-fpm's own figures\n", note)
	}
	if r == nil || r.FPM == nil {
		msg := "no report"
		if r != nil {
			msg = r.FPMError
		}
		fmt.Fprintf(os.Stderr, "edge: cannot tune fpm_pool \"%s\": %s\n", p.Name, msg)
		return 1
	}
	mem, err := fpm.ReadMemory(r.MasterPID)
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: %v\n", err)
		return 1
	}
	res := fpm.Tune(tuneInput(r, mem, a.reserve))
	if a.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"pool": p.Name, "current": r.Settings, "proposed": res.Settings, "reasons": res.Reasons})
	} else {
		fmt.Printf("fpm_pool %s: current %s\n", p.Name, settingsText(r.Settings))
		for _, line := range res.Reasons {
			fmt.Printf("  %s\n", line)
		}
		fmt.Printf("proposed: %s\n", settingsText(res.Settings))
	}
	if !a.apply {
		return 0
	}
	if res.Settings == r.Settings {
		fmt.Println("nothing to apply: the pool already has these settings")
		return 0
	}
	if p.External {
		err = applyExternal(plan, p, r, res.Settings, a.force)
		// edge reads pm.max_children from the pool file to bound its
		// queue: a running edge reloads to see the new value.
		if _, cerr := edgeReports(plan, p.Name); err == nil && cerr == nil && sendSignal(plan, "reload") == 0 {
			fmt.Println("edge reloaded to use the new max_children")
		}
	} else {
		err = applyOwned(a, plan, p, res)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: %v\n", err)
		return 1
	}
	return 0
}

func settingsText(s fpm.Settings) string {
	t := fmt.Sprintf("pm %s, max_children %d", s.PM, s.MaxChildren)
	switch s.PM {
	case "dynamic":
		t += fmt.Sprintf(", start_servers %d, min_spare_servers %d, max_spare_servers %d", s.StartServers, s.MinSpareServers, s.MaxSpareServers)
	case "ondemand":
		t += fmt.Sprintf(", process_idle_timeout %ds", s.IdleTimeoutSeconds)
	}
	return t + fmt.Sprintf(", max_requests %d", s.MaxRequests)
}

// applyOwned writes the tuning state file, checks that the configuration
// still loads, and has the running edge reload; it waits until the pool
// runs with the new settings, and puts the old state back if it does not.
func applyOwned(a *fpmArgs, plan *conf.Plan, p *conf.FPMPool, res fpm.TuneResult) error {
	old, oldErr := os.ReadFile(p.StateFile)
	restore := func() {
		if oldErr == nil {
			_ = os.WriteFile(p.StateFile, old, 0o644)
		} else {
			_ = os.Remove(p.StateFile)
		}
	}
	comment := fmt.Sprintf("written by \"edge fpm tune --apply\" at %s; delete this file to return to the fpm_pool block's values\n%s",
		time.Now().Format(time.RFC3339), strings.Join(res.Reasons, "\n"))
	if err := os.MkdirAll(filepath.Dir(p.StateFile), 0o755); err != nil {
		return err
	}
	if err := writeFileAtomic(p.StateFile, []byte(conf.FormatTuneState(res.Settings.Values(), comment)), 0o644); err != nil {
		return err
	}
	if _, err := load(&a.opts); err != nil {
		restore()
		return fmt.Errorf("the tuned settings do not load (%v); %s left unchanged", err, p.StateFile)
	}
	fmt.Printf("wrote %s\n", p.StateFile)
	if _, err := edgeReports(plan, p.Name); err != nil {
		fmt.Println("edge is not running: the settings apply when it starts")
		return nil
	}
	if sendSignal(plan, "reload") != 0 {
		restore()
		return errors.New("could not signal edge to reload")
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if rs, err := edgeReports(plan, p.Name); err == nil && len(rs) == 1 && rs[0].Settings == res.Settings && rs[0].FPM != nil {
			fmt.Printf("applied: edge reloaded fpm_pool %s (%s)\n", p.Name, settingsText(res.Settings))
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	restore()
	return fmt.Errorf("edge did not apply the new settings within 90s (see its error log); %s restored", p.StateFile)
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

// applyExternal rewrites an external pool's pool file (keeping a
// backup), checks php-fpm's whole configuration with -t, and reloads the
// master with SIGUSR2; it waits for the status page to show the new
// master.
func applyExternal(plan *conf.Plan, p *conf.FPMPool, r *fpm.Report, s fpm.Settings, force bool) error {
	if p.PoolFile == "" || p.PidFile == "" {
		return fmt.Errorf("fpm_pool \"%s\" is external: name its pool_file and pid_file to apply", p.Name)
	}
	pid := r.MasterPID
	if pid <= 0 {
		return fmt.Errorf("no php-fpm master pid in %s", p.PidFile)
	}
	bin, mainConf, err := masterCommand(pid, p.ConfigFile)
	if err != nil {
		return err
	}
	if t := processControlTimeout(mainConf); t == 0 && !force {
		return fmt.Errorf("process_control_timeout is 0 in %s: a reload would cut running requests; set it (for example 30s) or pass --force", mainConf)
	}
	orig, err := os.ReadFile(p.PoolFile)
	if err != nil {
		return err
	}
	st, err := os.Stat(p.PoolFile)
	if err != nil {
		return err
	}
	backup := p.PoolFile + ".edge-" + time.Now().Format("20060102-150405")
	if err := os.WriteFile(backup, orig, st.Mode().Perm()); err != nil {
		return err
	}
	if err := writeFileAtomic(p.PoolFile, []byte(rewritePoolINI(string(orig), s)), st.Mode().Perm()); err != nil {
		return err
	}
	args := []string{"-t", "-y", mainConf}
	if os.Geteuid() == 0 {
		args = append(args, "-R")
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		_ = writeFileAtomic(p.PoolFile, orig, st.Mode().Perm())
		return fmt.Errorf("php-fpm -t refused the tuned pool file (restored from %s):\n%s", backup, out)
	}
	before := r.FPM.StartTime
	closeEdgeIdle(plan, p.Name)
	if err := syscall.Kill(pid, syscall.SIGUSR2); err != nil {
		return fmt.Errorf("kill(%d, SIGUSR2): %w", pid, err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, err := fpm.ReadStatus(ctx, p.StatusNetwork, p.StatusAddress, p.StatusPath)
		cancel()
		if err == nil && st.StartTime != before {
			fmt.Printf("applied: %s rewritten (backup %s), php-fpm %d reloaded\n", p.PoolFile, backup, pid)
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("php-fpm %d did not come back within 90s after SIGUSR2 (backup %s)", pid, backup)
}

// closeEdgeIdle asks a running edge to close its kept connections to the
// pool: a php-fpm worker waiting on one holds a reload until
// process_control_timeout. Without a running edge there is nothing to do.
func closeEdgeIdle(plan *conf.Plan, pool string) {
	resp, err := controlClient(plan).Post("http://edge/fpm/close-idle?pool="+pool, "text/plain", nil)
	if err == nil {
		resp.Body.Close()
	}
}

// masterCommand finds a running master's binary and main configuration:
// /proc/PID/exe, and its process title "php-fpm: master process (PATH)".
func masterCommand(pid int, configFile string) (bin, mainConf string, err error) {
	bin, err = os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return "", "", fmt.Errorf("php-fpm master %d: %w", pid, err)
	}
	bin = strings.TrimSuffix(bin, " (deleted)")
	if configFile != "" {
		return bin, configFile, nil
	}
	title, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "", "", fmt.Errorf("php-fpm master %d: %w", pid, err)
	}
	t := strings.TrimRight(strings.ReplaceAll(string(title), "\x00", " "), " ")
	if i, j := strings.Index(t, "("), strings.LastIndex(t, ")"); i >= 0 && j > i {
		mainConf = t[i+1 : j]
		if !filepath.IsAbs(mainConf) {
			if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil {
				mainConf = filepath.Join(cwd, mainConf)
			}
		}
		return bin, mainConf, nil
	}
	return "", "", fmt.Errorf("php-fpm master %d: cannot tell its configuration from %q; set config_file", pid, t)
}

// processControlTimeout reads process_control_timeout from a php-fpm main
// configuration (0 when unset, php-fpm's default).
func processControlTimeout(path string) time.Duration {
	data, err := os.ReadFile(path)
	if err != nil {
		return -1 // unknown: let php-fpm -t speak
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
func rewritePoolINI(text string, s fpm.Settings) string {
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
