// This file holds edge's side of the FPM pools: the manager that starts,
// reloads and stops the php-fpm masters of a plan's fpm_pool blocks
// (fpm.Supervisor) around Server.Apply, samples every pool for the
// peaks a single look misses, and reports on them three ways: the
// fpm_status handler (HTML, or JSON with ?json), the edge_metrics handler
// (Prometheus text, built with client_golang), and the control socket
// that "edge fpm status|tune" reads.
//
// The control socket's protocol, both sides, is fastcgi/fpm's control.go;
// this file serves it for the running edge.
package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"

	"edge/conf"
	"edge/fastcgi"
	"edge/fastcgi/fpm"
)

// Sampling intervals: edge's own queue is cheap to read and changes fast;
// php-fpm's status page and /proc cost a request and a file per worker.
const (
	queueSampleEvery = 100 * time.Millisecond
	fpmSampleEvery   = 2 * time.Second
	// poolStartTimeout bounds starting or reloading one pool in Apply.
	poolStartTimeout = 60 * time.Second
)

// fpmManager owns a Server's pools across reloads.
type fpmManager struct {
	sh      *Shared
	current func() *Site // the site serving now (nil before the first Apply)

	mu    sync.Mutex
	pools map[string]*conf.FPMPool // the current plan's pools, by name
	sups  map[string]*fpm.Supervisor
	mons  map[string]*fpm.Monitor

	ctlPath string
	ctl     *http.Server
	stop    chan struct{} // ends the sampler
	metrics *prometheus.Registry
}

