// This file starts what the TLS tests run against: a throwaway CA with
// ECDSA and RSA leaves (testenv.PKI), edge processes with a test's
// configuration (testenv.StartEdge), and the outside tools (openssl,
// testssl.sh, h2spec, pebble), found in PATH or where "go install" puts
// them.

package tlstest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// writeFile writes a file of the test site (mode 0600, as for keys),
// creating its parent directories.
func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	testenv.WriteFile(t, path, data, 0o600)
}

// siteDir makes a directory with the PKI (ec and rsa leaves for
// localhost and 127.0.0.1), html/index.html and logs/.
func siteDir(t testing.TB) (string, *testenv.PKI) {
	t.Helper()
	dir := t.TempDir()
	p := testenv.NewPKI(t, dir)
	p.Leaf(t, "ec", false, "localhost", "127.0.0.1")
	p.Leaf(t, "rsa", true, "localhost", "127.0.0.1")
	writeFile(t, filepath.Join(dir, "html", "index.html"), []byte("hello over TLS\n"))
	writeFile(t, filepath.Join(dir, "html", "1k.txt"), []byte(strings.Repeat("x", 1023)+"\n"))
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, p
}

// edgeMain is the main context of every edge configuration here.
const edgeMain = "worker_processes 1;\nevents { worker_connections 1024; }\n"

// readyTimeout bounds each wait for a process here to listen. It is a
// failure deadline, not a measurement: pebble and edge with ACME take
// longer to start than a plain server.
const readyTimeout = 15 * time.Second

// startEdge writes conf (a complete configuration) as dir/NAME.conf and
// runs edge in the foreground with prefix dir and its data directory
// (local CA, staples) under dir, and waits until every port listens.
func startEdge(t testing.TB, dir, name, conf string, ports ...int) *testenv.Proc {
	t.Helper()
	errLog := filepath.Join(dir, "logs", name+"-error.log")
	return testenv.StartEdge(t, testenv.EdgeOptions{
		Name:         name,
		Prefix:       dir,
		Conf:         conf,
		Global:       fmt.Sprintf("daemon off; pid %s; error_log %s info;", filepath.Join(dir, name+".pid"), errLog),
		Env:          []string{"EDGE_DATA_DIR=" + filepath.Join(dir, "data")},
		ErrorLog:     errLog,
		Ports:        ports,
		ReadyTimeout: readyTimeout,
	}).Proc
}

// goTool finds a tool that ./scripts/deps.sh installs with "go install":
// in PATH, else in $(go env GOPATH)/bin. A missing tool fails the test.
func goTool(t testing.TB, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", name)
			if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	t.Fatalf("tlstest: %s not found: run ./scripts/deps.sh test (it runs go install %s)", name, pkg)
	return ""
}

// listen formats a loopback listen address.
func listen(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
