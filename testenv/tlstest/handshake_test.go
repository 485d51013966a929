// BenchmarkHandshakeRate compares full TLS handshakes per second of edge
// and nginx on the same machine, one worker each pinned to CPU 0 and
// h2load pinned to CPU 1, a new connection for every request
// ("Connection: close", 1 KiB file), for an ECDSA P-256 and an RSA 2048
// certificate. Rounds alternate between the servers so that a change in
// the machine's load hits both; the medians and their ratio are reported.
// So is the servers' CPU time per handshake (from /proc, the process and
// its children), which a busy machine disturbs much less than the rates.
//
//	go test ./testenv/tlstest -run '^$' -bench HandshakeRate -benchtime 1x
//
// It is a measurement, not a test: nothing is asserted about the numbers.

package tlstest

import (
	"fmt"
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

// handshakeRounds is how many rounds each server gets.
const handshakeRounds = 3

// handshakeRequests is the number of connections per round.
const handshakeRequests = 2000

func BenchmarkHandshakeRate(b *testing.B) {
	h2load := testenv.Binary(b, "nghttp2-client", "h2load")
	nginx := testenv.NginxBinary(b)
	taskset, _ := exec.LookPath("taskset")
	pin := func(cpu string, argv ...string) *exec.Cmd {
		if taskset == "" {
			return exec.Command(argv[0], argv[1:]...)
		}
		return exec.Command(taskset, append([]string{"-c", cpu}, argv...)...)
	}
	dir, _ := siteDir(b)
	for _, kind := range []string{"ec", "rsa"} {
		b.Run(kind, func(b *testing.B) {
			edgePort, nginxPort := testenv.FreePort(b), testenv.FreePort(b)
			server := func(port int, root string) string {
				return fmt.Sprintf("    server {\n        listen %s ssl;\n        server_name localhost;\n"+
					"        ssl_certificate %s/%s.crt;\n        ssl_certificate_key %s/%s.key;\n        root %s;\n    }\n",
					listen(port), dir, kind, dir, kind, root)
			}
			edgeLog := filepath.Join(dir, "logs", kind+"-edge.log")
			edgeProc := testenv.StartEdge(b, testenv.EdgeOptions{
				Name:   "edge-" + kind,
				Prefix: dir,
				Conf:   edgeMain + "http {\n    access_log off;\n" + server(edgePort, filepath.Join(dir, "html")) + "}\n",
				Global: "daemon off; pid " + filepath.Join(dir, kind+"-edge.pid") + "; error_log " + edgeLog + ";",
				// Pinned to CPU 0 from its first instruction; h2load
				// runs on CPU 1.
				Prep: func(cmd *exec.Cmd) {
					pinned := pin("0", cmd.Args...)
					cmd.Path, cmd.Args = pinned.Path, pinned.Args
				},
				ErrorLog:     edgeLog,
				Ports:        []int{edgePort},
				ReadyTimeout: readyTimeout,
			}).Proc

			nginxPrefix := filepath.Join(dir, "nginx-"+kind)
			nginxConf := testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps(nginxPrefix) + "access_log off;\n" +
				server(nginxPort, filepath.Join(dir, "html")) + "}\n"
			writeFile(b, filepath.Join(nginxPrefix, "logs", "keep"), nil)
			writeFile(b, filepath.Join(nginxPrefix, "nginx.conf"), []byte(nginxConf))
			cmd := pin("0", nginx, "-p", nginxPrefix+"/", "-c", filepath.Join(nginxPrefix, "nginx.conf"),
				"-g", "daemon off; pid "+filepath.Join(nginxPrefix, "nginx.pid")+"; error_log "+filepath.Join(nginxPrefix, "logs", "error.log")+";")
			nginxProc := testenv.Start(b, "nginx-"+kind, cmd)
			testenv.WaitProcPort(b, nginxProc, listen(nginxPort), readyTimeout)

			var edgeRates, nginxRates, edgeCPU, nginxCPU []float64
			for r := 0; r < handshakeRounds; r++ {
				rate, cpu := handshakes(b, pin, h2load, edgePort, edgeProc.PID())
				edgeRates, edgeCPU = append(edgeRates, rate), append(edgeCPU, cpu)
				rate, cpu = handshakes(b, pin, h2load, nginxPort, nginxProc.PID())
				nginxRates, nginxCPU = append(nginxRates, rate), append(nginxCPU, cpu)
			}
			e, n := median(edgeRates), median(nginxRates)
			ec, nc := median(edgeCPU), median(nginxCPU)
			b.ReportMetric(e, "edge-handshakes/s")
			b.ReportMetric(n, "nginx-handshakes/s")
			b.ReportMetric(e/n, "edge/nginx")
			b.ReportMetric(ec, "edge-cpu-us/handshake")
			b.ReportMetric(nc, "nginx-cpu-us/handshake")
			b.ReportMetric(nc/ec, "edge/nginx-per-cpu-second")
			b.Logf("%s: edge %.0f, nginx %.0f handshakes/s; median ratio %.2f", kind, edgeRates, nginxRates, e/n)
			b.Logf("%s: server CPU per handshake: edge %.0f us, nginx %.0f us; handshakes per CPU second ratio %.2f", kind, edgeCPU, nginxCPU, nc/ec)
		})
	}
}

var h2loadRate = regexp.MustCompile(`finished in [^,]+, ([0-9.]+) req/s`)
var h2loadStatus = regexp.MustCompile(`status codes: (\d+) 2xx`)

// handshakes runs one h2load round with a new connection per request and
// returns requests (so handshakes) per second, and the server's CPU
// microseconds per handshake.
func handshakes(b *testing.B, pin func(string, ...string) *exec.Cmd, h2load string, port, pid int) (float64, float64) {
	b.Helper()
	before := cpuTime(b, pid)
	cmd := pin("1", h2load, "-n", strconv.Itoa(handshakeRequests), "-c", "20", "-m", "1", "--h1",
		"-H", "Connection: close", fmt.Sprintf("https://%s/1k.txt", listen(port)))
	out, err := cmd.CombinedOutput()
	rate := h2loadRate.FindSubmatch(out)
	ok := h2loadStatus.FindSubmatch(out)
	if err != nil || rate == nil || ok == nil || string(ok[1]) != strconv.Itoa(handshakeRequests) {
		b.Fatalf("h2load on port %d: %v\n%s", port, err, out)
	}
	v, _ := strconv.ParseFloat(string(rate[1]), 64)
	cpu := (cpuTime(b, pid) - before).Seconds() * 1e6 / handshakeRequests
	return v, cpu
}

// cpuTime is the user and system time of a process and its live
// children (nginx's worker), from /proc/PID/stat.
func cpuTime(b *testing.B, pid int) time.Duration {
	b.Helper()
	total := procCPU(b, pid)
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		data, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(data)) {
			if child, err := strconv.Atoi(f); err == nil {
				total += procCPU(b, child)
			}
		}
	}
	return total
}

// procCPU reads utime+stime (clock ticks, 100 per second on Linux).
func procCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name, which is in parentheses.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * (time.Second / 100)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
