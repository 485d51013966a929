// localca_test.go checks the local CA on disk, its leaves against
// x509.Verify, and a real TLS 1.3 handshake on loopback with a client that
// trusts only the root.

package tlsca

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// newCA makes a CA in a fresh directory that does not exist yet.
func newCA(t *testing.T) *LocalCA {
	t.Helper()
	ca, err := LoadOrCreateLocalCA(filepath.Join(t.TempDir(), "ca"))
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// rootPool is a pool holding only ca's root.
func rootPool(t *testing.T, ca *LocalCA) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(ca.RootPath())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("root.crt holds no certificate")
	}
	return pool
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestLoadOrCreateLocalCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "ca")
	ca, err := LoadOrCreateLocalCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := mode(t, dir); got != 0o700 {
		t.Errorf("dir mode %o, want 700", got)
	}
	if got := mode(t, filepath.Join(dir, "root.key")); got != 0o600 {
		t.Errorf("root.key mode %o, want 600", got)
	}
	if ca.RootPath() != filepath.Join(dir, "root.crt") || !filepath.IsAbs(ca.RootPath()) {
		t.Errorf("RootPath() = %q", ca.RootPath())
	}
	root := ca.cert
	pub, ok := root.PublicKey.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() || !root.IsCA || root.CheckSignatureFrom(root) != nil {
		t.Errorf("root is not a self-signed ECDSA P-256 CA: %v %v", root.PublicKeyAlgorithm, root.IsCA)
	}

	again, err := LoadOrCreateLocalCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.cert.Raw, ca.cert.Raw) || !again.key.Equal(ca.key) {
		t.Error("reloading gave another root")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("dir holds %d entries, want root.crt and root.key only", len(entries))
	}
}

// TestLoadOrCreateLocalCAConcurrent starts several loaders on one empty
// directory, as several edge processes on first start would be: all must
// end up with the same root.
func TestLoadOrCreateLocalCAConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ca")
	const n = 8
	cas := make([]*LocalCA, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { cas[i], errs[i] = LoadOrCreateLocalCA(dir) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("loader %d: %v", i, errs[i])
		}
		if !bytes.Equal(cas[i].cert.Raw, cas[0].cert.Raw) || !cas[i].key.Equal(cas[0].key) {
			t.Fatalf("loader %d got another root", i)
		}
	}
}

