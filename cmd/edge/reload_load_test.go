// This file tests that a reload under load fails no request: Debian's wrk
// keeps keep-alive connections busy on a static file while edge reloads a
// changed configuration several times; wrk must report neither socket
// errors nor non-2xx/3xx answers.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// loadConf serves a 1 KiB file; {{GEN}} changes at every reload so each
// one builds a really different plan.
var loadConf = siteConf("add_header X-Generation {{GEN}};")

const (
	loadDuration = 5 * time.Second // wrk's -d
	loadReloads  = 5
)

// wrkRequestsRE finds wrk's request count ("  12345 requests in 5.00s").
var wrkRequestsRE = regexp.MustCompile(`(\d+) requests in `)

func TestReloadUnderLoad(t *testing.T) {
	wrk := testenv.Binary(t, "wrk", "wrk")
	s := newSite(t, strings.ReplaceAll(loadConf, "{{GEN}}", "0"))
	s.write("html/1k.txt", strings.Repeat("x", 1023)+"\n")
	p := s.start()
	s.waitBody("/1k.txt", strings.Repeat("x", 1023)+"\n")

	ctx, cancel := context.WithTimeout(context.Background(), loadDuration+cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, wrk, "-t1", "-c8", "-d"+strconv.Itoa(int(loadDuration/time.Second))+"s",
		"--timeout", "5s", "http://"+s.addr+"/1k.txt")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wrkDone := make(chan error, 1)
	go func() { wrkDone <- cmd.Wait() }()

	// The reloads are spread over the run; each one is confirmed in the
	// error log before the next, so all of them happen under load.
	tick := time.NewTicker(loadDuration / (loadReloads + 2))
	defer tick.Stop()
	for gen := 1; gen <= loadReloads; gen++ {
		select {
		case err := <-wrkDone:
			t.Fatalf("wrk ended before reload %d: %v\n%s", gen, err, out.String())
		case <-tick.C:
		}
		s.writeConf(strings.ReplaceAll(loadConf, "{{GEN}}", strconv.Itoa(gen)))
		if res := s.edge("-s", "reload"); res.code != 0 {
			t.Fatalf("edge -s reload: exit %d, stderr:\n%s", res.code, res.stderr)
		}
		waitFor(t, fmt.Sprintf("reload %d to be done", gen), func() bool {
			return countInFile(s.errorLog(), "reconfiguring done") >= gen
		})
	}
	if err := <-wrkDone; err != nil {
		t.Fatalf("wrk: %v\n%s", err, out.String())
	}
	report := out.String()
	t.Logf("wrk:\n%s", report)
	m := wrkRequestsRE.FindStringSubmatch(report)
	if m == nil || m[1] == "0" {
		t.Fatalf("wrk made no requests:\n%s", report)
	}
	for _, bad := range []string{"Socket errors", "Non-2xx or 3xx responses"} {
		if strings.Contains(report, bad) {
			t.Errorf("wrk reports %q during reloads", bad)
		}
	}
	if p.Exited() {
		t.Fatalf("edge exited under load: %v", p.Wait())
	}
	if resp := s.get("/1k.txt"); resp.Header.Get("X-Generation") != strconv.Itoa(loadReloads) {
		t.Errorf("after the reloads X-Generation is %q, want %d", resp.Header.Get("X-Generation"), loadReloads)
	}
}

// countInFile counts the occurrences of s in a file (0 when unreadable).
func countInFile(path, s string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), s)
}
