// This file holds the package boundaries of the server: the HTTP engines
// are imported by their adapter packages only (proxy/h1 for fasthttp,
// proxy/h2 for x/net/http2), so everything else in edge, the pipeline
// included, is written against edge's own request view and an engine can
// be replaced or joined (HTTP/3) without touching it; and the pipeline
// (this package) depends on no adapter, engine or listener, which the
// adapters and the listener (proxy/listen) build on, in that order.
package proxy

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// engineImporters are the only product packages allowed to import each
// engine (any package under the engine's path counts as the engine).
var engineImporters = map[string][]string{
	"github.com/valyala/fasthttp": {"edge/proxy/h1"},
	// edge ab is a client of both servers it compares, not part of the
	// server: it speaks HTTP/2 with x/net/http2's Transport.
	"golang.org/x/net/http2": {"edge/proxy/h2", "edge/ab"},
}

func TestEngineImports(t *testing.T) {
	root := ".." // the module's root, from proxy/
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testenv", "testdata", "vendor", ".git":
				// testenv is test code; it is no product package.
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := path.Join("edge", filepath.ToSlash(rel))
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			for engine, allowed := range engineImporters {
				if ip != engine && !strings.HasPrefix(ip, engine+"/") {
					continue
				}
				seen[pkg+" "+engine] = true
				if !slices.Contains(allowed, pkg) {
					t.Errorf("%s imports %s: only %s may (%s)", p, ip, strings.Join(allowed, ", "), engine)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk found the adapters, so it did look at the tree.
	for _, want := range []string{"edge/proxy/h1 github.com/valyala/fasthttp", "edge/proxy/h2 golang.org/x/net/http2"} {
		if !seen[want] {
			t.Errorf("no import found for %q: the walk missed the adapters", want)
		}
	}
}

// mustNotDependOn lists, for a package of the server, what it must not depend
// on, directly or not: the pipeline knows no engine, adapter or
// listener; an adapter knows neither the other one nor the listener.
// Import cycles between them are thereby impossible: proxy <- proxy/h1,
// proxy/h2 <- proxy/listen <- cmd/edge.
var mustNotDependOn = map[string][]string{
	"edge/proxy": {"github.com/valyala/fasthttp", "golang.org/x/net/http2",
		"edge/proxy/h1", "edge/proxy/h2", "edge/proxy/listen"},
	"edge/proxy/h1": {"golang.org/x/net/http2", "edge/proxy/h2", "edge/proxy/listen"},
	"edge/proxy/h2": {"github.com/valyala/fasthttp", "edge/proxy/h1", "edge/proxy/listen"},
}

func TestPackageLayers(t *testing.T) {
	for pkg, banned := range mustNotDependOn {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, pkg) {
			t.Fatalf("go list -deps %s does not list the package itself:\n%s", pkg, out)
		}
		for _, d := range deps {
			for _, b := range banned {
				if d == b || strings.HasPrefix(d, b+"/") {
					t.Errorf("%s depends on %s (%s must not)", pkg, d, b)
				}
			}
		}
	}
}
