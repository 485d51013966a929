// This file tests the pipeline without a process or a socket: a
// configuration text is compiled and a request, as an engine would hand
// it over, is served by the site built from it; the tables check the
// location chosen, rewrites, byte ranges and gzip's eligibility.
package proxy

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/conf"
)

// testPipeline compiles text (with {{ROOT}} replaced by a temporary
// directory, which holds html/ and logs/) and returns its site and root.
func testPipeline(t *testing.T, text string, files map[string]string) (*site, string) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"html", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		path := filepath.Join(root, "html", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return testSite(t, loadTestPlan(t, root, strings.ReplaceAll(text, "{{ROOT}}", root))), root
}

// fakeRequest is a request as an engine hands it to the pipeline: from
// 192.0.2.10:50000 to the plan's first listen address (port 8080), over
// HTTP/1.1, with Host example.com unless headers name one.
func fakeRequest(rt *site, method, target string, headers benchHeaders) *Request {
	r := acquireRequest()
	r.conn = &connInfo{id: 1, start: time.Now(), remote: netip.MustParseAddrPort("192.0.2.10:50000"),
		local: netip.MustParseAddrPort("127.0.0.1:8080"), port: "8080", group: rt.plan.HTTP.Listens[0],
		remoteText: "192.0.2.10", localText: "127.0.0.1"}
	r.start = time.Now()
	r.Method, r.RawTarget, r.Proto = method, target, "HTTP/1.1"
	r.HostHeader = "example.com"
	if h := headers.get("Host"); h != "" {
		r.HostHeader = h
	}
	r.Header = headers
	return r
}

// serveFake serves a fake request through the whole pipeline and returns
// it with its Response (status, headers, body) filled in.
func serveFake(t *testing.T, rt *site, method, target string, headers benchHeaders) *Request {
	t.Helper()
	r := fakeRequest(rt, method, target, headers)
	rt.serve(r)
	t.Cleanup(func() {
		if r.resp.Kind == BodyFile && r.resp.File != nil {
			r.resp.File.Close()
		}
	})
	return r
}

// routeFake runs a fake request through server selection, the rewrites
// and the location search, and stops before the content phase: r.loc,
// r.uri and r.args are what the content handler would see.
func routeFake(t *testing.T, rt *site, method, target string, headers benchHeaders) *Request {
	t.Helper()
	r := fakeRequest(rt, method, target, headers)
	r.rt = rt
	pt, err := parseTarget(target, true)
	if err != nil {
		t.Fatalf("target %q: %v", target, err)
	}
	host, _ := validateHost(r.HostHeader)
	r.host = host
	srv, err := rt.plan.HTTP.Listens[0].Lookup(host, func(re *conf.Regex) (bool, error) { return matchRegex(r, re, host) })
	if err != nil {
		t.Fatal(err)
	}
	r.srv, r.loc = srv, srv.Loc
	r.uri, r.args, r.exten = pt.path, pt.args, pt.exten
	r.uriChanges = maxURIChanges + 1
	for next := stepServerRewrite; next != stepAfterRewrite; {
		var status int
		if next, status = rt.phase(r, next); status != 0 || next == stepDone {
			t.Fatalf("%s %s: ended before the content phase (status %d)", method, target, status)
		}
	}
	return r
}

// body is a served response's body as text.
func body(t *testing.T, r *Request) string {
	t.Helper()
	switch r.resp.Kind {
	case BodyBytes:
		return string(r.resp.Bytes)
	case BodyFile:
		b := make([]byte, r.resp.Length)
		if _, err := r.resp.File.ReadAt(b, r.resp.Offset); err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return ""
}
