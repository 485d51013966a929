// The pools of a configuration without fpm_pool: plain nginx syntax,
// where fastcgi_pass (an address, a unix: socket, an upstream{}) is all
// that names php-fpm, as in the compose stack whose php-fpm is its own
// container. "edge fpm status" reports on them from php-fpm's status
// page over FastCGI at that address, with edge's own queue and
// connection figures when edge runs.

package fpmtest

import (
	"net"
	"strings"
	"testing"

	"edge/fastcgi/fpm"
	"edge/testenv"
)

// hello sends n requests through the site.
func hello(t *testing.T, s *site, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if code, body := s.get(t, "/hello.php"); code != 200 || body != "hello" {
			t.Fatalf("hello.php: %d %q", code, body)
		}
	}
}

// checkPassReport checks a report of php-fpm's pool "www" behind
// fastcgi_pass pass, read at status, with edge's counters of at least
// requests requests (0: edge's counters not wanted).
func checkPassReport(t *testing.T, r *fpm.Report, name, pass, status string, requests uint64) {
	t.Helper()
	if r.Name != name || r.Pass != pass || r.Owned {
		t.Errorf("report of %q (fastcgi_pass %q, owned %v), want %q behind %q", r.Name, r.Pass, r.Owned, name, pass)
	}
	if r.FPM == nil || r.FPM.Pool != "www" || r.FPM.TotalProcesses < 1 || r.FPM.AcceptedConn < requests {
		t.Fatalf("php-fpm's status of %s: %+v (error %q)", name, r.FPM, r.FPMError)
	}
	if !strings.HasSuffix(r.Status, status) {
		t.Errorf("status page read at %q, want ...%s", r.Status, status)
	}
	if requests > 0 && (r.Edge == nil || r.Edge.Requests < requests) {
		t.Errorf("edge's counters of %s: %+v, want %d requests", name, r.Edge, requests)
	}
}

// fastcgi_pass 127.0.0.1:PORT to a php-fpm of this machine: edge reads
// php-fpm's own configuration (found from its master's process title)
// for the status path, whatever it is, and max_children.
func TestPassPoolTCP(t *testing.T) {
	php := testenv.StartFPM(t, testenv.FPMOptions{Listen: "127.0.0.1:0", Extra: "pm.status_path = /php-status"})
	s := startSite(t, "", php.Address)
	hello(t, s, 3)
	rs := s.reports(t, "")
	if len(rs) != 1 {
		t.Fatalf("%d reports, want the pool behind fastcgi_pass", len(rs))
	}
	r := rs[0]
	checkPassReport(t, r, php.Address, php.Address, "/php-status", 3)
	if r.Settings.MaxChildren != 4 || r.MasterPID != php.Proc.PID() {
		t.Errorf("from php-fpm's configuration: max_children %d, master %d; want 4, %d", r.Settings.MaxChildren, r.MasterPID, php.Proc.PID())
	}
	out, errOut, code := s.edge(t, "fpm", "status", php.Address)
	if code != 0 || !strings.Contains(out, "pool "+php.Address+" (fastcgi_pass "+php.Address+")") ||
		!strings.Contains(out, "php-fpm pool  www, status page tcp:"+php.Address+"/php-status") ||
		!strings.Contains(out, "edge requests ") {
		t.Errorf("edge fpm status %s: exit %d\n%s\n%s", php.Address, code, out, errOut)
	}
	// fpm_status without a pool name shows it too.
	if code, page := s.get(t, "/fpm"); code != 200 || !strings.Contains(page, "fastcgi_pass "+php.Address) {
		t.Errorf("fpm_status: %d %.300q", code, page)
	}
}

// fastcgi_pass unix:SOCKET.
func TestPassPoolUnix(t *testing.T) {
	php := testenv.StartFPM(t, testenv.FPMOptions{Extra: "pm.status_path = /status"})
	pass := "unix:" + php.Address
	s := startSite(t, "", pass)
	hello(t, s, 2)
	r := s.report(t, pass)
	checkPassReport(t, r, pass, pass, "/status", 2)
	if r.Network != "unix" || r.Address != php.Address {
		t.Errorf("address %s:%s, want unix:%s", r.Network, r.Address, php.Address)
	}
}

