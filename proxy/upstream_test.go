// This file checks how the $upstream_* variables list the servers a
// request tried.
package proxy

import (
	"fmt"
	"regexp"
	"strings"
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

// TestForTargetBound: fastcgi_pass with variables keeps at most
// maxDynamicTargets address backends; past that, a new address is still
// served, by a backend made for the one request and not kept, so clients
// naming made-up targets cannot deny the real ones (nginx keeps none).
// Upstream names are always kept: the config bounds them.
func TestForTargetBound(t *testing.T) {
	rt := testSite(t, loadTestPlan(t, t.TempDir(), `events {}
http {
    access_log off;
    upstream php { server 127.0.0.1:9; }
    server {
        listen 127.0.0.1:8080;
        location / { fastcgi_pass $arg_t; }
        location /named { fastcgi_pass localhost:9; }
    }
}
`))
	f := &conf.FastCGI{KeepConn: true}
	for i := range maxDynamicTargets + 10 {
		b, terr := rt.backends.forTarget(fmt.Sprintf("unix:/nowhere/%d.sock", i), f, nil)
		if terr != nil || b == nil {
			t.Fatalf("target %d: %v", i, terr)
		}
	}
	// Plus the one of "fastcgi_pass localhost:9", kept in the same map.
	if n := len(rt.backends.byTarget); n != maxDynamicTargets+1 {
		t.Errorf("%d backends kept, want %d", n, maxDynamicTargets+1)
	}
	b1, _ := rt.backends.forTarget("unix:/nowhere/extra.sock", f, nil)
	b2, _ := rt.backends.forTarget("unix:/nowhere/extra.sock", f, nil)
	if b1 == nil || b1 == b2 || b1.servers[0].client.MaxIdle != 0 {
		t.Errorf("past the bound: a one-off backend per request that keeps nothing, got %p %p", b1, b2)
	}
	if up, terr := rt.backends.forTarget("PHP", f, nil); terr != nil || up.name != "PHP" || len(up.servers) != 1 || up.servers[0].addr != "127.0.0.1:9" {
		t.Errorf("the upstream by another case: %v %+v", terr, up)
	}
	// A name and port a fastcgi_pass without variables names needs no
	// resolver (nginx's implicit upstream).
	if b, terr := rt.backends.forTarget("LocalHost:9", f, nil); terr != nil || b == nil {
		t.Errorf("the implicit upstream localhost:9: %+v", terr)
	}
	for target, want := range map[string]int{"php:9000": 502, "unix:": 500, "": 500, "nosuch": 500, "127.0.0.1:0": 500} {
		if _, terr := rt.backends.forTarget(target, f, nil); terr == nil || terr.status != want {
			t.Errorf("forTarget(%q): %+v, want %d", target, terr, want)
		}
	}
}

// TestUpstreamResponseTimeSettles: $upstream_response_time is "-" for the
// server that answered while the header filters run (add_header), as
// nginx sets it only when it finalizes the upstream, and a time in the
// log phase; an error_page after an intercepted error sees the time, as
// nginx finalizes the upstream before the redirect (nginx-tests proxy.t
// 19 and its "response time - next").
func TestUpstreamResponseTimeSettles(t *testing.T) {
	ok := startRecordingBackend(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	missing := startRecordingBackend(t, "HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnone")
	text := strings.NewReplacer("OK", ok.addr, "MISSING", missing.addr).Replace(`
events {}
http {
    server {
        listen 8080;
        root {{ROOT}}/html;
        add_header X-Response $upstream_response_time;
        add_header X-Header $upstream_header_time;
        location /p/ { proxy_pass http://OK/; }
        location /i/ { proxy_pass http://MISSING/; proxy_intercept_errors on; error_page 404 = /shown; }
        location = /shown { return 200 "page\n"; }
    }
}
`)
	rt, _ := testPipeline(t, text, nil)
	seconds := regexp.MustCompile(`^\d+\.\d{3}$`)

	r := serveFake(t, rt, "GET", "/p/x", nil)
	if r.resp.Status != 200 {
		t.Fatalf("status %d", r.resp.Status)
	}
	if got := r.resp.Header.Get("X-Response"); got != "-" {
		t.Errorf("add_header $upstream_response_time = %q, want \"-\"", got)
	}
	if got := r.resp.Header.Get("X-Header"); !seconds.MatchString(got) {
		t.Errorf("add_header $upstream_header_time = %q, want seconds", got)
	}
	rt.Done(r, 2)
	if got := r.upstreamVar(conf.VarUpstreamResponseTime); !seconds.MatchString(got) {
		t.Errorf("$upstream_response_time in the log phase = %q, want seconds", got)
	}

	r = serveFake(t, rt, "GET", "/i/x", nil)
	if r.resp.Status != 200 {
		t.Fatalf("intercepted: status %d", r.resp.Status)
	}
	if got := r.resp.Header.Get("X-Response"); !seconds.MatchString(got) {
		t.Errorf("after error_page, add_header $upstream_response_time = %q, want seconds", got)
	}
}
