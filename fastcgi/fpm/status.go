// status.go reads what a php-fpm pool is doing: its status page over
// FastCGI (?json&full, from the pool's pm.status_listen socket so that a
// saturated pool still answers), each worker's proportional memory (PSS
// from /proc/PID/smaps_rollup: RSS counts shared OPcache once per worker),
// and the memory the machine or the pool's cgroup has left. A Monitor
// keeps what one look cannot show (peaks between looks, memory growth per
// request), and Report joins it with edge's own view of the pool (its
// FastCGI client's queue) for the CLI, the fpm_status handler and
// metrics.
package fpm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"edge/conf"
	"edge/fastcgi"
)

// Status is php-fpm's status page in its JSON form (fpm_status.c); the
// field names are php-fpm's.
type Status struct {
	Pool               string `json:"pool"`
	ProcessManager     string `json:"process manager"`
	StartTime          int64  `json:"start time"`
	StartSince         int64  `json:"start since"`
	AcceptedConn       uint64 `json:"accepted conn"`
	ListenQueue        int    `json:"listen queue"`
	MaxListenQueue     int    `json:"max listen queue"`
	ListenQueueLen     int    `json:"listen queue len"`
	IdleProcesses      int    `json:"idle processes"`
	ActiveProcesses    int    `json:"active processes"`
	TotalProcesses     int    `json:"total processes"`
	MaxActiveProcesses int    `json:"max active processes"`
	// MaxChildrenReached counts episodes in which the pool wanted another
	// worker and was at pm.max_children (never for static pools).
	MaxChildrenReached uint64    `json:"max children reached"`
	SlowRequests       uint64    `json:"slow requests"`
	Processes          []Process `json:"processes"`
	// Starting counts scoreboard slots php-fpm has given to a worker it
	// just forked that has not yet written its own PID there (the slot
	// shows pid 0 and state "(null)"). They are left out of Processes.
	Starting int `json:"-"`
}

// Process is one worker in the full status.
type Process struct {
	PID        int    `json:"pid"`
	State      string `json:"state"`
	StartTime  int64  `json:"start time"`
	StartSince int64  `json:"start since"`
	Requests   uint64 `json:"requests"`
	// RequestDuration is the current or last request's duration in µs.
	RequestDuration   int64   `json:"request duration"`
	RequestMethod     string  `json:"request method"`
	RequestURI        string  `json:"request uri"`
	ContentLength     int64   `json:"content length"`
	User              string  `json:"user"`
	Script            string  `json:"script"`
	LastRequestCPU    float64 `json:"last request cpu"`
	LastRequestMemory uint64  `json:"last request memory"`
	// PSS is added by edge: the worker's proportional set size in bytes
	// (0 when /proc could not be read).
	PSS uint64 `json:"pss"`
}

// ReadStatus asks php-fpm's status page at path over FastCGI, the way a
// web server would forward "GET path?json&full".
func ReadStatus(ctx context.Context, network, address, path string) (*Status, error) {
	c := &fastcgi.Client{Network: network, Address: address, MaxConns: 1, ConnectTimeout: 2 * time.Second,
		SendTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second}
	req := &fastcgi.Request{}
	for _, kv := range [][2]string{
		{"GATEWAY_INTERFACE", "CGI/1.1"}, {"SERVER_SOFTWARE", "edge"}, {"REQUEST_METHOD", "GET"},
		{"SCRIPT_NAME", path}, {"SCRIPT_FILENAME", path}, {"REQUEST_URI", path + "?json&full"},
		{"QUERY_STRING", "json&full"}, {"SERVER_PROTOCOL", "HTTP/1.1"}, {"CONTENT_LENGTH", "0"},
	} {
		req.Params.Add(kv[0], kv[1])
	}
	resp, err := c.Do(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("fastcgi: status of %s:%s%s: %w", network, address, path, err)
	}
	defer resp.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("fastcgi: status of %s:%s%s: %w", network, address, path, err)
	}
	if resp.Status != 200 {
		return nil, &statusAnswerError{code: resp.Status,
			msg: fmt.Sprintf("fastcgi: status of %s:%s%s: php-fpm answered %d (is pm.status_path %s set?)", network, address, path, resp.Status, path)}
	}
	return parseStatusPage(body)
}

