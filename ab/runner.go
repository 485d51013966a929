// This file runs the comparison: for each server CPU row it starts
// edge and nginx, each with its own php-fpm pool, pinned to the row's
// CPUs, then for each
// scenario checks that both answer identically, warms both up and times
// them round after round, alternating which goes first.

package ab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"edge/conf"
)

// runner is one Run's state.
type runner struct {
	o         Options
	tools     map[string]string
	scenarios []Scenario
	client    CPUSet
	site      *Site
	workDir   string
	cleanups  []func()
	notes     []string
}

// cleanup removes the test files from the docroots, last made first.
func (r *runner) cleanup() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// note records a remark for the report once.
func (r *runner) note(msg string) {
	if !slices.Contains(r.notes, msg) {
		r.notes = append(r.notes, msg)
	}
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.o.Log, "edge ab: "+format+"\n", args...)
}

// prepare loads the site and puts the test files in its docroots.
func (r *runner) prepare() error {
	r.workDir = filepath.Join(r.o.Out, "work")
	if err := os.RemoveAll(r.workDir); err != nil {
		return fmt.Errorf("ab: %w", err)
	}
	if err := os.MkdirAll(r.workDir, 0o755); err != nil {
		return fmt.Errorf("ab: %w", err)
	}
	var err error
	if r.o.Config == "" {
		backend := ""
		if slices.ContainsFunc(r.scenarios, func(s Scenario) bool { return s.Proxy }) {
			b, err := startHTTPBackend()
			if err != nil {
				return err
			}
			r.cleanups = append(r.cleanups, b.stop)
			backend = b.addr
		}
		r.site, err = builtinSite(filepath.Join(r.workDir, "site"), r.o.WordPress, backend)
	} else {
		if r.o.WordPress != "" {
			return fmt.Errorf("ab: --wordpress adds a WordPress server to the built-in site; with -c, select the wordpress scenario to time your site's front page")
		}
		r.site, err = userSite(r.o.Config, r.o.Prefix)
		if err == nil {
			if e, ok := r.site.Endpoints[EndpointHTTP]; ok {
				r.site.Endpoints[EndpointWordPress] = e
			}
		}
	}
	if err != nil {
		return err
	}
	if r.site.Builtin {
		r.note(builtinEquivalents())
	} else {
		for _, b := range beyondConfig(r.site.Tree) {
			r.note("beyond this configuration, " + b)
		}
	}
	done := map[string]bool{}
	for _, s := range r.scenarios {
		ep, ok := r.site.Endpoints[s.Endpoint]
		if !ok || s.Endpoint.wordpress() || done[ep.Docroot] {
			continue
		}
		done[ep.Docroot] = true
		clean, err := writeTestFiles(ep.Docroot)
		if err != nil {
			return err
		}
		r.cleanups = append(r.cleanups, clean)
		if !r.site.Builtin {
			r.note(fmt.Sprintf("test files were placed in %s/%s for the run and removed afterwards", ep.Docroot, testDir))
		}
	}
	return nil
}

// server is one running side.
type server struct {
	side  Side
	proc  *process
	dir   string
	ports map[string]int
	// pprof is edge's EDGE_PPROF address ("" when not profiling).
	pprof string
	// cpus is where it runs (with its php-fpm pool).
	cpus CPUSet
	// fpm is its php-fpm pool, nil when the run needs none.
	fpm *fpmPool
}

