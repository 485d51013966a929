// This file holds "edge fpm status" and "edge fpm tune": the pool reports
// and the tuner on the command line. Both read the configuration the way
// the server does (-c, -p, -g) to find the pools; the figures only a
// running edge has (its queue, peaks, memory growth per request) come over
// its control socket (fpm.ControlClient), and without a running edge
// they fall back to php-fpm's own status page and /proc. What these
// commands do to php-fpm itself (measuring, rewriting pool files, php-fpm
// -t, SIGUSR2) is package fastcgi/fpm; this file holds the flags and the
// wiring to edge's own configuration loading and signals.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"edge/conf"
	"edge/fastcgi/fpm"
)

const fpmUsage = `usage: edge fpm status [NAME] [--json] [--status-path PATH] [-c file] [-p prefix] [-g directives]
       edge fpm tune [NAME] [--apply] [--reserve SIZE] [--window TIME] [--force] [--json] [-c file] [-p prefix]

status  shows each pool: mode, limits, processes, accepted requests, "max
        children reached", slow requests, edge's queue and connection
        reuse, and every worker (pid, state, requests, PSS, last duration)
tune    proposes pm.* settings from memory, worker PSS, CPUs and the peaks
        seen, with the reasoning (docs/fpm.md); --apply writes them (a pool
        edge owns: its state file and a reload; an external pool: its
        pool_file with a backup, php-fpm -t, then SIGUSR2)

The pools are the fpm_pool blocks; a configuration without any reports
on the php-fpm pools its fastcgi_pass directives name (an address, a
unix: socket, each server of an upstream), NAME being the fastcgi_pass's
argument. php-fpm's status page is then read over FastCGI at that
address: at the pm.status_path of php-fpm's configuration when it runs
on this machine, else at /status, then /fpm-status, or at the
--status-path given. A pool whose status page cannot be read exits 1.
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
	// statusPath is --status-path: the status page of pools behind a
	// fastcgi_pass ("" = found).
	statusPath string
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
		case "--status-path":
			if a.statusPath, err = value(); err == nil && !strings.HasPrefix(a.statusPath, "/") {
				err = fmt.Errorf("invalid status path \"%s\": it starts with /, as php-fpm's pm.status_path", a.statusPath)
			}
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

// selectPools returns the plan's pools a name selects (all when name is
// ""): fpm_pool blocks, or without any the pools behind fastcgi_pass.
func selectPools(plan *conf.Plan, name string) ([]*conf.FPMPool, error) {
	var out []*conf.FPMPool
	if plan.HTTP != nil {
		out = plan.HTTP.ReportPoolsNamed(name)
	}
	if len(out) == 0 {
		if name != "" {
			return nil, fmt.Errorf("no fpm_pool or fastcgi_pass \"%s\" in the configuration", name)
		}
		return nil, errors.New("the configuration has no fpm_pool and no fastcgi_pass")
	}
	return out, nil
}

// collectReports gets reports from the running edge, or directly from
// php-fpm when edge does not run (noting why).
func collectReports(plan *conf.Plan, name, statusPath string) ([]*fpm.Report, string, error) {
	pools, err := selectPools(plan, name)
	if err != nil {
		return nil, "", err
	}
	ctl := control(plan)
	ctl.StatusPath = statusPath
	reports, err := ctl.Reports(name)
	if err == nil {
		return reports, "", nil
	}
	note := err.Error() + "; showing php-fpm's own figures"
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for _, p := range pools {
		reports = append(reports, fpm.Collect(ctx, fpm.ReportInput{Pool: p, StatusPath: statusPath}))
	}
	return reports, note, nil
}

// fpmStatus is "edge fpm status".
func fpmStatus(plan *conf.Plan, a *fpmArgs) int {
	reports, note, err := collectReports(plan, a.pool, a.statusPath)
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
	} else {
		fpm.WriteText(os.Stdout, reports)
	}
	// A pool found behind a fastcgi_pass is nothing but its status page:
	// without it the command failed. (An fpm_pool without one still has
	// edge's own figures.)
	code := 0
	for _, r := range reports {
		if r.Pass != "" && r.FPM == nil {
			fmt.Fprintf(os.Stderr, "edge: pool %s: %s\n", r.Name, r.FPMError)
			code = 1
		}
	}
	return code
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
	if p.Pass != "" && a.apply {
		fmt.Fprintf(os.Stderr, "edge: pool %s is only named by fastcgi_pass: to apply, describe it in an fpm_pool block (external, with pool_file and pid_file)\n", p.Name)
		return 1
	}
	r, note := fpm.Measure(control(plan), p, a.window)
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
	res := fpm.Tune(fpm.TuneInputOf(r, mem, a.reserve, runtime.NumCPU()))
	if a.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"pool": p.Name, "current": r.Settings, "proposed": res.Settings, "reasons": res.Reasons})
	} else {
		fmt.Printf("fpm_pool %s: current %s\n", p.Name, r.Settings.Describe())
		for _, line := range res.Reasons {
			fmt.Printf("  %s\n", line)
		}
		fmt.Printf("proposed: %s\n", res.Settings.Describe())
	}
	if !a.apply {
		return 0
	}
	if res.Settings == r.Settings {
		fmt.Println("nothing to apply: the pool already has these settings")
		return 0
	}
	if p.External {
		ctl := control(plan)
		var msg string
		msg, err = fpm.ApplyExternal(p, r, res.Settings, fpm.ExternalOptions{Force: a.force,
			BeforeReload: func() { ctl.CloseIdle(p.Name) }})
		if err == nil {
			fmt.Println(msg)
		}
		// edge reads pm.max_children from the pool file to bound its
		// queue: a running edge reloads to see the new value.
		if _, cerr := ctl.Reports(p.Name); err == nil && cerr == nil && sendSignal(plan, "reload") == 0 {
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

// applyOwned writes the tuning state file, checks that the configuration
// still loads, and has the running edge reload; it waits until the pool
// runs with the new settings, and puts the old state back if it does not.
func applyOwned(a *fpmArgs, plan *conf.Plan, p *conf.FPMPool, res fpm.TuneResult) error {
	restore, err := fpm.WriteTuneState(p, res, time.Now())
	if err != nil {
		return err
	}
	if _, err := load(&a.opts); err != nil {
		restore()
		return fmt.Errorf("the tuned settings do not load (%v); %s left unchanged", err, p.StateFile)
	}
	fmt.Printf("wrote %s\n", p.StateFile)
	ctl := control(plan)
	if _, err := ctl.Reports(p.Name); err != nil {
		fmt.Println("edge is not running: the settings apply when it starts")
		return nil
	}
	if sendSignal(plan, "reload") != 0 {
		restore()
		return errors.New("could not signal edge to reload")
	}
	if !ctl.WaitForSettings(p.Name, res.Settings) {
		restore()
		return fmt.Errorf("edge did not apply the new settings within 90s (see its error log); %s restored", p.StateFile)
	}
	fmt.Printf("applied: edge reloaded fpm_pool %s (%s)\n", p.Name, res.Settings.Describe())
	return nil
}

// control is the control socket of the edge that runs plan.
func control(plan *conf.Plan) *fpm.ControlClient {
	return fpm.NewControlClient(fpm.ControlSocketPath(plan.Prefix))
}
