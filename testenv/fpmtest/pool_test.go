// The checks of a pool edge owns: the settings php-fpm runs with,
// the refusal of a broken combination, saturation, crashes and restarts,
// reloads, and the reports (CLI, fpm_status, Prometheus).

package fpmtest

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"edge/fastcgi/fpm"
)

const seed000Pool = `    fpm_pool www {
        pm dynamic;
        pm.max_children 160;
        pm.start_servers 24;
        pm.min_spare_servers 20;
        pm.max_spare_servers 35;
        pm.max_requests 1500;
    }
`

// Seed 000's values start a pool with exactly those settings, as php-fpm's
// own -tt output of the configuration edge wrote and its status page show.
func TestSeed000Settings(t *testing.T) {
	s := startSite(t, seed000Pool, "www")
	if code, body := s.get(t, "/hello.php"); code != 200 || body != "hello" {
		t.Fatalf("hello.php: %d %q", code, body)
	}
	// php-fpm forks the 24 before it says it is ready, but each worker
	// fills its status slot a little later.
	var r *fpm.Report
	poll(t, "start_servers 24 workers in php-fpm's status", func() bool {
		r = s.report(t, "www")
		return r.FPM != nil && r.FPM.TotalProcesses >= 24 && len(r.FPM.Processes) >= 24
	})
	if r.FPM.ProcessManager != "dynamic" {
		t.Errorf("php-fpm status: pm %s, want dynamic", r.FPM.ProcessManager)
	}
	want := fpm.Settings{PM: "dynamic", MaxChildren: 160, StartServers: 24, MinSpareServers: 20, MaxSpareServers: 35, MaxRequests: 1500}
	if r.Settings != want {
		t.Errorf("report settings %+v, want %+v", r.Settings, want)
	}
	bin, err := fpm.FindBinary("")
	if err != nil {
		t.Fatal(err)
	}
	confPath := filepath.Join(s.prefix, "state", "php-fpm-www.conf")
	if r.Supervisor == nil || r.Supervisor.ConfPath != confPath {
		t.Fatalf("supervisor info %+v, want conf %s", r.Supervisor, confPath)
	}
	out, err := exec.Command(bin, "-tt", "-y", confPath, "-R").CombinedOutput()
	if err != nil {
		t.Fatalf("php-fpm -tt: %v\n%s", err, out)
	}
	for _, line := range []string{"pm = dynamic", "pm.max_children = 160", "pm.start_servers = 24", "pm.min_spare_servers = 20",
		"pm.max_spare_servers = 35", "pm.max_requests = 1500"} {
		if !strings.Contains(string(out), "\t"+line+"\n") {
			t.Errorf("php-fpm -tt does not show %q", line)
		}
	}
}

// An invalid combination is refused by "edge -t" with php-fpm's words and
// edge's file:line.
func TestInvalidCombinationRefused(t *testing.T) {
	s := newSite(t, `    fpm_pool www {
        pm dynamic;
        pm.max_children 160;
        pm.start_servers 40;
        pm.min_spare_servers 20;
        pm.max_spare_servers 35;
    }
`, "www")
	_, errOut, code := s.edge(t, "-t")
	want := fmt.Sprintf("edge: [emerg] [pool www] pm.start_servers(40) must not be less than pm.min_spare_servers(20) and not greater than pm.max_spare_servers(35) in %s:11\n", s.conf)
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "test failed") {
		t.Fatalf("edge -t: exit %d\n%s\nwant %q", code, errOut, want)
	}
}

