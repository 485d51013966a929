// lookpath_test.go checks LookPath against the real system: sh in PATH,
// and Debian's nginx in /usr/sbin when PATH lacks it.
package childproc

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestLookPath(t *testing.T) {
	tests := []struct {
		name    string
		names   []string
		wantErr bool
	}{
		{"in PATH", []string{"sh"}, false},
		{"first missing, second found", []string{"no-such-binary-edge", "sh"}, false},
		{"none", []string{"no-such-binary-edge"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := LookPath(tt.names...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("LookPath(%q) = %q, %v", tt.names, path, err)
			}
			if err == nil && !filepath.IsAbs(path) {
				t.Errorf("LookPath(%q) = %q, not absolute", tt.names, path)
			}
		})
	}
}

func TestLookPathFallsBackToSbin(t *testing.T) {
	// A non-root PATH often lacks /usr/sbin, where Debian puts nginx.
	t.Setenv("PATH", t.TempDir())
	path, err := LookPath("nginx")
	if err != nil {
		t.Fatalf("nginx not found outside PATH: %v (install the Debian package nginx)", err)
	}
	if dir := filepath.Dir(path); !slices.Contains(SbinDirs, dir) {
		t.Errorf("LookPath found %s outside %q", path, SbinDirs)
	}
}
