// This file reads what the load generators print: wrk's summary with
// --latency, h2load's summary and its per-request --log-file, and ab's
// report. Each parser turns one run into a ToolResult; the test table in
// parse_test.go holds outputs captured from the Debian packages.

package ab

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ToolResult is one load generator run against one server.
type ToolResult struct {
	// Requests counts completed responses, whatever their status.
	Requests int64
	// Elapsed is the run's length as the tool measured it.
	Elapsed time.Duration
	// RPS is the tool's own requests per second.
	RPS float64
	// P50 and P99 are latency percentiles (0 when the tool gave none).
	P50, P99 time.Duration
	// Errors counts every request that did not get a 2xx or 3xx answer:
	// other statuses, connect/read/write errors and timeouts.
	Errors int64
	// Timeouts is the part of Errors that timed out.
	Timeouts int64
	// ErrorDetail says where Errors came from ("" when there were none).
	ErrorDetail string
}

var (
	wrkRequestsRE = regexp.MustCompile(`(\d+) requests in ([\d.]+)(us|ms|s|m|h),`)
	wrkRPSRE      = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	wrkPctRE      = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([\d.]+)(us|ms|s|m|h)\s*$`)
	wrkSocketRE   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xxRE   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
)

// parseWrk reads `wrk --latency` output.
func parseWrk(out string) (ToolResult, error) {
	var r ToolResult
	m := wrkRequestsRE.FindStringSubmatch(out)
	rps := wrkRPSRE.FindStringSubmatch(out)
	if m == nil || rps == nil {
		return r, fmt.Errorf("ab: wrk printed no summary:\n%s", tail(out, 800))
	}
	r.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	r.Elapsed = wrkDuration(m[2], m[3])
	r.RPS, _ = strconv.ParseFloat(rps[1], 64)
	for _, p := range wrkPctRE.FindAllStringSubmatch(out, -1) {
		d := wrkDuration(p[2], p[3])
		if p[1] == "50" {
			r.P50 = d
		} else {
			r.P99 = d
		}
	}
	var detail []string
	if s := wrkSocketRE.FindStringSubmatch(out); s != nil {
		for i, name := range []string{"connect", "read", "write", "timeout"} {
			n, _ := strconv.ParseInt(s[i+1], 10, 64)
			if n == 0 {
				continue
			}
			r.Errors += n
			if name == "timeout" {
				r.Timeouts = n
			}
			detail = append(detail, fmt.Sprintf("%s %d", name, n))
		}
	}
	if s := wrkNon2xxRE.FindStringSubmatch(out); s != nil {
		n, _ := strconv.ParseInt(s[1], 10, 64)
		r.Errors += n
		detail = append(detail, fmt.Sprintf("non-2xx/3xx %d", n))
	}
	r.ErrorDetail = strings.Join(detail, ", ")
	return r, nil
}

// wrkDuration reads a number with one of wrk's time units.
func wrkDuration(num, unit string) time.Duration {
	f, _ := strconv.ParseFloat(num, 64)
	scale := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	return time.Duration(f * float64(scale))
}

var (
	h2FinishedRE = regexp.MustCompile(`finished in ([\d.]+)(us|ms|s|m|h), ([\d.]+) req/s`)
	h2RequestsRE = regexp.MustCompile(`requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
	h2StatusRE   = regexp.MustCompile(`status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx`)
)

// h2Cutoff is how close to the last completion a failed request must end
// to count as cut off by the end of a timed (-D) run rather than failed by
// the server: h2load marks the requests in flight when the clock runs out
// as failed, and they all end within milliseconds of each other.
const h2Cutoff = 100 * time.Millisecond

// parseH2load reads h2load's summary and, when log is not nil, its
// --log-file for percentiles and for telling cut-off requests from failed
// ones.
func parseH2load(out string, log io.Reader) (ToolResult, error) {
	var r ToolResult
	fin := h2FinishedRE.FindStringSubmatch(out)
	req := h2RequestsRE.FindStringSubmatch(out)
	st := h2StatusRE.FindStringSubmatch(out)
	if fin == nil || req == nil || st == nil {
		return r, fmt.Errorf("ab: h2load printed no summary:\n%s", tail(out, 800))
	}
	r.Elapsed = wrkDuration(fin[1], fin[2])
	r.RPS, _ = strconv.ParseFloat(fin[3], 64)
	num := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	// h2load counts 4xx and 5xx answers as failed, with connection errors
	// and timeouts; only the status counts tell them apart.
	failed, timeouts := num(req[5]), num(req[7])
	bad := num(st[3]) + num(st[4])
	r.Requests = num(req[4]) + bad
	var detail []string
	if log != nil {
		lr, err := readH2Log(log)
		if err != nil {
			return r, err
		}
		r.P50, r.P99 = lr.p50, lr.p99
		if lr.cutOff > 0 {
			detail = append(detail, fmt.Sprintf("(%d in flight at the end not counted)", lr.cutOff))
		}
		failed -= lr.cutOff
	}
	if failed > 0 {
		d := fmt.Sprintf("failed %d", failed)
		if bad > 0 || timeouts > 0 {
			d += fmt.Sprintf(" (4xx/5xx %d, timeouts %d)", bad, timeouts)
		}
		detail = append(detail, d)
	}
	r.Errors = max(failed, 0)
	r.Timeouts = timeouts
	r.ErrorDetail = strings.Join(detail, ", ")
	return r, nil
}

