// This file tests medians, per-round ratios, summaries and verdicts, and
// scenario selection.

package ab

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	in := []float64{3, 1, 2}
	median(in)
	if !slices.Equal(in, []float64{3, 1, 2}) {
		t.Errorf("median sorted its argument: %v", in)
	}
}

// run is a Measurement with the fields the statistics read.
func run(round int, side Side, rps float64, requests int64, cpu time.Duration, p99 time.Duration, errors int64) Measurement {
	return Measurement{Round: round, Side: side, CPU: cpu,
		ToolResult: ToolResult{RPS: rps, Requests: requests, P99: p99, Errors: errors}}
}

func TestScenarioResultFinish(t *testing.T) {
	res := &ScenarioResult{Scenario: Scenario{Name: "s", Goal: GoalPerCPU}, Runs: []Measurement{
		run(1, SideEdge, 100, 1000, time.Second, 2*time.Millisecond, 0),
		run(1, SideNginx, 50, 500, time.Second, 3*time.Millisecond, 0),
		run(2, SideNginx, 100, 1000, 2*time.Second, 3*time.Millisecond, 0),
		run(2, SideEdge, 100, 1000, 4*time.Second, 2*time.Millisecond, 0),
		run(3, SideEdge, 300, 3000, time.Second, 2*time.Millisecond, 0),
		run(3, SideNginx, 100, 1000, time.Second, 3*time.Millisecond, 0),
	}}
	res.finish()
	if res.Edge.RPS != 100 || res.Nginx.RPS != 100 {
		t.Errorf("median req/s edge %v nginx %v, want 100 and 100", res.Edge.RPS, res.Nginx.RPS)
	}
	// Per CPU-second: edge 1000, 250, 3000 -> 1000; nginx 500, 500, 1000 -> 500.
	if res.Edge.PerCPU != 1000 || res.Nginx.PerCPU != 500 || res.PerCPURatio != 2 {
		t.Errorf("per CPU edge %v nginx %v ratio %v", res.Edge.PerCPU, res.Nginx.PerCPU, res.PerCPURatio)
	}
	if want := []float64{2, 1, 3}; !slices.Equal(res.RPSRatios, want) {
		t.Errorf("per-round req/s ratios %v, want %v", res.RPSRatios, want)
	}
	if want := []float64{2, 0.5, 3}; !slices.Equal(res.PerCPURatios, want) {
		t.Errorf("per-round req/CPU-s ratios %v, want %v", res.PerCPURatios, want)
	}
	if !res.Meets || res.Verdict != "meets the goal" {
		t.Errorf("verdict %q (meets %v)", res.Verdict, res.Meets)
	}
}

// TestCostPerRequest: the server's CPU per request is split into its own
// code's and the kernel's, and each side's summary holds the medians.
func TestCostPerRequest(t *testing.T) {
	m := run(1, SideEdge, 100, 1000, 30*time.Millisecond, time.Millisecond, 0)
	m.SysCPU = 20 * time.Millisecond
	if user, sys := m.CostPerRequest(); user != 10*time.Microsecond || sys != 20*time.Microsecond {
		t.Errorf("CostPerRequest = %v, %v; want 10us, 20us", user, sys)
	}
	if user, sys := (Measurement{}).CostPerRequest(); user != 0 || sys != 0 {
		t.Errorf("CostPerRequest without requests = %v, %v", user, sys)
	}
	var runs []Measurement
	for i, sys := range []time.Duration{10, 40, 20} { // ms of 50 ms, 1000 requests
		m := run(i+1, SideEdge, 100, 1000, 50*time.Millisecond, time.Millisecond, 0)
		m.SysCPU = sys * time.Millisecond
		runs = append(runs, m)
	}
	s := summarize(runs)
	if s.UserPerRequest != 30*time.Microsecond || s.SysPerRequest != 20*time.Microsecond {
		t.Errorf("summary user %v sys %v per request, want 30us and 20us", s.UserPerRequest, s.SysPerRequest)
	}
	if got := fmtCostSplit(s); got != "30.0+20.0us" {
		t.Errorf("fmtCostSplit = %q", got)
	}
}

