// ACME end to end, offline: pebble (Let's Encrypt's test CA) runs as a
// child on loopback ports and validates the http-01 challenge for real,
// against edge's port 80 server (here a free port, given to pebble as its
// httpPort) whose only location redirects to HTTPS: edge answers the
// challenge before the rewrite phase. The certificate obtained is served
// on the ssl server, stored under the issuer's state_path, and a second
// edge process sharing that state_path serves it without a new order.

package tlstest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// pebbleCA is a running pebble.
type pebbleCA struct {
	dirURL   string // the ACME directory
	mgmtAddr string
	pool     *x509.CertPool // trusts pebble's own HTTPS certificate
}

// startPebble runs pebble validating http-01 challenges on httpPort.
func startPebble(t *testing.T, dir string, p *testenv.PKI, httpPort int) *pebbleCA {
	t.Helper()
	bin := goTool(t, "pebble", "github.com/letsencrypt/pebble/v2/cmd/pebble")
	p.Leaf(t, "pebble", false, "localhost", "127.0.0.1")
	apiPort, mgmtPort := testenv.FreePort(t), testenv.FreePort(t)
	cfg := map[string]any{"pebble": map[string]any{
		"listenAddress":                  listen(apiPort),
		"managementListenAddress":        listen(mgmtPort),
		"certificate":                    filepath.Join(dir, "pebble.crt"),
		"privateKey":                     filepath.Join(dir, "pebble.key"),
		"httpPort":                       httpPort,
		"tlsPort":                        testenv.FreePort(t),
		"ocspResponderURL":               "",
		"externalAccountBindingRequired": false,
		"retryAfter":                     map[string]int{"authz": 0, "order": 0},
		"keyAlgorithm":                   "ecdsa",
		"profiles": map[string]any{"default": map[string]any{
			"description": "edge tests", "validityPeriod": 7776000}},
	}}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "pebble.json")
	writeFile(t, cfgPath, data)
	cmd := exec.Command(bin, "-config", cfgPath)
	// No sleeps before validating, no nonces rejected at random: fast and
	// deterministic. Validation itself stays real (no ALWAYS_VALID).
	cmd.Env = append(os.Environ(), "PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0")
	proc := testenv.Start(t, "pebble", cmd)
	testenv.WaitProcPort(t, proc, listen(apiPort), readyTimeout)
	testenv.WaitProcPort(t, proc, listen(mgmtPort), readyTimeout)
	return &pebbleCA{dirURL: "https://" + listen(apiPort) + "/dir", mgmtAddr: listen(mgmtPort), pool: p.Pool}
}

// roots returns the root that signs pebble's certificates (made anew at
// every start).
func (pb *pebbleCA) roots(t *testing.T) *x509.CertPool {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pb.pool}}}
	resp, err := client.Get("https://" + pb.mgmtAddr + "/roots/0")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		t.Fatalf("pebble root: %s", data)
	}
	return pool
}

// acmeSite is the configuration under test, in ngx_http_acme_module's
// syntax.
const acmeSite = edgeMain + `
http {
    access_log logs/access-%[4]s.log;
    acme_issuer pebble {
        uri %[1]s;
        contact mailto:admin@example.test;
        state_path acme-state;
        ssl_trusted_certificate ca.crt;
        accept_terms_of_service;
    }
    server {
        listen %[2]s;
        server_name localhost;
        location / {
            return 301 https://$host$request_uri;
        }
    }
    server {
        listen %[3]s ssl;
        server_name localhost;
        acme_certificate pebble;
        ssl_certificate $acme_certificate;
        ssl_certificate_key $acme_certificate_key;
        add_header Strict-Transport-Security "max-age=63072000" always;
        root html;
    }
}
`

func TestACMECertificateFromPebble(t *testing.T) {
	dir, p := siteDir(t)
	httpPort, httpsPort := testenv.FreePort(t), testenv.FreePort(t)
	pb := startPebble(t, dir, p, httpPort)
	startEdge(t, dir, "edge", fmt.Sprintf(acmeSite, pb.dirURL, listen(httpPort), listen(httpsPort), "1"), httpPort, httpsPort)

	leaf := waitACMECertificate(t, httpsPort, pb.roots(t))
	t.Logf("pebble issued %v, serial %x, issuer %q", leaf.DNSNames, leaf.SerialNumber, leaf.Issuer.CommonName)

	// The challenge went through edge's port 80 server, past its redirect.
	waitFileContains(t, filepath.Join(dir, "logs", "access-1.log"), "GET /.well-known/acme-challenge/", " 200 ")

	// The certificate is in the state path, where another instance finds it.
	var stored []string
	filepath.WalkDir(filepath.Join(dir, "acme-state"), func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".crt") {
			stored = append(stored, path)
		}
		return nil
	})
	if len(stored) == 0 {
		t.Fatal("no certificate under the state_path")
	}
	httpPort2, httpsPort2 := testenv.FreePort(t), testenv.FreePort(t)
	startEdge(t, dir, "edge2", fmt.Sprintf(acmeSite, pb.dirURL, listen(httpPort2), listen(httpsPort2), "2"), httpPort2, httpsPort2)
	leaf2 := waitACMECertificate(t, httpsPort2, pb.roots(t))
	if leaf2.SerialNumber.Cmp(leaf.SerialNumber) != 0 {
		t.Errorf("second instance serves serial %x, want the stored %x", leaf2.SerialNumber, leaf.SerialNumber)
	}

	// HTTPS hygiene: the redirect and HSTS.
	req, err := http.NewRequest("GET", "http://"+listen(httpPort)+"/page?x=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "localhost"
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := "https://localhost/page?x=1"; resp.StatusCode != 301 || resp.Header.Get("Location") != want {
		t.Errorf("port 80: %d %q, want 301 %q", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	c, err := tls.Dial("tcp", listen(httpsPort), &tls.Config{ServerName: "localhost", RootCAs: pb.roots(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
	head, _ := io.ReadAll(c)
	if !strings.Contains(string(head), "Strict-Transport-Security: max-age=63072000") {
		t.Errorf("no HSTS header over HTTPS:\n%s", head)
	}
}

// waitACMECertificate polls the HTTPS port until it serves a certificate
// for localhost that chains to roots (the first handshakes fail while the
// order is in flight), and returns the leaf.
func waitACMECertificate(t *testing.T, port int, roots *x509.CertPool) *x509.Certificate {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var lastErr error
	for time.Now().Before(deadline) {
		c, err := tls.Dial("tcp", listen(port), &tls.Config{ServerName: "localhost", RootCAs: roots})
		if err == nil {
			cs := c.ConnectionState()
			c.Close()
			return cs.PeerCertificates[0]
		}
		lastErr = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no certificate from pebble within 90s: %v", lastErr)
	return nil
}

// waitFileContains polls until a line of path holds every part.
func waitFileContains(t *testing.T, path string, parts ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(data), "\n") {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	data, _ := os.ReadFile(path)
	t.Fatalf("%s has no line with %q:\n%s", path, parts, data)
}