// parseStatusPage decodes the JSON status page.
func parseStatusPage(body []byte) (*Status, error) {
	var st Status
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, fmt.Errorf("fastcgi: status page is not php-fpm's JSON: %w", err)
	}
	procs := st.Processes[:0]
	for _, p := range st.Processes {
		if p.PID <= 0 {
			st.Starting++
			continue
		}
		procs = append(procs, p)
	}
	st.Processes = procs
	return &st, nil
}

// procRoot is /proc; tests point it elsewhere.
var procRoot = "/proc"

// poolWorker reports whether pid is, in this process's /proc, a worker
// of the php-fpm pool named pool: its title is "php-fpm: pool NAME". The
// PIDs the status page gives are php-fpm's own; seen from another PID
// namespace (edge and php-fpm in different containers) they name other
// processes, whose memory must not be reported as the pool's.
func poolWorker(pid int, pool string) bool {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return false
	}
	title := strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ")
	return title == "php-fpm: pool "+pool
}

// ReadPSS returns a process's proportional set size in bytes, from
// smaps_rollup (Linux 4.14+).
func ReadPSS(pid int) (uint64, error) {
	f, err := os.Open(filepath.Join(procRoot, strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0, fmt.Errorf("fastcgi: %w", err)
	}
	defer f.Close()
	return parsePSS(f)
}

// parsePSS finds the "Pss:" line of smaps_rollup (kB).
func parsePSS(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("fastcgi: smaps_rollup: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("fastcgi: smaps_rollup has no Pss line")
}

// Memory is the memory a pool may use, and where the figure came from.
type Memory struct {
	// Source is "cgroup" (memory.max of the pool's cgroup v2) or "host"
	// (MemAvailable).
	Source string `json:"source"`
	// Limit is the cgroup's memory.max, or MemTotal for the host.
	Limit uint64 `json:"limit"`
	// Available is what the pool may use: memory.max - memory.current,
	// or MemAvailable; the pool's own workers are added back by Tune.
	Available uint64 `json:"available"`
	// Cgroup names the cgroup whose limit applied.
	Cgroup string `json:"cgroup,omitempty"`
}

// cgroupRoot is where cgroup v2 is mounted; tests point it elsewhere.
var cgroupRoot = "/sys/fs/cgroup"

// ReadMemory returns the memory available to the process pid (the php-fpm
// master; 0 means edge itself): the tightest memory.max of its cgroup v2
// and its parents when one is set, else the host's MemAvailable.
func ReadMemory(pid int) (Memory, error) {
	who := "self"
	if pid > 0 {
		who = strconv.Itoa(pid)
	}
	if m, ok := cgroupMemory(filepath.Join(procRoot, who, "cgroup")); ok {
		return m, nil
	}
	data, err := os.ReadFile(filepath.Join(procRoot, "meminfo"))
	if err != nil {
		return Memory{}, fmt.Errorf("fastcgi: %w", err)
	}
	info := parseMeminfo(data)
	return Memory{Source: "host", Limit: info["MemTotal"], Available: info["MemAvailable"]}, nil
}

// parseMeminfo reads /proc/meminfo into bytes by field.
func parseMeminfo(data []byte) map[string]uint64 {
	out := map[string]uint64{}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 1 && f[1] == "kB" {
			n <<= 10
		}
		out[k] = n
	}
	return out
}

// cgroupMemory finds the tightest memory.max on the way from the
// process's cgroup up to the root.
func cgroupMemory(cgroupFile string) (Memory, bool) {
	data, err := os.ReadFile(cgroupFile)
	if err != nil {
		return Memory{}, false
	}
	var rel string
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel = p
		}
	}
	if rel == "" {
		return Memory{}, false
	}
	var best Memory
	found := false
	for dir := filepath.Join(cgroupRoot, rel); strings.HasPrefix(dir, cgroupRoot); dir = filepath.Dir(dir) {
		limit, ok := readUintFile(filepath.Join(dir, "memory.max"))
		if ok && (!found || limit < best.Limit) {
			current, _ := readUintFile(filepath.Join(dir, "memory.current"))
			avail := uint64(0)
			if limit > current {
				avail = limit - current
			}
			best = Memory{Source: "cgroup", Limit: limit, Available: avail, Cgroup: strings.TrimPrefix(dir, cgroupRoot)}
			found = true
		}
		if dir == cgroupRoot {
			break
		}
	}
	return best, found
}

// readUintFile reads a number file; "max" and missing files are !ok.
func readUintFile(path string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return n, err == nil
}

