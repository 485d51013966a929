// This file lays out the report's SVG charts as plain shapes (rectangles,
// lines, polylines, text) with their coordinates computed here, so the
// HTML template only prints them: the edge/nginx ratio bars per scenario,
// the latency percentiles of both servers on a log scale, and the ramp's
// hits, errors and timeouts per second like seed 000's load-test
// screenshots.

package ab

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Chart colours: one per server, and the ratio bars' verdict colours.
const (
	colourEdge    = "#2b6cb0"
	colourEdgeLt  = "#90cdf4"
	colourNginx   = "#2f855a"
	colourNginxLt = "#9ae6b4"
	colourGood    = "#38a169"
	colourShort   = "#e53e3e"
	colourErrors  = "#c53030"
	colourTimeout = "#d69e2e"
	colourAxis    = "#4a5568"
	colourGrid    = "#e2e8f0"
	colourUsers   = "#718096"
)

// svgChart is one chart: its shapes in drawing order.
type svgChart struct {
	ID, Title     string
	Width, Height float64
	Rects         []svgRect
	Lines         []svgLine
	Polylines     []svgPolyline
	Texts         []svgText
}

type svgRect struct {
	X, Y, W, H float64
	Fill       string
	Tip        string // shown on hover
}

type svgLine struct {
	X1, Y1, X2, Y2 float64
	Stroke         string
	Width          float64
	Dash           string
}

type svgPolyline struct {
	Points string
	Stroke string
	Width  float64
	Dash   string
	Tip    string
}

type svgText struct {
	X, Y   float64
	Anchor string // start, middle, end
	Size   float64
	Fill   string
	Text   string
}

func (c *svgChart) text(x, y float64, anchor string, size float64, fill, format string, args ...any) {
	c.Texts = append(c.Texts, svgText{X: x, Y: y, Anchor: anchor, Size: size, Fill: fill, Text: fmt.Sprintf(format, args...)})
}

func (c *svgChart) line(x1, y1, x2, y2 float64, stroke string, width float64, dash string) {
	c.Lines = append(c.Lines, svgLine{x1, y1, x2, y2, stroke, width, dash})
}

// legend draws coloured squares with labels from (x, y).
func (c *svgChart) legend(x, y float64, items [][2]string) {
	for _, it := range items {
		c.Rects = append(c.Rects, svgRect{X: x, Y: y - 9, W: 10, H: 10, Fill: it[0]})
		c.text(x+14, y, "start", 11, colourAxis, "%s", it[1])
		x += 14 + float64(len(it[1]))*6.5 + 16
	}
}

// labelled is a scenario result with the label it gets in a chart.
type labelled struct {
	label string
	res   *ScenarioResult
}

// timedResults lists the timed scenarios of every row, labelled with the
// row's CPUs when there are several rows.
func timedResults(rep *Report) []labelled {
	var out []labelled
	for _, row := range rep.Rows {
		for _, res := range row.Results {
			if !res.Timed() {
				continue
			}
			label := res.Scenario.Name
			if len(rep.Rows) > 1 {
				label += " @" + row.ServerCPUs.String()
			}
			out = append(out, labelled{label, res})
		}
	}
	return out
}

