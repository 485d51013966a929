// Tests of nginx's regexp language as edge reads it (pcre.go,
// pcre_emit.go, regex.go). The expected matches are PCRE2 10.42's, the
// library Debian's nginx 1.22 uses, as pcre2test prints them; the expected
// errors are what that nginx's "nginx -t" prints for the same pattern in
// a location (without the " in FILE:LINE" it appends).
package conf

import (
	"errors"
	"strings"
	"testing"
)

// pcreCase is a pattern, "~*" or not, a subject and the captures PCRE2
// gives ($0, $1, ...; "-" for an unset group, trailing unset groups left
// out as pcre2test leaves them out), nil for no match.
type pcreCase struct {
	src      string
	caseless bool
	subject  string
	want     []string
}

var pcreCases = []pcreCase{
	{`^/dot/(.)x$`, false, "/dot/\xc3\xa9x", nil},
	{`^/dot/(.)(.)x$`, false, "/dot/\xc3\xa9x", []string{"/dot/\xc3\xa9x", "\xc3", "\xa9"}},
	{`^/(.*)$`, false, "/abc\x0a", []string{"/abc", "abc"}},
	{`^/(.*)$`, false, "/abc\x0a\x0a", nil},
	{`^/(.*)\z`, false, "/abc\x0a", nil},
	{`^/(.*)\Z`, false, "/abc\x0a", []string{"/abc", "abc"}},
	{`(?s)^/(.*)$`, false, "/abc\x0a", []string{"/abc\x0a", "abc\x0a"}},
	{`\.php$`, false, "/x.php\x0a", []string{".php"}},
	{`(?m)^b$`, false, "a\x0ab\x0a", []string{"b"}},
	{`(?m)^$`, false, "a\x0a", nil},
	{`(?m)(^|x)$`, false, "a\x0a", nil},
	{`^(\xc3\xa9)$`, true, "\xc3\x89", nil},
	{`^(caf\xc3\xa9)$`, true, "CAF\xc3\xa9", []string{"CAF\xc3\xa9", "CAF\xc3\xa9"}},
	{`^(\w+)$`, false, "caf\xc3\xa9", nil},
	{`^(\W+)$`, false, "\xc3\xa9", []string{"\xc3\xa9", "\xc3\xa9"}},
	{`^(\s)$`, false, "\x0b", []string{"\x0b", "\x0b"}},
	{`^(\s)$`, false, "\xa0", nil},
	{`^(\h)$`, false, "\xa0", []string{"\xa0", "\xa0"}},
	{`^(\v)$`, false, "\x85", []string{"\x85", "\x85"}},
	{`^[^a](.)`, true, "Abc", nil},
	{`^[^a](.)`, true, "xbc", []string{"xb", "b"}},
	{`(a|)*`, false, "aa", []string{"aa", ""}},
	{`(a*)*b`, false, "aab", []string{"aab", ""}},
	{`(a|b|)+c`, false, "abc", []string{"abc", ""}},
	{`^(?<a>x)(?'b'y)(?P<c>z)$`, false, "xyz", []string{"xyz", "x", "y", "z"}},
	{`^(x)(?<n>y)(z)$`, false, "xyz", []string{"xyz", "x", "y", "z"}},
	{`(?<=\.)(php)$`, false, "/a.php", []string{"php", "php"}},
	{`(?<!\.)(php)$`, false, "/a.php", nil},
	{`(?<=ab|cde)(x)`, false, "cdex", []string{"x", "x"}},
	{`^(?>a+)a`, false, "aaa", nil},
	{`^a++a`, false, "aaa", nil},
	{`^(a+)+$`, false, "aaaa", []string{"aaaa", "aaaa"}},
	{`^(\w)\1$`, false, "aa", []string{"aa", "a"}},
	{`^(\w)\1$`, true, "aA", []string{"aA", "a"}},
	{`^(?i)(\w)\1$`, false, "aA", []string{"aA", "a"}},
	{`^(?<n>\w)\k<n>\k'n'\k{n}\g{n}(?P=n)\g1\g{1}\g{-1}$`, false, "aaaaaaaaa", []string{"aaaaaaaaa", "a"}},
	{`^\Qa.b\E+$`, false, "a.bbb", []string{"a.bbb"}},
	{`^\Qa.b$`, false, "a.b$", []string{"a.b$"}},
	{`(a(?i)b|c)`, false, "C", []string{"C", "C"}},
	{`(a(?i)b)c`, false, "aBC", nil},
	{`(?i:a)b`, false, "AB", nil},
	{`(?n)(a)(?<x>b)`, false, "ab", []string{"ab", "b"}},
	{`(?U)(a+)`, false, "aaa", []string{"a", "a"}},
	{`(?U)(a+?)`, false, "aaa", []string{"aaa", "aaa"}},
	{`(a)\10`, false, "a\x08", []string{"a\x08", "a"}},
	{`(a)\18`, false, "a\x018", []string{"a\x018", "a"}},
	{`\x41\101\cA\e\x{42}\o{103}`, false, "AA\x01\x1bBC", []string{"AA\x01\x1bBC"}},
	{`^\R+$`, false, "\x0d\x0a\x0a\x85", []string{"\x0d\x0a\x0a\x85"}},
	{`\Gab`, false, "xab", nil},
	{`^[[:alpha:][:digit:]_-]+$`, false, "aZ9_-", []string{"aZ9_-"}},
	{`^[[:upper:]]+$`, true, "abc", []string{"abc"}},
	{`^[[:^alpha:]]+$`, false, "123", []string{"123"}},
	{`(?x) a [ ] b # comment`, false, "a b", []string{"a b"}},
	{`(?xx)a[ b]c`, false, "a c", nil},
	{`^\p{Lu}+$`, false, "A\xc0", []string{"A\xc0"}},
	{`^\p{Lu}+$`, true, "a", nil},
	{`\bfoo\b`, false, "a foo.", []string{"foo"}},
	{`\bfoo\b`, false, "\xc3\xa9foo", []string{"foo"}},
	{`\Bfoo`, false, "afoo", []string{"foo"}},
	{`^/(?:index|wp-(?:login|signup))\.php$`, false, "/wp-login.php", []string{"/wp-login.php"}},
	{`/\.(?!well-known).*`, false, "/.well-known/acme", nil},
	{`/\.(?!well-known).*`, false, "/.git/config", []string{"/.git/config"}},
	{`^/setup/(?!pub/).`, false, "/setup/pub/x", nil},
	{`^/setup/(?!pub/).`, false, "/setup/index.php", []string{"/setup/i"}},
	{`^(.+\.php)(/.+)$`, false, "/index.php/a/b", []string{"/index.php/a/b", "/index.php", "/a/b"}},
	{`^(.+\.php)(/.+)$`, false, "/index.php/a\x0a", []string{"/index.php/a", "/index.php", "/a"}},
	{`^(.+?\.php)(/.*)?$`, false, "/a.php/b.php/c", []string{"/a.php/b.php/c", "/a.php", "/b.php/c"}},
	{`x(?=a)+`, false, "xa", []string{"x"}},
	{`(?=a)*b`, false, "b", []string{"b"}},
	{`[\d-]+`, false, "1-2", []string{"1-2"}},
	{`[a\-z]+`, false, "-az", []string{"-az"}},
	{`[]a]+`, false, "]a", []string{"]a"}},
	{`[^]a]+`, false, "xy]", []string{"xy"}},
	{`a{,3}`, false, "a{,3}", []string{"a{,3}"}},
	{`x{2}`, false, "xxx", []string{"xx"}},
	{`x{2,}?`, false, "xxx", []string{"xx"}},
	{`\d{2,3}+\d`, false, "1234", []string{"1234"}},
	{`(?i)\x{4B}`, false, "k", []string{"k"}},
	{`(?i)[\x{4B}]`, false, "k", []string{"k"}},
	{`[\x00-\x1f]`, false, "\x1f", []string{"\x1f"}},
	{`\N+`, false, "ab\x0ac", []string{"ab"}},
	{`\C\C`, false, "\xc3\xa9", []string{"\xc3\xa9"}},
	{`/\.(?!well-known\/)`, true, "/.WELL-KNOWN/x", nil},
	{`/\.(?!well-known\/)`, true, "/.git", []string{"/."}},
	{`a(?#c)+`, false, "aa", []string{"aa"}},
	// Loops around atomic groups, which regexp2 alone gets wrong.
	{`(?:(?>a+))*ab`, false, "aab", []string{"ab"}},
	{`(?>a+)*ab`, false, "aab", []string{"ab"}},
	{`(?:a++)*ab`, false, "aab", []string{"ab"}},
	{`(?:(?>c*))?c1`, false, "\n/\nc1", []string{"c1"}},
	{`(?:[a-c/]*+)?(?<=\n){2}\w`, false, "\xc3\n/\nc\xc31\xa9", []string{"c"}},
	{`(?:(?>a+))+ab`, false, "aab", nil},
	// Case-insensitive back references fold ASCII only.
	{`^(.)\1$`, true, "\xc0\xe0", nil},
	{`^(.)\1$`, true, "aA", []string{"aA", "a"}},
	{`a[^\x00-\xff]|b`, false, "ab", []string{"b"}},
	{`x\Q\E+a`, false, "xxa", []string{"xxa"}},
	{"^(caf\xc3\xa9)$", true, "CAF\xc3\xa9", []string{"CAF\xc3\xa9", "CAF\xc3\xa9"}},
	{"^(caf\xc3\xa9)$", true, "CAF\xc3\x89", nil},
	{"^/(\xc3\xa9|[\xc3][\xa9])", false, "/\xc3\xa9", []string{"/\xc3\xa9", "\xc3\xa9"}},
}

