// This file runs the same limit_req configurations and request sequences
// through Debian's nginx and through the engine, and compares which
// requests each passed, delayed or rejected. nginx's clock is real, so the
// sequences use rates under which a burst sent within a few hundred
// milliseconds has one answer; the engine gets one millisecond per request.

package limit_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"edge/proxy/limit"
	"edge/testenv"
)

type zoneSpec struct{ name, arg, size, rate string }

type scenario struct {
	name   string
	zones  []zoneSpec
	limits []string // limit_req arguments, e.g. "zone=a burst=3 nodelay"
	dryRun bool
	status int // limit_req_status; 0 for nginx's default 503
	reqs   []string
	// async marks requests whose response is read after the next request
	// is sent (a delayed one would otherwise hold the sequence up).
	async map[int]bool
}

func (s scenario) nginxConf(port int, root string) string {
	var b strings.Builder
	b.WriteString(testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs(""))
	for _, z := range s.zones {
		fmt.Fprintf(&b, "limit_req_zone $arg_%s zone=%s:%s rate=%s;\n", z.arg, z.name, z.size, z.rate)
	}
	fmt.Fprintf(&b, "server {\nlisten 127.0.0.1:%d;\nroot %s;\nlocation / {\n", port, root)
	for _, l := range s.limits {
		fmt.Fprintf(&b, "limit_req %s;\n", l)
	}
	if s.dryRun {
		b.WriteString("limit_req_dry_run on;\n")
	}
	if s.status != 0 {
		fmt.Fprintf(&b, "limit_req_status %d;\n", s.status)
	}
	b.WriteString("add_header X-Limit $limit_req_status always;\n}\n}\n}\n")
	return b.String()
}

type outcome struct {
	code   int
	status string
}

// engine builds the scenario's zones and runs its requests at 1 ms apart.
func (s scenario) engine(t *testing.T) []outcome {
	t.Helper()
	zones := map[string]*limit.ReqZone{}
	args := map[string]string{}
	for _, z := range s.zones {
		r, err := limit.ParseRate(z.rate)
		if err != nil {
			t.Fatal(err)
		}
		size, err := parseSize(z.size)
		if err != nil {
			t.Fatal(err)
		}
		zones[z.name], err = limit.NewReqZone(z.name, size, r)
		if err != nil {
			t.Fatal(err)
		}
		args[z.name] = z.arg
	}
	var limits []limit.ReqLimit
	var keyArgs []string
	for _, spec := range s.limits {
		var l limit.ReqLimit
		for _, f := range strings.Fields(spec) {
			switch {
			case strings.HasPrefix(f, "zone="):
				l.Zone = zones[f[5:]]
				keyArgs = append(keyArgs, args[f[5:]])
			case strings.HasPrefix(f, "burst="):
				l.Burst, _ = strconv.ParseInt(f[6:], 10, 64)
			case strings.HasPrefix(f, "delay="):
				l.Delay, _ = strconv.ParseInt(f[6:], 10, 64)
			case f == "nodelay":
				l.Delay = limit.NoDelay
			}
		}
		limits = append(limits, l)
	}
	status := s.status
	if status == 0 {
		status = 503
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []outcome
	for i, q := range s.reqs {
		v, _ := url.ParseQuery(q)
		keys := make([][]byte, len(limits))
		for j, a := range keyArgs {
			keys[j] = []byte(v.Get(a))
		}
		d := limit.CheckReq(limits, keys, start.Add(time.Duration(i)*time.Millisecond), s.dryRun)
		code := 200
		if d.Status == limit.ReqRejected {
			code = status
		}
		out = append(out, outcome{code, d.Status.String()})
	}
	return out
}

func parseSize(s string) (int64, error) {
	mul := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mul, s = 1<<10, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mul, s = 1<<20, strings.TrimSuffix(s, "m")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mul, err
}

func startNginx(t *testing.T, s scenario) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := testenv.FreePort(t)
	n := testenv.StartNginx(t, s.nginxConf(port, root), port)
	return n.Addr()
}

// send writes one request on a fresh connection and returns a function
// that reads its response.
func send(t *testing.T, addr, query string) func() outcome {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /f.txt?%s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", query)
	return func() outcome {
		defer c.Close()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		resp.Body.Close()
		return outcome{resp.StatusCode, resp.Header.Get("X-Limit")}
	}
}

