// The tuning checks: "edge fpm tune --apply" under wrk load
// changes a pool edge owns with no failed request, and an external pool
// is reported on and tuned through its pool file.

package fpmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"edge/fastcgi/fpm"
	"edge/testenv"
)

// loadDuration is how long wrk runs; FPMTEST_LOAD=20s is the run.
func loadDuration() string {
	if d := os.Getenv("FPMTEST_LOAD"); d != "" {
		return d
	}
	return "8s"
}

// A saturated pool (2 workers, 8 connections) is tuned and the result
// applied while wrk runs: the pool changes and every response is a 2xx.
func TestTuneApplyUnderLoad(t *testing.T) {
	s := startSite(t, "    fpm_pool www { pm static; pm.max_children 2; }\n", "www")
	wrk := testenv.Binary(t, "wrk", "wrk")
	load := exec.Command(wrk, "-t1", "-c8", "-d"+loadDuration(), "http://"+s.addr+"/sleep.php?ms=5")
	var out strings.Builder
	load.Stdout, load.Stderr = &out, &out
	if err := load.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if load.ProcessState == nil {
			_ = load.Process.Kill()
			_ = load.Wait()
		}
	})
	poll(t, "the load to queue requests in edge", func() bool {
		r := s.report(t, "www")
		return r.Edge != nil && r.Edge.Queued > 50
	})
	stdout, stderr, code := s.edge(t, "fpm", "tune", "www", "--apply", "--window", "1s")
	if code != 0 || !strings.Contains(stdout, "applied: edge reloaded fpm_pool www") {
		t.Fatalf("edge fpm tune --apply: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"memory:", "ceiling:", "saturated:", "max_children:", "proposed: pm "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the reasoning lacks %q:\n%s", want, stdout)
		}
	}
	if err := load.Wait(); err != nil {
		t.Fatalf("wrk: %v\n%s", err, out.String())
	}
	text := out.String()
	t.Logf("wrk:\n%s", text)
	if strings.Contains(text, "Non-2xx") || strings.Contains(text, "Socket errors") {
		t.Fatalf("failed requests under tune --apply:\n%s", text)
	}
	if !regexp.MustCompile(`\d+ requests in`).MatchString(text) {
		t.Fatalf("wrk printed no total:\n%s", text)
	}
	r := s.report(t, "www")
	if !r.Tuned || r.Settings.MaxChildren <= 2 || r.Supervisor.Reloads != 1 || r.Edge.Responses502+r.Edge.Responses504 != 0 {
		t.Errorf("after tune: settings %+v tuned %v reloads %d 502 %d 504 %d", r.Settings, r.Tuned, r.Supervisor.Reloads,
			r.Edge.Responses502, r.Edge.Responses504)
	}
	state, err := os.ReadFile(filepath.Join(s.prefix, "state", "fpm-www.conf"))
	if err != nil || !strings.Contains(string(state), "# written by \"edge fpm tune --apply\"") {
		t.Errorf("state file: %v\n%s", err, state)
	}
}

// An external pool: reported on through its status page, and tuned by
// rewriting its pool file (with a backup), php-fpm -t and SIGUSR2.
func TestExternalPool(t *testing.T) {
	php := testenv.StartFPM(t, testenv.FPMOptions{PM: "dynamic", MaxChildren: 2,
		Extra: "pm.status_path = /status", Global: "process_control_timeout = 10s"})
	pools := "    fpm_pool ext {\n        external unix:" + php.Address + ";\n        status_path /status;\n" +
		"        pool_file " + php.ConfPath + ";\n        pid_file " + filepath.Join(php.Dir, "php-fpm.pid") + ";\n    }\n"
	s := startSite(t, pools, "ext")
	for i := 0; i < 3; i++ {
		if code, body := s.get(t, "/hello.php"); code != 200 || body != "hello" {
			t.Fatalf("hello.php: %d %q", code, body)
		}
	}
	r := s.report(t, "ext")
	if r.Owned || r.FPM == nil || r.Edge == nil || r.Edge.Requests < 3 || r.MasterPID != php.Proc.PID() {
		t.Fatalf("report: %+v (fpm error %q)", r, r.FPMError)
	}
	if want := (fpm.Settings{PM: "dynamic", MaxChildren: 2, StartServers: 1, MinSpareServers: 1, MaxSpareServers: 2}); r.Settings != want {
		t.Errorf("settings read from the pool file: %+v, want %+v", r.Settings, want)
	}
	before := r.FPM.StartTime
	stdout, stderr, code := s.edge(t, "fpm", "tune", "ext", "--apply", "--window", "0")
	if code != 0 || !strings.Contains(stdout, "applied: "+php.ConfPath+" rewritten (backup ") {
		t.Fatalf("edge fpm tune --apply: exit %d\n%s\n%s", code, stdout, stderr)
	}
	backups, _ := filepath.Glob(php.ConfPath + ".edge-*")
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	old, _ := os.ReadFile(backups[0])
	now, _ := os.ReadFile(php.ConfPath)
	if !strings.Contains(string(old), "pm.max_children = 2\n") || strings.Contains(string(now), "pm.max_children = 2\n") ||
		!strings.Contains(string(now), "listen = "+php.Address) {
		t.Errorf("pool file not rewritten as expected:\n--- backup\n%s\n--- now\n%s", old, now)
	}
	r = s.report(t, "ext")
	if r.FPM == nil || r.FPM.StartTime == before || r.MasterPID != php.Proc.PID() {
		t.Errorf("php-fpm was not reloaded in place: %+v", r.FPM)
	}
	if code, _ := s.get(t, "/hello.php"); code != 200 {
		t.Fatalf("after the tune: %d", code)
	}
}
