// This file starts what the TLS tests run against: a throwaway CA with
// ECDSA and RSA leaves, edge processes with a test's configuration, and
// the outside tools (openssl, testssl.sh, h2spec, pebble), found in PATH
// or where "go install" puts them.

package tlstest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// pki is a throwaway CA writing its files into dir: ca.crt, and per leaf
// NAME.crt (leaf and CA) and NAME.key.
type pki struct {
	dir  string
	cert *x509.Certificate
	key  crypto.Signer
	pool *x509.CertPool
}

func newPKI(t testing.TB, dir string) *pki {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "edge tlstest CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(48 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	writeFile(t, filepath.Join(dir, "ca.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	return &pki{dir: dir, cert: cert, key: key, pool: pool}
}

// leaf issues NAME.crt and NAME.key for names (DNS names or IP
// addresses), with a P-256 or RSA 2048 key.
func (p *pki) leaf(t testing.TB, name string, rsaKey bool, names ...string) {
	t.Helper()
	var key crypto.Signer
	var err error
	if rsaKey {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	} else {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: names[0]},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(47 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip, err := netip.ParseAddr(n); err == nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip.AsSlice())
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.cert, key.Public(), p.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	chain := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.cert.Raw})...)
	writeFile(t, filepath.Join(p.dir, name+".crt"), chain)
	writeFile(t, filepath.Join(p.dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// siteDir makes a directory with the PKI (ec and rsa leaves for
// localhost and 127.0.0.1), html/index.html and logs/.
func siteDir(t testing.TB) (string, *pki) {
	t.Helper()
	dir := t.TempDir()
	p := newPKI(t, dir)
	p.leaf(t, "ec", false, "localhost", "127.0.0.1")
	p.leaf(t, "rsa", true, "localhost", "127.0.0.1")
	writeFile(t, filepath.Join(dir, "html", "index.html"), []byte("hello over TLS\n"))
	writeFile(t, filepath.Join(dir, "html", "1k.txt"), []byte(strings.Repeat("x", 1023)+"\n"))
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, p
}

// edgeMain is the main context of every edge configuration here.
const edgeMain = "worker_processes 1;\nevents { worker_connections 1024; }\n"

// startEdge writes conf (a complete configuration) as dir/NAME.conf and
// runs edge in the foreground with prefix dir and its data directory
// (local CA, staples) under dir, and waits until every port listens.
func startEdge(t testing.TB, dir, name, conf string, ports ...int) *testenv.Proc {
	t.Helper()
	confPath := filepath.Join(dir, name+".conf")
	writeFile(t, confPath, []byte(conf))
	errLog := filepath.Join(dir, "logs", name+"-error.log")
	global := fmt.Sprintf("daemon off; pid %s; error_log %s info;", filepath.Join(dir, name+".pid"), errLog)
	cmd := exec.Command(testenv.EdgeBinary(t), "-p", dir+"/", "-c", confPath, "-g", global)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "EDGE_DATA_DIR="+filepath.Join(dir, "data"))
	proc := testenv.Start(t, name, cmd, confPath, errLog)
	for _, port := range ports {
		waitListening(t, proc, port)
	}
	return proc
}

// waitListening polls until 127.0.0.1:port accepts, failing at once with
// the process's output when it exits first.
func waitListening(t testing.TB, proc *testenv.Proc, port int) {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if proc != nil && proc.Exited() {
			t.Fatalf("tlstest: %s exited before listening on %s: %v", proc.Name, addr, proc.Wait())
		}
		if time.Now().After(deadline) {
			t.Fatalf("tlstest: nothing listens on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
