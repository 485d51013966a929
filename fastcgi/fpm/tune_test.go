// tune_test.go holds the tuning formula's table cases; each expectation is
// worked out by hand in the case's comment, and every result must pass
// php-fpm's own rules (conf.PMValues.Check).
package fpm

import (
	"strings"
	"testing"
)

const mib = 1 << 20

func repeatPSS(n int, v uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestTune(t *testing.T) {
	cases := []struct {
		name   string
		in     TuneInput
		want   Settings
		reason string // a line that must be in the reasoning
	}{
		{
			// demand 1 -> max(ceil(1.5), 2x2 CPUs) = 4; never saturated and
			// at most one worker busy: ondemand; no growth measured: kept.
			name: "idle pool on a big host",
			in: TuneInput{CPUs: 2, Memory: Memory{Source: "host", Limit: 24 << 30, Available: 20 << 30}, PoolPSS: 20 * mib,
				WorkerPSS: repeatPSS(2, 10*mib), PeakActive: 1, Current: Settings{PM: "dynamic", MaxChildren: 5}},
			want:   Settings{PM: "ondemand", MaxChildren: 4, IdleTimeoutSeconds: 10},
			reason: "pm ondemand",
		},
		{
			// budget = 2 GiB + 960 MiB - 409.6 MiB = 2724619879; / 40 MiB = 64.
			// demand = max(40+30, 160+30) = 190 -> wants 285, capped at 64.
			// dynamic: min_spare 2, max_spare 64, start 33. max_requests:
			// headroom p95/4 = 10 MiB / 20 KiB = 512 -> 510.
			name: "seed 000 on a 4 GiB machine is memory-bound",
			in: TuneInput{CPUs: 2, Memory: Memory{Source: "host", Limit: 4 << 30, Available: 2 << 30}, PoolPSS: 24 * 40 * mib,
				WorkerPSS: repeatPSS(24, 40*mib), PeakActive: 40, PeakWaiting: 30, Queued: 500, MaxChildrenReached: 3,
				Current:          Settings{PM: "dynamic", MaxChildren: 160, StartServers: 24, MinSpareServers: 20, MaxSpareServers: 35, MaxRequests: 1500},
				GrowthPerRequest: 20 << 10, GrowthSamples: 10},
			want:   Settings{PM: "dynamic", MaxChildren: 64, StartServers: 33, MinSpareServers: 2, MaxSpareServers: 64, MaxRequests: 510},
			reason: "memory-bound: the pool would want 285 workers but only 64 fit",
		},
		{
			// cgroup: 6 GiB + 240 MiB - 819.2 MiB = 5835115725; / 30 MiB = 185.
			// demand 8 -> max(12, 4) = 12; 2x8 >= 12 and 24 <= 185: static.
			// growth under 1 KiB per request is noise: 10000.
			name: "busy pool with memory to spare goes static",
			in: TuneInput{CPUs: 2, Memory: Memory{Source: "cgroup", Limit: 8 << 30, Available: 6 << 30, Cgroup: "/php"}, PoolPSS: 240 * mib,
				WorkerPSS: repeatPSS(8, 30*mib), PeakActive: 8, Current: Settings{PM: "dynamic", MaxChildren: 8},
				GrowthPerRequest: 512, GrowthSamples: 8},
			want:   Settings{PM: "static", MaxChildren: 12, MaxRequests: 10000},
			reason: "cgroup /php memory.max 8.0GiB",
		},
		{
			// PSS unmeasured: 32 MiB assumed. demand 3 -> max(5, 8) = 8;
			// 2x3 < 8: dynamic, min_spare 4 = CPUs, max_spare 4, start 4.
			// budget 12 GiB - 1.6 GiB = 11166914970; per worker 1395864371
			// - 32 MiB = 1362309939 / 1 MiB = 1299 -> 1200.
			name: "bursty pool stays dynamic",
			in: TuneInput{CPUs: 4, Memory: Memory{Source: "host", Limit: 16 << 30, Available: 12 << 30}, PeakActive: 3,
				Current: Settings{PM: "static", MaxChildren: 20, MaxRequests: 500}, GrowthPerRequest: mib, GrowthSamples: 5},
			want:   Settings{PM: "dynamic", MaxChildren: 8, StartServers: 4, MinSpareServers: 4, MaxSpareServers: 4, MaxRequests: 1200},
			reason: "worker PSS: not measured; assuming 32.0MiB per worker",
		},
		{
			// The scenario: 2 workers, 8 requests queued in edge.
			// demand = max(2+8, 2+8) = 10 -> 15; 2x10 >= 15 and it fits: static.
			name: "saturated two-worker pool",
			in: TuneInput{CPUs: 2, Memory: Memory{Source: "host", Limit: 24 << 30, Available: 20 << 30}, PoolPSS: 24 * mib,
				WorkerPSS: repeatPSS(2, 12*mib), PeakActive: 2, PeakWaiting: 8, Queued: 8, MaxChildrenReached: 1,
				Current: Settings{PM: "dynamic", MaxChildren: 2, StartServers: 1, MinSpareServers: 1, MaxSpareServers: 1}},
			want:   Settings{PM: "static", MaxChildren: 15},
			reason: "saturated: 8 requests waited in edge, 1 \"max children reached\" episodes",
		},
		{
			// Nothing left after the reserve: one worker, never zero.
			name: "no memory at all",
			in: TuneInput{CPUs: 2, Memory: Memory{Source: "cgroup", Limit: 64 * mib, Available: 0}, PoolPSS: 0,
				WorkerPSS: repeatPSS(1, 20*mib), PeakActive: 4, Current: Settings{PM: "static", MaxChildren: 4}},
			want:   Settings{PM: "dynamic", MaxChildren: 1, StartServers: 1, MinSpareServers: 1, MaxSpareServers: 1},
			reason: "ceiling: 0B / 20.0MiB = 1 workers fit in memory",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Tune(c.in)
			if got.Settings != c.want {
				t.Errorf("settings %+v\nwant     %+v\nreasons:\n%s", got.Settings, c.want, strings.Join(got.Reasons, "\n"))
			}
			if !strings.Contains(strings.Join(got.Reasons, "\n"), c.reason) {
				t.Errorf("reasons lack %q:\n%s", c.reason, strings.Join(got.Reasons, "\n"))
			}
			if d, msg := got.Settings.Values().Check("www"); msg != "" {
				t.Errorf("php-fpm would refuse the result (%s): %s", d, msg)
			}
		})
	}
}

func TestRoundDown2(t *testing.T) {
	for in, want := range map[int]int{1537: 1500, 99: 99, 100: 100, 10000: 10000, 512: 510, 1299: 1200} {
		if got := roundDown2(in); got != want {
			t.Errorf("roundDown2(%d) = %d, want %d", in, got, want)
		}
	}
}
