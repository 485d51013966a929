// tune.go turns measurements of a php-fpm pool into pm.* settings, with
// the reasoning printed line by line (docs/fpm.md states the same
// formula):
//
//	budget       = available + pool PSS now - reserve
//	               available: cgroup v2 memory.max - memory.current, or
//	               MemAvailable; the pool's own workers are added back
//	               because new settings replace them; reserve: 10% of the
//	               limit, at least 64 MiB, unless given
//	ceiling      = floor(budget / p95 worker PSS)   (32 MiB if unmeasured)
//	demand       = peak active + peak waiting; when the pool was saturated
//	               (queue waits in edge, or "max children reached"), at
//	               least max_children + peak waiting
//	max_children = min(ceiling, max(ceil(1.5 x demand), 2 x CPUs))
//	pm           = ondemand if peak active <= 1 and never saturated;
//	               static if demand >= max_children / 2 and the pool fits
//	               twice in the budget; dynamic otherwise
//	dynamic      : min_spare = min(CPUs, max_children)
//	               max_spare = clamp(demand, min_spare, max_children)
//	               start     = min_spare + (max_spare - min_spare) / 2
//	max_requests = clamp(headroom / growth per request, 100, 10000),
//	               headroom = max(budget / max_children - p95, p95 / 4);
//	               10000 when no growth is measurable, unchanged when
//	               nothing was measured
package fpm

import (
	"fmt"
	"math"
)

// Tuning defaults, named in the reasoning.
const (
	assumedWorkerPSS = 32 << 20 // a worker whose PSS could not be measured
	minReserve       = 64 << 20
	reserveShare     = 0.10
	minMaxRequests   = 100
	maxMaxRequests   = 10000
	// growthNoise is the growth per request below which a worker is taken
	// not to grow (allocator and OPcache noise).
	growthNoise = 1 << 10
)

// TuneInput is what Tune decides from.
type TuneInput struct {
	Pool    string
	Current Settings
	CPUs    int
	Memory  Memory
	// PoolPSS is the PSS of the pool's workers now (bytes).
	PoolPSS uint64
	// WorkerPSS are per-worker PSS samples (bytes).
	WorkerPSS []uint64
	// Reserve is memory kept for everything else; 0 means 10% of the
	// limit, at least 64 MiB.
	Reserve uint64
	// PeakActive is the most workers seen busy at once; PeakWaiting the
	// most requests seen waiting in edge for a worker.
	PeakActive  int
	PeakWaiting int
	// Queued counts requests that waited in edge for a worker;
	// MaxChildrenReached php-fpm's episodes at pm.max_children.
	Queued             uint64
	MaxChildrenReached uint64
	// GrowthPerRequest is a worker's median PSS growth per request
	// (bytes); GrowthSamples the workers it comes from (0: unmeasured).
	GrowthPerRequest float64
	GrowthSamples    int
}

// TuneResult is Tune's answer.
type TuneResult struct {
	Settings Settings
	Budget   uint64
	P95      uint64
	Ceiling  int
	Demand   int
	// Reasons explain every value, one line each.
	Reasons []string
}