// captureList renders a match as pcreCase.want does.
func captureList(s string, caps []int, ok bool) []string {
	if !ok {
		return nil
	}
	out := []string{}
	for i := 0; i+1 < len(caps); i += 2 {
		if caps[i] < 0 {
			out = append(out, "-")
		} else {
			out = append(out, s[caps[i]:caps[i+1]])
		}
	}
	for len(out) > 1 && out[len(out)-1] == "-" {
		out = out[:len(out)-1]
	}
	return out
}

func sameCaptures(a, b []string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPCREMatches: the engine edge picks for a pattern, and the
// backtracking engine alone, both match as PCRE2 does.
func TestPCREMatches(t *testing.T) {
	for _, c := range pcreCases {
		re, err := compilePCRE(c.src, c.caseless)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		bt := backtrackOnly(t, c.src, c.caseless)
		for _, r := range []*Regex{re, bt} {
			caps, ok, err := r.Exec(c.subject, nil)
			if r == bt {
				caps, ok, err = r.btExec(c.subject, nil) // $0 too
			}
			if err != nil {
				t.Errorf("%s on %q: %v", c.src, c.subject, err)
				continue
			}
			got := captureList(c.subject, caps, ok)
			if re.NumCaptures() == 0 && ok && r != bt {
				got = c.want // Exec may leave $0 out when there is no group
			}
			if !sameCaptures(got, c.want) {
				t.Errorf("%s (caseless %v, %s) on %q: got %q, want %q", c.src, c.caseless, r.Engine(), c.subject, got, c.want)
			}
			if m, _ := r.Match(c.subject); m != ok {
				t.Errorf("%s (%s) on %q: Match says %v, Exec %v", c.src, r.Engine(), c.subject, m, ok)
			}
		}
	}
}

// TestRegexEngine: which patterns keep the fast paths. A pattern that RE2
// matches as PCRE2 does stays on Go's regexp; the file-type patterns stay
// a set of extensions; only what needs it goes to the backtracking engine.
func TestRegexEngine(t *testing.T) {
	for _, c := range []struct {
		src      string
		caseless bool
		engine   string
	}{
		{`\.php$`, false, "ext"},
		{`\.(jpg|jpeg|png|gif|ico|css|js)$`, true, "ext"},
		{`\.(?:woff2?|ttf|eot)$`, true, "ext"},
		{`^/(.*)$`, false, "re2"},
		{`^(.+\.php)(/.+)$`, false, "re2"},
		{`^/wp-content/uploads/.*\.php$`, true, "re2"},
		{`/\.`, false, "re2"},
		{`^/(?:index|wp-(?:login|signup))\.php$`, false, "re2"},
		{`^/(?P<year>\d{4})/(?<slug>[^/]+)/?$`, false, "re2"},
		{`^/(?'year'\d{4})$`, false, "re2"},
		{`\bfoo\b`, false, "re2"},
		{`(?m)^a$`, false, "re2"},
		{`^(a|b)*c`, false, "re2"},
		{`/\.(?!well-known).*`, false, "backtrack"},
		{`^/setup/(?!pub/).`, false, "backtrack"},
		{`/\.(?!well-known\/)`, true, "backtrack"},
		{`(?<=\.)php$`, false, "backtrack"},
		{`^(\w)\1`, false, "backtrack"},
		{`(?>a+)b`, false, "backtrack"},
		{`a++b`, false, "backtrack"},
		{`(a|)*`, false, "backtrack"},
		{`(a*)+b`, false, "backtrack"},
		{`a{1001}`, false, "backtrack"},
	} {
		re, err := compilePCRE(c.src, c.caseless)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := re.Engine(); got != c.engine {
			t.Errorf("%s: engine %s, want %s", c.src, got, c.engine)
		}
	}
}

// pcreErrors are patterns PCRE2 rejects, with nginx 1.22's message.
var pcreErrors = []struct{ src, msg string }{
	{`^(foo`, `pcre2_compile() failed: missing closing parenthesis in "^(foo"`},
	{`foo)`, `pcre2_compile() failed: unmatched closing parenthesis in "foo)" at ")"`},
	{`*a`, `pcre2_compile() failed: quantifier does not follow a repeatable item in "*a" at "*a"`},
	{`a**`, `pcre2_compile() failed: quantifier does not follow a repeatable item in "a**" at "*"`},
	{`[a`, `pcre2_compile() failed: missing terminating ] for character class in "[a"`},
	{`[z-a]`, `pcre2_compile() failed: range out of order in character class in "[z-a]" at "a]"`},
	{`(?<n>a)(?<n>b)`, `pcre2_compile() failed: two named subpatterns have the same name (PCRE2_DUPNAMES not set) in "(?<n>a)(?<n>b)" at "b)"`},
	{`(?<n>a)(?P<n>b)`, `pcre2_compile() failed: two named subpatterns have the same name (PCRE2_DUPNAMES not set) in "(?<n>a)(?P<n>b)" at "b)"`},
	{`(?<=a+)b`, `pcre2_compile() failed: lookbehind assertion is not fixed length in "(?<=a+)b" at "(?<=a+)b"`},
	{`x(?<=a|bc*)b`, `pcre2_compile() failed: lookbehind assertion is not fixed length in "x(?<=a|bc*)b" at "(?<=a|bc*)b"`},
	{`\2(a)`, `pcre2_compile() failed: reference to non-existent subpattern in "\2(a)" at "2(a)"`},
	{`\8`, `pcre2_compile() failed: reference to non-existent subpattern in "\8" at "8"`},
	{`\i`, `pcre2_compile() failed: unrecognized character follows \ in "\i" at "i"`},
	{`a{3,2}`, `pcre2_compile() failed: numbers out of order in {} quantifier in "a{3,2}" at "}"`},
	{`a{99999}`, `pcre2_compile() failed: number too big in {} quantifier in "a{99999}" at "}"`},
	{`(?Q)`, `pcre2_compile() failed: unrecognized character after (? or (?- in "(?Q)" at "Q)"`},
	{`(?`, `pcre2_compile() failed: missing closing parenthesis in "(?"`},
	{`x{2}{3}`, `pcre2_compile() failed: quantifier does not follow a repeatable item in "x{2}{3}" at "}"`},
	{`\x{100}`, `pcre2_compile() failed: character code point value in \x{} or \o{} is too large in "\x{100}" at "}"`},
	{`\k<zz>`, `pcre2_compile() failed: reference to non-existent subpattern in "\k<zz>" at "zz>"`},
	{`(?P<1a>x)`, `pcre2_compile() failed: subpattern name must start with a non-digit in "(?P<1a>x)" at "1a>x)"`},
	{`\c`, `pcre2_compile() failed: \c at end of pattern in "\c"`},
	{`[[:foo:]]`, `pcre2_compile() failed: unknown POSIX class name in "[[:foo:]]" at "foo:]]"`},
	{`\p{Foo}`, `pcre2_compile() failed: unknown property after \P or \p in "\p{Foo}"`},
	{`\g{-2}(a)`, `pcre2_compile() failed: reference to non-existent subpattern in "\g{-2}(a)" at "{-2}(a)"`},
	{`a?+*`, `pcre2_compile() failed: quantifier does not follow a repeatable item in "a?+*" at "*"`},
	{`^*a`, `pcre2_compile() failed: quantifier does not follow a repeatable item in "^*a" at "*a"`},
	{`\b+a`, `pcre2_compile() failed: quantifier does not follow a repeatable item in "\b+a" at "+a"`},
	{`a$?`, `pcre2_compile() failed: quantifier does not follow a repeatable item in "a$?" at "?"`},
	{`[\d-z]`, `pcre2_compile() failed: invalid range in character class in "[\d-z]" at "-z]"`},
	{`[a-\d]`, `pcre2_compile() failed: invalid range in character class in "[a-\d]" at "]"`},
	{`a(?#xx`, `pcre2_compile() failed: missing ) after (?# comment in "a(?#xx"`},
	{`[:alpha:]`, `pcre2_compile() failed: POSIX named classes are supported only within a class in "[:alpha:]" at "[:alpha:]"`},
	{`[\N]`, `pcre2_compile() failed: \N is not supported in a class in "[\N]" at "]"`},
	{`[\R]`, `pcre2_compile() failed: escape sequence is invalid in character class in "[\R]" at "R]"`},
	{`(?P=n)`, `pcre2_compile() failed: reference to non-existent subpattern in "(?P=n)" at "n)"`},
	{`\g`, `pcre2_compile() failed: \g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number in "\g"`},
	{`\k`, `pcre2_compile() failed: \k is not followed by a braced, angle-bracketed, or quoted name in "\k"`},
	{`\x{}`, `pcre2_compile() failed: digits missing in \x{} or \o{} or \N{U+} in "\x{}" at "}"`},
	{`\o{}`, `pcre2_compile() failed: digits missing in \x{} or \o{} or \N{U+} in "\o{}" at "}"`},
	{`(?<abcdefghijabcdefghijabcdefghijabc>x)`, `pcre2_compile() failed: subpattern name is too long (maximum 32 code units) in "(?<abcdefghijabcdefghijabcdefghijabc>x)" at ">x)"`},
	{`(?<a-b>x)`, `pcre2_compile() failed: syntax error in subpattern name (missing terminator?) in "(?<a-b>x)" at "-b>x)"`},
	{`\Q\E+a`, `pcre2_compile() failed: quantifier does not follow a repeatable item in "\Q\E+a" at "+a"`},
	{`\L`, `pcre2_compile() failed: PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u in "\L"`},
	{`\N{U+41}`, `pcre2_compile() failed: \N{U+dddd} is supported only in Unicode (UTF) mode in "\N{U+41}" at "{U+41}"`},
	{`\p`, `pcre2_compile() failed: malformed \P or \p sequence in "\p"`},
	{`\p{L`, `pcre2_compile() failed: malformed \P or \p sequence in "\p{L"`},
	{`[[.a.]]`, `pcre2_compile() failed: POSIX collating elements are not supported in "[[.a.]]" at "[.a.]]"`},
	{`(?i`, `pcre2_compile() failed: missing closing parenthesis in "(?i"`},
	{`(?<>x)`, `pcre2_compile() failed: subpattern name expected in "(?<>x)" at ">x)"`},
	{`\g{0}`, `pcre2_compile() failed: reference to non-existent subpattern in "\g{0}"`},
	{`\o{8}`, `pcre2_compile() failed: non-octal character in \o{} (closing brace missing?) in "\o{8}" at "8}"`},
	{`\400`, `pcre2_compile() failed: octal value is greater than \377 in 8-bit non-UTF-8 mode in "\400"`},
	{`(?P`, `pcre2_compile() failed: missing closing parenthesis in "(?P"`},
	{`\x{zz}`, `pcre2_compile() failed: non-hex character in \x{} (closing brace missing?) in "\x{zz}" at "zz}"`},
}

// TestPCREErrors: a pattern PCRE2 rejects gets PCRE2's message and
// offset, worded as nginx words them.
func TestPCREErrors(t *testing.T) {
	for _, c := range pcreErrors {
		_, err := compilePCRE(c.src, false)
		if err == nil {
			t.Errorf("%s: compiled, want %s", c.src, c.msg)
			continue
		}
		got := regexError(&Directive{File: "F", Line: 1}, c.src, err).Error()
		if want := c.msg + " in F:1"; got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, want)
		}
	}
}

