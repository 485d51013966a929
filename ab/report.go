// This file renders the HTML report (report.html.tmpl, with html/template:
// inline CSS and SVG, no script and no outside resource, so it opens in a
// browser without network access) and writes every report file.

package ab

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

//go:embed report.html.tmpl
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Parse(reportTemplateText))

// reportView is what the template shows.
type reportView struct {
	*Report
	Took     time.Duration
	Lines    []reportLine
	Ratio    *svgChart
	Latency  *svgChart
	Ramps    []*svgChart
	Problems []reportProblem
}

// reportLine is one scenario in one CPU row, formatted.
type reportLine struct {
	Name, CPUs, Goal, Tool string
	MultiRow, Timed        bool
	Skipped, Verdict       string
	Class                  string // "meets" or "short"
	RPSRatio, PerCPURatio  string
	P99Ratio, Errors       string
	EdgeRPS, NginxRPS      string
	EdgePerCPU             string
	NginxPerCPU            string
	Rounds                 string
	EdgeP50, NginxP50      string
	EdgeP99, NginxP99      string
	EdgeCPU, NginxCPU      string
	FPMCPU                 string
	// EdgeCost and NginxCost are the CPU per request, "user+sys".
	EdgeCost, NginxCost string
}

type reportProblem struct {
	Name, Text string
}

func newReportView(rep *Report) *reportView {
	v := &reportView{Report: rep, Took: rep.Finished.Sub(rep.Started).Round(time.Second),
		Ratio: ratioChart(rep), Latency: latencyChart(rep), Ramps: rampCharts(rep)}
	for _, row := range rep.Rows {
		for _, res := range row.Results {
			v.Lines = append(v.Lines, newReportLine(row, res, len(rep.Rows) > 1))
			var b strings.Builder
			writeProblems(&b, res)
			if b.Len() > 0 {
				v.Problems = append(v.Problems, reportProblem{Name: res.Scenario.Name + " (server CPUs " + row.ServerCPUs.String() + ")", Text: b.String()})
			}
		}
	}
	return v
}

func newReportLine(row *Row, res *ScenarioResult, multi bool) reportLine {
	s := res.Scenario
	l := reportLine{Name: s.Name, CPUs: row.ServerCPUs.String(), Goal: string(s.Goal), Tool: string(s.Tool),
		MultiRow: multi, Timed: res.Timed(), Skipped: res.Skipped, Verdict: res.Verdict, Class: "short"}
	if res.Meets {
		l.Class = "meets"
	}
	if !l.Timed {
		return l
	}
	num := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	cpu := func(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }
	l.RPSRatio, l.PerCPURatio, l.P99Ratio = formatRatio(res.RPSRatio), formatRatio(res.PerCPURatio), formatRatio(res.P99Ratio)
	l.Errors = fmt.Sprintf("%d/%d", res.Edge.Errors, res.Nginx.Errors)
	l.EdgeRPS, l.NginxRPS = num(res.Edge.RPS), num(res.Nginx.RPS)
	l.EdgePerCPU, l.NginxPerCPU = num(res.Edge.PerCPU), num(res.Nginx.PerCPU)
	l.Rounds = formatRatios(res.PerCPURatios)
	l.EdgeP50, l.NginxP50 = fmtLatency(res.Edge.P50), fmtLatency(res.Nginx.P50)
	l.EdgeP99, l.NginxP99 = fmtLatency(res.Edge.P99), fmtLatency(res.Nginx.P99)
	l.EdgeCPU, l.NginxCPU = cpu(res.Edge.CPU), cpu(res.Nginx.CPU)
	l.EdgeCost, l.NginxCost = fmtCostSplit(res.Edge), fmtCostSplit(res.Nginx)
	if res.Edge.FPMCPU > 0 || res.Nginx.FPMCPU > 0 {
		l.FPMCPU = cpu(res.Edge.FPMCPU) + "/" + cpu(res.Nginx.FPMCPU)
	}
	return l
}

// WriteHTML renders rep as the self-contained HTML report.
func WriteHTML(w io.Writer, rep *Report) error {
	if err := reportTemplate.Execute(w, newReportView(rep)); err != nil {
		return fmt.Errorf("ab: report: %w", err)
	}
	return nil
}

// writeFiles writes report.html, the CSV files and summary.txt (the
// terminal table) into dir and records their paths in rep.Files.
func writeFiles(rep *Report, dir string) error {
	rep.Files = map[string]string{}
	write := func(name string, render func(io.Writer) error) error {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			return err
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("ab: %w", err)
		}
		rep.Files[name] = path
		return nil
	}
	if err := write("rounds.csv", func(w io.Writer) error { return writeRoundsCSV(w, rep) }); err != nil {
		return err
	}
	if err := write("summary.csv", func(w io.Writer) error { return writeSummaryCSV(w, rep) }); err != nil {
		return err
	}
	var ramp bytes.Buffer
	if any, err := writeRampCSV(&ramp, rep); err != nil {
		return err
	} else if any {
		if err := write("ramp.csv", func(w io.Writer) error { _, err := w.Write(ramp.Bytes()); return err }); err != nil {
			return err
		}
	}
	if err := write("report.html", func(w io.Writer) error { return WriteHTML(w, rep) }); err != nil {
		return err
	}
	rep.Files["html"] = rep.Files["report.html"]
	return write("summary.txt", func(w io.Writer) error { WriteTable(w, rep); return nil })
}
