// status_test.go checks the status page parser, the /proc and cgroup
// readers on fixture trees, the monitor's peaks and growth, and a report
// collected from a real supervised pool.
package fpm

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/fastcgi"
)

// statusFixture is php-fpm 8.2's "?json&full" output, trimmed to two
// workers.
const statusFixture = `{"pool":"www","process manager":"dynamic","start time":1796016986,"start since":42,"accepted conn":1234,"listen queue":0,"max listen queue":3,"listen queue len":0,"idle processes":1,"active processes":1,"total processes":2,"max active processes":2,"max children reached":1,"slow requests":5,"processes":[{"pid":101,"state":"Running","start time":1796016986,"start since":42,"requests":600,"request duration":2500,"request method":"GET","request uri":"/index.php?p=1","content length":0,"user":"-","script":"/srv/www/index.php","last request cpu":0.00,"last request memory":0},{"pid":102,"state":"Idle","start time":1796016986,"start since":42,"requests":634,"request duration":1800,"request method":"GET","request uri":"/index.php","content length":0,"user":"-","script":"/srv/www/index.php","last request cpu":12.50,"last request memory":2097152}]}`

func TestParseStatusPage(t *testing.T) {
	st, err := parseStatusPage([]byte(statusFixture))
	if err != nil {
		t.Fatal(err)
	}
	if st.Pool != "www" || st.ProcessManager != "dynamic" || st.AcceptedConn != 1234 || st.MaxChildrenReached != 1 ||
		st.SlowRequests != 5 || st.MaxActiveProcesses != 2 || st.MaxListenQueue != 3 || len(st.Processes) != 2 {
		t.Fatalf("parsed %+v", st)
	}
	if p := st.Processes[1]; p.PID != 102 || p.State != "Idle" || p.Requests != 634 || p.RequestDuration != 1800 || p.LastRequestMemory != 2097152 {
		t.Fatalf("worker %+v", p)
	}
	if _, err := parseStatusPage([]byte("pool: www\n")); err == nil {
		t.Fatal("the text status page was accepted as JSON")
	}
	// A worker php-fpm has just forked shows pid 0 and state "(null)"
	// until it writes its own slot (seen on a slow CI machine).
	starting := strings.Replace(statusFixture, `"pid":101,"state":"Running"`, `"pid":0,"state":"(null)"`, 1)
	st, err = parseStatusPage([]byte(starting))
	if err != nil || len(st.Processes) != 1 || st.Processes[0].PID != 102 || st.Starting != 1 {
		t.Fatalf("a starting worker: %+v, %v", st, err)
	}
	var b bytes.Buffer
	WriteText(&b, []*Report{{Name: "www", FPM: st}})
	if !strings.Contains(b.String(), "total 2, max active 2, starting 1\n") || strings.Contains(b.String(), "(null)") {
		t.Errorf("report of a starting worker:\n%s", b.String())
	}
}

func TestParsePSS(t *testing.T) {
	rollup := "55d0c5a4e000-7ffd6f1f9000 ---p 00000000 00:00 0 [rollup]\nRss:               40212 kB\nPss:                9932 kB\nPss_Anon:           4000 kB\n"
	n, err := parsePSS(strings.NewReader(rollup))
	if err != nil || n != 9932<<10 {
		t.Fatalf("parsePSS = %d, %v", n, err)
	}
	if _, err := parsePSS(strings.NewReader("Rss: 1 kB\n")); err == nil {
		t.Fatal("no Pss line accepted")
	}
	own, err := ReadPSS(os.Getpid())
	if err != nil || own == 0 {
		t.Fatalf("ReadPSS(self) = %d, %v", own, err)
	}
}

// withFakeRoots points /proc and /sys/fs/cgroup at a fixture tree.
func withFakeRoots(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oldProc, oldCg := procRoot, cgroupRoot
	procRoot, cgroupRoot = filepath.Join(dir, "proc"), filepath.Join(dir, "cgroup")
	t.Cleanup(func() { procRoot, cgroupRoot = oldProc, oldCg })
}

