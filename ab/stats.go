// This file turns timed runs into the report's figures: per server the
// median over rounds of requests/s, requests per CPU-second and latency
// percentiles, errors summed (never averaged away), the edge/nginx ratio
// of each round, and the verdict against the scenario's goal.

package ab

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Side names one of the two servers.
type Side string

const (
	SideEdge  Side = "edge"
	SideNginx Side = "nginx"
)

// Measurement is one timed run of one server.
type Measurement struct {
	Scenario string
	Round    int // from 1
	Side     Side
	// First is true when this server ran first in its round (rounds
	// alternate the order).
	First bool
	ToolResult
	// CPU is the CPU time the server (master and workers) used during the
	// run, SysCPU the kernel's part of it; FPMCPU what php-fpm used.
	CPU    time.Duration
	SysCPU time.Duration
	FPMCPU time.Duration
	// Steal is the hypervisor's steal time on the server CPUs (ServerCPUs
	// of them) over StealOver, the run's wall time (the tool's start
	// included): a virtual machine's host running other work there, which
	// makes the round's figures less comparable.
	Steal, StealOver time.Duration
	ServerCPUs       int
	// Err is set when the run itself failed; its figures are then zero.
	Err string
	// Ramp is the per-second record of a ramp.
	Ramp []RampPoint
	// ErrorSamples are messages of failed requests (edge ab's own client).
	ErrorSamples []string
}

// PerCPU is requests per CPU-second of the server: the fairest figure
// when other work shares the machine.
func (m Measurement) PerCPU() float64 {
	if m.CPU <= 0 {
		return 0
	}
	return float64(m.Requests) / m.CPU.Seconds()
}

// CostPerRequest is the server's CPU time per request, split into the
// time in its own code (user) and in the kernel on its behalf (sys):
// where a ratio comes from. Both are 0 without requests.
func (m Measurement) CostPerRequest() (user, sys time.Duration) {
	if m.Requests <= 0 {
		return 0, 0
	}
	return (m.CPU - m.SysCPU) / time.Duration(m.Requests), m.SysCPU / time.Duration(m.Requests)
}

// StealShare is Steal as a share of the server CPUs' time over the run.
func (m Measurement) StealShare() float64 {
	if m.StealOver <= 0 || m.ServerCPUs <= 0 {
		return 0
	}
	return m.Steal.Seconds() / (m.StealOver.Seconds() * float64(m.ServerCPUs))
}

// stealNotable is the steal share above which the report names a run:
// 2% of the server CPUs' time taken by the host.
const stealNotable = 0.02

// stolenRuns counts the runs whose steal share is above stealNotable,
// and gives the highest share.
func stolenRuns(runs []Measurement) (n int, most float64) {
	for _, m := range runs {
		s := m.StealShare()
		most = max(most, s)
		if s > stealNotable {
			n++
		}
	}
	return n, most
}

// SideSummary is one server's figures over all rounds.
type SideSummary struct {
	// RPS, PerCPU, P50, P99 and CPU are medians over the rounds.
	RPS    float64
	PerCPU float64
	// PerTotalCPU is requests per CPU-second of the server and php-fpm
	// together.
	PerTotalCPU float64
	P50         time.Duration
	P99         time.Duration
	CPU         time.Duration
	FPMCPU      time.Duration
	// UserPerRequest and SysPerRequest are the medians of the rounds'
	// CostPerRequest.
	UserPerRequest, SysPerRequest time.Duration
	// Errors and Timeouts are summed over the rounds.
	Errors   int64
	Timeouts int64
	// Requests is summed over the rounds.
	Requests int64
	// Failed counts runs that did not complete.
	Failed int
	// ErrorDetail is the first run's error description.
	ErrorDetail string
}

// summarize computes one server's figures from its runs.
func summarize(runs []Measurement) SideSummary {
	var s SideSummary
	var rps, perCPU, perTotal []float64
	var p50, p99, cpu, fpm, user, sys []time.Duration
	for _, m := range runs {
		if m.Err != "" {
			s.Failed++
			if s.ErrorDetail == "" {
				s.ErrorDetail = m.Err
			}
			continue
		}
		rps = append(rps, m.RPS)
		perCPU = append(perCPU, m.PerCPU())
		if total := m.CPU + m.FPMCPU; total > 0 {
			perTotal = append(perTotal, float64(m.Requests)/total.Seconds())
		}
		p50 = append(p50, m.P50)
		p99 = append(p99, m.P99)
		cpu = append(cpu, m.CPU)
		fpm = append(fpm, m.FPMCPU)
		u, k := m.CostPerRequest()
		user, sys = append(user, u), append(sys, k)
		s.Errors += m.Errors
		s.Timeouts += m.Timeouts
		s.Requests += m.Requests
		if s.ErrorDetail == "" && m.ErrorDetail != "" {
			s.ErrorDetail = m.ErrorDetail
		}
	}
	s.RPS, s.PerCPU, s.PerTotalCPU = median(rps), median(perCPU), median(perTotal)
	s.P50, s.P99 = medianDuration(p50), medianDuration(p99)
	s.CPU, s.FPMCPU = medianDuration(cpu), medianDuration(fpm)
	s.UserPerRequest, s.SysPerRequest = medianDuration(user), medianDuration(sys)
	return s
}

