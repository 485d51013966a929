package ab

import (
	"strings"
	"testing"

	"edge/conf"
)

// TestBeyondConfig: a configuration that asks nginx for none of edge's
// always-on behaviour gets each listed; one that asks for all (the
// built-in site) gets none.
func TestBeyondConfig(t *testing.T) {
	tree := func(text string) *conf.Tree {
		t.Helper()
		tr, err := conf.ParseBytes("t.conf", []byte(text), conf.ParseOptions{ReadFile: readConfFile})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	bare := tree(`events {} http { access_log logs/a.log; open_file_cache off;
		server { location ~ \.php$ { fastcgi_pass 127.0.0.1:9000; } } }`)
	if got := beyondConfig(bare); len(got) != len(alwaysOnFeatures) {
		t.Errorf("bare configuration: %d items, want %d: %q", len(got), len(alwaysOnFeatures), got)
	}
	site := tree(builtinConfig("/www", "/wp", "127.0.0.1:9", certPair{Cert: "c", Key: "k"}, certPair{Cert: "c", Key: "k"}))
	if got := beyondConfig(site); len(got) != 0 {
		t.Errorf("built-in site: %q, want nothing", got)
	}
	logOff := tree(`events {} http { access_log off; open_file_cache max=10; fastcgi_keep_conn on; }`)
	if got := beyondConfig(logOff); len(got) != 0 {
		t.Errorf("access_log off and both caches on: %q, want nothing", got)
	}
	if note := builtinEquivalents(); !strings.Contains(note, "open_file_cache") || !strings.Contains(note, "fastcgi_keep_conn") {
		t.Errorf("built-in note %q does not name the equivalents", note)
	}
}