// Monitor remembers what successive looks at one pool showed. The zero
// value is ready; it is safe for concurrent use.
type Monitor struct {
	mu          sync.Mutex
	peakActive  int
	peakWaiting int
	// marks holds per worker the first look after its first request,
	// and the latest: the growth of its PSS per request between them.
	marks map[int]*workerMarks
	pss   []uint64 // recent worker PSS values, newest last
}

type workerMarks struct {
	first, last mark
	seen        time.Time
}

type mark struct {
	requests uint64
	pss      uint64
}

// pssWindow bounds the PSS values kept for percentiles.
const pssWindow = 512

// Observe records one look at the pool: its status (nil if unreadable)
// and edge's client counters (nil if unknown).
func (m *Monitor) Observe(st *Status, edge *fastcgi.Stats, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if edge != nil {
		m.peakWaiting = max(m.peakWaiting, edge.Waiting)
		m.peakActive = max(m.peakActive, edge.InFlight)
	}
	if st == nil {
		return
	}
	m.peakActive = max(m.peakActive, st.ActiveProcesses)
	if m.marks == nil {
		m.marks = map[int]*workerMarks{}
	}
	for _, p := range st.Processes {
		if p.PSS == 0 {
			continue
		}
		m.pss = append(m.pss, p.PSS)
		if p.Requests == 0 {
			continue
		}
		wm := m.marks[p.PID]
		if wm == nil || p.Requests < wm.last.requests {
			wm = &workerMarks{first: mark{p.Requests, p.PSS}}
			m.marks[p.PID] = wm
		}
		wm.last, wm.seen = mark{p.Requests, p.PSS}, now
	}
	if len(m.pss) > pssWindow {
		m.pss = append(m.pss[:0], m.pss[len(m.pss)-pssWindow:]...)
	}
	// Forget workers not seen for a while (respawned, idled out).
	for pid, wm := range m.marks {
		if now.Sub(wm.seen) > 10*time.Minute {
			delete(m.marks, pid)
		}
	}
}

// History is what a Monitor has seen.
type History struct {
	PeakActive  int `json:"peak_active"`
	PeakWaiting int `json:"peak_waiting"`
	// WorkerPSS are recent per-worker PSS values in bytes.
	WorkerPSS []uint64 `json:"-"`
	// GrowthPerRequest is the median growth of a worker's PSS per request
	// (bytes), over workers that served at least minGrowthRequests
	// requests since first seen; GrowthSamples says how many did.
	GrowthPerRequest float64 `json:"growth_per_request"`
	GrowthSamples    int     `json:"growth_samples"`
}

// minGrowthRequests is how many requests a worker must serve between two
// looks for its growth to count: fewer is noise.
const minGrowthRequests = 20

// History returns what the monitor has seen.
func (m *Monitor) History() History {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := History{PeakActive: m.peakActive, PeakWaiting: m.peakWaiting, WorkerPSS: append([]uint64(nil), m.pss...)}
	var slopes []float64
	for _, wm := range m.marks {
		n := wm.last.requests - wm.first.requests
		if n < minGrowthRequests {
			continue
		}
		slopes = append(slopes, (float64(wm.last.pss)-float64(wm.first.pss))/float64(n))
	}
	if len(slopes) > 0 {
		sort.Float64s(slopes)
		h.GrowthPerRequest = slopes[len(slopes)/2]
		h.GrowthSamples = len(slopes)
	}
	return h
}

// EdgeView is edge's own view of a pool: its FastCGI client, which php-fpm
// cannot see (requests queued in edge never reach its listen queue).
type EdgeView struct {
	Requests          uint64  `json:"requests"`
	InFlight          int     `json:"in_flight"`
	Waiting           int     `json:"waiting"`
	PeakWaiting       int     `json:"peak_waiting"`
	Queued            uint64  `json:"queued"`
	QueueWaitSeconds  float64 `json:"queue_wait_seconds"`
	QueueWaitMaxSecs  float64 `json:"queue_wait_max_seconds"`
	QueueWaitAvgSecs  float64 `json:"queue_wait_avg_seconds"`
	QueueFull         uint64  `json:"queue_full"`
	QueueTimeouts     uint64  `json:"queue_timeouts"`
	Connects          uint64  `json:"connects"`
	Reused            uint64  `json:"reused"`
	ReuseRatio        float64 `json:"reuse_ratio"`
	IdleConns         int     `json:"idle_connections"`
	ConnectErrors     uint64  `json:"connect_errors"`
	Timeouts          uint64  `json:"timeouts"`
	Responses502      uint64  `json:"responses_502"`
	Responses504      uint64  `json:"responses_504"`
	CountersAvailable bool    `json:"counters_available"`
}

