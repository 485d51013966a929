package proxy

import (
	"fmt"
	"strings"
	"testing"
)

// parseAll runs the parser over s and shows what it found, one item a
// line, with the messages it logged.
func parseAll(s string, valueLen int) (items []string, logged []string) {
	p := &ssiParser{buf: []byte(s), valueLen: valueLen, logf: func(f string, a ...any) {
		logged = append(logged, fmt.Sprintf(f, a...))
	}}
	for {
		it, ok := p.next()
		if !ok {
			return items, logged
		}
		items = append(items, it.String())
	}
}

func TestSSIParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		logged   []string
	}{
		{"plain text", "hello <b>world</b>", []string{`text "hello <b>world</b>"`}, nil},
		{"a comment is text", "a<!-- c -->b", []string{`text "a<!-- c -->b"`}, nil},
		{"almost a command", "<!-x <!- <!-#", []string{`text "<!-x <!- <!-#"`}, nil},
		{"command", `a<!--#echo var="x" -->b`, []string{`text "a"`, `cmd echo [{var x}]`, `text "b"`}, nil},
		{"no space before the end", `<!--#echo var="x"-->`, []string{`cmd echo [{var x}]`}, nil},
		{"no parameters", `<!--#endif-->`, []string{`cmd endif []`}, nil},
		{"spaces around", "<!--#  echo\tvar = 'x'\n-->", []string{`cmd echo [{var x}]`}, nil},
		{"single and double quotes", `<!--#set var='a"b' value="c'd" -->`, []string{`cmd set [{var a"b} {value c'd}]`}, nil},
		{"backslashes are kept", `<!--#set var="a" value="x\"y\\z" -->`, []string{`cmd set [{var a} {value x\"y\\z}]`}, nil},
		{"a < before the tag", `<<!--#echo var="u" -->`, []string{`text "<"`, `cmd echo [{var u}]`}, nil},
		{"<!--# inside a value is the value", `<!--#echo var="<!--#" -->`, []string{`cmd echo [{var <!--#}]`}, nil},
		{"a trailing partial tag is dropped", "text<!-", []string{`text "text"`}, nil},
		{"an unfinished command is dropped", `text<!--#echo var="x"`, []string{`text "text"`}, nil},
		{"a lone < at the end is dropped", "a<", []string{`text "a"`}, nil},
		{"unquoted value", `<!--#echo var=x -->`, []string{`bad echo`},
			[]string{`unexpected "x" symbol before value of "var" parameter in "echo" SSI command`}},
		{"junk after a value", `<!--#echo var="a"b -->`, []string{`bad echo`},
			[]string{`unexpected "b" symbol after "a" value of "var" parameter in "echo" SSI command`}},
		{"parameter without a value", `<!--#echo var -->`, []string{`bad echo`},
			[]string{`unexpected "-" symbol after "var" parameter in "echo" SSI command`}},
		{"a dash in a parameter name", `<!--#echo va-r="x" -->`, []string{`bad echo`},
			[]string{`invalid "va-" parameter in "echo" SSI command`}},
		{"a bad end", `<!--#echo var="x" -x-->`, []string{`bad echo`},
			[]string{`unexpected "x" symbol in "echo" SSI command`}},
		{"a bad end after --", `<!--#echo var="x" --x-->`, []string{`bad echo`},
			[]string{`unexpected "x" symbol in "echo" SSI command`}},
		{"an error runs to the next -->", `<!--#echo var=x y="z" -->after`, []string{`bad echo`, `text "after"`},
			[]string{`unexpected "x" symbol before value of "var" parameter in "echo" SSI command`}},
		{"---> does not end an error", `<!--#echo var=x ---> more -->z`, []string{`bad echo`, `text "z"`},
			[]string{`unexpected "x" symbol before value of "var" parameter in "echo" SSI command`}},
		{"a command of 32 bytes", "<!--#" + strings.Repeat("c", 32) + " -->", []string{"cmd " + strings.Repeat("c", 32) + " []"}, nil},
		{"a command of 33 bytes", "<!--#" + strings.Repeat("c", 33) + " -->", []string{"bad " + strings.Repeat("c", 32)},
			[]string{`the "` + strings.Repeat("c", 32) + `c..." SSI command is too long`}},
		{"a parameter name of 33 bytes", "<!--#echo " + strings.Repeat("p", 33) + `="x" -->`, []string{"bad echo"},
			[]string{`too long "` + strings.Repeat("p", 32) + `p..." parameter in "echo" SSI command`}},
		{"a value at the limit", `<!--#echo var="abcd" -->`, []string{`cmd echo [{var abcd}]`}, nil},
		{"a value past the limit", `<!--#echo var="abcde" -->`, []string{`bad echo`},
			[]string{`too long "abcde..." value of "var" parameter in "echo" SSI command`}},
		{"a dash as a command, then no end", `<!--#-->x`, nil,
			[]string{`unexpected ">" symbol in "-" SSI command`}},
		{"two commands", `<!--#a --><!--#b -->`, []string{`cmd a []`, `cmd b []`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			valueLen := 255
			if strings.HasPrefix(tc.name, "a value") {
				valueLen = 4
			}
			got, logged := parseAll(tc.in, valueLen)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if strings.Join(logged, "\n") != strings.Join(tc.logged, "\n") {
				t.Errorf("logged:\n%s\nwant:\n%s", strings.Join(logged, "\n"), strings.Join(tc.logged, "\n"))
			}
		})
	}
}

