// h2spec (github.com/summerwind/h2spec) against edge's TLS listener: the
// HTTP/2 conformance suite, over TLS with ALPN. Failures must be in
// h2specKnownFailures, each with the reason it is not fixed in edge; a new
// failure, or a known one that starts passing, fails the test so the list
// stays true.

package tlstest

import (
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// h2specKnownFailures are the cases edge fails, by "package/case": with
// its own engine none; with golang.org/x/net/http2 (EDGE_H2_ENGINE=xnet,
// the fallback), xnetKnownFailures.
var h2specKnownFailures = map[string]string{
	"http2/6.9.1/3": "timing (" + h2specFlaky + "): the request has no END_STREAM, and when edge answers it before " +
		"the WINDOW_UPDATE frames arrive it ends the stream with RST_STREAM NO_ERROR, as nginx does " +
		"(RFC 9113 8.1), which h2spec takes as the answer",
}

// xnetKnownFailures are the cases Go's HTTP/2 server fails.
var xnetKnownFailures = map[string]string{
	"http2/6.9.1/3": "timing (" + h2specFlaky + "): the request has no END_STREAM, and when edge answers it before " +
		"the second WINDOW_UPDATE arrives the stream is already closed, so x/net/http2 resets it with " +
		"NO_ERROR instead of FLOW_CONTROL_ERROR",
	"http2/8.1.2.6/1": "timing (" + h2specFlaky + "): edge answers a request for a static file without reading its " +
		"body, so when the response goes out before the DATA frame arrives, x/net/http2 has no body left to " +
		"check against content-length",
	"http2/8.1.2.6/2": "timing (" + h2specFlaky + "): as 8.1.2.6/1, with the body in two DATA frames",
	"http2/6.5.3/1": "x/net/http2 treats two values of one setting in a SETTINGS frame as a PROTOCOL_ERROR " +
		"(Framer's HasDuplicates check); RFC 9113 says to process them in order",
	"http2/8.1.2.2/1": "x/net/http2 accepts connection-specific header fields in requests instead of " +
		"answering PROTOCOL_ERROR (golang/go#26321, open)",
	"http2/8.1.2.2/2": "x/net/http2 accepts a TE header other than \"trailers\" (golang/go#26321, open)",
}

func init() {
	if os.Getenv("EDGE_H2_ENGINE") == "xnet" {
		h2specKnownFailures = xnetKnownFailures
	}
}

// h2specReport is h2spec's JUnit report.
type h2specReport struct {
	Suites []struct {
		Package string `xml:"package,attr"`
		Cases   []struct {
			Name    string    `xml:"classname,attr"`
			Error   *struct{} `xml:"error"`
			Failure *struct{} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestH2specTLS(t *testing.T) {
	h2spec := goTool(t, "h2spec", "github.com/summerwind/h2spec/cmd/h2spec")
	port := startDefaultTLS(t, false)

	report := filepath.Join(t.TempDir(), "h2spec.xml")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h2spec, "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "-k",
		"--timeout", "2", "-j", report)
	out, _ := cmd.CombinedOutput() // non-zero exit when any case fails
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("h2spec wrote no report: %v\n%s", err, out)
	}
	var r h2specReport
	if err := xml.Unmarshal(data, &r); err != nil {
		t.Fatalf("h2spec report: %v", err)
	}
	passed, failed, skipped := 0, map[string]string{}, 0
	for _, s := range r.Suites {
		for i, c := range s.Cases {
			id := s.Package + "/" + strconv.Itoa(i+1)
			switch {
			case c.Skipped != nil:
				skipped++
			case c.Error != nil || c.Failure != nil:
				failed[id] = c.Name
			default:
				passed++
			}
		}
	}
	total := passed + len(failed) + skipped
	t.Logf("h2spec over TLS: %d of %d passed, %d skipped, %d failed (all known: %v)", passed, total, skipped, len(failed), onlyKnown(failed))
	if total < 140 {
		t.Fatalf("h2spec ran %d cases, expected about 145:\n%s", total, out)
	}
	var ids []string
	for id := range failed {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if why, ok := h2specKnownFailures[id]; ok {
			t.Logf("known failure %s %q: %s", id, failed[id], why)
			continue
		}
		t.Errorf("h2spec %s failed: %s", id, failed[id])
	}
	for id, why := range h2specKnownFailures {
		if _, ok := failed[id]; !ok && !strings.Contains(why, h2specFlaky) {
			t.Errorf("h2spec %s passes now: remove it from h2specKnownFailures", id)
		}
	}
	if t.Failed() {
		t.Logf("h2spec output:\n%s", strings.TrimSpace(string(out)))
	}
}

// h2specFlaky marks known failures that pass or fail by timing.
const h2specFlaky = "flaky"

func onlyKnown(failed map[string]string) bool {
	for id := range failed {
		if _, ok := h2specKnownFailures[id]; !ok {
			return false
		}
	}
	return true
}