func TestReadMemory(t *testing.T) {
	meminfo := "MemTotal:       24000000 kB\nMemFree:  1000 kB\nMemAvailable:   20000000 kB\n"
	cases := []struct {
		name  string
		files map[string]string
		want  Memory
	}{
		{"host: no cgroup v2 line", map[string]string{"proc/meminfo": meminfo, "proc/7/cgroup": "1:name=systemd:/x\n"},
			Memory{Source: "host", Limit: 24000000 << 10, Available: 20000000 << 10}},
		{"cgroup without a limit", map[string]string{"proc/meminfo": meminfo, "proc/7/cgroup": "0::/system.slice/php.service\n",
			"cgroup/system.slice/php.service/memory.max": "max\n"},
			Memory{Source: "host", Limit: 24000000 << 10, Available: 20000000 << 10}},
		{"the pool's own cgroup", map[string]string{"proc/meminfo": meminfo, "proc/7/cgroup": "0::/system.slice/php.service\n",
			"cgroup/system.slice/php.service/memory.max": "2147483648\n", "cgroup/system.slice/php.service/memory.current": "536870912\n"},
			Memory{Source: "cgroup", Limit: 2 << 30, Available: 1536 << 20, Cgroup: "/system.slice/php.service"}},
		{"a tighter parent", map[string]string{"proc/meminfo": meminfo, "proc/7/cgroup": "0::/a/b\n",
			"cgroup/a/b/memory.max": "4294967296\n", "cgroup/a/b/memory.current": "0\n",
			"cgroup/a/memory.max": "1073741824\n", "cgroup/a/memory.current": "1073741824\n"},
			Memory{Source: "cgroup", Limit: 1 << 30, Available: 0, Cgroup: "/a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withFakeRoots(t, c.files)
			got, err := ReadMemory(7)
			if err != nil || got != c.want {
				t.Fatalf("ReadMemory = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	vals := []uint64{5, 1, 9, 3, 7, 2, 8, 4, 6, 10}
	for _, c := range []struct {
		q    float64
		want uint64
	}{{0.5, 5}, {0.95, 10}, {0.9, 9}, {1, 10}, {0.01, 1}} {
		if got := Percentile(vals, c.q); got != c.want {
			t.Errorf("Percentile(%v) = %d, want %d", c.q, got, c.want)
		}
	}
	if Percentile(nil, 0.95) != 0 {
		t.Error("percentile of nothing is not 0")
	}
}

func TestMonitorGrowth(t *testing.T) {
	var m Monitor
	now := time.Unix(1000, 0)
	look := func(procs ...Process) *Status {
		return &Status{ActiveProcesses: len(procs), Processes: procs}
	}
	m.Observe(look(Process{PID: 1, Requests: 10, PSS: 10 << 20}, Process{PID: 2, Requests: 0, PSS: 8 << 20}), &fastcgi.Stats{Waiting: 3}, now)
	m.Observe(look(Process{PID: 1, Requests: 110, PSS: 11 << 20}, Process{PID: 2, Requests: 5, PSS: 9 << 20}), &fastcgi.Stats{Waiting: 1}, now.Add(time.Second))
	h := m.History()
	if h.PeakActive != 2 || h.PeakWaiting != 3 {
		t.Errorf("peaks %d/%d, want 2/3", h.PeakActive, h.PeakWaiting)
	}
	// Worker 1: +1 MiB over 100 requests; worker 2 served too few.
	if h.GrowthSamples != 1 || h.GrowthPerRequest != float64(1<<20)/100 {
		t.Errorf("growth %v over %d workers", h.GrowthPerRequest, h.GrowthSamples)
	}
	// A respawned worker with a reused PID starts over.
	m.Observe(look(Process{PID: 1, Requests: 3, PSS: 7 << 20}), nil, now.Add(2*time.Second))
	if h := m.History(); h.GrowthSamples != 0 {
		t.Errorf("a respawned worker kept its old marks: %+v", h)
	}
}

// Collect on a real pool: the status page, PSS per worker from /proc,
// and the text table.
func TestCollectReport(t *testing.T) {
	e := newPoolEnv(t)
	p := e.pool(t, "fpm_pool www { pm static; pm.max_children 2; }")
	s := e.supervisor(t, p, SupervisorOptions{})
	workersUp(t, p, 2)
	for i := 0; i < 3; i++ {
		e.hello(t, p)
	}
	var mon Monitor
	r := Collect(context.Background(), ReportInput{Pool: p, Supervisor: s, Monitor: &mon,
		Edge: NewEdgeView(fastcgi.Stats{Requests: 10, Reused: 6, Queued: 2, QueueWait: 30 * time.Millisecond, QueueWaitMax: 20 * time.Millisecond}, 2, 1, 0)})
	if r.FPM == nil {
		t.Fatalf("no status: %s", r.FPMError)
	}
	if r.FPM.AcceptedConn < 3 || len(r.FPM.Processes) != 2 || r.PSSTotal == 0 || r.PSSP95 == 0 {
		t.Fatalf("report %+v", r)
	}
	for _, pr := range r.FPM.Processes {
		if pr.PSS == 0 {
			t.Errorf("worker %d has no PSS", pr.PID)
		}
	}
	if r.Supervisor == nil || !r.Supervisor.Running || r.MasterPID != s.PID() {
		t.Errorf("supervisor info %+v", r.Supervisor)
	}
	var b bytes.Buffer
	WriteText(&b, []*Report{r})
	text := b.String()
	for _, want := range []string{"pool www (owned by edge)", "mode          static", "max_children=2", ", total 2, max active",
		"max children reached 0", "edge queue    waiting 0 (peak 2), queued 2, wait avg 15ms max 20ms", "502 1", "6 reused (60%)", "PID", "STATE"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	p.StatusPath = ""
	if r := Collect(context.Background(), ReportInput{Pool: p}); r.FPM != nil || !strings.Contains(r.FPMError, "status_path") {
		t.Errorf("without a status path: %+v", r)
	}
}

// TestPoolWorker: only a process titled as the pool's worker counts; a
// PID that names something else here (php-fpm in another PID namespace)
// or nothing does not.
func TestPoolWorker(t *testing.T) {
	withFakeRoots(t, map[string]string{
		"proc/13/cmdline": "php-fpm: pool wordpress\x00\x00\x00",
		"proc/14/cmdline": "/usr/local/bin/edge\x00-c\x00/etc/edge/edge.conf\x00",
		"proc/15/cmdline": "php-fpm: pool www\x00",
	})
	for _, c := range []struct {
		pid  int
		want bool
	}{{13, true}, {14, false}, {15, false}, {16, false}} {
		if got := poolWorker(c.pid, "wordpress"); got != c.want {
			t.Errorf("poolWorker(%d, wordpress) = %v, want %v", c.pid, got, c.want)
		}
	}
}