// NewEdgeView summarizes a client's Stats.
func NewEdgeView(s fastcgi.Stats, peakWaiting int, r502, r504 uint64) *EdgeView {
	v := &EdgeView{Requests: s.Requests, InFlight: s.InFlight, Waiting: s.Waiting, PeakWaiting: max(peakWaiting, s.Waiting),
		Queued: s.Queued, QueueWaitSeconds: s.QueueWait.Seconds(), QueueWaitMaxSecs: s.QueueWaitMax.Seconds(),
		QueueFull: s.QueueFull, QueueTimeouts: s.QueueTimeouts, Connects: s.Connects, Reused: s.Reused,
		IdleConns: s.Idle, ConnectErrors: s.ConnectErrors, Timeouts: s.Timeouts, Responses502: r502, Responses504: r504,
		CountersAvailable: true}
	if s.Queued > 0 {
		v.QueueWaitAvgSecs = s.QueueWait.Seconds() / float64(s.Queued)
	}
	if s.Requests > 0 {
		v.ReuseRatio = float64(s.Reused) / float64(s.Requests)
	}
	return v
}

// Settings are a pool's pm.* values in reports.
type Settings struct {
	PM              string `json:"pm"`
	MaxChildren     int    `json:"max_children"`
	StartServers    int    `json:"start_servers,omitempty"`
	MinSpareServers int    `json:"min_spare_servers,omitempty"`
	MaxSpareServers int    `json:"max_spare_servers,omitempty"`
	MaxRequests     int    `json:"max_requests"`
	// IdleTimeoutSeconds is pm.process_idle_timeout (ondemand).
	IdleTimeoutSeconds int `json:"process_idle_timeout,omitempty"`
}

// SettingsOf converts conf's values.
func SettingsOf(v conf.PMValues) Settings {
	s := Settings{PM: v.PM, MaxChildren: v.MaxChildren, MaxRequests: v.MaxRequests}
	switch v.PM {
	case "dynamic":
		s.StartServers, s.MinSpareServers, s.MaxSpareServers = v.StartServers, v.MinSpareServers, v.MaxSpareServers
	case "ondemand":
		s.IdleTimeoutSeconds = int(v.ProcessIdleTimeout / time.Second)
	}
	return s
}

// Values converts back to conf's values (spawn rate and idle timeout get
// php-fpm's defaults when unset).
func (s Settings) Values() conf.PMValues {
	v := conf.PMValues{PM: s.PM, MaxChildren: s.MaxChildren, StartServers: s.StartServers, MinSpareServers: s.MinSpareServers,
		MaxSpareServers: s.MaxSpareServers, MaxRequests: s.MaxRequests, MaxSpawnRate: 32,
		ProcessIdleTimeout: time.Duration(s.IdleTimeoutSeconds) * time.Second}
	if v.ProcessIdleTimeout == 0 {
		v.ProcessIdleTimeout = 10 * time.Second
	}
	return v
}

// Report is everything known about one pool at one moment.
type Report struct {
	Name string `json:"name"`
	// Pass is the fastcgi_pass a pool was found behind (conf's PassPools).
	Pass     string    `json:"fastcgi_pass,omitempty"`
	Owned    bool      `json:"owned"`
	Network  string    `json:"network"`
	Address  string    `json:"address"`
	Status   string    `json:"status_address"`
	Time     time.Time `json:"time"`
	Settings Settings  `json:"settings"`
	Tuned    bool      `json:"tuned"`
	// FPM is php-fpm's status page with each worker's PSS; FPMError says
	// why it is missing.
	FPM        *Status         `json:"fpm,omitempty"`
	FPMError   string          `json:"fpm_error,omitempty"`
	Edge       *EdgeView       `json:"edge,omitempty"`
	Supervisor *SupervisorInfo `json:"supervisor,omitempty"`
	History    History         `json:"history"`
	// PSSTotal, PSSP95 and PSSMax summarize the workers now (bytes).
	PSSTotal uint64 `json:"pss_total"`
	PSSP95   uint64 `json:"pss_p95"`
	PSSMax   uint64 `json:"pss_max"`
	// MasterPID is php-fpm's master, when known (owned pools, or an
	// external pool's pid_file).
	MasterPID int `json:"master_pid,omitempty"`
}