// TestPCREUnsupported: what PCRE2 takes but edge has no engine for is
// refused by name.
func TestPCREUnsupported(t *testing.T) {
	for _, src := range []string{`(?R)`, `(a)(?1)`, `(?&n)(?<n>a)`, `(?|(a)|(b))`, `(*UTF)a`, `a\Kb`, `\X`,
		`(?(1)a|b)(x)`, `(?J)(?<n>a)|(?<n>b)`, `\g<1>(a)`, `(?C1)a`, `\p{Greek}`} {
		_, err := compilePCRE(src, false)
		var un *pcreUnsupported
		if !errors.As(err, &un) {
			t.Errorf("%s: %v, want an unsupported construct", src, err)
			continue
		}
		msg := regexError(&Directive{File: "F", Line: 1}, src, err).Error()
		if !strings.Contains(msg, "which edge does not support") {
			t.Errorf("%s: %s", src, msg)
		}
	}
}

// agreeCorpus is what the engines are compared on: real configurations'
// patterns and the shapes where RE2 and PCRE2 could part.
var agreeCorpus = []string{
	`\.php$`, `^/(.*)$`, `^(.+\.php)(/.+)$`, `^(.+?\.php)(/.*)$`, `/\.`, `^/\.`, `~$`, `\.(ht|git|svn)`,
	`^/wp-content/uploads/.*\.php$`, `^/(?:index|wp-(?:login|signup))\.php$`, `[^/]\.php(/|$)`,
	`^/(?<year>\d{4})/(?P<slug>[^/]+)/?$`, `^/([a-z]+)/([0-9]+)(?:/(.*))?$`, `(a|ab)(c|bcd)(d*)`,
	`^(a|b)*c`, `(a+|b+)*c`, `^(?:(a)|b)*$`, `((a)|(b))*c`, `(a*)?b`, `(a|b)?c`, `x*`, `(x*)(y*)`,
	`\bfoo\b`, `\Bo`, `(?m)^a$`, `(?m)^`, `(?m)$`, `(?s).+`, `.+`, `.?x`, `(.)(.)$`, `[^a]+$`,
	`(?i)ab[c-e]`, `(?i)k`, `(?i)[^k]`, `\W+`, `\S\s`, `\D{2}`, `[\x80-\xff]+`, "caf\xc3\xa9", "[\xc3\xa9]",
	`^$`, `$`, `a$|b`, `(a$)?`, `a{2,3}?`, `(ab){2}`, `(a){0}b`, `(?:a|)b`, `(a|)b`, `()`, `(|a)`,
}

