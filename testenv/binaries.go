// This file finds the repository, builds the edge binary once per test
// process, and locates the Debian binaries tests run.

package testenv

import (
	"edge/internal/childproc"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// RepoRoot returns the directory holding go.mod, searched upward from the
// current directory (go test runs each package in its own directory).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	root, err := findUp(dir, "go.mod")
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return root
}

// findUp returns the first directory from dir upward that holds name.
func findUp(dir, name string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, name)); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("testenv: no %s in %s or any parent", name, dir)
		}
	}
}

// edgeBuild is the one build of ./cmd/edge per test process.
var edgeBuild struct {
	once sync.Once
	path string
	err  error
}

// EdgeBinary builds ./cmd/edge once per test process with `go build` and
// returns the binary's path. The build lands in a fresh os.MkdirTemp
// directory named after this process; directories left by earlier test
// processes that no longer run are removed first, so repeated runs do not
// fill the temp directory.
func EdgeBinary(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	edgeBuild.once.Do(func() {
		pruneBuildDirs(os.TempDir())
		dir, err := os.MkdirTemp("", buildDirPrefix+strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			edgeBuild.err = fmt.Errorf("testenv: %w", err)
			return
		}
		edgeBuild.path = filepath.Join(dir, "edge")
		edgeBuild.err = goBuild(root, "./cmd/edge", edgeBuild.path)
	})
	if edgeBuild.err != nil {
		t.Fatalf("%v", edgeBuild.err)
	}
	return edgeBuild.path
}

// BuildTool builds a main package of this module (pkg relative to the
// repository root, like "./testenv/gofastfront") into the test's temporary
// directory and returns the binary's path.
func BuildTool(t testing.TB, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if err := goBuild(RepoRoot(t), pkg, out); err != nil {
		t.Fatalf("%v", err)
	}
	return out
}

// buildDirPrefix starts the name of every EdgeBinary build directory; the
// owning PID follows it.
const buildDirPrefix = "edge-testenv-"

// pruneBuildDirs removes build directories under tmp whose owning process is
// gone. A directory of a live process (or of a reused PID) is kept.
func pruneBuildDirs(tmp string) {
	matches, _ := filepath.Glob(filepath.Join(tmp, buildDirPrefix+"*"))
	for _, dir := range matches {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(dir), buildDirPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processExists(pid) {
			continue
		}
		os.RemoveAll(dir)
	}
}

// processExists reports whether a process with this PID exists (signal 0
// checks without delivering anything).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// goBuild runs `go build -o out pkg` in dir.
func goBuild(dir, pkg, out string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("testenv: go is not in PATH (scripts/deps.sh adds /usr/local/go/bin): %w", err)
	}
	cmd := exec.Command(goTool, "build", "-o", out, pkg)
	cmd.Dir = dir
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("testenv: go build %s: %v\n%s", pkg, err, output)
	}
	return nil
}

// Binary returns the path of the first of names found in PATH or in the
// sbin directories (childproc.LookPath), and fails the test naming the Debian package debPkg
// when none is installed. Tests use it for every outside tool (wrk, h2load,
// ab, ...), so a missing tool is a failure, never a skip.
func Binary(t testing.TB, debPkg string, names ...string) string {
	t.Helper()
	path, err := childproc.LookPath(names...)
	if err != nil {
		t.Fatalf("testenv: %v: install the Debian package %s (./scripts/deps.sh test installs every test dependency)", err, debPkg)
	}
	return path
}

// NginxBinary returns the path of Debian's nginx.
func NginxBinary(t testing.TB) string {
	t.Helper()
	return Binary(t, "nginx", "nginx")
}

// FPMBinary returns the path of Debian's php-fpm 8.2.
func FPMBinary(t testing.TB) string {
	t.Helper()
	return Binary(t, "php8.2-fpm", "php-fpm8.2", "php-fpm")
}