// ReportInput is what Collect needs; only Pool is required.
type ReportInput struct {
	Pool       *conf.FPMPool
	Supervisor *Supervisor // nil for a pool edge does not own
	Monitor    *Monitor    // nil: no history
	Edge       *EdgeView   // nil: edge's counters are not known here
	Now        func() time.Time
	// StatusPath, for a pool behind a fastcgi_pass (Pool.Pass set), is
	// the status page to ask; "" finds it (pass.go).
	StatusPath string
}

// Collect reads the pool's status and its workers' PSS, feeds the
// monitor and returns the report. It never fails: what could not be read
// is said in the report.
func Collect(ctx context.Context, in ReportInput) *Report {
	now := time.Now
	if in.Now != nil {
		now = in.Now
	}
	p := in.Pool
	r := &Report{Name: p.Name, Pass: p.Pass, Owned: !p.External, Network: p.Network, Address: p.Address,
		Status: p.StatusNetwork + ":" + p.StatusAddress + p.StatusPath, Time: now(),
		Settings: SettingsOf(p.Values()), Tuned: p.Tuned, Edge: in.Edge}
	if in.Supervisor != nil {
		info := in.Supervisor.Info()
		r.Supervisor = &info
		r.MasterPID = info.PID
	} else if p.PidFile != "" {
		r.MasterPID = readPidFile(p.PidFile)
	}
	var st *Status
	var err error
	switch {
	case p.Pass != "":
		st, err = readPassStatus(ctx, p, in.StatusPath, r)
	case p.StatusPath == "":
		err = errors.New("no status_path: php-fpm's status page is not enabled for this pool")
	default:
		st, err = ReadStatus(ctx, p.StatusNetwork, p.StatusAddress, p.StatusPath)
	}
	if err != nil {
		r.FPMError = err.Error()
	} else {
		r.FPM = st
		if r.Settings.PM == "" {
			r.Settings.PM = st.ProcessManager
		}
		var all []uint64
		for i := range st.Processes {
			if !poolWorker(st.Processes[i].PID, st.Pool) {
				// Not this pool's worker here: php-fpm runs in another
				// PID namespace (a container), or the PID was reused.
				continue
			}
			if pss, err := ReadPSS(st.Processes[i].PID); err == nil {
				st.Processes[i].PSS = pss
				all = append(all, pss)
				r.PSSTotal += pss
			}
		}
		r.PSSP95, r.PSSMax = Percentile(all, 0.95), Percentile(all, 1)
	}
	if in.Monitor != nil {
		var es *fastcgi.Stats
		if in.Edge != nil {
			es = &fastcgi.Stats{Waiting: in.Edge.Waiting, InFlight: in.Edge.InFlight}
		}
		in.Monitor.Observe(r.FPM, es, r.Time)
		r.History = in.Monitor.History()
		if r.Edge != nil {
			r.Edge.PeakWaiting = max(r.Edge.PeakWaiting, r.History.PeakWaiting)
		}
	}
	return r
}

// readPidFile reads a pid file; 0 when it cannot.
func readPidFile(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return n
}

// Percentile returns the q-quantile (0 < q <= 1) of values by the
// nearest-rank method; 0 for none.
func Percentile(values []uint64, q float64) uint64 {
	if len(values) == 0 {
		return 0
	}
	s := append([]uint64(nil), values...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(rank, len(s)-1))]
}

// WriteText renders reports as the readable tables of "edge fpm status".
func WriteText(w io.Writer, reports []*Report) {
	var b bytes.Buffer
	for i, r := range reports {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeReport(&b, r)
	}
	w.Write(b.Bytes())
}

