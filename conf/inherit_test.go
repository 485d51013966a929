// Tests of the directive table's inheritance rules (slots.go): that an
// entry cannot leave out how it inherits, and that the golden files show
// the inheritance of every directive that has a slot.
package conf

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestRegisterRefusesAnEntryWithoutMerge(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("register accepted a location directive with neither a slot nor local")
		}
		if table["edge_test_unmerged"] != nil {
			t.Fatal("the refused entry is in the table")
		}
	}()
	register(&spec{name: "edge_test_unmerged", ctx: ctxHSL, args: take1,
		set: func(c *compiler, f *frame, d *Directive) error { return nil }})
}

func TestInheritGoldensCoverEverySlot(t *testing.T) {
	files, err := filepath.Glob("testdata/inherit_*.conftest")
	if err != nil || len(files) == 0 {
		t.Fatalf("no inherit_*.conftest files: %v", err)
	}
	written := map[string]bool{}
	word := regexp.MustCompile(`(?m)^\s*([a-z0-9_]+)\s`)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		config, _, _ := strings.Cut(string(raw), "\n----\n")
		for _, m := range word.FindAllStringSubmatch(config, -1) {
			written[m[1]] = true
		}
	}
	var names []string
	for _, u := range locSlots {
		names = append(names, specNames(u.specs)...)
	}
	for _, u := range srvSlots {
		names = append(names, specNames(u.specs)...)
	}
	for _, u := range tlsSlots {
		names = append(names, specNames(u.specs)...)
	}
	for _, n := range names {
		if !written[n] {
			t.Errorf("directive %q inherits but no testdata/inherit_*.conftest writes it", n)
		}
	}
}

func specNames(specs []*spec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.name)
	}
	return out
}
