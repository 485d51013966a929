// This file writes the files a test sets up (configurations, docroots,
// keys), failing the test on any error.

package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile is os.WriteFile that first creates the missing parent
// directories (mode 0755) and fails the test on an error.
func WriteFile(t testing.TB, path string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("testenv: %v", err)
	}
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatalf("testenv: %v", err)
	}
}
