// This file tests the limit_req engine on request sequences with exact
// timestamps, worked out by hand from ngx_http_limit_req_module.c's
// arithmetic.

package limit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func mustZone(t testing.TB, name string, size int64, rate string) *ReqZone {
	t.Helper()
	r, err := ParseRate(rate)
	if err != nil {
		t.Fatal(err)
	}
	z, err := NewReqZone(name, size, r)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want Rate
		err  bool
	}{
		{"1r/s", 1000, false},
		{"10r/s", 10000, false},
		{"30r/m", 500, false},
		{"1r/m", 16, false}, // truncated: nginx stores 1000/60
		{"5", 5000, false},  // no suffix: per second
		{"0r/s", 0, true},
		{"-1r/s", 0, true},
		{"r/s", 0, true},
		{"1r/h", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d, err %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

type step struct {
	ms    int
	key   string
	want  ReqStatus
	delay time.Duration
}

func runSteps(t *testing.T, limits []ReqLimit, dry bool, steps []step) {
	t.Helper()
	for i, s := range steps {
		keys := make([][]byte, len(limits))
		for j := range keys {
			keys[j] = []byte(s.key)
		}
		d := CheckReq(limits, keys, at(s.ms), dry)
		if d.Status != s.want || d.Delay != s.delay {
			t.Errorf("step %d (t=%dms key %q): %v delay %v, want %v delay %v (%s)",
				i, s.ms, s.key, d.Status, d.Delay, s.want, s.delay, d.Message())
		}
	}
}

func TestLeakyBucket(t *testing.T) {
	const sec = time.Second
	tests := []struct {
		name  string
		rate  string
		burst int64
		delay int64
		dry   bool
		steps []step
	}{
		{"no burst", "1r/s", 0, 0, false, []step{
			{0, "a", ReqPassed, 0},
			{0, "a", ReqRejected, 0},
			{999, "a", ReqRejected, 0}, // excess 0 - 999 + 1000 = 1
			{1000, "a", ReqPassed, 0},
			{1000, "b", ReqPassed, 0}, // keys are independent
		}},
		{"burst delays", "1r/s", 2, 0, false, []step{
			{0, "a", ReqPassed, 0},
			{0, "a", ReqDelayed, 1 * sec},
			{0, "a", ReqDelayed, 2 * sec},
			{0, "a", ReqRejected, 0},
			{500, "a", ReqRejected, 0}, // 2000-500+1000 = 2500
			{1000, "a", ReqDelayed, 2 * sec},
		}},
		{"nodelay", "1r/s", 2, NoDelay, false, []step{
			{0, "a", ReqPassed, 0},
			{0, "a", ReqPassed, 0},
			{0, "a", ReqPassed, 0},
			{0, "a", ReqRejected, 0},
			{1000, "a", ReqPassed, 0},
		}},
		{"two-stage delay=1", "1r/s", 3, 1, false, []step{
			{0, "a", ReqPassed, 0},
			{0, "a", ReqPassed, 0},           // excess 1000 <= delay
			{0, "a", ReqDelayed, 1 * sec},    // 2000
			{0, "a", ReqDelayed, 2 * sec},    // 3000
			{0, "a", ReqRejected, 0},         // 4000 > burst
			{10, "a", ReqRejected, 0},        // 3990
			{1000, "a", ReqDelayed, 2 * sec}, // 3000
		}},
		{"per minute", "30r/m", 0, 0, false, []step{
			{0, "a", ReqPassed, 0},
			{1999, "a", ReqRejected, 0}, // 1000 - 500*1999/1000 = 1
			{2000, "a", ReqPassed, 0},
		}},
		{"1r/m truncates", "1r/m", 0, 0, false, []step{
			{0, "a", ReqPassed, 0},
			{62499, "a", ReqRejected, 0}, // 1000 - 16*62499/1000 = 1
			{62500, "a", ReqPassed, 0},
		}},
		{"clock backwards", "1r/s", 0, 0, false, []step{
			{100000, "a", ReqPassed, 0},
			{99000, "a", ReqRejected, 0}, // ms < 0 counts as 0
			{30000, "a", ReqRejected, 0}, // ms < -60000 counts as 1: 0 - 1 + 1000
		}},
		{"dry run", "1r/s", 2, 0, true, []step{
			{0, "a", ReqPassed, 0},
			{0, "a", ReqDelayedDryRun, 1 * sec},
			{0, "a", ReqDelayedDryRun, 2 * sec}, // dry run accounts as a real run
			{0, "a", ReqRejectedDryRun, 0},
		}},
		{"empty key", "1r/s", 0, 0, false, []step{
			{0, "", ReqNone, 0},
			{0, "", ReqNone, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := mustZone(t, "one", 1<<20, tt.rate)
			runSteps(t, []ReqLimit{{Zone: z, Burst: tt.burst, Delay: tt.delay}}, tt.dry, tt.steps)
		})
	}
}

func TestClockBackwardsFarCountsOneMs(t *testing.T) {
	z := mustZone(t, "one", 1<<20, "1r/s")
	l := []ReqLimit{{Zone: z, Burst: 5, Delay: NoDelay}}
	k := [][]byte{[]byte("a")}
	CheckReq(l, k, at(100000), false)
	CheckReq(l, k, at(100000), false) // excess 1000
	CheckReq(l, k, at(30000), false)  // ms = 1: 1000 - 1 + 1000
	if got := z.nodes["a"].excess; got != 1999 {
		t.Fatalf("excess after a jump back of 70 s = %d, want 1999", got)
	}
}

// An earlier zone's state is left as it was when a later zone rejects
// (ngx_http_limit_req_handler's unlock loop), and is accounted when none does.
func TestSeveralLimitsRollback(t *testing.T) {
	a := mustZone(t, "a", 1<<20, "1r/s")
	b := mustZone(t, "b", 1<<20, "1r/m")
	limits := []ReqLimit{{Zone: a, Burst: 5, Delay: NoDelay}, {Zone: b}}
	keys := func(b string) [][]byte { return [][]byte{[]byte("x"), []byte(b)} }

	if d := CheckReq(limits, keys("1"), at(0), false); d.Status != ReqPassed {
		t.Fatalf("first: %v", d.Status)
	}
	d := CheckReq(limits, keys("1"), at(0), false)
	if d.Status != ReqRejected || d.Zone != "b" {
		t.Fatalf("second: %v by %q, want REJECTED by b", d.Status, d.Zone)
	}
	if n := a.nodes["x"]; n.excess != 0 || n.count != 0 {
		t.Fatalf("zone a after b rejected: excess %d count %d, want 0 0", n.excess, n.count)
	}
	if d := CheckReq(limits, keys("2"), at(0), false); d.Status != ReqPassed {
		t.Fatalf("third: %v", d.Status)
	}
	if n := a.nodes["x"]; n.excess != 1000 {
		t.Fatalf("zone a after a pass: excess %d, want 1000", n.excess)
	}
}

// With several limits the longest delay wins, whichever zone sets it.
func TestSeveralLimitsLongestDelay(t *testing.T) {
	slow := mustZone(t, "slow", 1<<20, "1r/s")
	fast := mustZone(t, "fast", 1<<20, "10r/s")
	for _, order := range [][]*ReqZone{{slow, fast}, {fast, slow}} {
		limits := []ReqLimit{{Zone: order[0], Burst: 5}, {Zone: order[1], Burst: 5}}
		k := [][]byte{[]byte("k"), []byte("k")}
		CheckReq(limits, k, at(0), false)
		d := CheckReq(limits, k, at(0), false)
		if d.Status != ReqDelayed || d.Delay != time.Second || d.Zone != "slow" || d.Excess != 1000 {
			t.Errorf("order %s,%s: %+v, want DELAYED 1s by slow", order[0].name, order[1].name, d)
		}
		slow.nodes, slow.head, slow.tail, slow.mem = map[string]*reqNode{}, nil, nil, newSlab(1<<20)
		fast.nodes, fast.head, fast.tail, fast.mem = map[string]*reqNode{}, nil, nil, newSlab(1<<20)
	}
}

// A later limit with an empty key leaves the decision to the earlier ones.
func TestSeveralLimitsLastKeyEmpty(t *testing.T) {
	a := mustZone(t, "a", 1<<20, "1r/s")
	b := mustZone(t, "b", 1<<20, "1r/s")
	limits := []ReqLimit{{Zone: a, Burst: 5}, {Zone: b}}
	k := [][]byte{[]byte("x"), nil}
	if d := CheckReq(limits, k, at(0), false); d.Status != ReqPassed {
		t.Fatalf("first: %v", d.Status)
	}
	if d := CheckReq(limits, k, at(0), false); d.Status != ReqDelayed || d.Delay != time.Second || d.Zone != "a" {
		t.Fatalf("second: %+v", d)
	}
	if b.Len() != 0 {
		t.Fatalf("zone b holds %d states for an empty key", b.Len())
	}
}

func TestMessages(t *testing.T) {
	tests := []struct {
		d    ReqDecision
		want string
	}{
		{ReqDecision{Status: ReqRejected, Zone: "one", Excess: 1500}, `limiting requests, excess: 1.500 by zone "one"`},
		{ReqDecision{Status: ReqRejectedDryRun, Zone: "one", Excess: 2000, DryRun: true}, `limiting requests, dry run, excess: 2.000 by zone "one"`},
		{ReqDecision{Status: ReqDelayed, Zone: "one", Excess: 999}, `delaying request, excess: 0.999, by zone "one"`},
		{ReqDecision{Status: ReqRejected, Zone: "one", NoMemory: true}, `could not allocate node in limit_req zone "one"`},
		{ReqDecision{Status: ReqPassed}, ""},
	}
	for _, tt := range tests {
		if got := tt.d.Message(); got != tt.want {
			t.Errorf("Message() = %q, want %q", got, tt.want)
		}
	}
	for s, want := range map[ReqStatus]string{ReqNone: "", ReqPassed: "PASSED", ReqDelayed: "DELAYED",
		ReqRejected: "REJECTED", ReqDelayedDryRun: "DELAYED_DRY_RUN", ReqRejectedDryRun: "REJECTED_DRY_RUN"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), want)
		}
	}
}

