// This file is edge ab's own load generator, for the two workloads the
// Debian tools cannot produce: a new connection (and a full TLS handshake)
// for every request, and a ramp of users rising over time with hits,
// errors and timeouts counted per second. It runs as a separate process
// ("edge ab --load-client", spec as JSON on stdin, result as JSON on
// stdout) so that it can be pinned to the load generator's CPUs like wrk.

package ab

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// ClientSpec is the load client's job.
type ClientSpec struct {
	// Mode is ToolConnect (Conns connections in parallel, each request on
	// a new one) or ToolRamp (users from 1 to Conns over Duration, each
	// hit on a new connection, as Blitz.io made them).
	Mode Tool
	// Addr, TLS, Host and Path say what to request.
	Addr string
	TLS  bool
	Host string
	Path string
	// Conns is the number of parallel connections, or the ramp's final
	// number of users.
	Conns    int
	Duration time.Duration
	// Timeout bounds one request, connect to last byte; past it the hit
	// counts as a timeout. Zero means 5 s (1 s for a ramp, Blitz.io's
	// default).
	Timeout time.Duration
}

// ClientResult is what the load client measured.
type ClientResult struct {
	// Requests counts responses received, whatever their status.
	Requests int64
	// Errors counts requests without a 2xx/3xx answer, Timeouts included.
	Errors   int64
	Timeouts int64
	Elapsed  time.Duration
	P50, P99 time.Duration
	// Series is the ramp's per-second record.
	Series []RampPoint
	// ErrorSamples are the first distinct error messages.
	ErrorSamples []string
}

// RampPoint is one second of a ramp.
type RampPoint struct {
	Second   int
	Users    int
	Hits     int64 // 2xx and 3xx responses
	Errors   int64 // other statuses and failed connections, not timeouts
	Timeouts int64
}

// ServeLoadClient reads a ClientSpec from in, runs it and writes the
// ClientResult to out. It is what "edge ab --load-client" runs.
func ServeLoadClient(in io.Reader, out io.Writer) error {
	var spec ClientSpec
	if err := json.NewDecoder(in).Decode(&spec); err != nil {
		return fmt.Errorf("ab: load client: %w", err)
	}
	res, err := runLoadClient(spec)
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(res)
}

// loadClient is one run's shared state.
type loadClient struct {
	spec    ClientSpec
	tlsConf *tls.Config
	request []byte
	start   time.Time
	end     time.Time

	requests, errors, timeouts atomic.Int64
	// per-second counters for the ramp
	hits, errs, outs []atomic.Int64

	mu      sync.Mutex
	lat     []time.Duration
	samples []string
}

