// lookpath.go finds outside programs the way Debian installs them.
package childproc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SbinDirs are searched after PATH: Debian installs nginx and php-fpm
// there, and a non-root PATH often lacks them.
var SbinDirs = []string{"/usr/sbin", "/usr/local/sbin", "/sbin"}

// ErrNotFound is wrapped by LookPath's error.
var ErrNotFound = errors.New("not installed")

// LookPath returns the path of the first of names found in PATH or in
// SbinDirs.
func LookPath(names ...string) (string, error) {
	for _, name := range names {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
		for _, dir := range SbinDirs {
			if path := filepath.Join(dir, name); IsExecutable(path) {
				return path, nil
			}
		}
	}
	return "", fmt.Errorf("none of %s found in PATH or %s: %w", strings.Join(names, ", "), strings.Join(SbinDirs, ", "), ErrNotFound)
}

// IsExecutable reports whether path is a regular file someone may
// execute.
func IsExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
