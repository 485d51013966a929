// This file checks that edge's shipped data files (conf/mime.types,
// conf/fastcgi_params, conf/fastcgi.conf) say what the installed nginx's
// files say, whatever the layout and comments.

package testenv

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// debianOnlyParams are lines the installed nginx's files may carry that
// upstream nginx 1.22 does not, and that edge leaves out on purpose (see the
// header of conf/fastcgi_params): Debian's security update sets HTTP_HOST
// from $host, dropping the port that DESIGN.md says HTTP_HOST keeps.
var debianOnlyParams = []fastcgiParam{
	{Name: "HTTP_HOST", Value: "$host"},
}

func TestMimeTypesMatchNginx(t *testing.T) {
	ours := readMimeTypes(t, filepath.Join(RepoRoot(t), "conf", "mime.types"))
	theirs := readMimeTypes(t, filepath.Join(NginxConfDir(t), "mime.types"))
	for ext, typ := range theirs {
		if ours[ext] != typ {
			t.Errorf("extension %q: nginx says %q, conf/mime.types says %q", ext, typ, ours[ext])
		}
	}
	for ext, typ := range ours {
		if _, ok := theirs[ext]; !ok {
			t.Errorf("extension %q (%s) is in conf/mime.types but not in nginx's", ext, typ)
		}
	}
}

func TestFastCGIParamsMatchNginx(t *testing.T) {
	nginxDir := NginxConfDir(t)
	for _, name := range []string{"fastcgi_params", "fastcgi.conf"} {
		t.Run(name, func(t *testing.T) {
			ours := readFastCGIParams(t, filepath.Join(RepoRoot(t), "conf", name))
			theirs := readFastCGIParams(t, filepath.Join(nginxDir, name))
			theirs = slices.DeleteFunc(theirs, func(p fastcgiParam) bool {
				return slices.Contains(debianOnlyParams, p)
			})
			if !reflect.DeepEqual(ours, theirs) {
				t.Errorf("conf/%s differs from nginx's %s\nours:\n%s\nnginx:\n%s",
					name, name, formatParams(ours), formatParams(theirs))
			}
		})
	}
}

// fastcgiParam is one fastcgi_param directive.
type fastcgiParam struct {
	Name, Value string
	IfNotEmpty  bool
}

func formatParams(params []fastcgiParam) string {
	var b strings.Builder
	for _, p := range params {
		b.WriteString("  " + p.Name + " " + p.Value)
		if p.IfNotEmpty {
			b.WriteString(" if_not_empty")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// readFastCGIParams reads a file made only of fastcgi_param directives.
func readFastCGIParams(t *testing.T, path string) []fastcgiParam {
	t.Helper()
	var params []fastcgiParam
	for _, st := range readStatements(t, path) {
		if st.block != "" || len(st.words) < 3 || len(st.words) > 4 || st.words[0] != "fastcgi_param" {
			t.Fatalf("%s: unexpected statement %q", path, st.words)
		}
		p := fastcgiParam{Name: st.words[1], Value: st.words[2]}
		if len(st.words) == 4 {
			if st.words[3] != "if_not_empty" {
				t.Fatalf("%s: unexpected flag %q", path, st.words[3])
			}
			p.IfNotEmpty = true
		}
		params = append(params, p)
	}
	return params
}

// readMimeTypes reads a file holding one types block and returns extension
// -> type, failing on an extension listed twice.
func readMimeTypes(t *testing.T, path string) map[string]string {
	t.Helper()
	types := make(map[string]string)
	for _, st := range readStatements(t, path) {
		if st.block != "types" || len(st.words) < 2 {
			t.Fatalf("%s: unexpected statement %q in block %q", path, st.words, st.block)
		}
		for _, ext := range st.words[1:] {
			if old, dup := types[ext]; dup {
				t.Errorf("%s: extension %q listed for %q and %q", path, ext, old, st.words[0])
			}
			types[ext] = st.words[0]
		}
	}
	if len(types) == 0 {
		t.Fatalf("%s: no types", path)
	}
	return types
}

// statement is one simple directive and the block it sits in ("" for the
// top level).
type statement struct {
	block string
	words []string
}

// readStatements splits a config file of simple directives and at most one
// level of blocks. It is enough for nginx's data files, not a config parser.
func readStatements(t *testing.T, path string) []statement {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	var (
		out   []statement
		block string
		words []string
	)
	for _, tok := range confTokens(string(text)) {
		switch tok {
		case ";":
			out = append(out, statement{block: block, words: words})
			words = nil
		case "{":
			if block != "" || len(words) != 1 {
				t.Fatalf("%s: unexpected block %q", path, words)
			}
			block, words = words[0], nil
		case "}":
			if block == "" || words != nil {
				t.Fatalf("%s: unexpected }", path)
			}
			block = ""
		default:
			words = append(words, tok)
		}
	}
	if block != "" || words != nil {
		t.Fatalf("%s: unterminated statement or block", path)
	}
	return out
}

// confTokens splits nginx config text into words and the punctuation
// tokens ";", "{" and "}". As in nginx, "#" starts a comment only where a
// word would start; quotes group a word (without escapes: the data files
// have none).
func confTokens(text string) []string {
	var (
		toks []string
		word strings.Builder
		in   bool // inside a word
	)
	flush := func() {
		if in {
			toks = append(toks, word.String())
			word.Reset()
			in = false
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			flush()
		case c == ';' || c == '{' || c == '}':
			flush()
			toks = append(toks, string(c))
		case !in && c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case !in && (c == '"' || c == '\''):
			end := strings.IndexByte(text[i+1:], c)
			if end < 0 {
				end = len(text) - i - 1
			}
			toks = append(toks, text[i+1:i+1+end])
			i += end + 1
		default:
			word.WriteByte(c)
			in = true
		}
	}
	flush()
	return toks
}

func TestConfTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a b;", []string{"a", "b", ";"}},
		{"types{a/b c;}", []string{"types", "{", "a/b", "c", ";", "}"}},
		{"# comment\nx y; # tail\n", []string{"x", "y", ";"}},
		{"x a#b;", []string{"x", "a#b", ";"}},
		{`x "a b" 'c;d';`, []string{"x", "a b", "c;d", ";"}},
		{"fastcgi_param  HTTPS  $https if_not_empty;", []string{"fastcgi_param", "HTTPS", "$https", "if_not_empty", ";"}},
	}
	for _, tt := range tests {
		if got := confTokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("confTokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