func runLoadClient(spec ClientSpec) (*ClientResult, error) {
	if spec.Mode != ToolConnect && spec.Mode != ToolRamp {
		return nil, fmt.Errorf("ab: load client: unknown mode %q", spec.Mode)
	}
	if spec.Conns <= 0 || spec.Duration <= 0 {
		return nil, fmt.Errorf("ab: load client: need connections and a duration")
	}
	if spec.Timeout == 0 {
		spec.Timeout = 5 * time.Second
		if spec.Mode == ToolRamp {
			spec.Timeout = time.Second
		}
	}
	seconds := int((spec.Duration+time.Second-1)/time.Second) + 1
	c := &loadClient{
		spec: spec,
		// No ClientSessionCache: every handshake is a full one. X25519
		// only, as OpenSSL 3.0 clients (wrk, h2load) offer first and as
		// nginx 1.22 supports: Go's default would have edge do a
		// post-quantum hybrid exchange that nginx never does.
		tlsConf: &tls.Config{InsecureSkipVerify: true, CurvePreferences: []tls.CurveID{tls.X25519}},
		request: fmt.Appendf(nil, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: edge-ab\r\nConnection: close\r\n\r\n", spec.Path, spec.Host),
		hits:    make([]atomic.Int64, seconds),
		errs:    make([]atomic.Int64, seconds),
		outs:    make([]atomic.Int64, seconds),
	}
	c.start = time.Now()
	c.end = c.start.Add(spec.Duration)
	var wg sync.WaitGroup
	if spec.Mode == ToolConnect {
		for range spec.Conns {
			wg.Go(c.user)
		}
	} else {
		c.ramp(&wg)
	}
	wg.Wait()
	return c.result(seconds), nil
}

// ramp starts user i (0-based) at i/(n-1) of the duration, so the count
// rises linearly from 1 to n.
func (c *loadClient) ramp(wg *sync.WaitGroup) {
	n := c.spec.Conns
	for i := range n {
		at := c.start
		if n > 1 {
			at = c.start.Add(time.Duration(int64(c.spec.Duration) * int64(i) / int64(n-1)))
		}
		if i > 0 && !at.Before(c.end) {
			break
		}
		time.Sleep(time.Until(at))
		wg.Go(c.user)
	}
}

// user sends requests one after another until the run ends.
func (c *loadClient) user() {
	var lat []time.Duration
	for time.Now().Before(c.end) {
		t0 := time.Now()
		status, err := c.hit()
		took := time.Since(t0)
		sec := min(int(time.Since(c.start)/time.Second), len(c.hits)-1)
		var ne net.Error
		switch {
		case err != nil && errors.As(err, &ne) && ne.Timeout():
			c.timeouts.Add(1)
			c.errors.Add(1)
			c.outs[sec].Add(1)
		case err != nil:
			c.errors.Add(1)
			c.errs[sec].Add(1)
			c.sample(err.Error())
		case status >= 400 || status < 200:
			c.requests.Add(1)
			c.errors.Add(1)
			c.errs[sec].Add(1)
			c.sample(fmt.Sprintf("status %d", status))
		default:
			c.requests.Add(1)
			c.hits[sec].Add(1)
			lat = append(lat, took)
		}
		if err != nil {
			// A refused or reset connection fails at once; pause so a
			// dead server does not turn the run into a busy loop.
			time.Sleep(10 * time.Millisecond)
		}
	}
	c.mu.Lock()
	c.lat = append(c.lat, lat...)
	c.mu.Unlock()
}

// hit makes one request on a new connection and returns its status.
func (c *loadClient) hit() (int, error) {
	deadline := time.Now().Add(c.spec.Timeout)
	conn, err := net.DialTimeout("tcp", c.spec.Addr, c.spec.Timeout)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(deadline)
	if c.spec.TLS {
		tc := tls.Client(conn, c.tlsConf)
		if err := tc.Handshake(); err != nil {
			return 0, err
		}
		conn = tc
	}
	if _, err := conn.Write(c.request); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err
}

// sample keeps the first few distinct error messages for the report.
func (c *loadClient) sample(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.samples) >= 5 {
		return
	}
	for _, s := range c.samples {
		if s == msg {
			return
		}
	}
	c.samples = append(c.samples, msg)
}

func (c *loadClient) result(seconds int) *ClientResult {
	res := &ClientResult{Requests: c.requests.Load(), Errors: c.errors.Load(), Timeouts: c.timeouts.Load(),
		Elapsed: time.Since(c.start), ErrorSamples: c.samples}
	res.P50, res.P99 = percentiles(c.lat)
	if c.spec.Mode == ToolRamp {
		// The last bucket only holds requests that ended after the clock
		// ran out; it is folded into the one before.
		full := int(c.spec.Duration / time.Second)
		for s := range seconds {
			p := RampPoint{Second: s, Users: rampUsers(time.Duration(s)*time.Second, c.spec.Duration, c.spec.Conns),
				Hits: c.hits[s].Load(), Errors: c.errs[s].Load(), Timeouts: c.outs[s].Load()}
			if s >= full && len(res.Series) > 0 && s > 0 {
				last := &res.Series[len(res.Series)-1]
				last.Hits += p.Hits
				last.Errors += p.Errors
				last.Timeouts += p.Timeouts
				continue
			}
			res.Series = append(res.Series, p)
		}
	}
	return res
}
