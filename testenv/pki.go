// This file holds PKI: a throwaway certificate authority made per test,
// which issues ECDSA or RSA leaves into PEM files (with tlsca.Issue), so
// that no key material lives in the repository and TLS clients can verify
// what servers present.

package testenv

import (
	"crypto"
	"crypto/x509"
	"edge/tlsca"
	"math/big"
	"path/filepath"
	"testing"
	"time"
)

// PKI is a CA whose files live in Dir: ca.crt, and per leaf NAME.crt (the
// leaf, then the CA, as ssl_certificate wants a chain) and NAME.key
// (PKCS #8). The CA is valid from an hour ago for 48 hours, its leaves for
// 47, so a slightly wrong clock still accepts them.
type PKI struct {
	// Dir holds the files.
	Dir string
	// Cert and Key are the CA's certificate and key (ECDSA P-256), for a
	// test that signs more with them, such as OCSP responses.
	Cert *x509.Certificate
	Key  crypto.Signer
	// Pool holds only the CA: a client's RootCAs.
	Pool *x509.CertPool
}

// NewPKI makes a CA and writes dir/ca.crt.
func NewPKI(t testing.TB, dir string) *PKI {
	t.Helper()
	key, err := tlsca.NewKey(false)
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	der, err := tlsca.Issue(tlsca.Cert{CommonName: "edge test CA", CA: true, Serial: big.NewInt(1),
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour)}, key, nil, nil)
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	p := &PKI{Dir: dir, Cert: cert, Key: key, Pool: pool}
	p.write(t, "ca.crt", tlsca.CertPEM(der))
	return p
}

// Leaf issues NAME.crt and NAME.key in Dir for names (DNS names or IP
// addresses; the first is also the common name), with an ECDSA P-256 key,
// or an RSA 2048 one when rsaKey is set. It returns the two paths.
func (p *PKI) Leaf(t testing.TB, name string, rsaKey bool, names ...string) (certFile, keyFile string) {
	t.Helper()
	return p.LeafWithOCSP(t, name, rsaKey, "", names...)
}

// LeafWithOCSP is Leaf for a certificate that names ocspURL as its OCSP
// responder (none when it is empty), for tests of stapling.
func (p *PKI) LeafWithOCSP(t testing.TB, name string, rsaKey bool, ocspURL string, names ...string) (certFile, keyFile string) {
	t.Helper()
	if len(names) == 0 {
		t.Fatalf("testenv: pki: leaf %s names no host", name)
	}
	key, err := tlsca.NewKey(rsaKey)
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	der, err := tlsca.Issue(tlsca.Cert{Names: names, OCSPServer: ocspURL,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(47 * time.Hour)}, key, p.Cert, p.Key)
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	keyPEM, err := tlsca.KeyPEM(key)
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	return p.write(t, name+".crt", tlsca.CertPEM(der, p.Cert.Raw)), p.write(t, name+".key", keyPEM)
}

// write writes Dir/name (mode 0600: it may be a key) and returns its path.
func (p *PKI) write(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(p.Dir, name)
	WriteFile(t, path, data, 0o600)
	return path
}
