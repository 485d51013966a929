// This file holds PKI: a throwaway certificate authority made per test,
// which issues ECDSA or RSA leaves into PEM files, so that no key material
// lives in the repository and TLS clients can verify what servers present.

package testenv

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/netip"
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
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "edge test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(48 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
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
	p.write(t, "ca.crt", pemBlock("CERTIFICATE", der))
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
	key := newLeafKey(t, rsaKey)
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
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
	if ocspURL != "" {
		tmpl.OCSPServer = []string{ocspURL}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.Cert, key.Public(), p.Key)
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	chain := append(pemBlock("CERTIFICATE", der), pemBlock("CERTIFICATE", p.Cert.Raw)...)
	return p.write(t, name+".crt", chain), p.write(t, name+".key", pemBlock("PRIVATE KEY", keyDER))
}

// newLeafKey makes a P-256 key, or an RSA 2048 one.
func newLeafKey(t testing.TB, rsaKey bool) crypto.Signer {
	t.Helper()
	var key crypto.Signer
	var err error
	if rsaKey {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	} else {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatalf("testenv: pki: %v", err)
	}
	return key
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

// write writes Dir/name (mode 0600: it may be a key) and returns its path.
func (p *PKI) write(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(p.Dir, name)
	WriteFile(t, path, data, 0o600)
	return path
}