// Two workers, ten concurrent slow requests: all complete, and the report
// shows the queue in edge, the waits and a "max children reached"
// episode (dynamic: php-fpm counts it when it wants a spare worker and
// the pool is at max_children).
func TestSaturatedPool(t *testing.T) {
	s := startSite(t, `    fpm_pool www {
        pm dynamic;
        pm.max_children 2;
        pm.start_servers 1;
        pm.min_spare_servers 1;
        pm.max_spare_servers 2;
    }
`, "www")
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = s.tryGet("/sleep.php?ms=500")
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("request %d: %d", i, c)
		}
	}
	r := s.report(t, "www")
	if r.FPM == nil || r.Edge == nil {
		t.Fatalf("report without status or edge counters: %+v", r)
	}
	e := r.Edge
	if e.Queued < 8 || e.QueueWaitMaxSecs <= 0 || e.QueueWaitAvgSecs <= 0 || e.PeakWaiting < 1 {
		t.Errorf("edge queue: queued %d, wait max %v avg %v, peak waiting %d; want at least 8 queued with waits",
			e.Queued, e.QueueWaitMaxSecs, e.QueueWaitAvgSecs, e.PeakWaiting)
	}
	if e.Requests < 10 || e.Responses502 != 0 || e.Responses504 != 0 {
		t.Errorf("edge requests %d, 502 %d, 504 %d", e.Requests, e.Responses502, e.Responses504)
	}
	if r.FPM.MaxChildrenReached < 1 || r.FPM.MaxActiveProcesses < 2 {
		t.Errorf("php-fpm: max children reached %d, max active %d; want an episode at 2", r.FPM.MaxChildrenReached, r.FPM.MaxActiveProcesses)
	}
	out, errOut, code := s.edge(t, "fpm", "status")
	if code != 0 {
		t.Fatalf("edge fpm status: %d %s", code, errOut)
	}
	for _, want := range []string{"pool www (owned by edge)", "mode          dynamic", "max children reached 1",
		"edge queue    waiting 0 (peak", "queued ", "PID", "PSS"} {
		if !strings.Contains(out, want) {
			t.Errorf("edge fpm status lacks %q:\n%s", want, out)
		}
	}
	// The same report through the fpm_status handler, HTML and JSON.
	code, page := s.get(t, "/fpm")
	if code != 200 || !strings.Contains(page, "<pre>") || !strings.Contains(page, "max children reached 1") {
		t.Errorf("fpm_status HTML: %d\n%s", code, page)
	}
	code, js := s.get(t, "/fpm?json")
	var rs []*fpm.Report
	if err := json.Unmarshal([]byte(js), &rs); code != 200 || err != nil || len(rs) != 1 || rs[0].Edge == nil || rs[0].Edge.Queued < 8 {
		t.Errorf("fpm_status JSON: %d %v\n%s", code, err, js)
	}
}

