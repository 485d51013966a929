// Package ab is edge's A/B harness against nginx: "edge ab" as a library.
// It runs edge with a configuration and Debian's nginx with the same
// configuration as "edge -T --nginx" prints it, on the same docroot and
// php-fpm pools alike (one each), checks that both answer each scenario's request
// identically, and then times them with wrk, h2load, ab and its own
// connect/ramp client, the servers and the load generator pinned to
// different CPUs, A and B alternated for several rounds. The figures are
// medians and edge/nginx ratios, with the CPU time each server used, so
// that requests per CPU-second can be compared on a shared machine. The
// report is a terminal table, CSV files and a self-contained HTML page
// with SVG charts.
//
// This file holds the options, the report and Run.
package ab

import (
	"context"
	"edge/internal/childproc"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"time"
)

// Options configure Run. The zero value of each field means the default
// its comment gives; EdgeBinary and Out are required.
type Options struct {
	// Config is the configuration to compare; "" means the built-in site.
	Config string
	// Prefix is edge's -p for Config (relative root and log paths); ""
	// means Config's directory.
	Prefix string
	// Scenarios are scenario names, group names or "all" (see Select);
	// nil means all (wordpress only when WordPress is set).
	Scenarios []string
	// Custom, when not nil, replaces the catalog selection.
	Custom []Scenario
	// Rounds is how many times each server is timed per scenario, order
	// alternating; default 3.
	Rounds int
	// Duration is one timed run; default 10 s. Load generators take whole
	// seconds, so it is rounded up to one.
	Duration time.Duration
	// Warmup is run against each server before a scenario's first round
	// and not counted; default 1 s, negative for none.
	Warmup time.Duration
	// RampDuration is the ramp's length; default 60 s (seed 000).
	RampDuration time.Duration
	// RampUsers is the ramp's final user count; default 250 (seed 000).
	RampUsers int
	// ServerCPUs are the CPU sets the servers (and php-fpm) are pinned to,
	// one report row each (seed 003's 1/2/4... CPU rows); nil means the
	// first half of the machine.
	ServerCPUs []CPUSet
	// ClientCPUs is where the load generator runs; nil means every CPU the
	// servers do not use.
	ClientCPUs CPUSet
	// FPMChildren is the php-fpm pool's size (pm = static); default 4 per
	// server CPU.
	FPMChildren int
	// WordPress is a WordPress docroot for the wordpress scenario (the
	// built-in site serves it with seed 004's rules).
	WordPress string
	// Out is the directory the report, the CSV files, the generated
	// configurations and the tools' raw output are written to.
	Out string
	// EdgeBinary is the edge to test; it also runs the load client.
	EdgeBinary string
	// Install installs the Debian packages of missing tools with apt-get
	// (through sudo when not root), after saying which. Without it a
	// missing tool is an error that names the packages.
	Install bool
	// Profile records a CPU profile of edge (through EDGE_PPROF) during
	// its first round of every scenario, into Out/profiles. Profiling
	// costs edge a little CPU, so its figures are then slightly low.
	Profile bool
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Report is the outcome of a run.
type Report struct {
	Started, Finished time.Time
	// Config names the configuration ("built-in site" or its path).
	Config string
	// Versions of the two servers and the tools.
	EdgeVersion, NginxVersion string
	Host                      string
	CPUs                      int
	Rounds                    int
	Duration, RampDuration    time.Duration
	RampUsers                 int
	Rows                      []*Row
	// Comparisons set scenarios against their baselines (Scenario.Baseline).
	Comparisons []Comparison
	// Notes are remarks about the run (shared CPUs, test files placed).
	Notes []string
	// Errors are failures that cut the run short (a server that did not
	// start or exited, an interruption).
	Errors []string
	// Files are the report's files, by kind ("html", "csv", ...).
	Files map[string]string
}

// Row is every scenario timed with one server CPU set.
type Row struct {
	ServerCPUs, ClientCPUs CPUSet
	Results                []*ScenarioResult
}

// Passed reports whether the run completed, every scenario that was
// checked answered identically and every timed run completed.
func (r *Report) Passed() bool {
	if len(r.Errors) > 0 {
		return false
	}
	for _, row := range r.Rows {
		for _, res := range row.Results {
			if len(res.Differences) > 0 || res.Edge.Failed > 0 || res.Nginx.Failed > 0 {
				return false
			}
		}
	}
	return true
}

// withDefaults fills the documented defaults.
func (o Options) withDefaults() Options {
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	if o.Duration <= 0 {
		o.Duration = 10 * time.Second
	}
	o.Duration = wholeSeconds(o.Duration)
	if o.Warmup == 0 {
		o.Warmup = time.Second
	}
	if o.Warmup > 0 {
		o.Warmup = wholeSeconds(o.Warmup)
	}
	if o.RampDuration <= 0 {
		o.RampDuration = 60 * time.Second
	}
	o.RampDuration = wholeSeconds(o.RampDuration)
	if o.RampUsers <= 0 {
		o.RampUsers = 250
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// wholeSeconds rounds d up to whole seconds, at least one.
func wholeSeconds(d time.Duration) time.Duration {
	return max(time.Second, (d+time.Second-1)/time.Second*time.Second)
}

// cpuPlan resolves the server rows and the client set.
func (o Options) cpuPlan() (rows []CPUSet, client CPUSet, notes []string, err error) {
	all := machineCPUs()
	rows = o.ServerCPUs
	if len(rows) == 0 {
		s, _ := defaultSplit(all)
		rows = []CPUSet{s}
	}
	for _, r := range rows {
		if len(r) == 0 || r[len(r)-1] >= len(all) {
			return nil, nil, nil, fmt.Errorf("ab: server CPUs %q are not all on this machine (CPUs 0-%d)", r, len(all)-1)
		}
	}
	client = o.ClientCPUs
	if len(client) == 0 {
		var used CPUSet
		for _, r := range rows {
			used = append(used, r...)
		}
		client = all.Without(used)
		if len(client) == 0 {
			client = all
		}
	}
	if client[len(client)-1] >= len(all) {
		return nil, nil, nil, fmt.Errorf("ab: client CPUs %q are not all on this machine (CPUs 0-%d)", client, len(all)-1)
	}
	for _, r := range rows {
		if r.Overlaps(client) {
			notes = append(notes, fmt.Sprintf("server CPUs %s and load generator CPUs %s overlap: the figures measure both sharing them", r, client))
		}
	}
	return rows, client, notes, nil
}

// Run compares edge with nginx as o says and writes the report files
// into o.Out. It returns the report even when some scenarios differ or
// failed (see Report.Passed); an error means nothing could be measured.
func Run(ctx context.Context, o Options) (*Report, error) {
	o = o.withDefaults()
	if o.EdgeBinary == "" || o.Out == "" {
		return nil, fmt.Errorf("ab: EdgeBinary and Out are required")
	}
	scenarios := o.Custom
	if scenarios == nil {
		var err error
		scenarios, err = Select(o.Scenarios, o.WordPress != "")
		if err != nil {
			return nil, err
		}
	}
	rows, client, notes, err := o.cpuPlan()
	if err != nil {
		return nil, err
	}
	finder := toolFinder{look: childproc.LookPath, install: aptInstall(o.Log), allowInstall: o.Install, log: o.Log}
	tools, err := finder.find(toolsFor(scenarios))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("ab: %w", err)
	}
	out, _ := filepath.Abs(o.Out)
	o.Out = out
	r := &runner{o: o, tools: tools, scenarios: scenarios, client: client}
	rep := &Report{Started: time.Now(), Rounds: o.Rounds, Duration: o.Duration, RampDuration: o.RampDuration, RampUsers: o.RampUsers,
		CPUs: runtime.NumCPU(), Notes: notes, Config: "built-in site"}
	if o.Config != "" {
		rep.Config = o.Config
	}
	rep.Host, _ = os.Hostname()
	rep.EdgeVersion = versionOf(o.EdgeBinary, "edge")
	rep.NginxVersion = versionOf(tools["nginx"], "nginx")
	defer r.cleanup()
	if err := r.prepare(); err != nil {
		return nil, err
	}
	if r.usesFPM() && tools["php-fpm8.2"] == "" {
		// The site passes to PHP even though no scenario does: its
		// fastcgi_pass still needs a pool to point at.
		more, err := finder.find([]outsideTool{toolFPM})
		if err != nil {
			return nil, err
		}
		tools["php-fpm8.2"] = more["php-fpm8.2"]
	}
	if o.Profile {
		rep.Notes = append(rep.Notes, fmt.Sprintf("CPU profiles of edge's first round of each scenario are in %s "+
			"(go tool pprof -top %s FILE); edge's figures include the profiler's cost",
			filepath.Join(o.Out, "profiles"), o.EdgeBinary))
	}
	for _, cpus := range rows {
		row, err := r.row(ctx, cpus)
		if row != nil {
			rep.Rows = append(rep.Rows, row)
		}
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
			fmt.Fprintf(o.Log, "edge ab: %v\n", err)
			break
		}
	}
	rep.Notes = append(rep.Notes, r.notes...)
	rep.Comparisons = comparisons(rep.Rows)
	rep.Finished = time.Now()
	if err := writeFiles(rep, o.Out); err != nil {
		return rep, err
	}
	return rep, nil
}

// versionOf is "name/version" as the binary's -v prints it ("edge/0.1.0"
// from "nginx version: nginx/1.22.1 (edge/0.1.0)").
func versionOf(bin, name string) string {
	out, _ := exec.Command(bin, "-v").CombinedOutput()
	if m := regexp.MustCompile(regexp.QuoteMeta(name) + `/[0-9A-Za-z.+~-]+`).Find(out); m != nil {
		return string(m)
	}
	return name + " (version unknown)"
}
