// This file checks how the $upstream_* variables list the servers a
// request tried.
package proxy

import (
	"testing"
	"time"

	"edge/conf"
)

// TestUpstreamVarLists: the $upstream_* variables list every server
// tried as nginx does: ", " between the servers of one pass, " : "
// before a later pass, "-" for what did not happen, and the upstream's
// name with 502 when no server was live.
func TestUpstreamVarLists(t *testing.T) {
	start := time.Unix(1000, 0)
	r := &Request{}
	if got := r.upstreamVar(conf.VarUpstreamAddr); got != "" {
		t.Errorf("before any try: %q", got)
	}

	// A timed out after its connect; B answered 200 in 2 ms and its body
	// took 5 ms in all (20 bytes).
	a := r.up.begin("unix:/a.sock", start, false)
	a.status, a.responseTime = 504, 300*time.Millisecond
	b := r.up.begin("unix:/b.sock", start.Add(300*time.Millisecond), false)
	b.connectTime, b.headerTime, b.status = 0, 2*time.Millisecond, 200
	r.up.finish(start.Add(305*time.Millisecond), 20)
	// Then error_page sent the request to another location, whose
	// upstream had no live server.
	n := r.up.begin("php", start.Add(306*time.Millisecond), true)
	n.status, n.responseTime = 502, 0

	for _, tc := range []struct {
		id   conf.VarID
		want string
	}{
		{conf.VarUpstreamAddr, "unix:/a.sock, unix:/b.sock : php"},
		{conf.VarUpstreamStatus, "504, 200 : 502"},
		{conf.VarUpstreamConnectTime, "-, 0.000 : -"},
		{conf.VarUpstreamHeaderTime, "-, 0.002 : -"},
		{conf.VarUpstreamResponseTime, "0.300, 0.005 : 0.000"},
		{conf.VarUpstreamResponseLength, "0, 20 : 0"},
	} {
		if got := r.upstreamVar(tc.id); got != tc.want {
			t.Errorf("variable %d = %q, want %q", tc.id, got, tc.want)
		}
	}
}