func (s scenario) nginx(t *testing.T) []outcome {
	addr := startNginx(t, s)
	out := make([]outcome, len(s.reqs))
	var pending []func()
	for i, q := range s.reqs {
		read := send(t, addr, q)
		if s.async[i] {
			pending = append(pending, func() { out[i] = read() })
			continue
		}
		out[i] = read()
	}
	for _, p := range pending {
		p()
	}
	return out
}

func repeat(q string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = q
	}
	return out
}

func TestLimitReqAgainstNginx(t *testing.T) {
	rollback := []string{"a=x&b=1", "a=x&b=1"}
	for i := 2; i <= 7; i++ {
		rollback = append(rollback, fmt.Sprintf("a=x&b=%d", i))
	}
	scenarios := []scenario{
		{name: "burst nodelay", zones: []zoneSpec{{"a", "a", "1m", "1r/s"}},
			limits: []string{"zone=a burst=3 nodelay"}, reqs: repeat("a=x", 6)},
		{name: "status 429, two keys", zones: []zoneSpec{{"a", "a", "1m", "1r/s"}},
			limits: []string{"zone=a burst=1 nodelay"}, status: 429,
			reqs: []string{"a=x", "a=y", "a=x", "a=x", "a=y", "a=y", "a=", "a="}},
		{name: "two-stage delay", zones: []zoneSpec{{"a", "a", "1m", "1r/s"}},
			limits: []string{"zone=a burst=3 delay=2"}, reqs: repeat("a=x", 5), async: map[int]bool{3: true}},
		{name: "per minute", zones: []zoneSpec{{"a", "a", "1m", "30r/m"}},
			limits: []string{"zone=a burst=2 nodelay"}, reqs: repeat("a=x", 5)},
		{name: "rollback of an earlier zone", zones: []zoneSpec{{"a", "a", "1m", "1r/s"}, {"b", "b", "1m", "1r/m"}},
			limits: []string{"zone=a burst=5 nodelay", "zone=b"}, reqs: rollback},
		{name: "dry run", zones: []zoneSpec{{"a", "a", "1m", "1r/s"}},
			limits: []string{"zone=a burst=1"}, dryRun: true, reqs: repeat("a=x", 4)},
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			want := s.nginx(t)
			got := s.engine(t)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("request %d (%s): engine %d %s, nginx %d %s", i, s.reqs[i],
						got[i].code, got[i].status, want[i].code, want[i].status)
				}
			}
			t.Logf("nginx: %v", want)
		})
	}
}

// TestZoneCapacityAgainstNginx fills a 32k zone with more keys than it
// holds, then asks for the newest keys again, newest first: a key still
// held is rejected (1r/m, no burst), the first one forgotten passes. The
// number rejected is the zone's capacity, in nginx and in the engine.
func TestZoneCapacityAgainstNginx(t *testing.T) {
	for _, keyLen := range []int{5, 49} {
		t.Run(fmt.Sprintf("key %d bytes", keyLen), func(t *testing.T) {
			s := scenario{zones: []zoneSpec{{"one", "k", "32k", "1r/m"}}, limits: []string{"zone=one"}}
			key := func(i int) string { return fmt.Sprintf("k%0*d", keyLen-1, i) }
			const filled = 300
			addr := startNginx(t, s)
			for i := 0; i < filled; i++ {
				if o := send(t, addr, "k="+key(i))(); o.code != 200 {
					t.Fatalf("nginx, filling key %d: %d", i, o.code)
				}
			}
			nginxHeld := 0
			for i := filled - 1; i >= 0; i-- {
				if send(t, addr, "k="+key(i))().code == 200 {
					break
				}
				nginxHeld++
			}

			r, _ := limit.ParseRate("1r/m")
			z, err := limit.NewReqZone("one", 32<<10, r)
			if err != nil {
				t.Fatal(err)
			}
			ls := []limit.ReqLimit{{Zone: z}}
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := 0; i < filled; i++ {
				limit.CheckReq(ls, [][]byte{[]byte(key(i))}, now, false)
			}
			held := 0
			for i := filled - 1; i >= 0; i-- {
				if limit.CheckReq(ls, [][]byte{[]byte(key(i))}, now, false).Status == limit.ReqPassed {
					break
				}
				held++
			}
			if held != nginxHeld || held != z.Capacity(keyLen) {
				t.Fatalf("zone held %d states in nginx, %d in the engine (Capacity %d)", nginxHeld, held, z.Capacity(keyLen))
			}
			t.Logf("32k zone, %d-byte keys: %d states", keyLen, held)
		})
	}
}