// row runs every scenario with the servers pinned to cpus.
func (r *runner) row(ctx context.Context, cpus CPUSet) (*Row, error) {
	row := &Row{ServerCPUs: cpus, ClientCPUs: r.client}
	r.logf("server CPUs %s, load generator CPUs %s", cpus, r.client)
	// Each server has a pool of its own, alike: a worker serves one
	// FastCGI connection for as long as it stays open, so in a shared
	// pool the connection one server keeps idle pins a worker the other
	// then lacks (edge's php-hello p99 was 3.5x nginx's while nginx's
	// kept connection held one of the four workers).
	pools := map[Side]*fpmPool{}
	if r.usesFPM() {
		children := r.o.FPMChildren
		if children <= 0 {
			children = 4 * len(cpus)
		}
		for _, side := range []Side{SideEdge, SideNginx} {
			fpm, err := startFPM(r.tools["php-fpm8.2"], children, cpus)
			if err != nil {
				return nil, err
			}
			defer fpm.stop()
			pools[side] = fpm
		}
	}
	rowDir := filepath.Join(r.workDir, "cpus-"+strings.ReplaceAll(cpus.String(), ",", "_"))
	edge, nginx, err := r.startServers(rowDir, cpus, pools)
	defer edge.stopServer()
	defer nginx.stopServer()
	if err != nil {
		return row, err
	}
	for i, s := range r.scenarios {
		if ctx.Err() != nil {
			return row, ctx.Err()
		}
		r.logf("[%d/%d] %s: %s", i+1, len(r.scenarios), s.Name, s.Title)
		res := r.scenario(ctx, s, edge, nginx, rowDir)
		row.Results = append(row.Results, res)
		r.logResult(res, cpus)
		for _, srv := range []*server{edge, nginx} {
			if srv.proc.Exited() {
				return row, fmt.Errorf("ab: %s exited during %s (%v):\n%s", srv.side, s.Name, srv.proc.Err(), srv.proc.output())
			}
		}
	}
	return row, nil
}

// usesFPM reports whether the run needs php-fpm: a scenario requests PHP,
// or the configuration passes to FastCGI (its fastcgi_pass must point at
// a pool, and an fpm_pool it names is replaced by the harness's).
func (r *runner) usesFPM() bool {
	if needsPHP(r.scenarios) {
		return true
	}
	found := false
	walk(r.site.Tree.Main, func(d *conf.Directive) {
		if d.Name == "fastcgi_pass" {
			found = true
		}
	})
	return found
}