// h2LogResult is what the per-request log adds to the summary.
type h2LogResult struct {
	p50, p99 time.Duration
	cutOff   int64 // failed requests that ended with the run
}

// readH2Log reads h2load's --log-file: one line per request,
// "start-µs<TAB>status<TAB>elapsed-µs", status -1 for a failed request.
func readH2Log(log io.Reader) (h2LogResult, error) {
	type entry struct {
		end    int64
		status int
		took   int64
	}
	var entries []entry
	sc := bufio.NewScanner(log)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			continue
		}
		start, err1 := strconv.ParseInt(f[0], 10, 64)
		status, err2 := strconv.Atoi(f[1])
		took, err3 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		entries = append(entries, entry{start + took, status, took})
	}
	if err := sc.Err(); err != nil {
		return h2LogResult{}, fmt.Errorf("ab: h2load log: %w", err)
	}
	var last int64
	var lat []time.Duration
	for _, e := range entries {
		last = max(last, e.end)
		if e.status > 0 {
			lat = append(lat, time.Duration(e.took)*time.Microsecond)
		}
	}
	var res h2LogResult
	for _, e := range entries {
		if e.status < 0 && last-e.end <= h2Cutoff.Microseconds() {
			res.cutOff++
		}
	}
	res.p50, res.p99 = percentiles(lat)
	return res, nil
}

var (
	abCompleteRE = regexp.MustCompile(`Complete requests:\s+(\d+)`)
	abFailedRE   = regexp.MustCompile(`Failed requests:\s+(\d+)(?:\s*\n\s*\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\))?`)
	abWriteErrRE = regexp.MustCompile(`Write errors:\s+(\d+)`)
	abNon2xxRE   = regexp.MustCompile(`Non-2xx responses:\s+(\d+)`)
	abTakenRE    = regexp.MustCompile(`Time taken for tests:\s+([\d.]+) seconds`)
	abRPSRE      = regexp.MustCompile(`Requests per second:\s+([\d.]+)`)
	abPctRE      = regexp.MustCompile(`(?m)^\s+(50|99)%\s+(\d+)\s*$`)
)

// parseAb reads ApacheBench's report. Its percentiles are whole
// milliseconds.
func parseAb(out string) (ToolResult, error) {
	var r ToolResult
	c := abCompleteRE.FindStringSubmatch(out)
	rps := abRPSRE.FindStringSubmatch(out)
	taken := abTakenRE.FindStringSubmatch(out)
	if c == nil || rps == nil || taken == nil {
		return r, fmt.Errorf("ab: ab printed no report:\n%s", tail(out, 800))
	}
	r.Requests, _ = strconv.ParseInt(c[1], 10, 64)
	r.RPS, _ = strconv.ParseFloat(rps[1], 64)
	secs, _ := strconv.ParseFloat(taken[1], 64)
	r.Elapsed = time.Duration(secs * float64(time.Second))
	for _, p := range abPctRE.FindAllStringSubmatch(out, -1) {
		ms, _ := strconv.Atoi(p[2])
		if p[1] == "50" {
			r.P50 = time.Duration(ms) * time.Millisecond
		} else {
			r.P99 = time.Duration(ms) * time.Millisecond
		}
	}
	var detail []string
	if f := abFailedRE.FindStringSubmatch(out); f != nil {
		n, _ := strconv.ParseInt(f[1], 10, 64)
		if n > 0 {
			r.Errors += n
			d := fmt.Sprintf("failed %d", n)
			if f[2] != "" {
				d += fmt.Sprintf(" (connect %s, receive %s, length %s, exceptions %s)", f[2], f[3], f[4], f[5])
			}
			detail = append(detail, d)
		}
	}
	for _, e := range []struct {
		re   *regexp.Regexp
		name string
	}{{abWriteErrRE, "write errors"}, {abNon2xxRE, "non-2xx"}} {
		if m := e.re.FindStringSubmatch(out); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			if n > 0 {
				r.Errors += n
				detail = append(detail, fmt.Sprintf("%s %d", e.name, n))
			}
		}
	}
	r.ErrorDetail = strings.Join(detail, ", ")
	return r, nil
}

// percentiles returns the 50th and 99th percentiles (nearest rank) of
// lat, which it sorts.
func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	if len(lat) == 0 {
		return 0, 0
	}
	slices.Sort(lat)
	return lat[rank(len(lat), 50)], lat[rank(len(lat), 99)]
}

// rank is the index of the p-th percentile among n sorted values
// (nearest-rank method: the smallest value with at least p% at or below).
func rank(n, p int) int {
	i := (n*p + 99) / 100
	return max(i-1, 0)
}

// tail returns the last n bytes of s, for error messages.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
