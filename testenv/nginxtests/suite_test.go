// Package nginxtests runs nginx's own test suite (../shared/nginx-tests,
// nginx's BSD-licensed Perl tests, kept beside the repository and used from
// there) against edge and, in the same run, against Debian's nginx, and
// prints how many cases each passes (issue 14). The files are those of
// TIER_A, the ones that cover what edge claims today, and of TIER_MODULES,
// those of the modules wave 2 adds.
//
// A case that edge passed once is listed in testdata/edge-pass.txt; the
// test fails when one of them fails. A case that passes and is not listed
// is reported, and EDGE_NGINX_TESTS_UPDATE=1 rewrites the list.
package nginxtests

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"edge/testenv"
)

// fileTimeout bounds one test file's run; a file that hangs is killed
// with its process group and counts its unfinished cases as failed.
const fileTimeout = 4 * time.Minute

// workers is how many files run at once: most of a file's time is spent
// waiting for the server it starts, and the suite picks its ports so that
// files can run side by side.
const workers = 3

// tap is what one file's run reported.
type tap struct {
	plan    int          // cases planned (1..N); 0 when skipped or not started
	skipped string       // the reason of a skip_all ("no proxy available")
	passed  map[int]bool // cases that passed (parseTAP)
	output  string       // the run's output, for a failure's report
}

func TestNginxSuite(t *testing.T) {
	root := testenv.RepoRoot(t)
	suite := filepath.Join(filepath.Dir(root), "shared", "nginx-tests")
	tiers := []struct{ name, list string }{
		{"Tier A", "TIER_A"},             // what edge claims today
		{"Tier modules", "TIER_MODULES"}, // the modules wave 2 adds
	}
	tierFiles := make([][]string, len(tiers))
	var files []string
	for i, tier := range tiers {
		tierFiles[i] = readTier(t, filepath.Join(suite, tier.list))
		files = append(files, tierFiles[i]...)
	}
	perl := testenv.Binary(t, "perl", "perl")
	for _, mod := range []string{"FCGI", "IO::Socket::SSL", "Net::SSLeay", "Protocol::WebSocket"} {
		if out, err := exec.Command(perl, "-M"+mod, "-e", "1").CombinedOutput(); err != nil {
			t.Fatalf("nginxtests: the Perl module %s is missing (./scripts/deps.sh test installs it): %s", mod, out)
		}
	}
	// The suite's files live in 0700 temporary directories; as root,
	// nginx's workers would run as nobody and answer 403 to everything.
	globals := "TEST_NGINX_GLOBALS=user " + currentUser() + ";"
	// The environment of each server's runs: edge's, then nginx's.
	servers := [][]string{
		{"TEST_NGINX_BINARY=" + testenv.EdgeBinary(t), globals},
		// Debian's nginx loads its dynamic modules, which the suite names
		// in every config it writes, from here.
		{"TEST_NGINX_BINARY=" + testenv.NginxBinary(t), "TEST_NGINX_MODULES=/usr/lib/nginx/modules", globals},
	}

	type job struct {
		srv  int
		file string
	}
	results := make([]map[string]*tap, len(servers))
	for i := range results {
		results[i] = map[string]*tap{}
	}
	jobs := make(chan job)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := runFile(perl, suite, t.TempDir(), servers[j.srv], j.file)
				mu.Lock()
				results[j.srv][j.file] = r
				mu.Unlock()
			}
		}()
	}
	for _, f := range files {
		for i := range servers {
			jobs <- job{i, f}
		}
	}
	close(jobs)
	wg.Wait()

	edge, nginx := results[0], results[1]
	for i, tier := range tiers {
		var report strings.Builder
		fmt.Fprintf(&report, "%-26s %11s %11s  %s\n", "file", "edge", "nginx", "edge skipped because")
		var totalCases, edgeTotal, nginxTotal int
		for _, f := range tierFiles[i] {
			plan := max(edge[f].plan, nginx[f].plan, sourcePlan(filepath.Join(suite, f)))
			totalCases += plan
			edgeTotal += len(edge[f].passed)
			nginxTotal += len(nginx[f].passed)
			fmt.Fprintf(&report, "%-26s %5d/%-5d %5d/%-5d  %s\n", f, len(edge[f].passed), plan, len(nginx[f].passed), plan, edge[f].skipped)
		}
		t.Logf("nginx's test suite, %s (%s):\n%s", tier.name, tier.list, report.String())
		t.Logf("NGINX-TESTS %s: edge passes %d of %d cases in %d files, Debian's nginx %d", tier.name, edgeTotal, totalCases, len(tierFiles[i]), nginxTotal)
	}

	baselinePath := filepath.Join("testdata", "edge-pass.txt")
	if os.Getenv("EDGE_NGINX_TESTS_UPDATE") == "1" {
		writeBaseline(t, baselinePath, edge)
		return
	}
	baseline := readBaseline(t, baselinePath)
	var lost, gained []string
	for _, c := range baseline {
		if r := edge[c.file]; r == nil || !r.passed[c.n] {
			lost = append(lost, c.String())
		}
	}
	known := map[caseID]bool{}
	for _, c := range baseline {
		known[c] = true
	}
	for _, f := range files {
		for n := range edge[f].passed {
			if !known[caseID{f, n}] {
				gained = append(gained, caseID{f, n}.String())
			}
		}
	}
	slices.Sort(gained)
	if len(gained) > 0 {
		t.Logf("cases edge passes that %s does not list yet (EDGE_NGINX_TESTS_UPDATE=1 adds them): %s", baselinePath, strings.Join(gained, ", "))
	}
	if len(lost) > 0 {
		for _, c := range lost {
			f := strings.Fields(c)[0]
			t.Logf("%s, edge's run:\n%s", f, edge[f].output)
		}
		t.Errorf("edge no longer passes %d case(s) it passed before: %s", len(lost), strings.Join(lost, ", "))
	}
}