// listenKeys lists the distinct listen keys of the configuration.
func listenKeys(main []*conf.Directive) []string {
	var keys []string
	seen := map[string]bool{}
	walk(main, func(d *conf.Directive) {
		if d.Name == "listen" && len(d.Args) > 0 {
			k := listenKey(d.Args[0])
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	})
	return keys
}

// startServers writes both configurations and starts edge and nginx. Both
// servers are returned (possibly not running) so the caller can stop them.
func (r *runner) startServers(rowDir string, cpus CPUSet, pools map[Side]*fpmPool) (*server, *server, error) {
	edge := &server{side: SideEdge, dir: filepath.Join(rowDir, "edge"), ports: map[string]int{}, cpus: cpus, fpm: pools[SideEdge]}
	nginx := &server{side: SideNginx, dir: filepath.Join(rowDir, "nginx"), ports: map[string]int{}, cpus: cpus, fpm: pools[SideNginx]}
	for _, srv := range []*server{edge, nginx} {
		// nginx creates a cache path's last directory only.
		for _, d := range []string{"logs", "cache"} {
			if err := os.MkdirAll(filepath.Join(srv.dir, d), 0o755); err != nil {
				return edge, nginx, fmt.Errorf("ab: %w", err)
			}
		}
		for _, k := range listenKeys(r.site.Tree.Main) {
			p, err := freePort()
			if err != nil {
				return edge, nginx, err
			}
			srv.ports[k] = p
		}
	}
	sc := func(srv *server) sideConfig {
		c := sideConfig{Ports: srv.ports, Workers: len(cpus), LogDir: filepath.Join(srv.dir, "logs"),
			CacheDir: filepath.Join(srv.dir, "cache"), Prefix: r.site.Prefix, ConfDir: r.site.ConfDir}
		if srv.fpm != nil {
			c.FastCGI = srv.fpm.fastcgiPass()
		}
		return c
	}
	edgeConf := filepath.Join(edge.dir, "edge.conf")
	if err := os.WriteFile(edgeConf, []byte(conf.Format(rewriteSite(r.site.Tree.Main, sc(edge)), false)), 0o644); err != nil {
		return edge, nginx, fmt.Errorf("ab: %w", err)
	}
	nginxConf, err := r.nginxConfig(nginx.dir, rewriteSite(r.site.Tree.Main, sc(nginx)))
	if err != nil {
		return edge, nginx, err
	}
	env := []string{"GOMAXPROCS=" + strconv.Itoa(len(cpus))}
	if r.o.Profile {
		p, err := freePort()
		if err != nil {
			return edge, nginx, err
		}
		edge.pprof = "127.0.0.1:" + strconv.Itoa(p)
		env = append(env, "EDGE_PPROF="+edge.pprof)
	}
	edge.proc, err = startProcess("edge", edge.dir, cpus, env, r.o.EdgeBinary,
		"-p", edge.dir, "-c", edgeConf, "-e", filepath.Join(edge.dir, "logs", "error.log"),
		"-g", "daemon off; pid "+filepath.Join(edge.dir, "edge.pid")+";")
	if err != nil {
		return edge, nginx, err
	}
	nginx.proc, err = startProcess("nginx", nginx.dir, cpus, nil, r.tools["nginx"],
		"-p", nginx.dir+"/", "-c", nginxConf, "-e", filepath.Join(nginx.dir, "logs", "error.log"),
		"-g", "daemon off; master_process on; pid "+filepath.Join(nginx.dir, "nginx.pid")+";")
	if err != nil {
		return edge, nginx, err
	}
	for _, srv := range []*server{edge, nginx} {
		for _, p := range srv.ports {
			if err := srv.proc.waitListening("tcp", "127.0.0.1:"+strconv.Itoa(p)); err != nil {
				return edge, nginx, err
			}
		}
	}
	r.logf("edge (pid %d) and nginx (pid %d) are listening; configurations in %s", edge.proc.PID(), nginx.proc.PID(), rowDir)
	return edge, nginx, nil
}

// nginxConfig writes the nginx side's copy in edge's language, has edge
// print it for nginx ("edge -T --nginx", which also checks it and leaves
// out edge-only directives), and adds the temp paths nginx needs under
// its prefix.
func (r *runner) nginxConfig(dir string, main []*conf.Directive) (string, error) {
	src := filepath.Join(dir, "site-for-nginx.conf")
	if err := os.WriteFile(src, []byte(conf.Format(main, false)), 0o644); err != nil {
		return "", fmt.Errorf("ab: %w", err)
	}
	stdout, stderr, err := runTool(context.Background(), nil, time.Minute, nil, "",
		r.o.EdgeBinary, "-T", "--nginx", "-q", "-p", dir, "-c", src)
	if err != nil {
		return "", fmt.Errorf("ab: edge -T --nginx -c %s: %v\n%s", src, err, stderr)
	}
	text, err := insertIntoHTTP(stdout, nginxTemps(dir))
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("ab: %w", err)
	}
	return path, nil
}

func (s *server) stopServer() {
	if s != nil && s.proc != nil {
		s.proc.stop()
	}
}

// target is where a scenario's requests go on this server.
func (s *server) target(ep SiteEndpoint, sc Scenario) target {
	return target{Addr: "127.0.0.1:" + strconv.Itoa(s.ports[ep.Listen]), TLS: ep.TLS,
		HTTP2: sc.Tool == ToolH2load, Host: ep.Host, Path: sc.Path, Header: sc.Header}
}