// An upstream{} of two php-fpm servers gives two pools, selected
// together by the upstream's name. One is reached by a host name, which
// no php-fpm configuration of this machine names: its status page is
// found by asking /status, then /fpm-status, as for php-fpm in another
// container.
func TestPassPoolUpstream(t *testing.T) {
	tcp := testenv.StartFPM(t, testenv.FPMOptions{Listen: "127.0.0.1:0", Extra: "pm.status_path = /fpm-status"})
	_, port, _ := net.SplitHostPort(tcp.Address)
	byName := net.JoinHostPort("localhost", port)
	sock := testenv.StartFPM(t, testenv.FPMOptions{Extra: "pm.status_path = /status"})
	ups := "    upstream php {\n        server " + byName + ";\n        server unix:" + sock.Address + ";\n    }\n"
	s := startSite(t, ups, "php")
	hello(t, s, 4)
	rs := s.reports(t, "php")
	if len(rs) != 2 {
		t.Fatalf("%d reports for upstream php, want one per server", len(rs))
	}
	byNames := map[string]*fpm.Report{}
	for _, r := range rs {
		byNames[r.Name] = r
	}
	a, b := byNames["php/"+byName], byNames["php/unix:"+sock.Address]
	if a == nil || b == nil {
		t.Fatalf("reports %q and %q, want php/%s and php/unix:%s", rs[0].Name, rs[1].Name, byName, sock.Address)
	}
	checkPassReport(t, a, a.Name, "php", "/fpm-status", 0)
	checkPassReport(t, b, b.Name, "php", "/status", 0)
	if a.Settings.MaxChildren != 0 || a.MasterPID != 0 {
		t.Errorf("%s has settings %+v and master %d: no configuration of this machine names it", a.Name, a.Settings, a.MasterPID)
	}
	if a.Edge == nil || b.Edge == nil || a.Edge.Requests+b.Edge.Requests < 4 {
		t.Errorf("edge's counters by server: %+v %+v, want 4 requests between them", a.Edge, b.Edge)
	}
	// --status-path is asked of every pool, through the running edge:
	// the unix pool has no page there.
	out, errOut, code := s.edge(t, "fpm", "status", "php", "--json", "--status-path", "/fpm-status")
	if code != 1 || !strings.Contains(errOut, "pool php/unix:"+sock.Address+": php-fpm at unix:"+sock.Address+" has no status page at /fpm-status") ||
		!strings.Contains(out, `"pool": "www"`) {
		t.Errorf("edge fpm status --status-path /fpm-status: exit %d\n%s\n%s", code, out, errOut)
	}
}

// A pool whose php-fpm has no pm.status_path: a clear error and exit 1,
// with edge running or not.
func TestPassPoolNoStatusPage(t *testing.T) {
	php := testenv.StartFPM(t, testenv.FPMOptions{Listen: "127.0.0.1:0"})
	_, port, _ := net.SplitHostPort(php.Address)
	byName := net.JoinHostPort("localhost", port)
	for _, c := range []struct {
		pass, want string
		args       []string
	}{
		// php-fpm's configuration is readable: it says there is none.
		{php.Address, "php-fpm pool www (" + php.ConfPath + ") at " + php.Address + " has no pm.status_path", nil},
		// It is not: php-fpm answers neither path edge asks as its
		// status page (404: no such script).
		{byName, "php-fpm at " + byName + " has no status page at /status or /fpm-status (it answered 404)", nil},
		{byName, "php-fpm at " + byName + " has no status page at /php-status (it answered 404): set pm.status_path /php-status", []string{"--status-path", "/php-status"}},
	} {
		s := newSite(t, "", c.pass)
		for _, running := range []bool{false, true} {
			if running {
				s.start(t)
				hello(t, s, 1)
			}
			out, errOut, code := s.edge(t, append([]string{"fpm", "status"}, c.args...)...)
			if code != 1 || !strings.Contains(errOut, "edge: pool "+c.pass+": "+c.want) {
				t.Errorf("fastcgi_pass %s %v, edge running %v: exit %d, want 1 and %q\n%s\n%s", c.pass, c.args, running, code, c.want, out, errOut)
			}
		}
	}
	// A wrong path is refused before anything is asked.
	s := newSite(t, "", php.Address)
	if _, errOut, code := s.edge(t, "fpm", "status", "--status-path", "status"); code != 2 || !strings.Contains(errOut, `invalid status path "status"`) {
		t.Errorf("--status-path status: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := s.edge(t, "fpm", "status", "nosuch"); code != 1 || !strings.Contains(errOut, `no fpm_pool or fastcgi_pass "nosuch"`) {
		t.Errorf("edge fpm status nosuch: exit %d\n%s", code, errOut)
	}
}