func TestZoneCapacity(t *testing.T) {
	tests := []struct {
		size   int64
		keyLen int
		want   int
	}{
		// 7 pages: one holds the zone head and 31 states of 128 bytes,
		// one the log context, five hold 32 states each.
		{32 << 10, 4, 191},
		{32 << 10, 48, 191},  // 128 bytes exactly
		{32 << 10, 49, 80},   // 129: 256-byte chunks, 16 a page
		{1 << 20, 4, 8095},   // "about 8 thousand 128-byte states"
		{1 << 20, 16, 8095},  // $binary_remote_addr of IPv6
		{10 << 20, 4, 81375}, // 2544 pages
	}
	for _, tt := range tests {
		z := mustZone(t, "one", tt.size, "1r/s")
		if got := z.Capacity(tt.keyLen); got != tt.want {
			t.Errorf("Capacity(size %d, key %d) = %d, want %d", tt.size, tt.keyLen, got, tt.want)
		}
	}
	if _, err := NewReqZone("x", MinZoneSize-1, 1000); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("a zone under 32k: %v", err)
	}
}

// A full zone evicts its least recently used state; a state pinned by a
// request in flight cannot go, and then the request is rejected.
func TestZoneFull(t *testing.T) {
	z := mustZone(t, "one", 32<<10, "1r/m")
	limits := []ReqLimit{{Zone: z}}
	capacity := z.Capacity(5)
	key := func(i int) [][]byte { return [][]byte{[]byte(fmt.Sprintf("k%04d", i))} }
	for i := 0; i < capacity; i++ {
		if d := CheckReq(limits, key(i), at(i), false); d.Status != ReqPassed {
			t.Fatalf("key %d: %v", i, d.Status)
		}
	}
	if z.Len() != capacity {
		t.Fatalf("zone holds %d, want %d", z.Len(), capacity)
	}
	// k0000 is bumped: k0001 is now the oldest.
	if d := CheckReq(limits, key(0), at(capacity), false); d.Status != ReqRejected {
		t.Fatalf("k0000 again: %v", d.Status)
	}
	CheckReq(limits, key(capacity), at(capacity+1), false)
	if _, ok := z.nodes["k0001"]; ok {
		t.Fatal("k0001 survived a full zone")
	}
	if _, ok := z.nodes["k0000"]; !ok {
		t.Fatal("k0000 was evicted although recently used")
	}

	z.tail.count = 1 // a request between lookup and account holds it
	d := CheckReq(limits, key(capacity+1), at(capacity+2), false)
	if d.Status != ReqRejected || !d.NoMemory {
		t.Fatalf("full zone with a pinned tail: %+v", d)
	}
	if d.Message() != `could not allocate node in limit_req zone "one"` {
		t.Fatalf("message %q", d.Message())
	}
	if d := CheckReq(limits, key(capacity+1), at(capacity+2), true); d.Status != ReqRejectedDryRun {
		t.Fatalf("dry run: %v", d.Status)
	}
}

// Before allocating, up to two states idle for a minute and drained go.
func TestExpireIdle(t *testing.T) {
	z := mustZone(t, "one", 1<<20, "1r/s")
	limits := []ReqLimit{{Zone: z}}
	for _, k := range []string{"a", "b", "c"} {
		CheckReq(limits, [][]byte{[]byte(k)}, at(0), false)
	}
	CheckReq(limits, [][]byte{[]byte("d")}, at(59999), false)
	if z.Len() != 4 {
		t.Fatalf("idle under a minute: %d states, want 4", z.Len())
	}
	CheckReq(limits, [][]byte{[]byte("e")}, at(60000), false)
	if z.Len() != 3 { // a and b go, c stays (two at most)
		t.Fatalf("after a minute: %d states, want 3", z.Len())
	}
	if _, ok := z.nodes["c"]; !ok {
		t.Fatal("c went: expire removes two at most")
	}
}