// scenario checks and times one scenario.
func (r *runner) scenario(ctx context.Context, s Scenario, edge, nginx *server, rowDir string) *ScenarioResult {
	res := &ScenarioResult{Scenario: s}
	defer res.finish()
	ep, ok := r.site.Endpoints[s.Endpoint]
	switch {
	case !ok:
		res.Skipped = missingEndpoint(s.Endpoint)
		return res
	case s.Tool == ToolH2load && !ep.HTTP2:
		res.Skipped = "HTTP/2 is not enabled on the TLS server"
		return res
	case s.PHP && edge.fpm == nil:
		res.Skipped = "no php-fpm"
		return res
	case s.Proxy && !r.site.Builtin:
		res.Skipped = "the proxy scenario needs the built-in site's backend"
		return res
	case s.Cached && !r.site.Builtin:
		res.Skipped = "the cached-page scenarios need the built-in site's fastcgi_cache locations"
		return res
	}
	targets := map[Side]target{SideEdge: edge.target(ep, s), SideNginx: nginx.target(ep, s)}
	if s.Cached {
		// Fill both caches before the check, so that it and every timed
		// request is a HIT (the warm-up may be off).
		for _, side := range []Side{SideEdge, SideNginx} {
			if _, err := primeCache(targets[side]); err != nil {
				res.Differences = append(res.Differences, fmt.Sprintf("%s: the page does not come from the cache: %v", side, err))
			}
		}
		if len(res.Differences) > 0 {
			res.Skipped = "not answered from the cache"
			return res
		}
	}
	want := 200
	if s.Endpoint.wordpress() {
		want = 0 // whatever nginx answers (an uninstalled WordPress redirects)
	}
	edgeResp, nginxResp := fetch(targets[SideEdge]), fetch(targets[SideNginx])
	res.Differences = compareResponses(edgeResp, nginxResp, want, s.Tool == ToolH2load)
	if s.Endpoint.wordpress() && nginxResp.Status >= 400 {
		r.note(fmt.Sprintf("%s: nginx answers %s with %d, so the figures time an error page: "+
			"is WordPress at %s set up (on Debian: /etc/wordpress/config-%s.php and its database)?",
			s.Name, s.Path, nginxResp.Status, ep.Docroot, ep.Host))
	}
	if len(res.Differences) > 0 {
		res.Skipped = "edge and nginx answered differently"
		for _, srv := range []*server{edge, nginx} {
			if srv.fpm == nil || !s.PHP {
				continue
			}
			if logs := srv.fpm.logs(); logs != "" {
				res.Differences = append(res.Differences, fmt.Sprintf("%s's php-fpm: %s", srv.side, logs))
			}
		}
		return res
	}
	servers := map[Side]*server{SideEdge: edge, SideNginx: nginx}
	if r.o.Warmup > 0 && s.Tool != ToolRamp {
		for _, side := range []Side{SideEdge, SideNginx} {
			_, _, _ = r.drive(ctx, s, targets[side], r.o.Warmup, "")
		}
	}
	for round := 1; round <= r.o.Rounds; round++ {
		order := []Side{SideEdge, SideNginx}
		if round%2 == 0 {
			order = []Side{SideNginx, SideEdge}
		}
		for i, side := range order {
			if ctx.Err() != nil {
				return res
			}
			rawPath := filepath.Join(rowDir, "raw", fmt.Sprintf("%s-round%d-%s.txt", s.Name, round, side))
			m := r.measure(ctx, s, targets[side], servers[side], round, rawPath)
			m.Round, m.Side, m.First = round, side, i == 0
			res.Runs = append(res.Runs, m)
		}
	}
	if s.Cached {
		// A sample after the rounds: the entry was still a HIT.
		for _, side := range []Side{SideEdge, SideNginx} {
			if f := fetch(targets[side]); f.Err != nil || f.Header.Get(cacheStatusHeader) != "HIT" {
				r.note(fmt.Sprintf("%s: after the rounds %s answered %d, %s %q (error %v), so not every timed request may have been a HIT",
					s.Name, side, f.Status, cacheStatusHeader, f.Header.Get(cacheStatusHeader), f.Err))
			}
		}
	}
	return res
}

// missingEndpoint explains why a configuration cannot serve a scenario.
func missingEndpoint(ep Endpoint) string {
	switch ep {
	case EndpointHTTPS:
		return "the configuration has no TLS (listen ... ssl) server"
	case EndpointHTTPSRSA:
		return "the configuration has no server with an RSA certificate"
	case EndpointWordPress:
		return "no WordPress docroot (--wordpress DIR)"
	case EndpointWordPressCached:
		return "no WordPress docroot (--wordpress DIR; the cached WordPress server is the built-in site's)"
	}
	return "the configuration has no plain HTTP server"
}

