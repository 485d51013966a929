// These tests run the resolver against testenv's DNS server on a
// loopback port: answers, rotation, the TTL and valid= cache, error
// codes in nginx's words, CNAME, TCP after a truncated answer, a
// timeout, and several servers.

package resolver

import (
	"context"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"edge/testenv"

	"golang.org/x/net/dns/dnsmessage"
)

// clock is a settable time for the cache.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newResolver(t *testing.T, d *testenv.DNS, cfg Config) (*Resolver, *clock) {
	t.Helper()
	if cfg.Servers == nil {
		cfg.Servers = []netip.AddrPort{netip.MustParseAddrPort(d.Addr)}
	}
	r := New(cfg)
	c := &clock{t: time.Unix(1_000_000, 0)}
	r.Now = c.now
	return r, c
}

func strs(a []netip.Addr) []string {
	var s []string
	for _, x := range a {
		s = append(s, x.String())
	}
	return s
}

func TestResolveRotatesAndCaches(t *testing.T) {
	d := testenv.StartDNS(t, map[string]testenv.DNSRecord{
		"multi.test": {Addrs: []string{"127.0.0.1", "127.0.0.2", "127.0.0.3", "::1"}, TTL: 60},
	})
	r, clk := newResolver(t, d, Config{IPv4: true, IPv6: true})
	want := [][]string{
		{"127.0.0.1", "127.0.0.2", "127.0.0.3", "::1"},
		{"127.0.0.2", "127.0.0.3", "127.0.0.1", "::1"},
		{"127.0.0.3", "127.0.0.1", "127.0.0.2", "::1"},
		{"127.0.0.1", "127.0.0.2", "127.0.0.3", "::1"},
	}
	for i, w := range want {
		got, err := r.Resolve(context.Background(), "multi.test", 5*time.Second)
		if err != nil || !slices.Equal(strs(got), w) {
			t.Fatalf("answer %d: %v %v, want %v", i, strs(got), err, w)
		}
	}
	if n := d.Asked("multi.test"); n != 1 {
		t.Fatalf("asked %d times within the TTL, want 1", n)
	}
	wantKept(t, r, clk, d, "multi.test", 60*time.Second)
}

func TestResolveValidOverridesTTL(t *testing.T) {
	d := testenv.StartDNS(t, map[string]testenv.DNSRecord{"a.test": {Addrs: []string{"127.0.0.9"}, TTL: 1}})
	r, clk := newResolver(t, d, Config{IPv4: true, Valid: 30 * time.Second})
	if _, err := r.Resolve(context.Background(), "a.test", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	wantKept(t, r, clk, d, "a.test", 30*time.Second)
}

// wantKept checks that name, resolved just now, is answered from the
// cache until keep has passed, and asked again after.
func wantKept(t *testing.T, r *Resolver, clk *clock, d *testenv.DNS, name string, keep time.Duration) {
	t.Helper()
	asked := d.Asked(name)
	for _, step := range []struct {
		after time.Duration
		want  int
	}{{keep - time.Second, asked}, {2 * time.Second, asked + 1}} {
		clk.add(step.after)
		_, _ = r.Resolve(context.Background(), name, 5*time.Second)
		if n := d.Asked(name); n != step.want {
			t.Errorf("%s: asked %d times, want %d (kept %v)", name, n, step.want, keep)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	d := testenv.StartDNS(t, map[string]testenv.DNSRecord{
		"fail.test":  {RCode: dnsmessage.RCodeServerFailure},
		"empty.test": {},
		"alias.test": {CNAME: "real.test", TTL: 60},
		"real.test":  {Addrs: []string{"127.0.0.5"}, TTL: 60},
		"big.test":   {Addrs: []string{"127.0.0.6"}, TTL: 60, Truncate: true},
		"both.test":  {CNAME: "elsewhere.test", Addrs: []string{"127.0.0.7"}, TTL: 60},
	})
	r, clk := newResolver(t, d, Config{IPv4: true, IPv6: true})
	cases := []struct{ name, want, err string }{
		{"nx.test", "", "3: Host not found"},
		{"fail.test", "", "2: Server failure"},
		{"empty.test", "", "3: Host not found"},
		{"a..b", "", "3: Host not found"},
		{"alias.test", "127.0.0.5", ""},
		{"both.test", "127.0.0.7", ""},
		{"big.test", "127.0.0.6", ""},
		{"127.0.0.8", "127.0.0.8", ""},
	}
	for _, c := range cases {
		got, err := r.Resolve(context.Background(), c.name, 5*time.Second)
		es := ""
		if err != nil {
			es = err.Error()
		}
		if es != c.err || (c.want != "" && !slices.Equal(strs(got), []string{c.want})) {
			t.Errorf("%s: %v %q, want %s %q", c.name, strs(got), es, c.want, c.err)
		}
	}
	if d.TCPAsked() == 0 {
		t.Errorf("a truncated answer was not asked again over TCP")
	}
	// An error is kept 10 seconds.
	wantKept(t, r, clk, d, "nx.test", 10*time.Second)
}

func TestResolveTimeoutAndNextServer(t *testing.T) {
	d := testenv.StartDNS(t, map[string]testenv.DNSRecord{"slow.test": {Silent: true}, "ok.test": {Addrs: []string{"127.0.0.4"}}})
	silent := testenv.StartDNS(t, map[string]testenv.DNSRecord{"ok.test": {Silent: true}})
	r, _ := newResolver(t, d, Config{IPv4: true})
	r.Resend = 50 * time.Millisecond
	if _, err := r.Resolve(context.Background(), "slow.test", 200*time.Millisecond); err == nil || err.Error() != "110: Operation timed out" {
		t.Fatalf("silent server: %v, want 110: Operation timed out", err)
	}
	// The first server says nothing: the next one is asked after Resend.
	r2, _ := newResolver(t, d, Config{IPv4: true, Servers: []netip.AddrPort{
		netip.MustParseAddrPort(silent.Addr), netip.MustParseAddrPort(d.Addr)}})
	r2.Resend = 50 * time.Millisecond
	got, err := r2.Resolve(context.Background(), "ok.test", 5*time.Second)
	if err != nil || !slices.Equal(strs(got), []string{"127.0.0.4"}) {
		t.Fatalf("second server: %v %v", strs(got), err)
	}
	if silent.Asked("ok.test") != 1 || d.Asked("ok.test") != 1 {
		t.Fatalf("asked %d and %d, want 1 and 1", silent.Asked("ok.test"), d.Asked("ok.test"))
	}
}

func TestRotate(t *testing.T) {
	a := []netip.Addr{netip.MustParseAddr("::1"), netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("::2")}
	cases := []struct {
		k    int
		want []string
	}{
		{0, []string{"10.0.0.1", "10.0.0.2", "::1", "::2"}},
		{1, []string{"10.0.0.2", "10.0.0.1", "::2", "::1"}},
	}
	for _, c := range cases {
		if got := strs(rotate(a, c.k)); !slices.Equal(got, c.want) {
			t.Errorf("rotate(%d) = %v, want %v", c.k, got, c.want)
		}
	}
}
