package conf

import (
	"math/rand"
	"testing"
)

// TestExtSetMatchesRegexp: wherever the fast path applies it answers as
// PCRE2 would (the backtracking engine's reading of the pattern, with
// ASCII-only case folding and "$" before a final newline), captures
// included.
func TestExtSetMatchesRegexp(t *testing.T) {
	patterns := []struct {
		src      string
		caseless bool
		fast     bool
	}{
		{`\.php$`, false, true},
		{`\.(jpg|jpeg|gif|png|css|js|ico|xml)$`, true, true},
		{`\.(?:jpg|jpeg|gif|png|webp|avif|svg|ico|css|js|woff2?|ttf)$`, true, true},
		{`(?i)\.(PHP|phtml)$`, false, true},
		{`\.(tar\.gz|zip)$`, false, false},
		{`^/(.+)\.php$`, false, false},
		{`\.php`, false, false},
		{`\.(?P<ext>png)$`, false, false},
		{`\.ph[p3]$`, false, false},
		{`\.php|html$`, false, false}, // "\.php" anywhere, or "html" at the end
		{`\.0|0$`, false, false},
		{`\.(php)|(html)$`, false, false},
	}
	inputs := []string{"/a.php", "/a.PHP", "/a.php/", "/php", "/a.phpx", "/.php", "/x.jpg", "/x.JPEG",
		"/x.woff", "/x.woff2", "/x.woff22", "/a.b.css", "/a.css.map", "/x.tar.gz", "/x.zip", "/", "", "/a.",
		"/dir.png/file", "/x.phtml", "/x.Phtml", "/a.jpg\n", "/a.php\n", "/a.php\n\n", "/a.\n", "/a.P\xc3\x8dP"}
	rng := rand.New(rand.NewSource(1))
	alphabet := "./aAjJpPgGhHsScCxX2?\n"
	for i := 0; i < 2000; i++ {
		b := make([]byte, rng.Intn(10))
		for j := range b {
			b[j] = alphabet[rng.Intn(len(alphabet))]
		}
		inputs = append(inputs, "/"+string(b))
	}
	for _, p := range patterns {
		re := backtrackOnly(t, p.src, p.caseless)
		set := parseExtSet(p.src, p.caseless)
		if (set != nil) != p.fast {
			t.Errorf("%s: fast path %v, want %v", p.src, set != nil, p.fast)
			continue
		}
		if set == nil {
			continue
		}
		for _, in := range inputs {
			m, _, err := re.btExec(in, nil) // with $0, which Exec may leave out
			if err != nil {
				t.Fatal(err)
			}
			dot, end, ok := set.Match(in)
			if ok != (len(m) > 0) {
				t.Errorf("%s on %q: fast %v, backtracking %v", p.src, in, ok, len(m) > 0)
				continue
			}
			if ok && (m[0] != dot || m[1] != end) {
				t.Errorf("%s on %q: match at %d-%d, backtracking at %d-%d", p.src, in, dot, end, m[0], m[1])
			}
		}
	}
}