// measure times one run and the CPU both the server and its php-fpm used.
func (r *runner) measure(ctx context.Context, s Scenario, t target, srv *server, round int, rawPath string) Measurement {
	fpm := srv.fpm
	m := Measurement{Scenario: s.Name}
	cpu0, sys0 := CPUTime(srv.proc.PID())
	steal0 := StealTime(srv.cpus)
	var fpm0 time.Duration
	if fpm != nil {
		fpm0, _ = CPUTime(fpm.proc.PID())
	}
	d := r.o.Duration
	if s.Tool == ToolRamp {
		d = r.o.RampDuration
	}
	var profiled chan error
	if srv.pprof != "" && round == 1 {
		profiled = make(chan error, 1)
		go func() { profiled <- fetchProfile(srv.pprof, d, filepath.Join(r.o.Out, "profiles", s.Name+".pprof")) }()
	}
	t0 := time.Now()
	tr, cr, err := r.drive(ctx, s, t, d, rawPath)
	cpu1, sys1 := CPUTime(srv.proc.PID())
	m.CPU, m.SysCPU = cpu1-cpu0, sys1-sys0
	m.Steal, m.StealOver, m.ServerCPUs = StealTime(srv.cpus)-steal0, time.Since(t0), len(srv.cpus)
	if profiled != nil {
		if perr := <-profiled; perr != nil {
			r.logf("  %v", perr)
		}
	}
	if fpm != nil {
		fpm1, _ := CPUTime(fpm.proc.PID())
		m.FPMCPU = fpm1 - fpm0
	}
	if err != nil {
		m.Err = err.Error()
		return m
	}
	m.ToolResult = tr
	if cr != nil {
		m.Ramp = cr.Series
		m.ErrorSamples = cr.ErrorSamples
	}
	return m
}

func (r *runner) logResult(res *ScenarioResult, cpus CPUSet) {
	if res.Skipped != "" {
		r.logf("  not timed: %s", res.Skipped)
		for _, d := range res.Differences {
			r.logf("    %s", d)
		}
		return
	}
	for _, m := range res.Runs {
		if m.Err != "" {
			r.logf("  round %d %-5s failed: %s", m.Round, m.Side, m.Err)
			continue
		}
		user, sys := m.CostPerRequest()
		steal := ""
		if share := m.StealShare(); share > 0 {
			steal = fmt.Sprintf("  steal %.1f%%", 100*share)
		}
		r.logf("  round %d %-5s %10.0f req/s %10.0f req/CPU-s  p50 %-8s p99 %-8s errors %d  per request: user %s sys %s%s",
			m.Round, m.Side, m.RPS, m.PerCPU(), fmtLatency(m.P50), fmtLatency(m.P99), m.Errors, fmtCost(user), fmtCost(sys), steal)
	}
	r.logf("  edge/nginx: req/s %s, req/CPU-s %s (rounds %s): %s", formatRatio(res.RPSRatio),
		formatRatio(res.PerCPURatio), formatRatios(res.PerCPURatios), res.Verdict)
	r.logf("  CPU per request, user+sys: edge %s, nginx %s", fmtCostSplit(res.Edge), fmtCostSplit(res.Nginx))
	if n, most := stolenRuns(res.Runs); n > 0 {
		r.note(fmt.Sprintf("%s (server CPUs %s): the hypervisor's steal time on those CPUs was above %.0f%% in %d of %d runs (at most %.1f%%): "+
			"the host ran other work there, so these figures compare less well; run it again on a quieter host",
			res.Scenario.Name, cpus, 100*stealNotable, n, len(res.Runs), 100*most))
	}
}

// fmtLatency writes a latency in the unit that suits it.
func fmtLatency(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%dus", d.Microseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return d.Round(time.Millisecond).String()
}

// fmtCost writes a CPU cost per request in microseconds.
func fmtCost(d time.Duration) string {
	return fmt.Sprintf("%.1fus", float64(d)/float64(time.Microsecond))
}

// fmtCostSplit writes a server's median user and system CPU per request
// as "user+sys" microseconds.
func fmtCostSplit(s SideSummary) string {
	return fmt.Sprintf("%.1f+%.1fus", float64(s.UserPerRequest)/float64(time.Microsecond),
		float64(s.SysPerRequest)/float64(time.Microsecond))
}
