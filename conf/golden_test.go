// Golden tests: every conf/testdata/*.conftest holds a configuration, a
// line "----", and either the expected plan dump or the expected error
// (a line starting with "error: "). Files named in the config with
// "@file NAME" sections are written next to it first, for include tests.
// Run with -update to rewrite the expected parts from the current output.
package conf

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.conftest")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, want, ok := strings.Cut(string(raw), "\n----\n")
			if !ok {
				t.Fatalf("%s: no ---- separator", file)
			}
			got := runGolden(t, input)
			if *update {
				if err := os.WriteFile(file, []byte(input+"\n----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s:\n--- got\n%s\n--- want\n%s", file, got, want)
			}
		})
	}
}

// runGolden writes the config (and its @file sections) into a temp dir,
// loads it, and returns the dump or the error text with the temp dir
// replaced by "DIR".
func runGolden(t *testing.T, input string) string {
	dir := t.TempDir()
	sections := strings.Split(input, "\n@file ")
	main := sections[0]
	for _, s := range sections[1:] {
		name, body, _ := strings.Cut(s, "\n")
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "edge.conf")
	if err := os.WriteFile(path, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Load(path, LoadOptions{Prefix: dir})
	var out string
	if err != nil {
		out = "error: " + err.Error() + "\n"
	} else {
		out = plan.Dump()
	}
	return strings.ReplaceAll(out, dir, "DIR")
}
