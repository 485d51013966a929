// This file writes the report's CSV files: rounds.csv holds every timed
// run (the raw material for any other analysis), summary.csv the medians
// and ratios per scenario, ramp.csv the ramp's per-second record.

package ab

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

func fmtFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func fmtMillis(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}

func fmtMicros(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 2, 64)
}

// writeRoundsCSV writes one line per timed run.
func writeRoundsCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"server_cpus", "client_cpus", "scenario", "tool", "round", "server", "first_in_round",
		"requests", "seconds", "req_per_s", "cpu_s", "sys_cpu_s", "req_per_cpu_s", "fpm_cpu_s", "steal_share", "p50_ms", "p99_ms",
		"errors", "timeouts", "error_detail", "failed"})
	for _, row := range rep.Rows {
		for _, res := range row.Results {
			for _, m := range res.Runs {
				_ = cw.Write([]string{row.ServerCPUs.String(), row.ClientCPUs.String(), m.Scenario,
					string(res.Scenario.Tool), strconv.Itoa(m.Round), string(m.Side), strconv.FormatBool(m.First),
					strconv.FormatInt(m.Requests, 10), fmtFloat(m.Elapsed.Seconds()), fmtFloat(m.RPS),
					fmtFloat(m.CPU.Seconds()), fmtFloat(m.SysCPU.Seconds()), fmtFloat(m.PerCPU()), fmtFloat(m.FPMCPU.Seconds()),
					fmtFloat(m.StealShare()),
					fmtMillis(m.P50), fmtMillis(m.P99), strconv.FormatInt(m.Errors, 10),
					strconv.FormatInt(m.Timeouts, 10), m.ErrorDetail, m.Err})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeSummaryCSV writes one line per scenario and CPU row.
func writeSummaryCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"server_cpus", "scenario", "seed", "tool", "timed", "skipped",
		"edge_req_per_s", "nginx_req_per_s", "req_per_s_ratio",
		"edge_req_per_cpu_s", "nginx_req_per_cpu_s", "req_per_cpu_s_ratio", "req_per_cpu_s_ratio_per_round",
		"edge_p50_ms", "nginx_p50_ms", "edge_p99_ms", "nginx_p99_ms", "p99_ratio",
		"edge_errors", "nginx_errors", "edge_fpm_cpu_s", "nginx_fpm_cpu_s",
		"edge_user_us_per_req", "edge_sys_us_per_req", "nginx_user_us_per_req", "nginx_sys_us_per_req",
		"goal", "verdict", "meets"})
	for _, row := range rep.Rows {
		for _, res := range row.Results {
			s := res.Scenario
			_ = cw.Write([]string{row.ServerCPUs.String(), s.Name, s.Seed, string(s.Tool),
				strconv.FormatBool(res.Timed()), res.Skipped,
				fmtFloat(res.Edge.RPS), fmtFloat(res.Nginx.RPS), fmtFloat(res.RPSRatio),
				fmtFloat(res.Edge.PerCPU), fmtFloat(res.Nginx.PerCPU), fmtFloat(res.PerCPURatio),
				formatRatios(res.PerCPURatios),
				fmtMillis(res.Edge.P50), fmtMillis(res.Nginx.P50), fmtMillis(res.Edge.P99), fmtMillis(res.Nginx.P99),
				fmtFloat(res.P99Ratio), strconv.FormatInt(res.Edge.Errors, 10), strconv.FormatInt(res.Nginx.Errors, 10),
				fmtFloat(res.Edge.FPMCPU.Seconds()), fmtFloat(res.Nginx.FPMCPU.Seconds()),
				fmtMicros(res.Edge.UserPerRequest), fmtMicros(res.Edge.SysPerRequest),
				fmtMicros(res.Nginx.UserPerRequest), fmtMicros(res.Nginx.SysPerRequest),
				string(s.Goal), res.Verdict, strconv.FormatBool(res.Meets)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeRampCSV writes the per-second record of every ramp run; it
// reports whether there was any.
func writeRampCSV(w io.Writer, rep *Report) (bool, error) {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"server_cpus", "scenario", "round", "server", "second", "users", "hits", "errors", "timeouts"})
	any := false
	for _, row := range rep.Rows {
		for _, res := range row.Results {
			for _, m := range res.Runs {
				for _, p := range m.Ramp {
					any = true
					_ = cw.Write([]string{row.ServerCPUs.String(), m.Scenario, strconv.Itoa(m.Round), string(m.Side),
						strconv.Itoa(p.Second), strconv.Itoa(p.Users), strconv.FormatInt(p.Hits, 10),
						strconv.FormatInt(p.Errors, 10), strconv.FormatInt(p.Timeouts, 10)})
				}
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return any, fmt.Errorf("ab: ramp.csv: %w", err)
	}
	return any, nil
}
