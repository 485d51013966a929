// This file tests the load generator parsers on outputs captured from
// Debian's wrk 4.1.0, h2load (nghttp2 1.52) and ab 2.3 (testdata/), and
// the percentile helper.

package ab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseWrk(t *testing.T) {
	tests := []struct {
		file       string
		want       ToolResult
		wantDetail string
	}{
		{"wrk-https-close.txt", ToolResult{Requests: 2742, Elapsed: time.Second, RPS: 2741.25,
			P50: 299 * time.Microsecond, P99: 771 * time.Microsecond}, ""},
		{"wrk-404.txt", ToolResult{Requests: 30622, Elapsed: 1100 * time.Millisecond, RPS: 27863.26,
			P50: 110 * time.Microsecond, P99: 2060 * time.Microsecond, Errors: 30622}, "non-2xx/3xx 30622"},
		{"wrk-errors.txt", ToolResult{Requests: 30622, Elapsed: 1100 * time.Millisecond, RPS: 27863.26,
			P50: 110 * time.Microsecond, P99: 2060 * time.Microsecond, Errors: 20, Timeouts: 2},
			"read 5, write 1, timeout 2, non-2xx/3xx 12"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := parseWrk(readTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			tt.want.ErrorDetail = tt.wantDetail
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseWrkNoSummary(t *testing.T) {
	_, err := parseWrk(readTestdata(t, "wrk-refused.txt"))
	if err == nil || !strings.Contains(err.Error(), "Connection refused") {
		t.Errorf("error %v does not quote wrk's complaint", err)
	}
}

func TestParseAb(t *testing.T) {
	tests := []struct {
		file string
		want ToolResult
	}{
		{"ab-https-nginx.txt", ToolResult{Requests: 2000, Elapsed: 4785 * time.Millisecond, RPS: 417.96,
			P50: 8 * time.Millisecond, P99: 30 * time.Millisecond}},
		{"ab-404.txt", ToolResult{Requests: 500, Elapsed: 44 * time.Millisecond, RPS: 11490.03,
			P50: time.Millisecond, P99: 3 * time.Millisecond, Errors: 500, ErrorDetail: "non-2xx 500"}},
		{"ab-seed004.txt", ToolResult{Requests: 2000, Elapsed: 3256 * time.Millisecond, RPS: 614.31, Errors: 7,
			ErrorDetail: "failed 7 (connect 0, receive 0, length 7, exceptions 0)"}},
		{"ab-keepalive.txt", ToolResult{Requests: 32484, Elapsed: time.Second, RPS: 32483.12,
			P50: time.Millisecond, P99: 2 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := parseAb(readTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseH2load(t *testing.T) {
	out := readTestdata(t, "h2load-nginx.txt")
	tests := []struct {
		name string
		log  string
		want ToolResult
	}{
		// Without the log, h2load's 15 failed requests count: nothing
		// tells them from the server's failures.
		{"summary only", "", ToolResult{Requests: 4000, Elapsed: 1020 * time.Millisecond, RPS: 4000,
			Errors: 15, ErrorDetail: "failed 15"}},
		// The log shows they all ended with the run: cut off, not failed.
		{"with log", "h2load-nginx.log", ToolResult{Requests: 4000, Elapsed: 1020 * time.Millisecond, RPS: 4000,
			P50: 3027 * time.Microsecond, P99: 3057 * time.Microsecond,
			ErrorDetail: "(8 in flight at the end not counted), failed 7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got ToolResult
			var err error
			if tt.log == "" {
				got, err = parseH2load(out, nil)
			} else {
				got, err = parseH2load(out, strings.NewReader(readTestdata(t, tt.log)))
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.log != "" {
				// The excerpt in testdata keeps 8 of the 15 failures;
				// the summary's count of 15 makes 7 look real.
				tt.want.Errors = 7
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseH2load4xx(t *testing.T) {
	got, err := parseH2load(readTestdata(t, "h2load-400.txt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := ToolResult{Requests: 3, Elapsed: 5940 * time.Microsecond, RPS: 505.05, Errors: 3,
		ErrorDetail: "failed 3 (4xx/5xx 3, timeouts 0)"}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestReadH2LogCutOff(t *testing.T) {
	// Two failures: one early (a real failure), one at the end (cut off).
	log := "1000000\t200\t100\n" + "1000100\t-1\t50\n" + "2000000\t200\t300\n" + "2000050\t-1\t260\n"
	res, err := readH2Log(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if res.cutOff != 1 {
		t.Errorf("cut off %d, want 1", res.cutOff)
	}
	if res.p50 != 100*time.Microsecond || res.p99 != 300*time.Microsecond {
		t.Errorf("p50 %v p99 %v", res.p50, res.p99)
	}
}

func TestPercentiles(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // unsorted on purpose
	}
	tests := []struct {
		name     string
		in       []time.Duration
		p50, p99 time.Duration
	}{
		{"empty", nil, 0, 0},
		{"one", ms(7), 7 * time.Millisecond, 7 * time.Millisecond},
		{"two", ms(2, 1), time.Millisecond, 2 * time.Millisecond},
		{"hundred", ms(hundred...), 50 * time.Millisecond, 99 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p50, p99 := percentiles(tt.in)
			if p50 != tt.p50 || p99 != tt.p99 {
				t.Errorf("p50 %v p99 %v, want %v %v", p50, p99, tt.p50, tt.p99)
			}
		})
	}
}
