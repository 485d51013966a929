// This file runs one load generator against one server: the command
// lines of wrk, h2load and ab as the seeds used them, and edge ab's own
// connect/ramp client started from the edge binary, each pinned to the
// load generator's CPUs.

package ab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// toolGrace is how long a load generator may run past its duration
// before it is killed (connection setup, the last requests, a slow exit).
const toolGrace = 30 * time.Second

// abRequestsPerSecond bounds ab's -n: ab allocates its per-request
// statistics up front, and -t alone stops at 50000 requests.
const abRequestsPerSecond = 100000

// drive runs s's load generator against t for d and parses its output.
// The raw output is saved to rawPath when it is not "". For edge ab's own
// client the full result is returned too.
func (r *runner) drive(ctx context.Context, s Scenario, t target, d time.Duration, rawPath string) (ToolResult, *ClientResult, error) {
	secs := strconv.Itoa(int(wholeSeconds(d) / time.Second))
	threads := strconv.Itoa(max(1, min(len(r.client), s.conns())))
	conns := strconv.Itoa(s.conns())
	var (
		res    ToolResult
		cr     *ClientResult
		stdout string
		stderr string
		err    error
	)
	timeout := d + toolGrace
	var headers []string // -H for each scenario header line
	for _, h := range s.Header {
		headers = append(headers, "-H", h)
	}
	switch s.Tool {
	case ToolWrk:
		argv := []string{r.tools["wrk"], "-t", threads, "-c", conns, "-d", secs + "s", "--latency", "--timeout", "5s",
			"-H", "Host: " + t.Host}
		stdout, stderr, err = runTool(ctx, r.client, timeout, nil, "", append(append(argv, headers...), t.URL())...)
		if err == nil {
			res, err = parseWrk(stdout + stderr)
		}
	case ToolH2load:
		logPath := filepath.Join(os.TempDir(), fmt.Sprintf("edge-ab-h2load-%d.log", os.Getpid()))
		defer os.Remove(logPath)
		streams := strconv.Itoa(max(1, s.Streams))
		argv := []string{r.tools["h2load"], "-t", threads, "-c", conns, "-m", streams, "-D", secs, "--log-file=" + logPath,
			"-H", ":authority: " + t.Host}
		stdout, stderr, err = runTool(ctx, r.client, timeout, nil, "", append(append(argv, headers...), t.URL())...)
		if err == nil {
			var log *os.File
			if log, err = os.Open(logPath); err == nil {
				res, err = parseH2load(stdout+stderr, log)
				log.Close()
			}
		}
	case ToolAb:
		n := strconv.Itoa(abRequestsPerSecond * int(wholeSeconds(d)/time.Second))
		// -r: count receive errors instead of stopping at the first.
		argv := []string{r.tools["ab"], "-c", conns, "-t", secs, "-n", n, "-r", "-H", "Host: " + t.Host}
		stdout, stderr, err = runTool(ctx, r.client, timeout, nil, "", append(append(argv, headers...), t.URL())...)
		if err == nil {
			res, err = parseAb(stdout + stderr)
		}
	case ToolConnect, ToolRamp:
		cr, stdout, stderr, err = r.loadClient(ctx, s, t, d)
		if err == nil {
			detail := cr.ErrorSamples
			if cr.Timeouts > 0 {
				detail = append([]string{fmt.Sprintf("timeouts %d", cr.Timeouts)}, detail...)
			}
			res = ToolResult{Requests: cr.Requests, Elapsed: cr.Elapsed, P50: cr.P50, P99: cr.P99,
				Errors: cr.Errors, Timeouts: cr.Timeouts, ErrorDetail: strings.Join(detail, "; ")}
			if cr.Elapsed > 0 {
				res.RPS = float64(cr.Requests) / cr.Elapsed.Seconds()
			}
		}
	default:
		err = fmt.Errorf("ab: unknown tool %q", s.Tool)
	}
	if rawPath != "" {
		_ = os.MkdirAll(filepath.Dir(rawPath), 0o755)
		_ = os.WriteFile(rawPath, []byte(stdout+stderr), 0o644)
	}
	if err != nil && stderr != "" && !strings.Contains(err.Error(), strings.TrimSpace(stderr)) {
		err = fmt.Errorf("%w\n%s", err, tail(strings.TrimSpace(stderr), 800))
	}
	return res, cr, err
}

// loadClient runs "edge ab --load-client" pinned to the client CPUs.
func (r *runner) loadClient(ctx context.Context, s Scenario, t target, d time.Duration) (*ClientResult, string, string, error) {
	spec := ClientSpec{Mode: s.Tool, Addr: t.Addr, TLS: t.TLS, Host: t.Host, Path: t.Path,
		Conns: s.conns(), Duration: d}
	if s.Tool == ToolRamp {
		spec.Conns = r.o.RampUsers
	}
	in, _ := json.Marshal(spec)
	env := []string{"GOMAXPROCS=" + strconv.Itoa(max(1, len(r.client)))}
	stdout, stderr, err := runTool(ctx, r.client, d+toolGrace, env, string(in), r.o.EdgeBinary, "ab", "--load-client")
	if err != nil {
		return nil, stdout, stderr, err
	}
	var cr ClientResult
	if err := json.Unmarshal([]byte(stdout), &cr); err != nil {
		return nil, stdout, stderr, fmt.Errorf("ab: load client printed no result: %w", err)
	}
	return &cr, stdout, stderr, nil
}

// freePort returns a loopback TCP port nothing listens on now. Another
// process may take it before the server binds it; the server then fails
// to start and says so.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("ab: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// fetchProfile saves a CPU profile of d from edge's pprof endpoint to
// path (read it with "go tool pprof -top EDGE path").
func fetchProfile(addr string, d time.Duration, path string) error {
	secs := int(wholeSeconds(d) / time.Second)
	client := &http.Client{Timeout: d + toolGrace}
	resp, err := client.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, secs))
	if err != nil {
		return fmt.Errorf("ab: profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("ab: profile: %s", resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("ab: profile: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("ab: profile: %w", err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("ab: profile: %w", err)
	}
	return f.Close()
}
