// This file measures hello.php through edge and through nginx, each in
// front of its own identical php-fpm pool (static, four workers, unix
// socket; separate pools, so that connections one server keeps never pin
// the workers another is measured on), with the servers and their pools
// pinned to CPU 0 and wrk to CPU 1, in alternating rounds within one run:
//
//	edge             the plain configuration (fastcgi_pass to the socket)
//	edge-keepalive   the same upstream{} with keepalive as nginx-keepalive
//	edge-max-conns   upstream{} max_conns=4 keepalive 3: what edge does for
//	                 an fpm_pool (requests beyond the workers wait in edge's
//	                 queue, not in the listen queue); nginx answers 502
//	                 where edge queues, so it has no nginx counterpart
//	nginx            the plain configuration: a new connection per request
//	nginx-keepalive  upstream{} keepalive 3 + fastcgi_keep_conn on
//	gofast           testenv/gofastfront: net/http in front of gofast
//	                 v0.8.0 as its README wires it, doing less than edge
//	                 does, so the most a gofast-based edge could give
//	epoll-floor      testenv/epollfloor: the same exchange on one
//	                 edge-triggered epoll loop with raw system calls and
//	                 almost nothing else, what the I/O itself costs: the
//	                 yardstick for an event loop of edge's own
//
// Each round runs the variants in its own fixed shuffle of them, with a
// pause before each. Each sub-benchmark reports the median requests per
// second of its rounds and the server's own CPU time per request
// (user+system of edge, of nginx's master and worker, or of the front
// tool, from /proc; the figure holds up better than the rate on a busy
// machine) and its pool's (php-cpu-µs/req); each round's log line adds
// the idle and steal time per request of the two CPUs. edge's also
// report its allocations and bytes per request (the whole process, read
// from its runtime.MemStats through EDGE_PPROF), the median over rounds of
// its rate divided by each other variant's rate in the same round (x-NAME),
// and the median over rounds of each nginx variant's CPU per request
// divided by edge's (x-NAME-cpu: above 1, edge spends less).
// EDGE_BENCH_ROUNDS sets the number of rounds (default 5).
//
//	go test ./testenv/fcgitest -run '^$' -bench PHPHello
//
// The numbers are only comparable within one run on an otherwise idle
// machine with at least two CPUs.

package fcgitest