// median of values (the mean of the middle two for an even count); 0 for
// none.
func median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	v := slices.Clone(values)
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func medianDuration(values []time.Duration) time.Duration {
	f := make([]float64, len(values))
	for i, v := range values {
		f[i] = float64(v)
	}
	return time.Duration(median(f))
}

// ratio is a/b, NaN when b is zero (shown as "-").
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// roundRatios pairs each round's edge run with nginx's and returns
// edge/nginx for the value f picks; a round where either failed is NaN.
func roundRatios(runs []Measurement, f func(Measurement) float64) []float64 {
	byRound := map[int]map[Side]Measurement{}
	maxRound := 0
	for _, m := range runs {
		if byRound[m.Round] == nil {
			byRound[m.Round] = map[Side]Measurement{}
		}
		byRound[m.Round][m.Side] = m
		maxRound = max(maxRound, m.Round)
	}
	var out []float64
	for r := 1; r <= maxRound; r++ {
		e, okE := byRound[r][SideEdge]
		n, okN := byRound[r][SideNginx]
		if !okE || !okN || e.Err != "" || n.Err != "" {
			out = append(out, math.NaN())
			continue
		}
		out = append(out, ratio(f(e), f(n)))
	}
	return out
}

// ScenarioResult is everything the report says about one scenario in one
// CPU row.
type ScenarioResult struct {
	Scenario Scenario
	// Differences lists how the servers' answers differed; the scenario
	// is not timed when there are any.
	Differences []string
	// Skipped says why the scenario was not timed ("" when it was).
	Skipped string
	Runs    []Measurement
	Edge    SideSummary
	Nginx   SideSummary
	// RPSRatios and PerCPURatios are edge/nginx per round.
	RPSRatios    []float64
	PerCPURatios []float64
	// RPSRatio, PerCPURatio, P50Ratio and P99Ratio are edge/nginx of the
	// medians (latency: lower is better, so < 1 favours edge).
	RPSRatio, PerCPURatio, P50Ratio, P99Ratio float64
	// Verdict compares the result with the scenario's goal.
	Verdict string
	// Meets is true when every part of the goal holds.
	Meets bool
}

// Timed reports whether the scenario has figures.
func (r *ScenarioResult) Timed() bool { return r.Skipped == "" && len(r.Runs) > 0 }

// finish computes the summaries, ratios and verdict from r.Runs.
func (r *ScenarioResult) finish() {
	var edge, nginx []Measurement
	for _, m := range r.Runs {
		if m.Side == SideEdge {
			edge = append(edge, m)
		} else {
			nginx = append(nginx, m)
		}
	}
	r.Edge, r.Nginx = summarize(edge), summarize(nginx)
	r.RPSRatios = roundRatios(r.Runs, func(m Measurement) float64 { return m.RPS })
	r.PerCPURatios = roundRatios(r.Runs, func(m Measurement) float64 { return m.PerCPU() })
	r.RPSRatio = ratio(r.Edge.RPS, r.Nginx.RPS)
	r.PerCPURatio = ratio(r.Edge.PerCPU, r.Nginx.PerCPU)
	r.P50Ratio = ratio(float64(r.Edge.P50), float64(r.Nginx.P50))
	r.P99Ratio = ratio(float64(r.Edge.P99), float64(r.Nginx.P99))
	r.Verdict, r.Meets = verdict(r)
}

// verdict holds the result to the goals of the issue: requests per
// CPU-second at least nginx's (static, PHP, TLS handshakes), p99 latency
// no higher than nginx's, and under the ramp no errors where nginx has
// none. Every shortfall is named.
func verdict(r *ScenarioResult) (string, bool) {
	if !r.Timed() {
		return "not timed", false
	}
	if r.Edge.Failed > 0 || r.Nginx.Failed > 0 {
		return fmt.Sprintf("runs failed (edge %d, nginx %d)", r.Edge.Failed, r.Nginx.Failed), false
	}
	var short []string
	if r.Scenario.Goal == GoalPerCPU && !(r.PerCPURatio >= 1) {
		short = append(short, fmt.Sprintf("req/CPU-s %s", formatRatio(r.PerCPURatio)))
	}
	if r.Edge.P99 > r.Nginx.P99 && r.Nginx.P99 > 0 {
		short = append(short, fmt.Sprintf("p99 %s", formatRatio(r.P99Ratio)))
	}
	if r.Edge.Errors > 0 && r.Edge.Errors > r.Nginx.Errors {
		short = append(short, fmt.Sprintf("%d errors (nginx %d)", r.Edge.Errors, r.Nginx.Errors))
	}
	if len(short) == 0 {
		return "meets the goal", true
	}
	return "short: " + strings.Join(short, ", "), false
}

// formatRatio writes a ratio as "1.23x", or "-" when undefined.
func formatRatio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", v)
}

// formatRatios writes per-round ratios "1.02/0.98/1.10".
func formatRatios(vs []float64) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, strings.TrimSuffix(formatRatio(v), "x"))
	}
	return strings.Join(parts, "/")
}
