// This file tests a regexp that backtracks catastrophically (issue 14):
// in nginx PCRE2's match limit stops it, in edge the backtracking
// engine's match budget does, and both answer alike; while such matches
// run, edge goes on answering other requests.
package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"edge/testenv"
)

// evilHTTP holds a location and a map whose regexps take exponential time
// on "a"s followed by something else: the capture in "(a+)+" and the
// lookahead keep both PCRE2 and regexp2 from simplifying the loop, and
// the lookahead puts the pattern on edge's backtracking engine.
const evilHTTP = `
    default_type text/plain;
    map $arg_m $mapped {
        "~^(a+)+(?!x)$" matched;
        default dflt;
    }
    server {
        listen 127.0.0.1:%d;
        location = /map { return 200 "map=$mapped\n"; }
        location ~ "^/evil/(a+)+(?!x)$" { return 200 "evil\n"; }
        location / { return 200 "plain\n"; }
    }
`

// evilSubject makes PCRE2 reach its match limit (nginx answers after
// about a quarter of a second here) and regexp2 its budget.
var evilSubject = strings.Repeat("a", 36) + "b"

// TestRegexMatchLimit: a location whose regexp runs out of its budget
// answers 500 and a map falls back to its default, with nginx's [alert]
// line, as nginx does when PCRE2 returns PCRE2_ERROR_MATCHLIMIT.
func TestRegexMatchLimit(t *testing.T) {
	port := testenv.FreePort(t)
	ng := testenv.StartNginx(t, testenv.NginxMain(1)+"error_log logs/error.log info;\nhttp {\n"+testenv.NginxHTTPTemps("")+fmt.Sprintf(evilHTTP, port)+"}\n", port)
	s := newSite(t, "")
	s.writeConf("daemon off;\nerror_log logs/error.log info;\nevents {}\nhttp {\n" + fmt.Sprintf(evilHTTP, s.port) + "}\n")
	s.start()
	for _, srv := range []struct{ name, addr, errorLog string }{
		{"nginx", ng.Addr(), ng.ErrorLog()}, {"edge", s.addr, s.errorLog()},
	} {
		for _, c := range []struct {
			path   string
			status int
			body   string
			alert  string
		}{
			{"/evil/" + evilSubject, 500, "", `pcre2_match() failed: -47 on "/evil/` + evilSubject + `" using "^/evil/(a+)+(?!x)$"`},
			{"/map?m=" + evilSubject, 200, "map=dflt\n", `pcre2_match() failed: -47 on "` + evilSubject + `" using`},
			{"/evil/aaa", 200, "evil\n", ""},
			{"/map?m=aaa", 200, "map=matched\n", ""},
		} {
			resp := testenv.RawHTTP(t, srv.addr, "GET "+c.path+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
			if resp.Status != c.status || c.body != "" && string(resp.Body) != c.body {
				t.Errorf("%s: GET %s: %d %q, want %d %q", srv.name, c.path, resp.Status, resp.Body, c.status, c.body)
			}
			if c.alert != "" {
				waitFor(t, srv.name+"'s [alert] for "+c.path, func() bool { return countInFile(srv.errorLog, "[alert]") > 0 && countInFile(srv.errorLog, c.alert) > 0 })
			}
		}
	}
}

// TestRegexMatchLimitDoesNotStall: while four clients keep edge busy with
// matches that each run to the end of their budget (on a machine with two
// cores), plain requests from another client are answered; and every one
// of the slow matches ends with its 500.
func TestRegexMatchLimitDoesNotStall(t *testing.T) {
	// Each slow match takes at least the budget (0.1 s), so each slow
	// client is busy for more than a second; the plain requests, slowed
	// by the two cores they share, take a fraction of that.
	const conns, perConn = 4, 12
	s := newSite(t, "")
	s.writeConf("daemon off;\nerror_log logs/error.log info;\nevents {}\nhttp {\n    access_log off;\n" + fmt.Sprintf(evilHTTP, s.port) + "}\n")
	s.start()
	var pending atomic.Int32 // connections still waiting for slow answers
	pending.Store(conns)
	statuses := make(chan int, conns*perConn)
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pending.Add(-1)
			slowGets(s.addr, "/evil/"+evilSubject, perConn, statuses)
		}()
	}
	// Once the first slow match has ended, the other connections' are
	// running; the plain requests go in now.
	waitFor(t, "edge's first [alert] for a slow match", func() bool { return countInFile(s.errorLog(), "pcre2_match() failed") > 0 })
	for i := 0; i < 5; i++ {
		resp := s.get("/plain/" + strconv.Itoa(i))
		if resp.Status != 200 || string(resp.Body) != "plain\n" {
			t.Fatalf("plain request %d during the slow matches: %d %q", i, resp.Status, resp.Body)
		}
		if m := s.get("/map?m=aaa"); string(m.Body) != "map=matched\n" {
			t.Fatalf("map request %d during the slow matches: %d %q", i, m.Status, m.Body)
		}
	}
	t.Logf("plain requests done with %d slow clients still waiting", pending.Load())
	if pending.Load() == 0 {
		t.Errorf("the slow matches were all answered before the plain requests; the test no longer shows that they do not stall edge")
	}
	wg.Wait()
	close(statuses)
	n := 0
	for st := range statuses {
		n++
		if st != 500 {
			t.Errorf("slow match answered %d, want 500", st)
		}
	}
	if n != conns*perConn {
		t.Errorf("%d of %d slow matches were answered", n, conns*perConn)
	}
}

// slowGets makes n GETs for path, one connection each (a 500 ends a
// connection, in nginx and edge), and reports each status (0 for a
// connection that failed).
func slowGets(addr, path string, n int, statuses chan<- int) {
	for i := 0; i < n; i++ {
		resp, err := testenv.DoRaw(addr, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\n\r\n")
		if err != nil {
			statuses <- 0
			continue
		}
		statuses <- resp.Status
	}
}