import (
	"bufio"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

const (
	benchDuration = "3s"
	settle        = time.Second
	benchConns    = "32"
	serverCPU     = "0"
	loadCPU       = "1"
)

// benchPlain and benchKeepalive are the two configurations; {{PASS}} is the
// variant's own pool.
const benchPlain = `
access_log off;
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~ \.php$ {
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
}
`

const benchKeepalive = `
access_log off;
upstream php {
    server {{PASS}};
    keepalive 3;
}
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~ \.php$ {
        fastcgi_keep_conn on;
        fastcgi_pass php;
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
}
`

const benchMaxConns = `
access_log off;
upstream php {
    server {{PASS}} max_conns=4;
    keepalive 3;
}
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~ \.php$ {
        fastcgi_keep_conn on;
        fastcgi_pass php;
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
}
`

// benchTarget is one server under test with what its rounds measured.
type benchTarget struct {
	name  string
	srv   *server
	pool  int    // the process group of its php-fpm pool
	pprof string // edge's EDGE_PPROF address, "" for nginx
	rps   []float64
	cpu   []float64 // the server's CPU µs per request, per round
	// summed over the rounds
	requests, cpuTicks, poolTicks uint64
	// summed over the rounds, for edge
	mallocs, bytes uint64
}

func BenchmarkPHPHello(b *testing.B) {
	wrk := testenv.Binary(b, "wrk", "wrk")
	taskset := testenv.Binary(b, "util-linux", "taskset")
	files := map[string]string{"hello.php": `<?php echo "hello";`}
	newPool := func() *site {
		s := newSite(b, files, testenv.FPMOptions{MaxChildren: 4})
		pinGroup(b, taskset, s.fpm.Proc.PID())
		return s
	}
	var targets []*benchTarget
	for _, v := range []struct {
		name, tool string
	}{
		{"gofast", "./testenv/gofastfront"},
		{"epoll-floor", "./testenv/epollfloor"},
	} {
		s := newPool()
		bt := &benchTarget{name: v.name, srv: startFront(b, v.name, v.tool, s, taskset), pool: s.fpm.Proc.PID()}
		warmUp(b, bt.srv)
		targets = append(targets, bt)
	}
	for _, v := range []struct {
		name, conf string
		edge       bool
	}{
		{"edge", benchPlain, true},
		{"edge-keepalive", benchKeepalive, true},
		{"edge-max-conns", benchMaxConns, true},
		{"nginx", benchPlain, false},
		{"nginx-keepalive", benchKeepalive, false},
	} {
		s := newPool()
		bt := &benchTarget{name: v.name, pool: s.fpm.Proc.PID()}
		if v.edge {
			bt.pprof = "127.0.0.1:" + strconv.Itoa(testenv.FreePort(b))
			bt.srv = startPinnedEdge(b, s, v.conf, taskset, bt.pprof)
		} else {
			bt.srv = s.startNginx(b, v.conf)
			pinGroup(b, taskset, bt.srv.proc.PID())
		}
		warmUp(b, bt.srv)
		targets = append(targets, bt)
	}
	rounds := benchRounds(b)
	for round := range rounds {
		// A fixed shuffle per round: every variant runs in several
		// positions and after several others. Reversing the order every
		// other round left edge after gofast in half the rounds and
		// nginx-keepalive never there; edge's CPU per request was higher
		// in those rounds (median 75 µs against 66 after edge-keepalive,
		// in two runs of 7 rounds).
		order := slices.Clone(targets)
		rand.New(rand.NewPCG(uint64(round), 0)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, bt := range order {
			// Let the kernel finish what the previous variant left
			// (sockets freed after an RCU grace period, the scheduler's
			// load figures) before this one is measured.
			time.Sleep(settle)
			var before memStats
			if bt.pprof != "" {
				before = readMemStats(b, bt.pprof)
			}
			ticks, pool := groupCPUTicks(b, bt.srv.proc.PID()), groupCPUTicks(b, bt.pool)
			server, load := readCPUTimes(b, serverCPU), readCPUTimes(b, loadCPU)
			rps, n := runWrk(b, taskset, wrk, bt.srv.url("/hello.php"))
			bt.rps = append(bt.rps, rps)
			ticks = groupCPUTicks(b, bt.srv.proc.PID()) - ticks
			pool = groupCPUTicks(b, bt.pool) - pool
			serverAfter, loadAfter := readCPUTimes(b, serverCPU), readCPUTimes(b, loadCPU)
			bt.cpuTicks += ticks
			bt.poolTicks += pool
			bt.requests += n
			if bt.pprof != "" {
				after := readMemStats(b, bt.pprof)
				bt.mallocs += after.mallocs - before.mallocs
				bt.bytes += after.totalAlloc - before.totalAlloc
			}
			perReq := func(ticks uint64) float64 { return float64(ticks) * 1e6 / clockTicks / float64(n) }
			bt.cpu = append(bt.cpu, perReq(ticks))
			b.Logf("round %d: %-16s %8.0f req/s %6.1f cpu-µs/req, php %6.1f; CPU %s idle %5.1f steal %5.1f; CPU %s steal %5.1f",
				round+1, bt.name, rps, perReq(ticks), perReq(pool),
				serverCPU, perReq(serverAfter.idle-server.idle), perReq(serverAfter.steal-server.steal),
				loadCPU, perReq(loadAfter.steal-load.steal))
		}
	}
	// A variant with a process that escaped to the load's CPU would look
	// faster than it is.
	for _, bt := range targets {
		for _, pgid := range []int{bt.srv.proc.PID(), bt.pool} {
			if left := unpinned(b, pgid); len(left) > 0 {
				b.Fatalf("%s: processes %v are not pinned to CPU %s", bt.name, left, serverCPU)
			}
		}
	}
	byName := map[string]*benchTarget{}
	for _, bt := range targets {
		byName[bt.name] = bt
	}
	// ratio is the median over rounds of bt's rate over other's;
	// cpuRatio of other's CPU per request over bt's (above 1: bt spends
	// less), the steadier figure when the hypervisor takes the load's CPU.
	ratio := func(bt, other *benchTarget) float64 {
		r := make([]float64, rounds)
		for i := range r {
			r[i] = bt.rps[i] / other.rps[i]
		}
		return median(r)
	}
	cpuRatio := func(bt, other *benchTarget) float64 {
		r := make([]float64, rounds)
		for i := range r {
			r[i] = other.cpu[i] / bt.cpu[i]
		}
		return median(r)
	}
	for _, bt := range targets {
		b.Run(bt.name, func(b *testing.B) {
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(median(bt.rps), "req/s")
			b.ReportMetric(float64(bt.cpuTicks)*1e6/clockTicks/float64(bt.requests), "cpu-µs/req")
			b.ReportMetric(float64(bt.poolTicks)*1e6/clockTicks/float64(bt.requests), "php-cpu-µs/req")
			if bt.pprof != "" {
				b.ReportMetric(float64(bt.mallocs)/float64(bt.requests), "allocs/req")
				b.ReportMetric(float64(bt.bytes)/float64(bt.requests), "B/req")
				b.ReportMetric(ratio(bt, byName["nginx"]), "x-nginx")
				b.ReportMetric(ratio(bt, byName["nginx-keepalive"]), "x-nginx-keepalive")
				b.ReportMetric(ratio(bt, byName["gofast"]), "x-gofast")
				b.ReportMetric(ratio(bt, byName["epoll-floor"]), "x-epoll-floor")
				b.ReportMetric(cpuRatio(bt, byName["nginx"]), "x-nginx-cpu")
				b.ReportMetric(cpuRatio(bt, byName["nginx-keepalive"]), "x-nginx-keepalive-cpu")
			}
		})
	}
}

// startPinnedEdge starts edge on CPU serverCPU from its first instruction
// (so that Go sizes GOMAXPROCS to it) with its pprof handlers on pprof.
func startPinnedEdge(b *testing.B, s *site, conf, taskset, pprof string) *server {
	b.Helper()
	port := testenv.FreePort(b)
	return startEdgeConf(b, func(errLog string) string {
		return testenv.NginxMain(1) + "error_log " + errLog + " notice;\n" +
			"http {\ninclude " + s.mime + ";\n" + s.render(conf, port) + "}\n"
	}, port, func(cmd *exec.Cmd) {
		cmd.Args = append([]string{taskset, "-c", serverCPU}, cmd.Args...)
		cmd.Path = taskset
		cmd.Env = append(os.Environ(), "EDGE_PPROF="+pprof)
	})
}

// warmUp sends a few requests so that OPcache and both servers' caches
// are warm before the first round.
func warmUp(b *testing.B, srv *server) {
	b.Helper()
	c := client()
	for range 200 {
		resp, err := c.Get(srv.url("/hello.php"))
		if err != nil {
			b.Fatalf("%s: %v", srv.name, err)
		}
		body := make([]byte, 16)
		n, _ := resp.Body.Read(body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body[:n]) != "hello" {
			b.Fatalf("%s: %d %q", srv.name, resp.StatusCode, body[:n])
		}
	}
}

var (
	wrkRateRE     = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkRequestsRE = regexp.MustCompile(`(\d+) requests in`)
)

// runWrk runs one round of wrk on CPU loadCPU and returns the rate and
// the number of requests; errors or non-2xx answers fail the benchmark.
func runWrk(b *testing.B, taskset, wrk, url string) (float64, uint64) {
	b.Helper()
	out, err := exec.Command(taskset, "-c", loadCPU, wrk, "-t1", "-c"+benchConns, "-d"+benchDuration, url).CombinedOutput()
	if err != nil {
		b.Fatalf("wrk: %v\n%s", err, out)
	}
	text := string(out)
	if strings.Contains(text, "Non-2xx") || strings.Contains(text, "Socket errors") {
		b.Fatalf("wrk saw failures:\n%s", text)
	}
	rate, requests := wrkRateRE.FindStringSubmatch(text), wrkRequestsRE.FindStringSubmatch(text)
	if rate == nil || requests == nil {
		b.Fatalf("wrk printed no rate:\n%s", text)
	}
	rps, _ := strconv.ParseFloat(rate[1], 64)
	n, _ := strconv.ParseUint(requests[1], 10, 64)
	return rps, n
}

// pinGroup pins every thread of every process of the process group led by
// pid (a master and the workers it forks) to CPU serverCPU. The leader goes
// first, so that what it forks from then on inherits the pin; a fork that
// copied the old mask just before may show in /proc only a moment later,
// so the group is pinned again until a pass finds nothing left to pin.
func pinGroup(b *testing.B, taskset string, pid int) {
	b.Helper()
	pin := func(p int) {
		if out, err := exec.Command(taskset, "-a", "-p", "-c", serverCPU, strconv.Itoa(p)).CombinedOutput(); err != nil {
			b.Fatalf("taskset %d: %v\n%s", p, err, out)
		}
	}
	pin(pid)
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		left := unpinned(b, pid)
		if len(left) == 0 {
			return
		}
		for _, p := range left {
			pin(p)
		}
	}
	b.Fatalf("process group %d: %v still not pinned to CPU %s", pid, unpinned(b, pid), serverCPU)
}

// unpinned lists the processes of the process group pgid with a thread that
// may run on another CPU than serverCPU.
func unpinned(b *testing.B, pgid int) []int {
	b.Helper()
	var left []int
	for _, p := range groupPIDs(b, pgid) {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(p) + "/task/*/status")
		for _, path := range tasks {
			data, err := os.ReadFile(path)
			if err != nil {
				continue // exited meanwhile
			}
			if !strings.Contains(string(data), "\nCpus_allowed_list:\t"+serverCPU+"\n") {
				left = append(left, p)
				break
			}
		}
	}
	return left
}