// agreeSubjects are short strings over what the corpus reacts to.
func agreeSubjects() []string {
	subjects := []string{"", "\n", "/a.php", "/a.php\n", "/index.php/a/b", "/index.php/a\n", "/2024/hello/",
		"/caf\xc3\xa9/x.php", "\xc3\xa9", "\xc3", "\xff\xfe", "aab\n", "abcd", "xyz\n\n"}
	alphabet := []string{"a", "b", "c", "d", "k", "K", "x", "y", "/", ".", "p", "h", "\n", " ", "0", "\xc3", "\xa9", "\xe2\x84\xaa"}
	// Every string of up to three letters of the alphabet.
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		subjects = append(subjects, prefix)
		if n == 0 {
			return
		}
		for _, a := range alphabet {
			grow(prefix+a, n-1)
		}
	}
	grow("", 3)
	return subjects
}

// TestRegexEnginesAgree: wherever a pattern runs on Go's regexp (or the
// extension set), it answers what the backtracking engine answers, on
// ASCII and non-ASCII subjects, with and without a final newline.
func TestRegexEnginesAgree(t *testing.T) {
	subjects := agreeSubjects()
	for _, src := range agreeCorpus {
		for _, caseless := range []bool{false, true} {
			re, err := compilePCRE(src, caseless)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			compareEngines(t, re, backtrackOnly(t, src, caseless), subjects)
		}
	}
}

