// This file runs the corpus: for each scenario it starts nginx and edge,
// sends every case's raw request to both and compares the outcomes. Cases
// that reach PHP run in their own "php" subtest, apart from the "static"
// ones. The last line, "DIFFTEST: ...", counts the requests answered
// identically.

package difftest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"edge/testenv"
)

// scenario is one configuration and the requests sent to it.
type scenario struct {
	name string
	// http is the body of the http{} block. Placeholders: {{LISTEN}}
	// (127.0.0.1:port), {{PORT}}, {{ROOT}} (the docroot), {{OUTSIDE}} (its
	// parent), {{FPM}} (fastcgi_pass address), {{FASTCGI_PARAMS}},
	// {{BACKEND}} (an HTTP backend for proxy_pass, corpus_proxy_test.go).
	http  string
	cases []reqCase
	// source, set for a PHP project's published configuration
	// (corpus_projects_test.go), says where it was taken from: the run
	// checks it with "edge -t" first and prints a PROJECT line for it.
	source string
	// refused, when set, is what "edge -t" is expected to say in refusing
	// the project's configuration; its requests are then not sent (nor
	// counted in the corpus) until edge accepts it.
	refused string
}

// reqCase is one request.
type reqCase struct {
	name string
	raw  string // the request exactly as sent
	php  bool   // the request reaches php-fpm
	// known is a documented difference; nil means edge must answer as
	// nginx does.
	known *known
}

// known is a documented difference met by one case. Edge's answer must
// equal nginx's after the documented change, so the rest of the answer is
// still compared, and the case fails once edge matches nginx (then the
// entry and its section in the doc go).
type known struct {
	doc string // a "## " heading of docs/nginx-differences.md
	// like, when set, is the request whose nginx answer edge's must equal
	// ("edge answers X as nginx answers Y"); nginx must answer the case's
	// own request with likeStatus.
	like       string
	likeStatus int
	// expect, when set, checks that nginx's outcome is the one the doc
	// describes and turns it into the outcome edge must give.
	expect func(ng *outcome) error
}

// scenarios is the corpus; each corpus_*_test.go file adds its own.
var scenarios []scenario

func addScenario(s scenario) bool {
	scenarios = append(scenarios, s)
	return true
}

// tally counts outcomes across subtests.
type tally struct {
	mu                                 sync.Mutex
	identical, documented, differences int
	framing                            int // identical but for the documented framing rule
	byGroup                            map[string]int
	projects                           map[string]*projectTally
}

// projectTally is one project's line: whether edge -t took its
// configuration, and how its requests came out.
type projectTally struct {
	checked                           bool
	accepted                          bool
	sent, identical, documented, diff int
}

func (t *tally) project(name string) *projectTally {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.projects[name]
	if p == nil {
		p = &projectTally{}
		t.projects[name] = p
	}
	return p
}

func (t *tally) add(scenario, group string, res result, documented bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.projects[scenario]; p != nil {
		p.sent++
		switch {
		case res == differs:
			p.diff++
		case documented:
			p.documented++
		default:
			p.identical++
		}
	}
	switch {
	case res == differs:
		t.differences++
	case documented:
		t.documented++
	default:
		t.identical++
		t.byGroup[group]++
		if res == sameButFraming {
			t.framing++
		}
	}
}

// result is how one case came out.
type result int

const (
	same           result = iota
	sameButFraming        // equal except Content-Length vs chunked (see diffContentLength)
	differs
)

func TestDifferential(t *testing.T) {
	e := newEnv(t)
	tl := &tally{byGroup: map[string]int{}, projects: map[string]*projectTally{}}
	total := 0
	for _, sc := range scenarios {
		if sc.refused == "" {
			total += len(sc.cases)
		}
		t.Run(sc.name, func(t *testing.T) {
			if sc.source != "" && !checkProject(t, e, tl.project(sc.name), sc) {
				return
			}
			p := e.startPair(t, sc.http)
			for _, group := range []string{"static", "php"} {
				t.Run(group, func(t *testing.T) {
					for _, c := range sc.cases {
						if c.php != (group == "php") {
							continue
						}
						t.Run(c.name, func(t *testing.T) {
							tl.add(sc.name, group, runCase(t, p, c), c.known != nil)
						})
					}
				})
			}
		})
	}
	t.Logf("DIFFTEST: %d requests identical to nginx (%d static, %d php; %d of them framed with Content-Length where nginx chunks); "+
		"%d with a documented difference; %d differ; %d in the corpus",
		tl.identical, tl.byGroup["static"], tl.byGroup["php"], tl.framing, tl.documented, tl.differences, total)
	for _, sc := range scenarios {
		if p := tl.projects[sc.name]; p != nil && p.checked {
			check := "ok"
			if !p.accepted {
				check = "FAIL"
			}
			t.Logf("PROJECT %s: edge -t %s, %d/%d requests identical (%d documented)",
				strings.TrimPrefix(sc.name, "project_"), check, p.identical, len(sc.cases), p.documented)
		}
	}
}

