// This file checks edge's regexps against PCRE2 itself: Debian's
// pcre2test (package pcre2-utils) is the library nginx 1.22 links, PCRE2
// 10.42, with nginx's options (no UTF mode, caseless for "~*"). Random
// patterns built from the constructs real configurations use, and PCRE's
// corners, go through both; edge must accept what PCRE2 accepts (or name
// what it refuses), reject what it rejects, and find the same match and
// captures, but for the corners docs/nginx-differences.md lists under
// "Rare regexp corners".
package conf

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"
)

// pcre2Atoms are the pieces random patterns are made of. \R, and the byte
// 0x85 in subjects, are left out: PCRE2 10.42 takes 0x85 for white space
// when it makes repeats possessive (docs/nginx-differences.md).
var pcre2Atoms = []string{"a", "b", "c", ".", "/", `\.`, `\d`, `\w`, `\s`, `\W`, `\S`, `\D`, `\h`, `\v`, "[ab]",
	"[^a]", "[a-c/]", "[A-a]", `[\w.-]`, "[[:alpha:]]", "[^[:digit:]a-c]", `\n`, "\xc3", `\xa9`, `\x{41}`,
	`\101`, `\cA`, `\Qa.\E`, `\b`, `\B`, "^", "$", `\z`, `\Z`, `\A`, `\G`, "(?i)", "(?-i)", "(?m)", "(?s)",
	"(?U)", "(?i:a)", `\1`}

// pcre2Opens are the groups random patterns nest.
var pcre2Opens = []string{"(", "(?:", "(?<n>", "(?=", "(?!", "(?>", "(?<=", "(?<!"}

// pcre2Quantifiers follow an atom half the time.
var pcre2Quantifiers = []string{"*", "+", "?", "{2}", "{1,2}", "{0,}", "*?", "+?", "??", "*+", "++", "{1,3}?"}

// randomPattern builds a pattern of up to four items, groups nested up to
// three deep, with alternatives.
func randomPattern(r *rand.Rand, depth int, names *int) string {
	var b strings.Builder
	for i := 1 + r.Intn(4); i > 0; i-- {
		var item string
		if depth < 3 && r.Intn(3) == 0 {
			open := pcre2Opens[r.Intn(len(pcre2Opens))]
			if open == "(?<n>" {
				*names++
				open = "(?<n" + strconv.Itoa(*names) + ">"
			}
			inner := randomPattern(r, depth+1, names)
			if r.Intn(3) == 0 {
				inner += "|" + randomPattern(r, depth+1, names)
			}
			if r.Intn(5) == 0 {
				inner += "|"
			}
			item = open + inner + ")"
		} else {
			item = pcre2Atoms[r.Intn(len(pcre2Atoms))]
		}
		if r.Intn(2) == 0 {
			item += pcre2Quantifiers[r.Intn(len(pcre2Quantifiers))]
		}
		b.WriteString(item)
	}
	if r.Intn(4) == 0 {
		b.WriteString("|" + randomPattern(r, depth+1, names))
	}
	return b.String()
}

// pcre2Case is a pattern and the subjects it is tried on.
type pcre2Case struct {
	src      string
	caseless bool
	subjects []string
}

// pcre2Result is what pcre2test said about one case: compiled or not, and
// per subject the captures (nil: no match).
type pcre2Result struct {
	failed  bool
	matches [][]string
}

func TestAgainstPCRE2(t *testing.T) {
	pcre2test := testenv.Binary(t, "pcre2-utils", "pcre2test")
	r := rand.New(rand.NewSource(14))
	var cases []pcre2Case
	for i := 0; i < 20000; i++ {
		names := 0
		c := pcre2Case{src: randomPattern(r, 0, &names), caseless: r.Intn(4) == 0}
		for j := 0; j < 6; j++ {
			var s strings.Builder
			for k := 1 + r.Intn(8); k > 0; k-- {
				s.WriteString([]string{"a", "b", "c", "A", ".", "/", "\n", "1", " ", "\xc3", "\xa9", "_"}[r.Intn(12)])
			}
			c.subjects = append(c.subjects, s.String())
		}
		cases = append(cases, c)
	}
	results := runPCRE2Test(t, pcre2test, cases)
	compared, bad := 0, 0
	for i, c := range cases {
		re, err := compilePCRE(c.src, c.caseless)
		if _, refused := err.(*pcreUnsupported); refused {
			continue
		}
		if results[i].failed != (err != nil) {
			t.Errorf("%q (caseless %v): PCRE2 rejects it: %v; edge: %v", c.src, c.caseless, results[i].failed, err)
			bad++
			continue
		}
		if err != nil {
			continue
		}
		for j, s := range c.subjects {
			caps, ok, err := re.Exec(s, nil)
			if err != nil {
				continue
			}
			got, want := captureList(s, caps, ok), results[i].matches[j]
			if re.NumCaptures() == 0 && ok {
				got = want // Exec may leave $0 out when there is no group
			}
			compared++
			if !sameCaptures(got, want) && !rareCorner(c.src, c.caseless, ok, want) {
				t.Errorf("%q (caseless %v, %s) on %q: edge %q, PCRE2 %q", c.src, c.caseless, re.Engine(), s, got, want)
				bad++
			}
		}
		if bad > 20 {
			t.Fatal("too many differences")
		}
	}
	t.Logf("%d patterns, %d subjects compared with PCRE2", len(cases), compared)
}