// ratioChart draws, per scenario, edge/nginx of requests/s and of
// requests per CPU-second as horizontal bars around the 1.0x line.
func ratioChart(rep *Report) *svgChart {
	items := timedResults(rep)
	const left, right, top, barH, gap = 150.0, 60.0, 40.0, 9.0, 8.0
	c := &svgChart{ID: "chart-ratio", Title: "edge/nginx ratio per scenario (higher is better)", Width: 760}
	c.Height = top + float64(len(items))*(2*barH+gap) + 30
	maxRatio := 2.0
	for _, it := range items {
		for _, v := range []float64{it.res.RPSRatio, it.res.PerCPURatio} {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				maxRatio = math.Max(maxRatio, math.Ceil(v*2)/2)
			}
		}
	}
	plotW := c.Width - left - right
	x := func(v float64) float64 { return left + plotW*math.Min(v, maxRatio)/maxRatio }
	for v := 0.0; v <= maxRatio+1e-9; v += 0.5 {
		c.line(x(v), top-6, x(v), c.Height-24, colourGrid, 1, "")
		c.text(x(v), c.Height-10, "middle", 10, colourAxis, "%.1fx", v)
	}
	c.legend(left, 16, [][2]string{{colourEdgeLt, "requests/s"}, {colourEdge, "requests per CPU-second"}, {colourShort, "below nginx"}})
	y := top
	for _, it := range items {
		c.text(left-8, y+barH+4, "end", 11, colourAxis, "%s", it.label)
		bars := []struct {
			v            float64
			fill, name   string
			goalRelevant bool
		}{{it.res.RPSRatio, colourEdgeLt, "requests/s", false}, {it.res.PerCPURatio, colourEdge, "requests per CPU-second", true}}
		for _, b := range bars {
			fill := b.fill
			if b.goalRelevant && it.res.Scenario.Goal == GoalPerCPU && !(b.v >= 1) {
				fill = colourShort
			}
			w := 0.0
			if !math.IsNaN(b.v) && !math.IsInf(b.v, 0) {
				w = x(b.v) - left
			}
			c.Rects = append(c.Rects, svgRect{X: left, Y: y, W: w, H: barH, Fill: fill,
				Tip: fmt.Sprintf("%s: %s edge/nginx", b.name, formatRatio(b.v))})
			c.text(left+w+4, y+barH-1, "start", 9, colourAxis, "%s", formatRatio(b.v))
			y += barH
		}
		y += gap
	}
	c.line(x(1), top-6, x(1), c.Height-24, colourAxis, 1.5, "4 3")
	return c
}

// latencyChart draws p50 and p99 of both servers per scenario on a log
// scale.
func latencyChart(rep *Report) *svgChart {
	items := timedResults(rep)
	const left, right, top, barH, gap = 150.0, 70.0, 40.0, 6.0, 8.0
	c := &svgChart{ID: "chart-latency", Title: "latency percentiles, log scale (lower is better)", Width: 760}
	c.Height = top + float64(len(items))*(4*barH+gap) + 30
	lo, hi := math.Log10(10), math.Log10(1e6) // 10 µs .. 1 s, in µs
	for _, it := range items {
		for _, d := range []time.Duration{it.res.Edge.P99, it.res.Nginx.P99} {
			if us := float64(d.Microseconds()); us > 0 {
				hi = math.Max(hi, math.Ceil(math.Log10(us)))
			}
		}
	}
	plotW := c.Width - left - right
	x := func(d time.Duration) float64 {
		us := math.Max(float64(d.Microseconds()), 1)
		v := math.Min(math.Max(math.Log10(us), lo), hi)
		return left + plotW*(v-lo)/(hi-lo)
	}
	for e := lo; e <= hi; e++ {
		d := time.Duration(math.Pow(10, e)) * time.Microsecond
		c.line(x(d), top-6, x(d), c.Height-24, colourGrid, 1, "")
		c.text(x(d), c.Height-10, "middle", 10, colourAxis, "%s", axisLatency(d))
	}
	c.legend(left, 16, [][2]string{{colourEdgeLt, "edge p50"}, {colourNginxLt, "nginx p50"}, {colourEdge, "edge p99"}, {colourNginx, "nginx p99"}})
	y := top
	for _, it := range items {
		c.text(left-8, y+2*barH+4, "end", 11, colourAxis, "%s", it.label)
		bars := []struct {
			d    time.Duration
			fill string
			name string
		}{{it.res.Edge.P50, colourEdgeLt, "edge p50"}, {it.res.Nginx.P50, colourNginxLt, "nginx p50"},
			{it.res.Edge.P99, colourEdge, "edge p99"}, {it.res.Nginx.P99, colourNginx, "nginx p99"}}
		for _, b := range bars {
			w := 0.0
			if b.d > 0 {
				w = x(b.d) - left
			}
			c.Rects = append(c.Rects, svgRect{X: left, Y: y, W: w, H: barH, Fill: b.fill, Tip: b.name + " " + fmtLatency(b.d)})
			y += barH
		}
		c.text(left+math.Max(x(it.res.Edge.P99), x(it.res.Nginx.P99))-left+4, y-barH, "start", 9, colourAxis,
			"p99 %s/%s", fmtLatency(it.res.Edge.P99), fmtLatency(it.res.Nginx.P99))
		y += gap
	}
	return c
}