// groupPIDs lists the processes whose process group is pgid.
func groupPIDs(b *testing.B, pgid int) []int {
	b.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		b.Fatal(err)
	}
	var pids []int
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // exited meanwhile
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		b.Fatalf("no process in group %d", pgid)
	}
	return pids
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat:
// 100 on every Linux architecture Go runs on.
const clockTicks = 100

// groupCPUTicks sums the user and system time of the processes of a
// process group, in clock ticks.
func groupCPUTicks(b *testing.B, pgid int) uint64 {
	b.Helper()
	var sum uint64
	for _, pid := range groupPIDs(b, pgid) {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 12 {
			utime, _ := strconv.ParseUint(fields[11], 10, 64)
			stime, _ := strconv.ParseUint(fields[12], 10, 64)
			sum += utime + stime
		}
	}
	return sum
}

// cpuTimes are the idle and steal times of a CPU so far, in clock ticks,
// from /proc/stat. What is idle per request on CPU serverCPU shows whether
// that CPU was the limit; steal is time the hypervisor ran something else.
type cpuTimes struct{ idle, steal uint64 }

func readCPUTimes(b *testing.B, cpu string) cpuTimes {
	b.Helper()
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		fields := strings.Fields(line)
		if len(fields) > 8 && fields[0] == "cpu"+cpu {
			idle, _ := strconv.ParseUint(fields[4], 10, 64)
			steal, _ := strconv.ParseUint(fields[8], 10, 64)
			return cpuTimes{idle, steal}
		}
	}
	b.Fatalf("/proc/stat has no cpu%s line", cpu)
	return cpuTimes{}
}