// rareCorner reports whether a difference is one of the corners
// docs/nginx-differences.md names: captures of a repeated group that can
// match "" (the match itself agreeing), and a group referring to itself.
func rareCorner(src string, caseless, ok bool, want []string) bool {
	pt, err := parsePCRE(src, caseless)
	if err != nil {
		return false
	}
	var walk func(n *pcreNode, open []int) bool
	walk = func(n *pcreNode, open []int) bool {
		switch {
		case n.op == pRepeat && canBeEmpty(n.subs[0]) && hasCapture(n.subs[0]) && ok && want != nil:
			return true
		case n.op == pBackref && slices.Contains(open, n.n):
			return true
		case n.op == pCapture:
			open = append(open, n.n)
		}
		for _, s := range n.subs {
			if walk(s, open) {
				return true
			}
		}
		return false
	}
	return walk(pt.root, nil)
}

// runPCRE2Test runs every case through pcre2test in one input file.
func runPCRE2Test(t *testing.T, bin string, cases []pcre2Case) []pcre2Result {
	t.Helper()
	var in strings.Builder
	for _, c := range cases {
		flags := ""
		if c.caseless {
			flags = "i"
		}
		fmt.Fprintf(&in, "/%s/%s\n", strings.ReplaceAll(c.src, "/", `\/`), flags)
		for _, s := range c.subjects {
			in.WriteString("    ")
			for i := 0; i < len(s); i++ {
				fmt.Fprintf(&in, `\x%02x`, s[i])
			}
			in.WriteString("\n")
		}
		in.WriteString("\n")
	}
	path := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-q", path).Output()
	if err != nil {
		t.Fatalf("pcre2test: %v", err)
	}
	blocks := strings.Split(strings.TrimRight(string(out), "\n"), "\n\n")
	if len(blocks) != len(cases) {
		t.Fatalf("pcre2test answered %d blocks for %d patterns", len(blocks), len(cases))
	}
	results := make([]pcre2Result, len(cases))
	for i, block := range blocks {
		lines := strings.Split(strings.Trim(block, "\n"), "\n")[1:] // the pattern's own line
		if len(lines) > 0 && strings.HasPrefix(lines[0], "Failed") {
			results[i].failed = true
			continue
		}
		// Each subject is echoed, then "No match" or its captures.
		var cur []string
		started := false
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "    "):
				if started {
					results[i].matches = append(results[i].matches, cur)
				}
				cur, started = []string{}, true
			case l == "No match":
				cur = nil
			default:
				if m := pcre2Capture.FindStringSubmatch(l); m != nil {
					cur = append(cur, pcre2Unescape(m[2]))
				}
			}
		}
		results[i].matches = append(results[i].matches, cur)
		if len(results[i].matches) != len(cases[i].subjects) {
			t.Fatalf("pcre2test block %d: %d results for %d subjects:\n%s", i, len(results[i].matches), len(cases[i].subjects), block)
		}
	}
	return results
}

var (
	pcre2Capture = regexp.MustCompile(`^ *(\d+): ?(.*)$`)
	pcre2Hex     = regexp.MustCompile(`\\x([0-9a-f]{2})`)
)

// pcre2Unescape reads a capture as pcre2test prints it: \xHH for bytes it
// does not print, "<unset>" for a group that took no part ("-" here).
func pcre2Unescape(v string) string {
	if v == "<unset>" {
		return "-"
	}
	return pcre2Hex.ReplaceAllStringFunc(v, func(x string) string {
		n, _ := strconv.ParseUint(x[2:], 16, 8)
		return string([]byte{byte(n)})
	})
}