func newFPMManager(sh *Shared, current func() *Site) *fpmManager {
	m := &fpmManager{sh: sh, current: current, pools: map[string]*conf.FPMPool{},
		sups: map[string]*fpm.Supervisor{}, mons: map[string]*fpm.Monitor{}}
	m.metrics = prometheus.NewRegistry()
	m.metrics.MustRegister(&edgeCollector{m: m}, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// planPools returns the pools a plan reports on: its fpm_pool blocks,
// or without any the pools behind its fastcgi_pass directives.
func planPools(plan *conf.Plan) []*conf.FPMPool {
	if plan.HTTP == nil {
		return nil
	}
	return plan.HTTP.ReportPools()
}

// edgeView is edge's own view of a pool from the serving site's FastCGI
// counters, nil when it has none: an fpm_pool's are kept under its name,
// a pool behind a fastcgi_pass under that fastcgi_pass's argument (and
// by server, for one server of an upstream{} of several, whose 502 and
// 504 counts belong to the upstream as a whole).
func edgeView(p *conf.FPMPool, stats map[string]BackendStats) *fpm.EdgeView {
	s, ok := edgeStats(p, stats)
	if !ok {
		return nil
	}
	bs := stats[poolBackend(p)]
	if p.Pass != "" && p.Name != p.Pass {
		return fpm.NewEdgeView(s, 0, 0, 0)
	}
	return fpm.NewEdgeView(s, 0, bs.Status502, bs.Status504)
}

// edgeStats sums the FastCGI clients that serve the pool p.
func edgeStats(p *conf.FPMPool, stats map[string]BackendStats) (fastcgi.Stats, bool) {
	bs, ok := stats[poolBackend(p)]
	switch {
	case !ok:
		return fastcgi.Stats{}, false
	case p.Pass != "" && p.Name != p.Pass:
		list, ok := bs.Servers[conf.FormatAddress(p.Network, p.Address)]
		return sumStats(list), ok
	}
	return sumStats(bs.Clients), true
}

// poolBackend is the name edge's FastCGI counters of a pool are kept
// under.
func poolBackend(p *conf.FPMPool) string {
	if p.Pass != "" {
		return p.Pass
	}
	return p.Name
}

// supervisorOptions connect a Supervisor to the error log and to the
// FastCGI clients of its pool.
func (m *fpmManager) supervisorOptions(p *conf.FPMPool) fpm.SupervisorOptions {
	network, address := p.Network, p.Address
	return fpm.SupervisorOptions{
		Log: func(level conf.Level, msg string) { m.sh.errLog.Logf(level, "%s", msg) },
		// A worker waiting on a kept connection would hold the reload
		// until process_control_timeout.
		BeforeReload: func() { m.closeIdle(network, address) },
	}
}

// closeIdle closes the kept connections to an address (every client of
// it shares one idle set).
func (m *fpmManager) closeIdle(network, address string) {
	prefix := network + "|" + address + "|"
	m.sh.pools.Range(func(k, v any) bool {
		if key, _ := k.(string); strings.HasPrefix(key, prefix) {
			if c, ok := v.(*fastcgi.Client); ok {
				c.CloseIdle()
			}
		}
		return true
	})
}

// apply starts the plan's new pools and reloads the changed ones, after
// checking every one of them with php-fpm -t first, so a refused pool
// changes nothing. undo stops the pools this call started (when Apply
// fails later); pools already reloaded keep their new settings.
func (m *fpmManager) apply(plan *conf.Plan) (undo func(), err error) {
	type change struct {
		pool  *conf.FPMPool
		sup   *fpm.Supervisor
		fresh bool
	}
	var changes []change
	m.mu.Lock()
	for _, p := range planPools(plan) {
		if p.External {
			continue
		}
		if sup := m.sups[p.Name]; sup != nil {
			changes = append(changes, change{p, sup, false})
			continue
		}
		changes = append(changes, change{p, fpm.NewSupervisor(p, m.supervisorOptions(p)), true})
	}
	m.mu.Unlock()
	for _, c := range changes {
		if !c.fresh && fpm.RenderConfig(c.pool) == fpm.RenderConfig(c.sup.Pool()) && c.pool.Binary == c.sup.Pool().Binary {
			continue
		}
		if err := c.sup.Check(c.pool); err != nil {
			return nil, err
		}
	}
	var started []*fpm.Supervisor
	undo = func() {
		for _, s := range started {
			s.Stop(false)
		}
	}
	for _, c := range changes {
		ctx, cancel := context.WithTimeout(context.Background(), poolStartTimeout)
		if c.fresh {
			err = c.sup.Start(ctx)
			if err == nil {
				started = append(started, c.sup)
			}
		} else {
			err = c.sup.Reload(ctx, c.pool)
		}
		cancel()
		if err != nil {
			undo()
			return nil, err
		}
	}
	m.mu.Lock()
	for _, s := range started {
		m.sups[s.Pool().Name] = s
	}
	m.mu.Unlock()
	return undo, nil
}

// commit makes the plan's pools current once the plan is swapped in:
// pools no longer named are stopped gracefully (requests of the previous
// plan may still use them), and the control socket and sampler run.
func (m *fpmManager) commit(plan *conf.Plan) {
	pools := planPools(plan)
	m.mu.Lock()
	want := map[string]*conf.FPMPool{}
	for _, p := range pools {
		want[p.Name] = p
		if m.mons[p.Name] == nil {
			m.mons[p.Name] = &fpm.Monitor{}
		}
	}
	var gone []*fpm.Supervisor
	for name, s := range m.sups {
		if p := want[name]; p == nil || p.External {
			gone = append(gone, s)
			delete(m.sups, name)
		}
	}
	for name := range m.mons {
		if want[name] == nil {
			delete(m.mons, name)
		}
	}
	m.pools = want
	needCtl := len(pools) > 0 && m.ctl == nil
	m.mu.Unlock()
	for _, s := range gone {
		go s.Stop(true)
	}
	if needCtl {
		// A plain nginx configuration (pools only behind fastcgi_pass)
		// may run in a prefix edge cannot write: that is no warning.
		level := conf.LevelWarn
		if len(plan.HTTP.Pools) == 0 {
			level = conf.LevelInfo
		}
		m.startControl(fpm.ControlSocketPath(plan.Prefix), level)
	}
}

// shutdown stops every pool (gracefully: workers finish their request)
// and the control socket.
func (m *fpmManager) shutdown(graceful bool) {
	m.mu.Lock()
	sups := m.sups
	m.sups = map[string]*fpm.Supervisor{}
	ctl, stop := m.ctl, m.stop
	m.ctl, m.stop = nil, nil
	m.mu.Unlock()
	if ctl != nil {
		ctl.Close()
		os.Remove(m.ctlPath)
	}
	if stop != nil {
		close(stop)
	}
	var wg sync.WaitGroup
	for _, s := range sups {
		// A worker waiting on a kept connection would hold a graceful
		// stop until process_control_timeout.
		p := s.Pool()
		m.closeIdle(p.Network, p.Address)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Stop(graceful)
		}()
	}
	wg.Wait()
}

// startControl serves the control socket and starts the sampler.
func (m *fpmManager) startControl(path string, failLevel conf.Level) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		m.sh.errLog.Logf(failLevel, "control socket \"%s\" not available (%v): \"edge fpm status\" will show php-fpm's figures only", path, err)
	} else {
		_ = os.Chmod(path, 0o600)
		srv := &http.Server{Handler: fpm.ControlHandler(controlServer{m}), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		m.mu.Lock()
		m.ctl, m.ctlPath = srv, path
		m.mu.Unlock()
	}
	stop := make(chan struct{})
	m.mu.Lock()
	m.stop = stop
	m.mu.Unlock()
	go m.sample(stop)
}