// memStats are the counters of a Go process's runtime.MemStats that
// allocations per request come from.
type memStats struct{ mallocs, totalAlloc uint64 }

// readMemStats reads them from the "# runtime.MemStats" lines of the heap
// profile in text form.
func readMemStats(b *testing.B, pprof string) memStats {
	b.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + pprof + "/debug/pprof/allocs?debug=1")
	if err != nil {
		b.Fatalf("edge pprof: %v", err)
	}
	defer resp.Body.Close()
	var m memStats
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "# Mallocs = "); ok {
			m.mallocs, _ = strconv.ParseUint(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "# TotalAlloc = "); ok {
			m.totalAlloc, _ = strconv.ParseUint(v, 10, 64)
		}
	}
	if m.mallocs == 0 {
		b.Fatalf("edge pprof: no runtime.MemStats in the allocs profile")
	}
	return m
}

// median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// benchRounds is EDGE_BENCH_ROUNDS, or 5.
func benchRounds(b *testing.B) int {
	v := os.Getenv("EDGE_BENCH_ROUNDS")
	if v == "" {
		return 5
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("EDGE_BENCH_ROUNDS=%q: want a positive number", v)
	}
	return n
}

// startFront builds and starts one of the tools that stand in front of
// s's pool (testenv/gofastfront, testenv/epollfloor; they take the same
// flags) on CPU serverCPU, running hello.php for every request.
func startFront(b *testing.B, name, tool string, s *site, taskset string) *server {
	b.Helper()
	bin := testenv.BuildTool(b, tool)
	port := testenv.FreePort(b)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(taskset, "-c", serverCPU, bin, "-listen", addr,
		"-network", s.fpm.Network, "-address", s.fpm.Address, "-script", filepath.Join(s.root, "hello.php"))
	proc := testenv.Start(b, name, cmd)
	testenv.WaitPort(b, addr)
	return &server{name: name, addr: addr, port: port, proc: proc}
}
