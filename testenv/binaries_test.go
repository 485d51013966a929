// This file tests finding the repository and binaries, and building.

package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRepoRootHoldsGoMod(t *testing.T) {
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot = %s: %v", root, err)
	}
	if _, err := os.Stat(filepath.Join(root, "testenv")); err != nil {
		t.Fatalf("RepoRoot = %s is not this repository: %v", root, err)
	}
}

func TestFindUp(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "marker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, want string
		wantErr          bool
	}{
		{"found in parent", "marker", filepath.Join(root, "a"), false},
		{"missing everywhere", "no-such-marker-file", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findUp(deep, tt.file)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("findUp = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestBinaryMissingFailsNamingThePackage(t *testing.T) {
	ft := newFakeTB(t)
	if ft.run(func() { Binary(ft, "some-debian-package", "no-such-binary-edge") }) {
		t.Fatal("Binary returned for a missing binary")
	}
	if !ft.Failed() || !strings.Contains(ft.logText(), "some-debian-package") {
		t.Errorf("failure does not name the package: %q", ft.logText())
	}
}

func TestGoBuild(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hello")
	if err := goBuild(RepoRoot(t), "./testenv/testdata/hello", out); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(out).Output()
	if err != nil || string(got) != "hello from testenv\n" {
		t.Fatalf("built binary printed %q, %v", got, err)
	}
	if err := goBuild(RepoRoot(t), "./testenv/testdata/no-such-package", out); err == nil {
		t.Error("goBuild of a missing package succeeded")
	}
}

func TestPruneBuildDirs(t *testing.T) {
	tmp := t.TempDir()
	// A PID above the kernel's limit (4194304) belongs to no process.
	dead := filepath.Join(tmp, buildDirPrefix+"99999999-x")
	live := filepath.Join(tmp, buildDirPrefix+strconv.Itoa(os.Getpid())+"-x")
	other := filepath.Join(tmp, buildDirPrefix+"notapid")
	for _, d := range []string{dead, live, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pruneBuildDirs(tmp)
	for _, tt := range []struct {
		dir  string
		keep bool
	}{{dead, false}, {live, true}, {other, true}} {
		_, err := os.Stat(tt.dir)
		if kept := err == nil; kept != tt.keep {
			t.Errorf("%s: kept = %v, want %v", filepath.Base(tt.dir), kept, tt.keep)
		}
	}
}

func TestEdgeBinaryBuildsOnce(t *testing.T) {
	first := EdgeBinary(t)
	st, err := os.Stat(first)
	if err != nil {
		t.Fatalf("EdgeBinary = %s: %v", first, err)
	}
	if st.Mode()&0o111 == 0 {
		t.Fatalf("EdgeBinary = %s: not executable (%v)", first, st.Mode())
	}
	if again := EdgeBinary(t); again != first {
		t.Errorf("second call built again: %s, then %s", first, again)
	}
}