// compareEngines matches each subject with re and with bt, the same
// pattern on the backtracking engine alone.
func compareEngines(t *testing.T, re, bt *Regex, subjects []string) {
	t.Helper()
	for _, s := range subjects {
		got, gok, gerr := re.Exec(s, nil)
		want, wok, werr := bt.Exec(s, nil)
		if gerr != nil || werr != nil {
			continue // out of budget: nothing to compare
		}
		if gok != wok || gok && re.NumCaptures() > 0 && !sameCaptures(captureList(s, got, true), captureList(s, want, true)) {
			t.Errorf("%s (%s) on %q: %v %q, backtracking %v %q", re.Source, re.Engine(), s,
				gok, captureList(s, got, gok), wok, captureList(s, want, wok))
		}
	}
}

// FuzzRegexEngines compares the engine edge picks with the backtracking
// engine on random patterns and subjects.
func FuzzRegexEngines(f *testing.F) {
	for _, src := range agreeCorpus {
		f.Add(src, "/a.php\n", false)
	}
	f.Add(`(a|b)*?c`, "abc", true)
	f.Fuzz(func(t *testing.T, src, subject string, caseless bool) {
		if len(src) > 40 || len(subject) > 40 {
			return
		}
		re, err := compilePCRE(src, caseless)
		if err != nil || re.Engine() == "backtrack" {
			return
		}
		pt, _ := parsePCRE(src, caseless)
		bt, err := regexp2Compile(pt.netForm())
		if err != nil {
			t.Fatalf("%s: regexp2 rejects %s: %v", src, pt.netForm(), err)
		}
		compareEngines(t, re, &Regex{Source: src, captures: pt.groups, bt: bt}, []string{subject, subject + "\n"})
	})
}

// TestRegexRequired: the run of bytes a backtracking pattern's every match
// holds, which spares regexp2 the subjects without it.
func TestRegexRequired(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`/\.(?!well-known).*`, "/."},
		{`^/setup/(?!pub/).`, "/setup/"},
		{`^/wp-includes/.*(?<!(js/tinymce/wp-tinymce))\.php$`, "/wp-includes/"},
		{`(?<=/static/)(\w+)\.css$`, ".css"},
		{`^(a+)+(?!x)$`, "a"},
		{`(?i)abc(?=x)`, ""},
		{`(?:foo|bar)(?!x)`, ""},
		{`x(?=y)z(\1)?`, "xz"},
		{"\xc3\xa9(?!a)", "\xc3\xa9"},
	} {
		pt, err := parsePCRE(c.src, false)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := pt.required(); got != c.want {
			t.Errorf("%s: required %q, want %q", c.src, got, c.want)
		}
	}
}