// rampCharts draws one chart per ramp result: hits per second of every
// round of both servers, errors and timeouts per second, and the users.
func rampCharts(rep *Report) []*svgChart {
	var charts []*svgChart
	for i, it := range timedResults(rep) {
		if it.res.Scenario.Tool != ToolRamp {
			continue
		}
		charts = append(charts, rampChart(fmt.Sprintf("chart-ramp-%d", i), it))
	}
	return charts
}

func rampChart(id string, it labelled) *svgChart {
	const left, right, top, bottom = 60.0, 60.0, 40.0, 40.0
	c := &svgChart{ID: id, Title: "ramp: " + it.label + ", hits, errors and timeouts per second", Width: 760, Height: 320}
	plotW, plotH := c.Width-left-right, c.Height-top-bottom
	seconds, maxHits, maxUsers := 1, 1.0, 1
	for _, m := range it.res.Runs {
		seconds = max(seconds, len(m.Ramp))
		for _, p := range m.Ramp {
			maxHits = math.Max(maxHits, float64(max(p.Hits, p.Errors+p.Timeouts)))
			maxUsers = max(maxUsers, p.Users)
		}
	}
	maxHits = niceCeil(maxHits)
	x := func(s float64) float64 { return left + plotW*s/float64(max(seconds-1, 1)) }
	y := func(v float64) float64 { return top + plotH*(1-v/maxHits) }
	yUsers := func(u int) float64 { return top + plotH*(1-float64(u)/float64(maxUsers)) }
	for i := 0; i <= 4; i++ {
		v := maxHits * float64(i) / 4
		c.line(left, y(v), left+plotW, y(v), colourGrid, 1, "")
		c.text(left-6, y(v)+4, "end", 10, colourAxis, "%.0f", v)
		c.text(left+plotW+6, yUsers(maxUsers*i/4)+4, "start", 10, colourUsers, "%d", maxUsers*i/4)
	}
	step := max(1, seconds/10)
	for s := 0; s < seconds; s += step {
		c.text(x(float64(s)), c.Height-bottom+16, "middle", 10, colourAxis, "%ds", s)
	}
	c.text(left-6, top-12, "end", 10, colourAxis, "hits/s")
	c.text(left+plotW+6, top-12, "start", 10, colourUsers, "users")
	c.legend(left+40, 16, [][2]string{{colourEdge, "edge hits/s"}, {colourNginx, "nginx hits/s"},
		{colourErrors, "errors/s"}, {colourTimeout, "timeouts/s"}, {colourUsers, "users"}})
	var users []string
	usersDone := false
	for _, m := range it.res.Runs {
		stroke := colourEdge
		if m.Side == SideNginx {
			stroke = colourNginx
		}
		var hits, errs, outs []string
		for _, p := range m.Ramp {
			px := x(float64(p.Second))
			hits = append(hits, fmt.Sprintf("%.1f,%.1f", px, y(float64(p.Hits))))
			errs = append(errs, fmt.Sprintf("%.1f,%.1f", px, y(float64(p.Errors))))
			outs = append(outs, fmt.Sprintf("%.1f,%.1f", px, y(float64(p.Timeouts))))
			if !usersDone {
				users = append(users, fmt.Sprintf("%.1f,%.1f", px, yUsers(p.Users)))
			}
		}
		usersDone = usersDone || len(users) > 0
		tip := fmt.Sprintf("%s round %d", m.Side, m.Round)
		c.Polylines = append(c.Polylines,
			svgPolyline{Points: strings.Join(hits, " "), Stroke: stroke, Width: 2, Tip: tip + " hits/s"},
			svgPolyline{Points: strings.Join(errs, " "), Stroke: colourErrors, Width: 1.5, Dash: dashFor(m.Side), Tip: tip + " errors/s"},
			svgPolyline{Points: strings.Join(outs, " "), Stroke: colourTimeout, Width: 1.5, Dash: dashFor(m.Side), Tip: tip + " timeouts/s"})
	}
	c.Polylines = append(c.Polylines, svgPolyline{Points: strings.Join(users, " "), Stroke: colourUsers, Width: 1, Dash: "6 4", Tip: "users"})
	c.line(left, top+plotH, left+plotW, top+plotH, colourAxis, 1, "")
	return c
}

// axisLatency labels a power of ten: 10us, 1ms, 1s.
func axisLatency(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dus", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.0fs", d.Seconds())
}

// dashFor tells the servers' error lines apart: edge solid, nginx dotted.
func dashFor(s Side) string {
	if s == SideNginx {
		return "2 3"
	}
	return ""
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}