func TestLoadOrCreateLocalCAErrors(t *testing.T) {
	other := newCA(t)
	otherKey, _ := os.ReadFile(filepath.Join(other.dir, "root.key"))
	if _, err := other.Leaf([]string{"localhost"}); err != nil {
		t.Fatal(err)
	}
	leafBase := filepath.Join(other.dir, "leaf-"+other.leafHash([]string{"localhost"}))
	leafCert, _ := os.ReadFile(leafBase + ".crt")
	leafKey, _ := os.ReadFile(leafBase + ".key")

	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // makes the files in dir
		now   time.Time
		want  string
	}{
		{
			name:  "certificate without key",
			setup: func(t *testing.T, dir string) { copyFile(t, other.RootPath(), filepath.Join(dir, "root.crt")) },
			want:  "exists but its key cannot be read",
		},
		{
			name: "key alone",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "root.key"), otherKey)
			},
			want: "exists without root.crt; remove it",
		},
		{
			name: "garbage certificate",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "root.crt"), []byte("not PEM"))
				writeFile(t, filepath.Join(dir, "root.key"), otherKey)
			},
			want: "tlsca: root in",
		},
		{
			name: "key of another root",
			setup: func(t *testing.T, dir string) {
				fresh := newCA(t)
				copyFile(t, fresh.RootPath(), filepath.Join(dir, "root.crt"))
				writeFile(t, filepath.Join(dir, "root.key"), otherKey)
			},
			want: "tlsca: root in",
		},
		{
			name: "a leaf is not a CA",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "root.crt"), leafCert)
				writeFile(t, filepath.Join(dir, "root.key"), leafKey)
			},
			want: "is not an ECDSA CA certificate",
		},
		{
			name: "expired root",
			setup: func(t *testing.T, dir string) {
				copyFile(t, other.RootPath(), filepath.Join(dir, "root.crt"))
				writeFile(t, filepath.Join(dir, "root.key"), otherKey)
			},
			now:  time.Now().Add(11 * 365 * 24 * time.Hour),
			want: "expired on",
		},
	}
	defer func(old time.Duration) { createRaceWait = old }(createRaceWait)
	createRaceWait = 0 // "key alone" is stale here, not a racing writer
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			now := time.Now
			if !tt.now.IsZero() {
				now = func() time.Time { return tt.now }
			}
			_, err := loadOrCreate(dir, now)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "tlsca: ") {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, data)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLeafVerifies(t *testing.T) {
	ca := newCA(t)
	cert, err := ca.Leaf([]string{"localhost", "127.0.0.1", "::1", "App.Localhost."})
	if err != nil {
		t.Fatal(err)
	}
	leaf := cert.Leaf
	if leaf == nil {
		t.Fatal("Leaf is not set")
	}
	if pub, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || pub.Curve != elliptic.P256() {
		t.Errorf("leaf key is %v, want ECDSA P-256", leaf.PublicKeyAlgorithm)
	}
	if _, ok := cert.PrivateKey.(*ecdsa.PrivateKey); !ok {
		t.Errorf("private key is %T", cert.PrivateKey)
	}
	if life := leaf.NotAfter.Sub(leaf.NotBefore); life < 360*24*time.Hour || life > 367*24*time.Hour {
		t.Errorf("leaf valid for %v, want about a year", life)
	}
	if leaf.IsCA {
		t.Error("leaf is a CA")
	}
	pool := rootPool(t, ca)
	tests := []struct {
		name string
		ok   bool
	}{
		{"localhost", true},
		{"127.0.0.1", true},
		{"::1", true},
		{"app.localhost", true},
		{"example.com", false},
		{"127.0.0.2", false},
	}
	for _, tt := range tests {
		_, err := leaf.Verify(x509.VerifyOptions{DNSName: tt.name, Roots: pool})
		if (err == nil) != tt.ok {
			t.Errorf("Verify(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
	// A pool without the root must not verify it.
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: x509.NewCertPool()}); err == nil {
		t.Error("leaf verified without its root")
	}
}

func TestLeafNameErrors(t *testing.T) {
	ca := newCA(t)
	for _, names := range [][]string{nil, {""}, {"bad name"}, {"a/b"}, {"a..b"}, {"foo.*.com"}, {"fe80::1%eth0"}} {
		if _, err := ca.Leaf(names); err == nil || !strings.HasPrefix(err.Error(), "tlsca: ") {
			t.Errorf("Leaf(%q) error = %v", names, err)
		}
	}
	if _, err := ca.Leaf([]string{"*.localhost"}); err != nil {
		t.Errorf("wildcard: %v", err)
	}
}

// TestLeafCache checks when the cached leaf is reused and when reissued.
func TestLeafCache(t *testing.T) {
	ca := newCA(t)
	names := []string{"localhost", "127.0.0.1"}
	first, err := ca.Leaf(names)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(ca.dir, "leaf-"+ca.leafHash(names))
	if got := mode(t, base+".key"); got != 0o600 {
		t.Errorf("leaf key mode %o, want 600", got)
	}
	serial := func(c tls.Certificate) string { return c.Leaf.SerialNumber.String() }
	leaf := func(names ...string) tls.Certificate {
		t.Helper()
		c, err := ca.Leaf(names)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	if got := leaf("127.0.0.1", "LOCALHOST", "localhost"); serial(got) != serial(first) {
		t.Error("same names in another order or case reissued the leaf")
	}
	reloaded, err := LoadOrCreateLocalCA(ca.dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := reloaded.Leaf(names); serial(got) != serial(first) {
		t.Error("another LocalCA on the same dir reissued the leaf")
	}
	if got := leaf("localhost"); serial(got) == serial(first) {
		t.Error("other names reused the leaf")
	}

	// Missing or damaged files: reissued.
	os.Remove(base + ".crt")
	missing := leaf(names...)
	if serial(missing) == serial(first) {
		t.Error("a missing leaf was not reissued")
	}
	writeFile(t, base+".key", []byte("garbage"))
	damaged := leaf(names...)
	if serial(damaged) == serial(missing) {
		t.Error("a damaged leaf was not reissued")
	}

	// Within 30 days of expiry: reissued, and the new one cached.
	later := time.Now().Add(340 * 24 * time.Hour)
	ca.now = func() time.Time { return later }
	renewed := leaf(names...)
	if serial(renewed) == serial(damaged) {
		t.Error("an expiring leaf was reused")
	}
	if got := leaf(names...); serial(got) != serial(renewed) {
		t.Error("the renewed leaf was not cached")
	}
}

// TestLeafHandshake serves the leaf on a real loopback listener; a client
// that trusts only the root completes a TLS 1.3 handshake with ECDSA, by
// name and by IP address, and a client without the root fails.
func TestLeafHandshake(t *testing.T) {
	ca := newCA(t)
	cert, err := ca.Leaf([]string{"localhost", "127.0.0.1", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	pool := rootPool(t, ca)
	for _, serverName := range []string{"localhost", "127.0.0.1"} {
		t.Run(serverName, func(t *testing.T) {
			c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, ServerName: serverName})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			body, err := io.ReadAll(c)
			if err != nil || string(body) != "hello\n" {
				t.Fatalf("read %q, %v", body, err)
			}
			st := c.ConnectionState()
			if st.Version != tls.VersionTLS13 {
				t.Errorf("version %x, want TLS 1.3", st.Version)
			}
			if alg := st.PeerCertificates[0].PublicKeyAlgorithm; alg != x509.ECDSA {
				t.Errorf("peer key %v, want ECDSA", alg)
			}
			if len(st.VerifiedChains) != 1 || !st.VerifiedChains[0][len(st.VerifiedChains[0])-1].Equal(ca.cert) {
				t.Error("the verified chain does not end at the local root")
			}
		})
	}
	_, err = tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: x509.NewCertPool(), ServerName: "localhost"})
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("client without the root: error = %v, want an unknown authority", err)
	}
}