// readTier reads a list of test files, one per line.
func readTier(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("nginxtests: nginx's test suite is expected beside the repository, in ../shared/nginx-tests: %v", err)
	}
	var files []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			files = append(files, line)
		}
	}
	if len(files) == 0 {
		t.Fatalf("nginxtests: %s lists no files", path)
	}
	return files
}

// runFile runs one test file of the suite with env and parses its TAP.
func runFile(perl, suite, tmp string, env []string, file string) *tap {
	ctx, cancel := context.WithTimeout(context.Background(), fileTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, perl, file)
	cmd.Dir = suite
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r := parseTAP(out.Bytes())
	if ctx.Err() != nil {
		r.output += fmt.Sprintf("\n(killed after %v)", fileTimeout)
	} else if err != nil && r.plan == 0 && r.skipped == "" {
		r.output += "\n(" + err.Error() + ")"
	}
	return r
}

var (
	planLine = regexp.MustCompile(`^1\.\.(\d+)(?:\s*#\s*(?i:skip)\S*\s*(.*))?$`)
	okLine   = regexp.MustCompile(`^(not )?ok (\d+)\b(.*)$`)
	skipDir  = regexp.MustCompile(`#\s*(?i:skip)`)
	todoDir  = regexp.MustCompile(`#\s*(?i:todo)`)
)

// currentUser is the name of the user the test runs as.
func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "root"
}

// parseTAP reads the top-level TAP lines of a run. A case passes as TAP
// and prove count it: it printed "ok N", or "not ok N # TODO" (a case the
// suite expects to fail for the version the server reports, nginx
// 1.22.1 for both); a skipped case does not pass.
func parseTAP(out []byte) *tap {
	r := &tap{passed: map[int]bool{}, output: string(out)}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := planLine.FindStringSubmatch(line); m != nil {
			r.plan, _ = strconv.Atoi(m[1])
			if r.plan == 0 {
				r.skipped = strings.TrimSpace(m[2])
			}
			continue
		}
		m := okLine.FindStringSubmatch(line)
		if m == nil || skipDir.MatchString(m[3]) {
			continue
		}
		if m[1] == "" || todoDir.MatchString(m[3]) {
			n, _ := strconv.Atoi(m[2])
			r.passed[n] = true
		}
	}
	return r
}

var sourcePlanRE = regexp.MustCompile(`->plan\((\d+)\)`)

// sourcePlan is the count of cases a file plans, read from its source: a
// file that skips itself before planning prints none.
func sourcePlan(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	if m := sourcePlanRE.FindSubmatch(data); m != nil {
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	return 0
}

// caseID names one case of the suite: its file and number.
type caseID struct {
	file string
	n    int
}

func (c caseID) String() string { return c.file + " " + strconv.Itoa(c.n) }

// readBaseline reads the cases edge passed before, "file N" per line.
func readBaseline(t *testing.T, path string) []caseID {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("nginxtests: %v", err)
	}
	var out []caseID
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f, num, ok := strings.Cut(line, " ")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			t.Fatalf("nginxtests: %s:%d: want \"file.t N\", got %q", path, i+1, line)
		}
		out = append(out, caseID{f, n})
	}
	return out
}

// writeBaseline records the cases edge passed in this run.
func writeBaseline(t *testing.T, path string, edge map[string]*tap) {
	t.Helper()
	var ids []caseID
	for f, r := range edge {
		for n := range r.passed {
			ids = append(ids, caseID{f, n})
		}
	}
	slices.SortFunc(ids, func(a, b caseID) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.n - b.n
	})
	var b strings.Builder
	b.WriteString("# Cases of nginx's test suite (../shared/nginx-tests, TIER_A and\n# TIER_MODULES) that edge\n")
	b.WriteString("# passes: a case listed here that fails fails TestNginxSuite.\n")
	b.WriteString("# Rewritten by EDGE_NGINX_TESTS_UPDATE=1 go test ./testenv/nginxtests.\n")
	for _, id := range ids {
		b.WriteString(id.String() + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatalf("nginxtests: %v", err)
	}
	t.Logf("wrote %d cases to %s", len(ids), path)
}