// checkProject runs "edge -t" on a project's configuration and reports
// whether its requests are to be sent: edge must accept it, or refuse it
// with the words the scenario expects.
func checkProject(t *testing.T, e *env, p *projectTally, sc scenario) bool {
	t.Helper()
	out, ok := e.edgeTest(t, sc.http)
	p.checked, p.accepted = true, ok
	switch {
	case sc.refused == "" && !ok:
		t.Fatalf("edge -t refuses %s's published configuration (%s):\n%s", sc.name, sc.source, out)
	case sc.refused != "" && ok:
		t.Errorf("edge -t now accepts %s's configuration, which it refused with %q: send its requests", sc.name, sc.refused)
	case sc.refused != "" && !strings.Contains(out, sc.refused):
		t.Errorf("edge -t refuses %s's configuration, expected with %q:\n%s", sc.name, sc.refused, out)
	}
	return ok && sc.refused == ""
}

// runCase sends one request to both servers and reports how edge's
// answer compares with the expected one.
func runCase(t *testing.T, p *pair, c reqCase) result {
	t.Helper()
	ng := fetch(p.nginxAddr, p.nginxPort, c.raw)
	ed := fetch(p.edgeAddr, p.edgePort, c.raw)
	want := ng
	if k := c.known; k != nil {
		if k.like != "" {
			if err := wantStatus(ng, k.likeStatus); err != nil {
				t.Errorf("nginx no longer answers as docs/nginx-differences.md, \"%s\", says: %v\nrequest:\n%s",
					k.doc, err, indent(c.raw))
				return differs
			}
			want = fetch(p.nginxAddr, p.nginxPort, k.like)
		} else {
			want = ng.clone()
		}
		if k.expect != nil {
			if err := k.expect(want); err != nil {
				t.Errorf("nginx no longer answers as docs/nginx-differences.md, \"%s\", says: %v\nrequest:\n%s\nnginx: %s",
					k.doc, err, indent(c.raw), ng.summary())
				return differs
			}
		}
	}
	diffs := diffOutcomes(want, ed)
	if len(diffs) == 0 {
		if framingOnly(want, ed) {
			return sameButFraming
		}
		return same
	}
	note := ""
	if c.known != nil {
		note = " (after the documented difference \"" + c.known.doc + "\")"
	}
	t.Errorf("edge differs from nginx%s\nrequest:\n%s\nnginx: %s\nedge:  %s\n  %s",
		note, indent(c.raw), ng.summary(), ed.summary(), strings.Join(diffs, "\n  "))
	return differs
}

// fetch sends raw to one server. A HEAD response has no body to normalize,
// so the same request is also sent as GET, and what normalizing removed
// from that body is what its Content-Length is compared without.
func fetch(addr string, port int, raw string) *outcome {
	resp, err := testenv.DoRaw(addr, raw)
	o := newOutcome(resp, err, port)
	o.head = strings.HasPrefix(raw, "HEAD ")
	if o.closed || !o.head {
		return o
	}
	shadowRaw := "GET " + strings.TrimPrefix(raw, "HEAD ")
	sresp, serr := testenv.DoRaw(addr, shadowRaw)
	shadow := newOutcome(sresp, serr, port)
	if !shadow.closed && shadow.status == o.status && !shadow.gzipped() {
		o.bodyDelta = shadow.bodyDelta
	}
	return o
}

// clone copies an outcome so a known difference can change it.
func (o *outcome) clone() *outcome {
	c := *o
	c.header = o.header.Clone()
	c.body = append([]byte(nil), o.body...)
	return &c
}

func indent(raw string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(raw, "\r\n"), "\r\n", "\n    ")
}

// TestDifferencesDocumented checks that every documented difference the
// corpus uses, and every rule the comparison itself applies, has its
// section in docs/nginx-differences.md.
func TestDifferencesDocumented(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(t), "docs", "nginx-differences.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("difftest: %v", err)
	}
	headings := append([]string(nil), comparisonRules...)
	for _, sc := range scenarios {
		for _, c := range sc.cases {
			if c.known != nil {
				headings = append(headings, c.known.doc)
			}
		}
	}
	for _, h := range headings {
		re := regexp.MustCompile(`(?m)^## ` + regexp.QuoteMeta(h) + `$`)
		if !re.Match(doc) {
			t.Errorf("difftest: %s has no section \"## %s\"", path, h)
		}
	}
}
