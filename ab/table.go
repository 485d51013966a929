// This file writes the report as a table for the terminal: one line per
// scenario and CPU row with both servers' medians, the edge/nginx ratios
// (with each round's), latency, errors and the verdict; then the
// differences found by the identical-response check.

package ab

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes rep as an aligned text table.
func WriteTable(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "edge ab: %s; %s vs %s; %d round(s) of %v per server", rep.Config,
		rep.EdgeVersion, rep.NginxVersion, rep.Rounds, rep.Duration)
	fmt.Fprintf(w, ", ramp %v\n", rep.RampDuration)
	for _, row := range rep.Rows {
		fmt.Fprintf(w, "\nserver CPUs %s (worker_processes/GOMAXPROCS %d), load generator CPUs %s\n",
			row.ServerCPUs, len(row.ServerCPUs), row.ClientCPUs)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "scenario\ttool\tedge req/s\tnginx req/s\tratio\tedge req/CPU-s\tnginx req/CPU-s\tratio\tper round\tp50 edge/nginx\tp99 edge/nginx\tCPU/req user+sys edge/nginx\terrors e/n\t verdict\t")
		for _, res := range row.Results {
			s := res.Scenario
			if !res.Timed() {
				fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\t\t\t\t\t\t\t not timed: %s\t\n", s.Name, s.Tool, res.Skipped)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%s\t%.0f\t%.0f\t%s\t%s\t%s/%s\t%s/%s\t%s/%s\t%d/%d\t %s\t\n",
				s.Name, s.Tool, res.Edge.RPS, res.Nginx.RPS, formatRatio(res.RPSRatio),
				res.Edge.PerCPU, res.Nginx.PerCPU, formatRatio(res.PerCPURatio), formatRatios(res.PerCPURatios),
				fmtLatency(res.Edge.P50), fmtLatency(res.Nginx.P50), fmtLatency(res.Edge.P99), fmtLatency(res.Nginx.P99),
				fmtCostSplit(res.Edge), fmtCostSplit(res.Nginx), res.Edge.Errors, res.Nginx.Errors, res.Verdict)
		}
		tw.Flush()
		for _, res := range row.Results {
			writeProblems(w, res)
		}
	}
	writeComparisons(w, rep.Comparisons)
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(w, "error: %s\n", e)
	}
	if len(rep.Files) > 0 {
		fmt.Fprintf(w, "\nreport: %s\n", rep.Files["html"])
		for _, k := range []string{"rounds.csv", "summary.csv", "ramp.csv"} {
			if p, ok := rep.Files[k]; ok {
				fmt.Fprintf(w, "        %s\n", p)
			}
		}
	}
}

// writeProblems lists a scenario's differences, failed runs and errors.
func writeProblems(w io.Writer, res *ScenarioResult) {
	var lines []string
	lines = append(lines, res.Differences...)
	for _, side := range []struct {
		name string
		s    SideSummary
	}{{"edge", res.Edge}, {"nginx", res.Nginx}} {
		if side.s.ErrorDetail != "" {
			lines = append(lines, fmt.Sprintf("%s: %s", side.name, side.s.ErrorDetail))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n", res.Scenario.Name)
	for _, l := range lines {
		fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(l, "\n", "\n    "))
	}
}