// Tune computes pm.* settings from measurements (see the file comment).
func Tune(in TuneInput) TuneResult {
	var r TuneResult
	say := func(format string, args ...any) { r.Reasons = append(r.Reasons, fmt.Sprintf(format, args...)) }
	cpus := max(1, in.CPUs)

	// Memory: the ceiling.
	avail := in.Memory.Available + in.PoolPSS
	reserve := in.Reserve
	if reserve == 0 {
		reserve = max(uint64(minReserve), uint64(float64(in.Memory.Limit)*reserveShare))
	}
	if avail > reserve {
		r.Budget = avail - reserve
	}
	src := "MemAvailable"
	if in.Memory.Source == "cgroup" {
		src = fmt.Sprintf("cgroup %s memory.max %s - memory.current", in.Memory.Cgroup, Bytes(in.Memory.Limit))
	}
	say("memory: %s available (%s) + %s used by the pool's workers now - %s reserve = %s for the pool",
		Bytes(in.Memory.Available), src, Bytes(in.PoolPSS), Bytes(reserve), Bytes(r.Budget))
	r.P95 = Percentile(in.WorkerPSS, 0.95)
	if r.P95 == 0 {
		r.P95 = assumedWorkerPSS
		say("worker PSS: not measured; assuming %s per worker", Bytes(r.P95))
	} else {
		say("worker PSS: p95 %s over %d samples (PSS, not RSS: shared OPcache counts once)", Bytes(r.P95), len(in.WorkerPSS))
	}
	r.Ceiling = max(1, int(r.Budget/r.P95))
	say("ceiling: %s / %s = %d workers fit in memory", Bytes(r.Budget), Bytes(r.P95), r.Ceiling)

	// Demand: what the pool was asked to do.
	saturated := in.MaxChildrenReached > 0 || in.Queued > 0 || in.PeakWaiting > 0
	r.Demand = in.PeakActive + in.PeakWaiting
	say("demand: peak %d active + peak %d waiting in edge = %d", in.PeakActive, in.PeakWaiting, r.Demand)
	if saturated {
		if capped := in.Current.MaxChildren + in.PeakWaiting; capped > r.Demand {
			r.Demand = capped
		}
		say("saturated: %d requests waited in edge, %d \"max children reached\" episodes; demand is at least max_children %d + %d waiting = %d",
			in.Queued, in.MaxChildrenReached, in.Current.MaxChildren, in.PeakWaiting, r.Demand)
	}

	// max_children.
	headroom := int(math.Ceil(1.5 * float64(r.Demand)))
	target := max(headroom, 2*cpus)
	s := Settings{MaxChildren: min(target, r.Ceiling)}
	say("max_children: max(1.5 x demand = %d, 2 x %d CPUs = %d) = %d, capped by the memory ceiling %d -> %d",
		headroom, cpus, 2*cpus, target, r.Ceiling, s.MaxChildren)
	if target > r.Ceiling {
		say("memory-bound: the pool would want %d workers but only %d fit; add memory or lower the workers' PSS", target, r.Ceiling)
	}

	// Mode and spare servers.
	switch {
	case in.PeakActive <= 1 && !saturated:
		s.PM, s.IdleTimeoutSeconds = "ondemand", 10
		say("pm ondemand: at most %d worker was ever busy, so workers start on demand and end after 10s idle", in.PeakActive)
	case 2*r.Demand >= s.MaxChildren && 2*s.MaxChildren <= r.Ceiling:
		s.PM = "static"
		say("pm static: demand %d keeps at least half of %d workers busy and twice the pool fits in memory; no spawn delay", r.Demand, s.MaxChildren)
	default:
		s.PM = "dynamic"
		s.MinSpareServers = min(cpus, s.MaxChildren)
		s.MaxSpareServers = max(s.MinSpareServers, min(r.Demand, s.MaxChildren))
		s.StartServers = s.MinSpareServers + (s.MaxSpareServers-s.MinSpareServers)/2
		say("pm dynamic: min_spare = CPUs = %d (one idle worker per CPU takes a burst while more spawn), max_spare = demand clamped = %d, start = %d (php-fpm's own midpoint)",
			s.MinSpareServers, s.MaxSpareServers, s.StartServers)
	}

	// max_requests.
	s.MaxRequests = tuneMaxRequests(in, r, s.MaxChildren, say)
	r.Settings = s
	return r
}

// tuneMaxRequests picks pm.max_requests from the growth per request.
func tuneMaxRequests(in TuneInput, r TuneResult, maxChildren int, say func(string, ...any)) int {
	if in.GrowthSamples == 0 {
		say("max_requests: no worker served %d requests between two looks; kept at %d", minGrowthRequests, in.Current.MaxRequests)
		return in.Current.MaxRequests
	}
	if in.GrowthPerRequest < growthNoise {
		say("max_requests: workers grow %s per request (noise); %d guards against slow leaks", Bytes(uint64(max(0, in.GrowthPerRequest))), maxMaxRequests)
		return maxMaxRequests
	}
	perWorker := r.Budget / uint64(maxChildren)
	headroom := r.P95 / 4
	if perWorker > r.P95 && perWorker-r.P95 > headroom {
		headroom = perWorker - r.P95
	}
	n := int(float64(headroom) / in.GrowthPerRequest)
	n = roundDown2(max(minMaxRequests, min(n, maxMaxRequests)))
	say("max_requests: a worker may grow %s (budget per worker %s - p95 %s, at least p95/4) at %s per request (median of %d workers) -> %d",
		Bytes(headroom), Bytes(perWorker), Bytes(r.P95), Bytes(uint64(in.GrowthPerRequest)), in.GrowthSamples, n)
	return n
}

// roundDown2 keeps two significant digits (1537 -> 1500).
func roundDown2(n int) int {
	p := 1
	for n/p >= 100 {
		p *= 10
	}
	return n / p * p
}