// controlServer answers the control socket (fpm.ControlServer).
type controlServer struct{ m *fpmManager }

func (c controlServer) Reports(ctx context.Context, pool, statusPath string) ([]*fpm.Report, error) {
	return c.m.collect(ctx, pool, reportOptions{statusPath: statusPath})
}

// CloseIdle closes edge's kept connections to a pool; "edge fpm tune
// --apply" asks for it before it reloads an external pool, whose workers
// would otherwise wait on them until process_control_timeout.
func (c controlServer) CloseIdle(pool string) bool {
	c.m.mu.Lock()
	p := c.m.pools[pool]
	c.m.mu.Unlock()
	if p == nil {
		return false
	}
	c.m.closeIdle(p.Network, p.Address)
	return true
}

// sample feeds the monitors: edge's queue often, php-fpm's status less
// often, until stop is closed.
func (m *fpmManager) sample(stop chan struct{}) {
	fast := time.NewTicker(queueSampleEvery)
	defer fast.Stop()
	slow := time.NewTicker(fpmSampleEvery)
	defer slow.Stop()
	for {
		select {
		case <-stop:
			return
		case <-fast.C:
			stats := m.backendStats()
			now := time.Now()
			m.mu.Lock()
			for name, mon := range m.mons {
				if p := m.pools[name]; p != nil {
					if sum, ok := edgeStats(p, stats); ok {
						mon.Observe(nil, &sum, now)
					}
				}
			}
			m.mu.Unlock()
		case <-slow.C:
			// Pools behind a fastcgi_pass are asked only when someone
			// looks: edge does not know that their status page is on.
			ctx, cancel := context.WithTimeout(context.Background(), fpmSampleEvery)
			_, _ = m.collect(ctx, "", reportOptions{sampling: true})
			cancel()
		}
	}
}

// backendStats returns the serving site's FastCGI counters by name.
func (m *fpmManager) backendStats() map[string]BackendStats {
	if rt := m.current(); rt != nil {
		return rt.fastcgiStats()
	}
	return nil
}

// sumStats adds up the clients of one backend.
func sumStats(list []fastcgi.Stats) fastcgi.Stats {
	var s fastcgi.Stats
	for _, c := range list {
		s.Requests += c.Requests
		s.Connects += c.Connects
		s.Reused += c.Reused
		s.Stale += c.Stale
		s.Retries += c.Retries
		s.ConnectErrors += c.ConnectErrors
		s.Timeouts += c.Timeouts
		s.QueueFull += c.QueueFull
		s.QueueTimeouts += c.QueueTimeouts
		s.Queued += c.Queued
		s.QueueWait += c.QueueWait
		s.QueueWaitMax = max(s.QueueWaitMax, c.QueueWaitMax)
		s.Waiting += c.Waiting
		s.InFlight += c.InFlight
		s.Idle += c.Idle
	}
	return s
}

