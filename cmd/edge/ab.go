// This file is "edge ab": the A/B comparison of edge with nginx on the
// user's configuration (or the built-in site), run by package ab. It only
// reads flags, prints progress and the table, and sets the exit status.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"edge/ab"
)

// abQuick are the --quick settings: one short round, a short ramp, no
// warm-up: a check that everything works, not a measurement.
var abQuick = struct {
	rounds             int
	duration, rampTime time.Duration
}{1, 2 * time.Second, 10 * time.Second}

func abCommand(args []string) int {
	if len(args) > 0 && args[0] == "--load-client" {
		// edge ab's own load generator, started by the harness pinned to
		// the client CPUs.
		if err := ab.ServeLoadClient(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "edge: %v\n", err)
			return 1
		}
		return 0
	}
	o, list, err := parseABArgs(args)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge ab: %v\n", err)
		return 2
	}
	if list {
		for _, s := range ab.Catalog() {
			fmt.Printf("%-16s %-15s seed %s  %-8s %s\n", s.Name, s.Group, s.Seed, s.Tool, s.Title)
		}
		return 0
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge ab: %v\n", err)
		return 1
	}
	o.EdgeBinary = exe
	o.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := ab.Run(ctx, o)
	if rep != nil {
		fmt.Println()
		ab.WriteTable(os.Stdout, rep)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: %v\n", err) // err reads "ab: ..."
		return 1
	}
	if !rep.Passed() {
		fmt.Fprintln(os.Stderr, "edge ab: some scenarios answered differently or failed; see the report")
		return 1
	}
	return 0
}

// parseABArgs reads edge ab's flags (one or two dashes).
func parseABArgs(args []string) (ab.Options, bool, error) {
	var o ab.Options
	fs := flag.NewFlagSet("edge ab", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	var (
		scenarios, serverCPUs, clientCPUs string
		quick, list                       bool
	)
	fs.StringVar(&o.Config, "c", "", "configuration to compare (default: the built-in site)")
	fs.StringVar(&o.Prefix, "p", "", "prefix for the configuration's relative paths (default: its directory)")
	fs.StringVar(&scenarios, "scenarios", "", "comma-separated scenarios or groups (default all; see --list)")
	fs.IntVar(&o.Rounds, "rounds", 3, "timed rounds per server and scenario, order alternating")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "length of one timed run")
	fs.DurationVar(&o.Warmup, "warmup", time.Second, "untimed run against each server before a scenario's first round (0: none)")
	fs.DurationVar(&o.RampDuration, "ramp-duration", 60*time.Second, "length of the ramp")
	fs.IntVar(&o.RampUsers, "ramp-users", 250, "users at the end of the ramp")
	fs.StringVar(&serverCPUs, "server-cpus", "", "CPUs for the servers and php-fpm, taskset syntax; several rows separated by / (\"0/0-1\")")
	fs.StringVar(&clientCPUs, "client-cpus", "", "CPUs for the load generator (default: the others)")
	fs.IntVar(&o.FPMChildren, "fpm-children", 0, "php-fpm workers (default 4 per server CPU)")
	fs.StringVar(&o.WordPress, "wordpress", "", "WordPress docroot for the wordpress scenarios (also served through fastcgi_cache for wordpress-cached)")
	fs.StringVar(&o.Out, "out", "", "report directory (default ./edge-ab-DATE-TIME)")
	fs.BoolVar(&quick, "quick", false, fmt.Sprintf("one %v round, a %v ramp, no warm-up", abQuick.duration, abQuick.rampTime))
	fs.BoolVar(&o.Install, "install", false, "install missing Debian packages with apt-get (default: name them and stop)")
	fs.Bool("no-install", false, "the default now; accepted for scripts written before --install")
	fs.BoolVar(&o.Profile, "pprof", false, "save a CPU profile of edge's first round of each scenario in OUT/profiles")
	fs.BoolVar(&list, "list", false, "list the scenarios and exit")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: edge ab [-c site.conf] [flags]\n\nCompares edge with nginx on the same configuration, docroot and php-fpm pool.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, false, err
	}
	if fs.NArg() > 0 {
		return o, false, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if quick && !set["warmup"] {
		o.Warmup = 0
	}
	if o.Warmup == 0 {
		o.Warmup = -1 // ab.Options: negative is none, zero the default
	}
	if quick {
		if !set["rounds"] {
			o.Rounds = abQuick.rounds
		}
		if !set["duration"] {
			o.Duration = abQuick.duration
		}
		if !set["ramp-duration"] {
			o.RampDuration = abQuick.rampTime
		}
	}
	if scenarios != "" {
		o.Scenarios = strings.Split(scenarios, ",")
	}
	if serverCPUs != "" {
		for _, part := range strings.Split(serverCPUs, "/") {
			set, err := ab.ParseCPUSet(part)
			if err != nil {
				return o, false, err
			}
			o.ServerCPUs = append(o.ServerCPUs, set)
		}
	}
	if clientCPUs != "" {
		set, err := ab.ParseCPUSet(clientCPUs)
		if err != nil {
			return o, false, err
		}
		o.ClientCPUs = set
	}
	if o.Out == "" {
		o.Out = "edge-ab-" + time.Now().Format("20060102-150405")
	}
	return o, list, nil
}