func writeReport(b *bytes.Buffer, r *Report) {
	owner := "owned by edge"
	switch {
	case r.Pass != "":
		owner = "fastcgi_pass " + r.Pass
	case !r.Owned:
		owner = "external"
	}
	s := r.Settings
	fmt.Fprintf(b, "pool %s (%s) %s:%s\n", r.Name, owner, r.Network, r.Address)
	limits := fmt.Sprintf("max_children=%d", s.MaxChildren)
	switch s.PM {
	case "dynamic":
		limits += fmt.Sprintf(" start_servers=%d min_spare=%d max_spare=%d", s.StartServers, s.MinSpareServers, s.MaxSpareServers)
	case "ondemand":
		limits += fmt.Sprintf(" process_idle_timeout=%ds", s.IdleTimeoutSeconds)
	}
	limits += fmt.Sprintf(" max_requests=%d", s.MaxRequests)
	if r.Tuned {
		limits += " (tuned)"
	}
	switch {
	case r.Pass != "" && s.MaxChildren == 0:
		// Only php-fpm's pool file says, and it is elsewhere.
		limits = "unknown (php-fpm's configuration is not on this machine)"
	case r.Pass != "":
		limits = fmt.Sprintf("max_children=%d (from php-fpm's configuration)", s.MaxChildren)
	}
	fmt.Fprintf(b, "  mode          %s\n  limits        %s\n", orDash(s.PM), limits)
	if sv := r.Supervisor; sv != nil {
		state := "not running"
		if sv.Running {
			state = fmt.Sprintf("running, master pid %d since %s", sv.PID, sv.Started.Format(time.RFC3339))
		}
		fmt.Fprintf(b, "  master        %s; restarts %d, reloads %d\n", state, sv.Restarts, sv.Reloads)
		if sv.LastRestart != "" {
			fmt.Fprintf(b, "  last restart  %s\n", sv.LastRestart)
		}
		fmt.Fprintf(b, "  workers ended %d, crashed %d\n", sv.WorkerExits, sv.WorkerCrashes)
		if sv.LastCrash != "" {
			fmt.Fprintf(b, "  last crash    %s\n", sv.LastCrash)
		}
	} else if r.MasterPID > 0 {
		fmt.Fprintf(b, "  master        pid %d\n", r.MasterPID)
	}
	if st := r.FPM; st != nil {
		if r.Pass != "" {
			fmt.Fprintf(b, "  php-fpm pool  %s, status page %s\n", st.Pool, r.Status)
		}
		fmt.Fprintf(b, "  processes     active %d, idle %d, total %d, max active %d", st.ActiveProcesses, st.IdleProcesses, st.TotalProcesses, st.MaxActiveProcesses)
		if st.Starting > 0 {
			fmt.Fprintf(b, ", starting %d", st.Starting)
		}
		b.WriteByte('\n')
		fmt.Fprintf(b, "  accepted      %d since %s\n", st.AcceptedConn, time.Duration(st.StartSince)*time.Second)
		fmt.Fprintf(b, "  max children reached %d, slow requests %d, listen queue %d (max %d)\n", st.MaxChildrenReached, st.SlowRequests, st.ListenQueue, st.MaxListenQueue)
		fmt.Fprintf(b, "  memory (PSS)  total %s, p95 worker %s, max worker %s\n", Bytes(r.PSSTotal), Bytes(r.PSSP95), Bytes(r.PSSMax))
	} else {
		fmt.Fprintf(b, "  php-fpm       %s\n", r.FPMError)
	}
	if e := r.Edge; e != nil && e.CountersAvailable {
		fmt.Fprintf(b, "  edge queue    waiting %d (peak %d), queued %d, wait avg %s max %s, full %d, timed out %d\n",
			e.Waiting, e.PeakWaiting, e.Queued, secs(e.QueueWaitAvgSecs), secs(e.QueueWaitMaxSecs), e.QueueFull, e.QueueTimeouts)
		fmt.Fprintf(b, "  edge requests %d, in flight %d, 502 %d, 504 %d, timeouts %d, connect errors %d\n",
			e.Requests, e.InFlight, e.Responses502, e.Responses504, e.Timeouts, e.ConnectErrors)
		fmt.Fprintf(b, "  connections   %d dialled, %d reused (%.0f%%), %d idle\n", e.Connects, e.Reused, 100*e.ReuseRatio, e.IdleConns)
	} else {
		fmt.Fprintf(b, "  edge queue    unknown (edge is not running, or does not use this pool)\n")
	}
	if st := r.FPM; st != nil && len(st.Processes) > 0 {
		fmt.Fprintf(b, "  %-8s %-15s %9s %10s %12s  %s\n", "PID", "STATE", "REQUESTS", "PSS", "LAST", "REQUEST")
		procs := append([]Process(nil), st.Processes...)
		sort.Slice(procs, func(i, j int) bool { return procs[i].PID < procs[j].PID })
		for _, p := range procs {
			req := strings.TrimSpace(p.RequestMethod + " " + p.RequestURI)
			fmt.Fprintf(b, "  %-8d %-15s %9d %10s %12s  %s\n", p.PID, p.State, p.Requests, Bytes(p.PSS),
				(time.Duration(p.RequestDuration) * time.Microsecond).Round(time.Microsecond*100), req)
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(100 * time.Microsecond).String()
}

// Bytes writes a byte count in KiB/MiB/GiB.
func Bytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}
