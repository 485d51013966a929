package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"edge/testenv"
)

// TestConfigWait: with EDGE_CONFIG_WAIT set (the container image sets
// it), a configuration that does not load leaves edge running with its
// [emerg] on stderr, listening nowhere, until the file is fixed; then it
// starts. Without the variable edge exits at once, as nginx does.
func TestConfigWait(t *testing.T) {
	broken := strings.Replace(versionConf("v1"), "root html;", "root html; no_such_directive;", 1)
	s := newSite(t, broken)
	if res := s.edge(); res.code != 1 || !strings.Contains(res.stderr, `unknown directive "no_such_directive"`) {
		t.Fatalf("without EDGE_CONFIG_WAIT: exit %d, stderr %q", res.code, res.stderr)
	}
	cmd := exec.Command(testenv.EdgeBinary(t), "-p", s.dir, "-c", s.conf)
	cmd.Env = append(os.Environ(), "EDGE_CONFIG_WAIT=1")
	stderr := filepath.Join(t.TempDir(), "stderr")
	f, err := os.Create(stderr)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = f
	p := testenv.Start(t, "edge", cmd, stderr)
	waitLog(t, stderr, "waiting for a configuration that loads")
	if !strings.Contains(readText(t, stderr), `[emerg] unknown directive "no_such_directive"`) {
		t.Errorf("stderr lacks the [emerg]:\n%s", readText(t, stderr))
	}
	if p.Exited() {
		t.Fatalf("edge exited while waiting")
	}
	if _, err := testenv.DoRaw(s.addr, "GET /version HTTP/1.0\r\n\r\n"); err == nil {
		t.Fatalf("edge answered with a configuration that does not load")
	}
	s.writeConf(versionConf("v1"))
	s.waitBody("/version", "v1")
	waitLog(t, stderr, "the configuration loads now")
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