// reports collects the report of the pools a name selects ("" = every
// pool, in name order; a fastcgi_pass's argument selects the pools behind
// it).
func (m *fpmManager) reports(ctx context.Context, name string) ([]*fpm.Report, error) {
	return m.collect(ctx, name, reportOptions{})
}

// reportOptions change what collect asks.
type reportOptions struct {
	// sampling leaves out the pools behind a fastcgi_pass (the periodic
	// look of sample).
	sampling bool
	// statusPath is the status page to ask of a pool behind a
	// fastcgi_pass ("" = found, fpm.ReportInput).
	statusPath string
}

func (m *fpmManager) collect(ctx context.Context, name string, o reportOptions) ([]*fpm.Report, error) {
	m.mu.Lock()
	var names []string
	for n, p := range m.pools {
		if o.sampling && p.Pass != "" {
			continue
		}
		if name == "" || n == name || p.Pass != "" && p.Pass == name {
			names = append(names, n)
		}
	}
	m.mu.Unlock()
	if len(names) == 0 {
		if name != "" && !o.sampling {
			return nil, fmt.Errorf("no fpm_pool \"%s\"", name)
		}
		return nil, nil
	}
	sort.Strings(names)
	stats := m.backendStats()
	out := make([]*fpm.Report, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		m.mu.Lock()
		in := fpm.ReportInput{Pool: m.pools[n], Supervisor: m.sups[n], Monitor: m.mons[n], Now: m.sh.now, StatusPath: o.statusPath}
		m.mu.Unlock()
		if in.Pool == nil {
			continue
		}
		in.Edge = edgeView(in.Pool, stats)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = fpm.Collect(ctx, in)
		}()
	}
	wg.Wait()
	var list []*fpm.Report
	for _, r := range out {
		if r != nil {
			list = append(list, r)
		}
	}
	return list, nil
}

// fpmContent answers the fpm_status and edge_metrics locations.
func (rt *Site) fpmContent(r *Request) int {
	if r.Method != "GET" && r.Method != "HEAD" {
		return 405
	}
	if rt.fpm == nil {
		return 404
	}
	switch r.loc.Content.Kind {
	case conf.ContentFPMStatus:
		return rt.fpmStatusHandler(r)
	case conf.ContentMetrics:
		return rt.metricsHandler(r)
	}
	return 404
}

// fpmStatusHandler is fpm_status: the pools' reports as an HTML page, or
// JSON when the query has "json" (as php-fpm's own page) or the client
// accepts only JSON.
func (rt *Site) fpmStatusHandler(r *Request) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reports, err := rt.fpm.reports(ctx, r.loc.Content.Pool)
	if err != nil {
		rt.log.errorf(r, "fpm_status: %v", err)
		return 404
	}
	if wantsJSON(r.args, r.Header.Get("Accept")) {
		body, err := json.MarshalIndent(reports, "", "  ")
		if err != nil {
			rt.log.errorf(r, "fpm_status: %v", err)
			return 500
		}
		respond(r, "application/json", append(body, '\n'))
		return 0
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>edge: php-fpm pools</title></head>\n<body>\n<h1>php-fpm pools</h1>\n<pre>\n")
	var text strings.Builder
	fpm.WriteText(&text, reports)
	b.WriteString(html.EscapeString(text.String()))
	b.WriteString("</pre>\n<p><a href=\"?json\">JSON</a></p>\n</body></html>\n")
	respond(r, "text/html; charset=utf-8", []byte(b.String()))
	return 0
}

// wantsJSON reads "json" in the query ("?json", "?json&full") or an
// Accept header naming application/json and not text/html.
func wantsJSON(args, accept string) bool {
	for _, a := range strings.Split(args, "&") {
		if k, _, _ := strings.Cut(a, "="); k == "json" {
			return true
		}
	}
	return strings.Contains(accept, "application/json") && !strings.Contains(accept, "text/html")
}

// respond sets a generated, never cached 200 response.
func respond(r *Request, contentType string, body []byte) {
	resp := r.resp
	resp.Status = 200
	resp.Header.Set("Content-Type", contentType)
	resp.Header.Set("Cache-Control", "no-store")
	resp.Kind = BodyBytes
	resp.Bytes = body
	resp.Length = int64(len(body))
}

