// This file sets a scenario against its baseline on the same server
// (Scenario.Baseline): what a gzip HIT costs next to an identity HIT, how
// much faster the cached page is than the uncached one (issue 16's
// goals). The edge/nginx ratios say how the servers compare; these say
// how each server treats two workloads.

package ab

import (
	"fmt"
	"io"
)

// Comparison is one scenario against its baseline in one CPU row.
type Comparison struct {
	Scenario, Baseline string
	CPUs               CPUSet
	// Edge and Nginx are the scenario's figures over the baseline's on
	// that server.
	Edge, Nginx BaselineRatios
}

// BaselineRatios are scenario/baseline ratios of one server's medians.
type BaselineRatios struct {
	// RPS is requests per second; PerCPU requests per CPU-second of the
	// server; PerTotalCPU requests per CPU-second of the server and
	// php-fpm together (the whole cost of a request that reaches PHP).
	RPS, PerCPU, PerTotalCPU float64
}

// CostRatio is what one request of the scenario costs the server in CPU
// next to one of the baseline (1.2 means 20% more).
func (b BaselineRatios) CostRatio() float64 { return ratio(1, b.PerCPU) }

// comparisons lists every timed scenario whose baseline was timed in the
// same row.
func comparisons(rows []*Row) []Comparison {
	var out []Comparison
	for _, row := range rows {
		byName := map[string]*ScenarioResult{}
		for _, res := range row.Results {
			byName[res.Scenario.Name] = res
		}
		for _, res := range row.Results {
			base := byName[res.Scenario.Baseline]
			if res.Scenario.Baseline == "" || base == nil || !res.Timed() || !base.Timed() {
				continue
			}
			out = append(out, Comparison{Scenario: res.Scenario.Name, Baseline: base.Scenario.Name, CPUs: row.ServerCPUs,
				Edge: baselineRatios(res.Edge, base.Edge), Nginx: baselineRatios(res.Nginx, base.Nginx)})
		}
	}
	return out
}

func baselineRatios(s, base SideSummary) BaselineRatios {
	return BaselineRatios{RPS: ratio(s.RPS, base.RPS), PerCPU: ratio(s.PerCPU, base.PerCPU),
		PerTotalCPU: ratio(s.PerTotalCPU, base.PerTotalCPU)}
}

// String is the comparison as the table and the report print it.
func (c Comparison) String() string {
	side := func(name string, b BaselineRatios) string {
		return fmt.Sprintf("%s req/s %s, req/CPU-s %s (a request costs %s the CPU), req per server+php-fpm CPU-s %s",
			name, formatRatio(b.RPS), formatRatio(b.PerCPU), formatRatio(b.CostRatio()), formatRatio(b.PerTotalCPU))
	}
	return fmt.Sprintf("%s against %s (server CPUs %s): %s; %s", c.Scenario, c.Baseline, c.CPUs,
		side("edge", c.Edge), side("nginx", c.Nginx))
}

// writeComparisons writes the comparisons for the terminal table.
func writeComparisons(w io.Writer, list []Comparison) {
	if len(list) == 0 {
		return
	}
	fmt.Fprintf(w, "\nagainst the baseline scenario, on the same server:\n")
	for _, c := range list {
		fmt.Fprintf(w, "    %s\n", c)
	}
}