func TestVerdict(t *testing.T) {
	base := func(goal Goal, edgePerCPU, nginxPerCPU float64, edgeP99, nginxP99 time.Duration, edgeErr, nginxErr int64) *ScenarioResult {
		r := &ScenarioResult{Scenario: Scenario{Goal: goal}, Runs: []Measurement{{}},
			Edge:  SideSummary{PerCPU: edgePerCPU, P99: edgeP99, Errors: edgeErr},
			Nginx: SideSummary{PerCPU: nginxPerCPU, P99: nginxP99, Errors: nginxErr}}
		r.PerCPURatio = ratio(edgePerCPU, nginxPerCPU)
		r.P99Ratio = ratio(float64(edgeP99), float64(nginxP99))
		return r
	}
	ms := time.Millisecond
	tests := []struct {
		name  string
		r     *ScenarioResult
		meets bool
		want  string
	}{
		{"meets", base(GoalPerCPU, 110, 100, ms, ms, 0, 0), true, "meets the goal"},
		{"slower", base(GoalPerCPU, 90, 100, ms, ms, 0, 0), false, "short: req/CPU-s 0.90x"},
		{"p99", base(GoalPerCPU, 100, 100, 2*ms, ms, 0, 0), false, "short: p99 2.00x"},
		{"errors", base(GoalPerCPU, 100, 100, ms, ms, 3, 0), false, "short: 3 errors (nginx 0)"},
		{"no cpu figure", base(GoalPerCPU, 100, 0, ms, ms, 0, 0), false, "short: req/CPU-s -"},
		// nginx answered nothing: there is no latency to compare with.
		{"no nginx latency", base(GoalNoErrors, 100, 0, ms, 0, 0, 14), true, "meets the goal"},
		// The ramp is held to errors and latency, not throughput.
		{"ramp slower, no errors", base(GoalNoErrors, 50, 100, ms, ms, 0, 0), true, "meets the goal"},
		{"ramp errors where nginx has some too", base(GoalNoErrors, 50, 100, ms, ms, 5, 9), true, "meets the goal"},
		{"ramp errors", base(GoalNoErrors, 50, 100, ms, ms, 5, 0), false, "short: 5 errors (nginx 0)"},
		{"not timed", &ScenarioResult{Skipped: "x"}, false, "not timed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, meets := verdict(tt.r)
			if got != tt.want || meets != tt.meets {
				t.Errorf("verdict = %q, %v; want %q, %v", got, meets, tt.want, tt.meets)
			}
		})
	}
}

func TestRoundRatiosFailedRound(t *testing.T) {
	runs := []Measurement{run(1, SideEdge, 10, 10, time.Second, 0, 0), run(1, SideNginx, 5, 5, time.Second, 0, 0),
		{Round: 2, Side: SideEdge, Err: "boom"}, run(2, SideNginx, 5, 5, time.Second, 0, 0)}
	got := roundRatios(runs, func(m Measurement) float64 { return m.RPS })
	if len(got) != 2 || got[0] != 2 || !math.IsNaN(got[1]) {
		t.Errorf("ratios %v, want [2 NaN]", got)
	}
	if s := formatRatios(got); s != "2.00/-" {
		t.Errorf("formatRatios = %q", s)
	}
	sum := summarize(runs[2:3])
	if sum.Failed != 1 || sum.ErrorDetail != "boom" {
		t.Errorf("failed run summary %+v", sum)
	}
}

func TestSelect(t *testing.T) {
	names := func(list []Scenario) string {
		var out []string
		for _, s := range list {
			out = append(out, s.Name)
		}
		return strings.Join(out, ",")
	}
	tests := []struct {
		in        []string
		wordpress bool
		want      string
		wantErr   bool
	}{
		{[]string{"static-1k"}, false, "static-1k", false},
		{[]string{"cps", "ab"}, false, "cps-http,cps-ecdsa,cps-rsa,ab-text,ab-php", false},
		// Catalog order, whatever the order asked.
		{[]string{"ramp", "static-0k"}, false, "static-0k,ramp", false},
		{[]string{"wordpress"}, false, "wordpress", false},
		{[]string{"cache"}, false, "php-page,cache-page,cache-page-gzip1,cache-page-gzip6", false},
		{[]string{"wordpress-cache"}, true, "wordpress-gzip,wordpress-cached", false},
		{[]string{"nope"}, false, "", true},
	}
	for _, tt := range tests {
		got, err := Select(tt.in, tt.wordpress)
		if (err != nil) != tt.wantErr || names(got) != tt.want {
			t.Errorf("Select(%q) = %s, %v; want %s", tt.in, names(got), err, tt.want)
		}
	}
	all, _ := Select(nil, false)
	withWP, _ := Select([]string{"all"}, true)
	if strings.Contains(names(all), "wordpress") || !strings.Contains(names(withWP), "wordpress") {
		t.Errorf("wordpress is selected by default only with a docroot: %s / %s", names(all), names(withWP))
	}
	if strings.Contains(names(all), "wordpress-cached") || !strings.Contains(names(withWP), "wordpress-cached") {
		t.Errorf("wordpress-cached is selected by default only with a docroot: %s / %s", names(all), names(withWP))
	}
	if len(all) != len(Catalog())-3 {
		t.Errorf("all selects %d of %d scenarios", len(all), len(Catalog()))
	}
}