func TestTrustHint(t *testing.T) {
	ca := newCA(t)
	hint := ca.TrustHint()
	for _, want := range []string{
		ca.RootPath(),
		"sudo cp " + ca.RootPath() + " /usr/local/share/ca-certificates/edge-local.crt && sudo update-ca-certificates",
		"curl --cacert " + ca.RootPath(),
		"certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n edge-local -i " + ca.RootPath(),
		"Firefox",
		"root.key",
	} {
		if !strings.Contains(hint, want) {
			t.Errorf("TrustHint lacks %q:\n%s", want, hint)
		}
	}
	if n := strings.Count(hint, "\n"); n < 5 {
		t.Errorf("TrustHint has %d lines, want several", n)
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/u/.local/share/edge/root.crt", "/home/u/.local/share/edge/root.crt"},
		{"/tmp/my ca/root.crt", "'/tmp/my ca/root.crt'"},
		{"/tmp/o'neil/root.crt", `'/tmp/o'\''neil/root.crt'`},
	}
	for _, tt := range tests {
		if got := shellQuote(tt.in); got != tt.want {
			t.Errorf("shellQuote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Export copies the root certificate, and only it, to a file of its own,
// rewriting it only when it differs.
func TestExport(t *testing.T) {
	ca := newCA(t)
	root, err := os.ReadFile(ca.RootPath())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "edge-ca.crt")
	for i, want := range []bool{true, false} {
		changed, err := ca.Export(out)
		if err != nil || changed != want {
			t.Fatalf("export %d: changed %v, %v; want %v", i, changed, err, want)
		}
	}
	if err := os.WriteFile(out, []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	if changed, err := ca.Export(out); err != nil || !changed {
		t.Fatalf("export over a stale file: changed %v, %v", changed, err)
	}
	got, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(got, root) {
		t.Fatalf("exported %q (%v), want the root certificate", got, err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("exported file mode %v (%v), want 0644", fi.Mode(), err)
	}
	if _, err := ca.Export(filepath.Join(t.TempDir(), "missing", "edge-ca.crt")); err == nil {
		t.Error("export into a missing directory did not fail")
	}
}
