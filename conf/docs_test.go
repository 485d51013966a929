// This test keeps the directive reference honest: every directive edge
// implements, ignores or refuses must be named in docs/ (directives.md,
// tls.md or fpm.md), so the reference never silently falls behind the
// tables.
package conf

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func TestDirectiveReferenceCoversTables(t *testing.T) {
	var docs strings.Builder
	for _, name := range []string{"directives.md", "tls.md", "fpm.md"} {
		b, err := os.ReadFile(filepath.Join("..", "docs", name))
		if err != nil {
			if name == "directives.md" {
				t.Fatal(err)
			}
			continue
		}
		docs.Write(b)
	}
	text := docs.String()
	// "`fastcgi_*`"-style patterns in the docs cover families.
	var families []*regexp.Regexp
	for _, m := range regexp.MustCompile("`([a-z0-9_]*\\*[a-z0-9_*]*)`").FindAllStringSubmatch(text, -1) {
		families = append(families, regexp.MustCompile("^"+strings.ReplaceAll(m[1], "*", "[a-z0-9_]*")+"$"))
	}
	covered := func(name string) bool {
		if strings.Contains(text, "`"+name+"`") {
			return true
		}
		for _, f := range families {
			if f.MatchString(name) {
				return true
			}
		}
		return false
	}
	var missing []string
	check := func(name string) {
		if !covered(name) {
			missing = append(missing, name)
		}
	}
	for name := range table {
		check(name)
	}
	for name := range upstreamTable {
		check(name)
	}
	for name := range ignoredDirectives {
		check(name)
	}
	for name := range unsupportedDirectives {
		check(name)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("directives not named in docs/directives.md (or tls.md, fpm.md): %s", strings.Join(missing, ", "))
	}
}
