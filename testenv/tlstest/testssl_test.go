// testssl.sh against edge's TLS defaults: a server with an ECDSA and an
// RSA certificate and no ssl_* directive must offer no weak protocol or
// cipher, show no vulnerability, and use forward secrecy for every suite.
// Any finding above OK/INFO fails the test, so a regression (or a new
// check in a newer testssl.sh) is seen at once.

package tlstest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// testsslFinding is one entry of testssl.sh's --jsonfile output.
type testsslFinding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Finding  string `json:"finding"`
}

// testsslEnvironmentWarnings are WARN findings about the machine running
// testssl.sh, not about the server.
var testsslEnvironmentWarnings = map[string]string{
	"engine_problem": "Debian's openssl has no GOST engine; testssl.sh says so on every run",
}

func TestTestsslDefaults(t *testing.T) {
	testssl := testenv.Binary(t, "testssl.sh", "testssl", "testssl.sh")
	port := startDefaultTLS(t, true)

	report := filepath.Join(t.TempDir(), "testssl.json")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// -p protocols, -s cipher categories, -f forward secrecy, -U
	// vulnerabilities, -e every cipher offered.
	cmd := exec.CommandContext(ctx, testssl, "--quiet", "--color", "0", "--warnings", "batch", "--ip", "one",
		"--jsonfile", report, "-p", "-s", "-f", "-U", "-e", listen(port))
	out, err := cmd.CombinedOutput()
	data, rerr := os.ReadFile(report)
	if rerr != nil {
		t.Fatalf("testssl.sh wrote no report (%v, %v):\n%s", err, rerr, out)
	}
	var findings []testsslFinding
	if err := json.Unmarshal(data, &findings); err != nil {
		t.Fatalf("testssl.sh report: %v", err)
	}
	t.Logf("testssl.sh: %d findings", len(findings))
	checkTestsslFindings(t, findings, string(out))
}

// checkTestsslFindings fails the test for every finding that is not OK or
// INFO, and checks that forward secrecy is offered and every cipher
// offered uses ECDHE.
func checkTestsslFindings(t *testing.T, findings []testsslFinding, output string) {
	t.Helper()
	var ciphers, fs int
	for _, f := range findings {
		switch f.Severity {
		case "OK", "INFO":
		case "WARN":
			if _, ok := testsslEnvironmentWarnings[f.ID]; !ok {
				t.Errorf("testssl.sh warning %s: %s", f.ID, f.Finding)
			}
		default:
			t.Errorf("testssl.sh finding %s [%s]: %s", f.ID, f.Severity, f.Finding)
		}
		switch {
		case f.ID == "FS" || f.ID == "PFS":
			fs++
			if f.Finding != "offered" {
				t.Errorf("forward secrecy: %s", f.Finding)
			}
		case strings.HasPrefix(f.ID, "cipher_x"):
			ciphers++
			// "xc02b ECDHE-ECDSA-AES128-GCM-SHA256 ECDH 253 AESGCM 128 ..."
			if !strings.Contains(f.Finding, " ECDH ") {
				t.Errorf("cipher without ECDHE key exchange: %s", f.Finding)
			}
		}
	}
	if ciphers == 0 || fs == 0 {
		t.Errorf("testssl.sh reported %d ciphers and %d forward secrecy findings; its output:\n%s", ciphers, fs, output)
	}
}

// startDefaultTLS starts edge with one TLS server and no ssl_* tuning (the
// defaults under test): an ECDSA certificate, and an RSA one beside it
// when withRSA is set. It returns the port.
func startDefaultTLS(t *testing.T, withRSA bool) int {
	dir, _ := siteDir(t)
	port := testenv.FreePort(t)
	rsa := ""
	if withRSA {
		rsa = "\n        ssl_certificate rsa.crt;\n        ssl_certificate_key rsa.key;"
	}
	startEdge(t, dir, "edge", edgeMain+fmt.Sprintf(`
http {
    access_log logs/access.log;
    server {
        listen %s ssl;
        server_name localhost;
        ssl_certificate ec.crt;
        ssl_certificate_key ec.key;%s
        root html;
    }
}
`, listen(port), rsa), port)
	return port
}
