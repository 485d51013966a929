package conf

import (
	"math/rand"
	"regexp"
	"testing"
)

// TestExtSetMatchesRegexp: wherever the fast path applies it answers as
// the regexp does (with ASCII-only case folding), captures included.
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
	}
	inputs := []string{"/a.php", "/a.PHP", "/a.php/", "/php", "/a.phpx", "/.php", "/x.jpg", "/x.JPEG",
		"/x.woff", "/x.woff2", "/x.woff22", "/a.b.css", "/a.css.map", "/x.tar.gz", "/x.zip", "/", "", "/a.",
		"/dir.png/file", "/x.phtml", "/x.Phtml", "/a.jpg\n"}
	rng := rand.New(rand.NewSource(1))
	alphabet := "./aAjJpPgGhHsScCxX2?"
	for i := 0; i < 2000; i++ {
		b := make([]byte, rng.Intn(10))
		for j := range b {
			b[j] = alphabet[rng.Intn(len(alphabet))]
		}
		inputs = append(inputs, "/"+string(b))
	}
	for _, p := range patterns {
		expr := p.src
		if p.caseless {
			expr = "(?i)" + expr
		}
		re := regexp.MustCompile(expr)
		set := parseExtSet(p.src, p.caseless)
		if (set != nil) != p.fast {
			t.Errorf("%s: fast path %v, want %v", p.src, set != nil, p.fast)
			continue
		}
		if set == nil {
			continue
		}
		for _, in := range inputs {
			m := re.FindStringSubmatchIndex(in)
			dot, ok := set.Match(in)
			if ok != (m != nil) {
				t.Errorf("%s on %q: fast %v, regexp %v", p.src, in, ok, m != nil)
				continue
			}
			if ok && m[0] != dot {
				t.Errorf("%s on %q: match at %d, regexp at %d", p.src, in, dot, m[0])
			}
		}
	}
}
