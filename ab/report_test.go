// This file tests the report files: the HTML is self-contained (no
// script, no outside resource), headless Chromium renders it with every
// chart in the DOM, and the CSV and text tables carry every run.

package ab

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"edge/testenv"
)

// sampleReport is a report with two timed scenarios (one a ramp), one
// that was not timed and one whose responses differed.
func sampleReport() *Report {
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	ms := time.Millisecond
	timed := func(s Scenario, edgeRPS, nginxRPS float64) *ScenarioResult {
		r := &ScenarioResult{Scenario: s}
		for round := 1; round <= 2; round++ {
			r.Runs = append(r.Runs,
				Measurement{Scenario: s.Name, Round: round, Side: SideEdge, CPU: time.Second,
					ToolResult: ToolResult{Requests: int64(edgeRPS), RPS: edgeRPS, P50: ms, P99: 4 * ms}},
				Measurement{Scenario: s.Name, Round: round, Side: SideNginx, CPU: time.Second,
					ToolResult: ToolResult{Requests: int64(nginxRPS), RPS: nginxRPS, P50: 2 * ms, P99: 3 * ms, Errors: 1, ErrorDetail: "non-2xx/3xx 1"}})
		}
		return r
	}
	cat := Catalog()
	find := func(name string) Scenario {
		for _, s := range cat {
			if s.Name == name {
				return s
			}
		}
		panic(name)
	}
	static := timed(find("static-1k"), 12000, 10000)
	ramp := timed(find("ramp"), 800, 900)
	for i := range ramp.Runs {
		for s := range 10 {
			ramp.Runs[i].Ramp = append(ramp.Runs[i].Ramp, RampPoint{Second: s, Users: 1 + s*25,
				Hits: int64(100 * s), Errors: int64(s / 5), Timeouts: int64(s / 8)})
		}
	}
	skipped := &ScenarioResult{Scenario: find("cps-rsa"), Skipped: "the configuration has no server with an RSA certificate"}
	differ := &ScenarioResult{Scenario: find("php-hello"), Skipped: "edge and nginx answered differently",
		Differences: []string{`Content-Type: edge ["text/plain"], nginx ["text/html"]`}}
	for _, r := range []*ScenarioResult{static, ramp, skipped, differ} {
		r.finish()
	}
	return &Report{Started: start, Finished: start.Add(95 * time.Second), Config: "built-in site",
		EdgeVersion: "edge/0.1.0", NginxVersion: "nginx/1.22.1", Host: "test", CPUs: 2, Rounds: 2,
		Duration: 10 * time.Second, RampDuration: 10 * time.Second, RampUsers: 250,
		Rows:  []*Row{{ServerCPUs: CPUSet{0}, ClientCPUs: CPUSet{1}, Results: []*ScenarioResult{static, ramp, skipped, differ}}},
		Notes: []string{"a note <with> markup"}}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	rep := sampleReport()
	if err := writeFiles(rep, dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"report.html", "rounds.csv", "summary.csv", "ramp.csv", "summary.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil || rep.Files[name] == "" {
			t.Errorf("%s: %v (recorded as %q)", name, err, rep.Files[name])
		}
	}
	rows := readCSV(t, filepath.Join(dir, "rounds.csv"))
	if len(rows) != 1+8 {
		t.Errorf("rounds.csv has %d lines, want a header and 8 runs", len(rows))
	}
	summary := readCSV(t, filepath.Join(dir, "summary.csv"))
	if len(summary) != 1+4 || summary[1][1] != "static-1k" || summary[1][11] != "1.200" {
		t.Errorf("summary.csv:\n%v", summary)
	}
	if ramp := readCSV(t, filepath.Join(dir, "ramp.csv")); len(ramp) != 1+4*10 {
		t.Errorf("ramp.csv has %d lines, want 41", len(ramp))
	}
	text, _ := os.ReadFile(filepath.Join(dir, "summary.txt"))
	for _, want := range []string{"static-1k", "1.20x", "not timed", "answered differently", "Content-Type: edge"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("summary.txt lacks %q:\n%s", want, text)
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

func TestHTMLIsSelfContained(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "link", "img", "iframe", "object", "embed":
				t.Errorf("the report has a <%s> element", n.Data)
			}
			for _, a := range n.Attr {
				if a.Key == "src" || a.Key == "href" || strings.HasPrefix(a.Key, "on") {
					t.Errorf("<%s %s=%q> reaches outside the page", n.Data, a.Key, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
	if strings.Contains(buf.String(), "<with>") {
		t.Error("a note's markup was not escaped")
	}
}

// TestReportRendersInChromium loads the report in headless Chromium with
// the network features off and checks, in the DOM Chromium built, that
// every chart is an SVG with its shapes.
func TestReportRendersInChromium(t *testing.T) {
	bin := testenv.Binary(t, "chromium", "chromium", "chromium-browser")
	dir := t.TempDir()
	rep := sampleReport()
	if err := writeFiles(rep, dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "chromium"), "--dump-dom", "file://"+rep.Files["html"])
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(stderr.String(), 2000))
	}
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	charts := map[string]map[string]int{} // svg id -> element name -> count
	var visit func(n *html.Node, svg string)
	visit = func(n *html.Node, svg string) {
		if n.Type == html.ElementNode {
			if n.Data == "svg" {
				svg = attr(n, "id")
				charts[svg] = map[string]int{}
			} else if svg != "" {
				charts[svg][n.Data]++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c, svg)
		}
	}
	visit(doc, "")
	want := map[string][]string{
		"chart-ratio":   {"rect", "line", "text"},
		"chart-latency": {"rect", "line", "text"},
		"chart-ramp-1":  {"polyline", "line", "text"},
	}
	for id, kinds := range want {
		got, ok := charts[id]
		if !ok {
			t.Errorf("no <svg id=%q> in the rendered DOM (charts: %v)", id, charts)
			continue
		}
		for _, k := range kinds {
			if got[k] == 0 {
				t.Errorf("chart %s has no <%s>: %v", id, k, got)
			}
		}
	}
	// One bar per server and ratio kind: 2 timed scenarios x 2 ratios,
	// plus the 3 legend squares.
	if n := charts["chart-ratio"]["rect"]; n != 2*2+3 {
		t.Errorf("ratio chart has %d rects, want 7", n)
	}
	// Hits, errors, timeouts per run (4 runs) and the users line.
	if n := charts["chart-ramp-1"]["polyline"]; n != 4*3+1 {
		t.Errorf("ramp chart has %d polylines, want 13", n)
	}
	if !bytes.Contains(out, []byte("meets the goal")) && !bytes.Contains(out, []byte("short:")) {
		t.Error("the verdict table did not render")
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
