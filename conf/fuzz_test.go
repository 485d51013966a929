// This file holds FuzzParse: arbitrary bytes through the lexer, the parser
// (includes answered from edge's shipped files only) and the compile step.
// Whatever the input, conf returns a plan or an *Error and never panics; a
// plan it returns can be dumped; and a parsed tree written back by Format
// (what "edge -T --nginx" prints) parses to the same tree. The corpus
// starts from the golden inputs in testdata/ and the configuration text of
// the seed articles.
package conf

import (
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edge/testenv"
)

// seedSnippets are configuration texts from the seed articles (000: gzip
// and workers, 002: TLS tuning, 004: assets, WordPress rewrite, PHP), as
// their readers paste them.
var seedSnippets = []string{
	`worker_processes 2;
events {
  worker_connections 19000;
  multi_accept on;
}
http {
  gzip on;
  gzip_disable "msie6";

  gzip_min_length  1000;
  gzip_proxied     expired no-cache no-store private auth;
  gzip_types       text/plain application/xml application/javascript text/css application/x-javascript;
}
`,
	`events {}
http {
  server {
    listen 443 ssl http2;
    ssl_ciphers ALL:!kEDH!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP;
    ssl_buffer_size 4k;
    ssl_session_cache shared:SSL:50m;
    ssl_session_timeout 4h;
    ssl_stapling on;
    ssl_stapling_verify on;
  }
}
`,
	testenv.Seed004Conf(testenv.Seed004Options{}),
}

// fuzzReadFile answers includes with edge's shipped files by base name and
// "not found" for anything else, so fuzzing never reads the disk.
func fuzzReadFile(path string) ([]byte, error) {
	if b, err := Builtin(filepath.Base(path)); err == nil {
		return b, nil
	}
	return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
}

// fuzzGlob matches nothing: include globs expand to no files.
func fuzzGlob(string) ([]string, error) { return nil, nil }

// addGoldenInputs adds the configuration of every golden file, and each of
// its "@file" sections, to the corpus.
func addGoldenInputs(f *testing.F) {
	files, err := filepath.Glob("testdata/*.conftest")
	if err != nil || len(files) == 0 {
		f.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		input, _, _ := strings.Cut(string(raw), "\n----\n")
		sections := strings.Split(input, "\n@file ")
		f.Add([]byte(sections[0]))
		for _, s := range sections[1:] {
			_, body, _ := strings.Cut(s, "\n")
			f.Add([]byte(body))
		}
	}
}

func FuzzParse(f *testing.F) {
	addGoldenInputs(f)
	for _, s := range seedSnippets {
		f.Add([]byte(s))
	}
	for _, name := range []string{"default.conf", "fastcgi_params", "fastcgi.conf"} {
		b, err := Builtin(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	prefix := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := ParseOptions{Prefix: prefix, ReadFile: fuzzReadFile, Glob: fuzzGlob}
		tree, err := ParseBytes("fuzz.conf", data, opts)
		if err != nil {
			checkConfError(t, err)
			return
		}
		checkFormatRoundTrip(t, tree, opts)
		// pool_file names a file that compiling reads as it is; a fuzzed
		// name could be a FIFO or /dev/zero and hang the run.
		if hasDirective(tree.Main, "pool_file") {
			return
		}
		// Names resolve to loopback without the network: a fuzzed host
		// name sent to the system resolver could wait for its timeout.
		plan, err := Compile(tree, CompileOptions{Path: "fuzz.conf", Prefix: prefix, LookupHost: fuzzLookup})
		if err != nil {
			checkConfError(t, err)
			return
		}
		_ = plan.Dump()
		_ = Format(tree.Main, true)
	})
}

// checkFormatRoundTrip: Format's text parses back to the same directives,
// words and blocks (the lexer's quoting and escapes survive).
func checkFormatRoundTrip(t *testing.T, tree *Tree, opts ParseOptions) {
	t.Helper()
	text := Format(tree.Main, false)
	again, err := ParseBytes("formatted.conf", []byte(text), opts)
	if err != nil {
		t.Fatalf("Format's text does not parse: %v\n%s", err, text)
	}
	if a, b := treeShape(tree.Main), treeShape(again.Main); a != b {
		t.Fatalf("Format changed the tree:\n%s\nparses as\n%s", a, b)
	}
}

// treeShape prints directives with every word quoted by Go, one per line.
func treeShape(list []*Directive) string {
	var b strings.Builder
	var walk func(list []*Directive, depth int)
	walk = func(list []*Directive, depth int) {
		for _, d := range list {
			fmt.Fprintf(&b, "%*s%q %q block=%v\n", 2*depth, "", d.Name, d.Args, d.HasBlock)
			walk(d.Block, depth+1)
		}
	}
	walk(list, 0)
	return b.String()
}

// checkConfError: every failure is reported as an *Error with nginx's
// wording, and a located one names a line that exists.
func checkConfError(t *testing.T, err error) {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %T %q is not a conf.Error", err, err)
	}
	if ce.Msg == "" {
		t.Fatalf("conf.Error without a message: %#v", ce)
	}
	if ce.File != "" && ce.File != "command line" && ce.Line < 1 {
		t.Fatalf("error %q names line %d", err, ce.Line)
	}
}

// hasDirective reports whether name is used anywhere in list.
func hasDirective(list []*Directive, name string) bool {
	for _, d := range list {
		if d.Name == name || hasDirective(d.Block, name) {
			return true
		}
	}
	return false
}

// fuzzLookup answers every name with 127.0.0.1.
func fuzzLookup(string) []netip.Addr { return []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1})} }