// metricsHandler is edge_metrics: Prometheus text exposition of the
// pools, edge's FastCGI clients, the connection counters of stub_status
// and the Go runtime.
func (rt *Site) metricsHandler(r *Request) int {
	families, err := rt.fpm.metrics.Gather()
	if err != nil {
		// Gather returns what it could alongside the error.
		rt.log.errorf(r, "edge_metrics: %v", err)
	}
	var b strings.Builder
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			rt.log.errorf(r, "edge_metrics: %v", err)
			return 500
		}
	}
	respond(r, string(expfmt.NewFormat(expfmt.TypeTextPlain)), []byte(b.String()))
	return 0
}

// edgeCollector turns reports and counters into metrics at scrape time.
type edgeCollector struct{ m *fpmManager }

// Describe sends nothing: the metrics depend on the pools of the plan in
// force, so the collector is "unchecked".
func (c *edgeCollector) Describe(chan<- *prometheus.Desc) {}

var (
	descFPMUp             = fpmDesc("up", "1 when php-fpm's status page answered.", "pool")
	descFPMProcesses      = fpmDesc("processes", "Worker processes by state (active, idle).", "pool", "state")
	descFPMMaxChildren    = fpmDesc("max_children", "pm.max_children in force.", "pool")
	descFPMMaxActive      = fpmDesc("max_active_processes", "Most workers active at once since php-fpm started.", "pool")
	descFPMAccepted       = fpmDesc("accepted_connections_total", "Requests accepted by the pool.", "pool")
	descFPMMaxReached     = fpmDesc("max_children_reached_total", "Episodes at pm.max_children (not counted for static pools).", "pool")
	descFPMSlow           = fpmDesc("slow_requests_total", "Requests longer than request_slowlog_timeout.", "pool")
	descFPMListenQueue    = fpmDesc("listen_queue", "Connections waiting in the pool's listen queue (TCP pools only).", "pool")
	descFPMPSS            = fpmDesc("workers_pss_bytes", "Sum of the workers' proportional set size.", "pool")
	descFPMPSSP95         = fpmDesc("worker_pss_p95_bytes", "95th percentile of one worker's proportional set size.", "pool")
	descFPMRestarts       = fpmDesc("master_restarts_total", "Times edge restarted a php-fpm master that died.", "pool")
	descFPMReloads        = fpmDesc("reloads_total", "Times edge reloaded the pool with SIGUSR2.", "pool")
	descFPMCrashes        = fpmDesc("worker_crashes_total", "Workers that died by a signal or a non-zero exit code.", "pool")
	descFCGIRequests      = fcgiDesc("requests_total", "Requests edge sent to the backend.")
	descFCGIInFlight      = fcgiDesc("in_flight_requests", "Requests holding a backend connection now.")
	descFCGIWaiting       = fcgiDesc("queue_waiting_requests", "Requests waiting in edge for a free worker now.")
	descFCGIQueued        = fcgiDesc("queued_requests_total", "Requests that had to wait in edge for a worker.")
	descFCGIQueueWait     = fcgiDesc("queue_wait_seconds_total", "Time requests spent waiting in edge for a worker.")
	descFCGIQueueWaitMax  = fcgiDesc("queue_wait_max_seconds", "Longest wait of one request for a worker.")
	descFCGIQueueRejected = fcgiDesc("queue_rejected_total", "Requests refused because the queue was full or the wait timed out.")
	descFCGIConnects      = fcgiDesc("connections_total", "Connections dialled to the backend.")
	descFCGIReused        = fcgiDesc("connections_reused_total", "Requests sent on a kept connection.")
	descFCGIIdle          = fcgiDesc("idle_connections", "Kept connections idle now.")
	descFCGIErrors        = fcgiDesc("errors_total", "Failures by kind (connect, timeout).", "kind")
	descFCGIResponses     = fcgiDesc("error_responses_total", "Responses edge answered for the backend by status (502, 504).", "code")
	descConnActive        = prometheus.NewDesc("edge_connections_active", "Client connections open now (stub_status Active).", nil, nil)
	descConnState         = prometheus.NewDesc("edge_connections", "Client connections by state (stub_status Reading/Writing/Waiting).", []string{"state"}, nil)
	descConnAccepted      = prometheus.NewDesc("edge_connections_accepted_total", "Client connections accepted.", nil, nil)
	descConnHandled       = prometheus.NewDesc("edge_connections_handled_total", "Client connections handled.", nil, nil)
	descRequests          = prometheus.NewDesc("edge_http_requests_total", "Client requests.", nil, nil)
)

func fpmDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("edge_fpm_"+name, help, labels, nil)
}

func fcgiDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("edge_fastcgi_"+name, help, append([]string{"backend"}, labels...), nil)
}

// Collect reads fresh reports and counters.
func (c *edgeCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	reports, _ := m.reports(ctx, "")
	cancel()
	for _, r := range reports {
		up := 0.0
		if r.FPM != nil {
			up = 1
		}
		gauge(descFPMUp, up, r.Name)
		gauge(descFPMMaxChildren, float64(r.Settings.MaxChildren), r.Name)
		if st := r.FPM; st != nil {
			gauge(descFPMProcesses, float64(st.ActiveProcesses), r.Name, "active")
			gauge(descFPMProcesses, float64(st.IdleProcesses), r.Name, "idle")
			gauge(descFPMMaxActive, float64(st.MaxActiveProcesses), r.Name)
			counter(descFPMAccepted, float64(st.AcceptedConn), r.Name)
			counter(descFPMMaxReached, float64(st.MaxChildrenReached), r.Name)
			counter(descFPMSlow, float64(st.SlowRequests), r.Name)
			gauge(descFPMListenQueue, float64(st.ListenQueue), r.Name)
			gauge(descFPMPSS, float64(r.PSSTotal), r.Name)
			gauge(descFPMPSSP95, float64(r.PSSP95), r.Name)
		}
		if sv := r.Supervisor; sv != nil {
			counter(descFPMRestarts, float64(sv.Restarts), r.Name)
			counter(descFPMReloads, float64(sv.Reloads), r.Name)
			counter(descFPMCrashes, float64(sv.WorkerCrashes), r.Name)
		}
	}
	names := []string{}
	stats := m.backendStats()
	for n := range stats {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		bs := stats[n]
		s := sumStats(bs.Clients)
		counter(descFCGIRequests, float64(s.Requests), n)
		gauge(descFCGIInFlight, float64(s.InFlight), n)
		gauge(descFCGIWaiting, float64(s.Waiting), n)
		counter(descFCGIQueued, float64(s.Queued), n)
		counter(descFCGIQueueWait, s.QueueWait.Seconds(), n)
		gauge(descFCGIQueueWaitMax, s.QueueWaitMax.Seconds(), n)
		counter(descFCGIQueueRejected, float64(s.QueueFull+s.QueueTimeouts), n)
		counter(descFCGIConnects, float64(s.Connects), n)
		counter(descFCGIReused, float64(s.Reused), n)
		gauge(descFCGIIdle, float64(s.Idle), n)
		counter(descFCGIErrors, float64(s.ConnectErrors), n, "connect")
		counter(descFCGIErrors, float64(s.Timeouts), n, "timeout")
		counter(descFCGIResponses, float64(bs.Status502), n, "502")
		counter(descFCGIResponses, float64(bs.Status504), n, "504")
	}
	st := m.sh.stats
	active := st.Active.Load()
	reading, writing := st.reading.Load(), requestsInFlight.Load()
	gauge(descConnActive, float64(active))
	gauge(descConnState, float64(reading), "reading")
	gauge(descConnState, float64(writing), "writing")
	gauge(descConnState, float64(max(0, active-reading-writing)), "waiting")
	counter(descConnAccepted, float64(st.Accepted.Load()))
	counter(descConnHandled, float64(st.Handled.Load()))
	counter(descRequests, float64(st.requests.Load()))
}