// A worker killed with SIGKILL is replaced by php-fpm and the report says
// so; a master killed is restarted by edge and requests resume.
func TestCrashesAreRepaired(t *testing.T) {
	s := startSite(t, "    fpm_pool www { pm static; pm.max_children 2; }\n", "www")
	var r *fpm.Report
	poll(t, "both workers in the status page", func() bool {
		r = s.report(t, "www")
		return r.FPM != nil && len(r.FPM.Processes) == 2
	})
	victim := r.FPM.Processes[0].PID
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	poll(t, "the worker to be replaced and counted", func() bool {
		r := s.report(t, "www")
		if r.Supervisor == nil || r.Supervisor.WorkerCrashes != 1 || r.FPM == nil || len(r.FPM.Processes) != 2 {
			return false
		}
		for _, p := range r.FPM.Processes {
			if p.PID == victim {
				return false
			}
		}
		return true
	})
	out, _, _ := s.edge(t, "fpm", "status", "www")
	if !strings.Contains(out, "crashed 1") || !strings.Contains(out, fmt.Sprintf("child %d exited on signal 9 (SIGKILL)", victim)) {
		t.Errorf("status does not tell of the crash:\n%s", out)
	}

	master := s.report(t, "www").MasterPID
	if err := syscall.Kill(master, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	poll(t, "edge to restart the master", func() bool {
		r := s.report(t, "www")
		return r.Supervisor != nil && r.Supervisor.Restarts == 1 && r.Supervisor.Running && r.MasterPID != master && r.FPM != nil
	})
	if code, body := s.get(t, "/hello.php"); code != 200 || body != "hello" {
		t.Fatalf("after the restart: %d %q", code, body)
	}
	out, _, _ = s.edge(t, "fpm", "status", "www")
	if !strings.Contains(out, "restarts 1") || !strings.Contains(out, "last restart") {
		t.Errorf("status does not tell of the restart:\n%s", out)
	}
}

// A reload that changes the pool reloads php-fpm in place; one php-fpm
// refuses keeps the old plan and the old pool serving.
func TestReloadChangesPool(t *testing.T) {
	pool := "    fpm_pool www { pm static; pm.max_children 2; }\n"
	s := startSite(t, pool, "www")
	before := s.report(t, "www")

	s.writeConf(t, siteConf(s.port, s.root, "    fpm_pool www { pm static; pm.max_children 3; user no-such-user-here; }\n", "www"))
	if err := s.proc.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	poll(t, "the refusal in the error log", func() bool {
		b, _ := readFile(s.errorLog())
		return strings.Contains(b, "cannot get uid for user 'no-such-user-here'")
	})
	if r := s.report(t, "www"); r.Settings.MaxChildren != 2 || r.MasterPID != before.MasterPID {
		t.Fatalf("a refused pool changed the running one: %+v", r.Settings)
	}
	if code, _ := s.get(t, "/hello.php"); code != 200 {
		t.Fatalf("after a refused reload: %d", code)
	}

	s.writeConf(t, siteConf(s.port, s.root, "    fpm_pool www { pm static; pm.max_children 3; }\n", "www"))
	if err := s.proc.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	poll(t, "the pool to run 3 workers", func() bool {
		r := s.report(t, "www")
		return r.Settings.MaxChildren == 3 && r.FPM != nil && r.FPM.TotalProcesses == 3
	})
	r := s.report(t, "www")
	if r.MasterPID != before.MasterPID || r.Supervisor.Reloads != 1 {
		t.Errorf("reload: master %d -> %d, reloads %d", before.MasterPID, r.MasterPID, r.Supervisor.Reloads)
	}
}

// The Prometheus endpoint parses with prometheus/common's own text
// parser and carries the pool, FastCGI and connection metrics.
func TestMetricsScrape(t *testing.T) {
	s := startSite(t, "    fpm_pool www { pm static; pm.max_children 2; }\n", "www")
	for i := 0; i < 5; i++ {
		if code, _ := s.get(t, "/hello.php"); code != 200 {
			t.Fatalf("hello.php: %d", code)
		}
	}
	resp, err := httpClient.Get("http://" + s.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	value := func(name string, labels map[string]string) (float64, bool) {
		f := families[name]
		if f == nil {
			return 0, false
		}
	metrics:
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if want, ok := labels[lp.GetName()]; ok && want != lp.GetValue() {
					continue metrics
				}
			}
			switch {
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue(), true
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue(), true
			}
		}
		return 0, false
	}
	checks := []struct {
		name   string
		labels map[string]string
		ok     func(float64) bool
	}{
		{"edge_fpm_up", map[string]string{"pool": "www"}, func(v float64) bool { return v == 1 }},
		{"edge_fpm_max_children", map[string]string{"pool": "www"}, func(v float64) bool { return v == 2 }},
		{"edge_fpm_processes", map[string]string{"pool": "www", "state": "idle"}, func(v float64) bool { return v >= 0 }},
		{"edge_fpm_accepted_connections_total", map[string]string{"pool": "www"}, func(v float64) bool { return v >= 5 }},
		{"edge_fpm_workers_pss_bytes", map[string]string{"pool": "www"}, func(v float64) bool { return v > 0 }},
		{"edge_fpm_master_restarts_total", map[string]string{"pool": "www"}, func(v float64) bool { return v == 0 }},
		{"edge_fastcgi_requests_total", map[string]string{"backend": "www"}, func(v float64) bool { return v >= 5 }},
		{"edge_fastcgi_connections_reused_total", map[string]string{"backend": "www"}, func(v float64) bool { return v >= 1 }},
		{"edge_fastcgi_error_responses_total", map[string]string{"backend": "www", "code": "502"}, func(v float64) bool { return v == 0 }},
		{"edge_connections_accepted_total", nil, func(v float64) bool { return v >= 1 }},
		{"edge_http_requests_total", nil, func(v float64) bool { return v >= 6 }},
		{"go_goroutines", nil, func(v float64) bool { return v > 0 }},
	}
	for _, c := range checks {
		v, ok := value(c.name, c.labels)
		if !ok || !c.ok(v) {
			t.Errorf("%s%v = %v (present %v)", c.name, c.labels, v, ok)
		}
	}
	for name, f := range families {
		if strings.HasSuffix(name, "_total") && f.GetType().String() != "COUNTER" {
			t.Errorf("%s is a %s, not a counter", name, f.GetType())
		}
	}
}