func TestSSIEvaluateHelpers(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:    `plain`,
		`a\"b`:     `a"b`,
		`a\'b`:     `a'b`,
		`a\$b`:     `a$b`,
		`a\\b`:     `a\b`,
		`a\db`:     `a\db`,
		`trail\`:   `trail`,
		`\\\\`:     `\\`,
		`x\"\'\$y`: `x"'$y`,
	} {
		if got := unquoteSSI(in); got != want {
			t.Errorf("unquoteSSI(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		in, path, args string
		ok             bool
	}{
		{"/a/b", "/a/b", "", true},
		{"/a/b?x=1&y", "/a/b", "x=1&y", true},
		{"/a%20b?c%20d", "/a b", "c%20d", true},
		{"", "", "", false},
		{"?x", "", "", false},
		{"/a/../b", "", "", false},
		{"/a/..", "", "", false},
		{"../a", "", "", false},
		{"..", "", "", false},
		{"/a/%2e%2e/b", "", "", false},
		{"/a/..b", "/a/..b", "", true},
		{"/a%00", "", "", false},
		{"/a?../b", "/a", "../b", true},
	} {
		path, args, ok := parseUnsafeURI(tc.in)
		if path != tc.path || args != tc.args || ok != tc.ok {
			t.Errorf("parseUnsafeURI(%q) = %q, %q, %v; want %q, %q, %v", tc.in, path, args, ok, tc.path, tc.args, tc.ok)
		}
	}
	if got := escapeWith(`<a href="x y">#'%`, ssiURLEscape); got != `%3Ca%20href=%22x%20y%22%3E%23%27%25` {
		t.Errorf("url encoding: %q", got)
	}
	if got := escapeHTML(`<a href="x">&amp;'`); got != `&lt;a href=&quot;x&quot;&gt;&amp;amp;'` {
		t.Errorf("entity encoding: %q", got)
	}
}

// FuzzSSIParse checks that the parser always ends, that every text item
// is a piece of the input in order, and that input without "<!--#"
// passes through whole (but for a trailing piece of one).
func FuzzSSIParse(f *testing.F) {
	for _, s := range []string{"", "<", "<!--#", `a<!--#echo var="x" -->b`, `<!--#set var='a' value="b\"c" -->`,
		`<!--#if expr="$a = /(x)/" -->y<!--#endif -->`, "<<!--<!--#x---->", `<!--#echo var=x ---> -->`} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, s string, valueLen int) {
		if valueLen < 0 || valueLen > 1024 {
			valueLen = 255
		}
		p := &ssiParser{buf: []byte(s), valueLen: valueLen}
		rest := s
		for n := 0; ; n++ {
			if n > len(s)+1 {
				t.Fatalf("the parser does not end on %q", s)
			}
			it, ok := p.next()
			if !ok {
				break
			}
			if it.kind == ssiText {
				if len(it.text) == 0 {
					t.Fatalf("an empty text item on %q", s)
				}
				i := strings.Index(rest, string(it.text))
				if i < 0 {
					t.Fatalf("text %q is not in what is left of %q", it.text, s)
				}
				rest = rest[i+len(it.text):]
			}
		}
		if !strings.Contains(s, "<!--#") {
			var all strings.Builder
			p := &ssiParser{buf: []byte(s), valueLen: valueLen}
			for {
				it, ok := p.next()
				if !ok {
					break
				}
				all.Write(it.text)
			}
			if !strings.HasPrefix(s, all.String()) || !strings.HasPrefix("<!--", s[all.Len():]) && s[all.Len():] != "" {
				t.Fatalf("text %q of %q lost more than a trailing part of a tag", all.String(), s)
			}
		}
	})
}
