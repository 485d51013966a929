package conf

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTypesBlocksAdd: several types blocks at one level add to one map,
// a later extension replacing an earlier one, as nginx does (Nextcloud's
// config: "include mime.types; types { text/javascript mjs; ... }");
// a level with types of its own does not inherit its parent's.
func TestTypesBlocksAdd(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "edge.conf")
	text := `events {}
http {
    types { text/html html; application/javascript js mjs; }
    server {
        listen 127.0.0.1:8080;
        types { text/html html; application/javascript js mjs; }
        types { text/javascript mjs; application/wasm wasm; }
        location /own/ { types { text/plain txt; } }
    }
}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Load(path, LoadOptions{Prefix: dir})
	if err != nil {
		t.Fatal(err)
	}
	srv := plan.HTTP.Listens[0].Default
	for ext, want := range map[string]string{"html": "text/html", "js": "application/javascript", "mjs": "text/javascript", "wasm": "application/wasm"} {
		if got := srv.Loc.Types[ext]; got != want {
			t.Errorf("server: .%s is %q, want %q", ext, got, want)
		}
	}
	var own *Location
	for _, l := range srv.Loc.Prefixes {
		if l.Name == "/own/" {
			own = l
		}
	}
	if own == nil {
		t.Fatal("no /own/ location")
	}
	if own.Types["txt"] != "text/plain" || own.Types["html"] != "" {
		t.Errorf("/own/: types %v, want only its own", own.Types)
	}
}