func TestRampUsers(t *testing.T) {
	d := 60 * time.Second
	tests := []struct {
		at   time.Duration
		want int
	}{{0, 1}, {30 * time.Second, 125}, {59 * time.Second, 245}, {60 * time.Second, 250}, {90 * time.Second, 250}}
	for _, tt := range tests {
		if got := rampUsers(tt.at, d, 250); got != tt.want {
			t.Errorf("rampUsers(%v) = %d, want %d", tt.at, got, tt.want)
		}
	}
}

// TestComparisons: a scenario is set against its baseline on each server
// when both were timed in the row; CostRatio is the inverse of the
// req/CPU-s ratio.
func TestComparisons(t *testing.T) {
	timed := func(name, baseline string, edgeRPS, nginxRPS float64) *ScenarioResult {
		r := &ScenarioResult{Scenario: Scenario{Name: name, Baseline: baseline}}
		for round := 1; round <= 2; round++ {
			r.Runs = append(r.Runs,
				Measurement{Round: round, Side: SideEdge, CPU: time.Second, FPMCPU: time.Second,
					ToolResult: ToolResult{RPS: edgeRPS, Requests: int64(edgeRPS)}},
				Measurement{Round: round, Side: SideNginx, CPU: time.Second,
					ToolResult: ToolResult{RPS: nginxRPS, Requests: int64(nginxRPS)}})
		}
		r.finish()
		return r
	}
	row := &Row{ServerCPUs: CPUSet{0}, Results: []*ScenarioResult{
		timed("identity", "", 1000, 2000),
		timed("gzip", "identity", 800, 100),
		timed("orphan", "missing", 1, 1),
		{Scenario: Scenario{Name: "skipped", Baseline: "identity"}, Skipped: "no"},
	}}
	got := comparisons([]*Row{row})
	if len(got) != 1 || got[0].Scenario != "gzip" || got[0].Baseline != "identity" {
		t.Fatalf("comparisons %+v", got)
	}
	c := got[0]
	if c.Edge.RPS != 0.8 || c.Edge.PerCPU != 0.8 || c.Edge.CostRatio() != 1.25 || c.Nginx.PerCPU != 0.05 {
		t.Errorf("ratios %+v / %+v", c.Edge, c.Nginx)
	}
	// Edge's runs charged php-fpm a second too: per server+php-fpm CPU
	// the ratio is the same here, since both scenarios had it.
	if c.Edge.PerTotalCPU != 0.8 {
		t.Errorf("per total CPU %v", c.Edge.PerTotalCPU)
	}
	if s := c.String(); !strings.Contains(s, "gzip against identity") || !strings.Contains(s, "costs 1.25x") {
		t.Errorf("text %q", s)
	}
}

// TestStolenRuns: a run's steal share is the host's time taken from the
// server CPUs over the run, and runs above 2% are counted.
func TestStolenRuns(t *testing.T) {
	quiet := Measurement{StealOver: 2 * time.Second, ServerCPUs: 2, Steal: 40 * time.Millisecond}
	busy := Measurement{StealOver: 2 * time.Second, ServerCPUs: 2, Steal: 400 * time.Millisecond}
	if s := quiet.StealShare(); s != 0.01 {
		t.Errorf("steal share %v, want 0.01", s)
	}
	if s := (Measurement{}).StealShare(); s != 0 {
		t.Errorf("steal share of an empty run %v", s)
	}
	if n, most := stolenRuns([]Measurement{quiet, busy, quiet}); n != 1 || most != 0.1 {
		t.Errorf("stolenRuns = %d, %v; want 1, 0.1", n, most)
	}
}
