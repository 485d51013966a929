// This file makes the built-in site's certificates: one ECDSA P-256 and
// one RSA 2048 (seed 003 compares the two), self-signed for localhost and
// 127.0.0.1. Both servers read the same files, and the load generators do
// not verify certificates, so no CA is involved.

package ab

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
	"os"
	"path/filepath"
	"time"
)

// certPair is a certificate and key written as PEM files.
type certPair struct {
	Cert, Key string
}

// writeSelfSigned creates dir/name.crt and dir/name.key with a key of the
// given kind ("ecdsa" or "rsa").
func writeSelfSigned(dir, name, kind string) (certPair, error) {
	var key crypto.Signer
	var err error
	switch kind {
	case "ecdsa":
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "rsa":
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	default:
		return certPair{}, fmt.Errorf("ab: unknown key kind %q", kind)
	}
	if err != nil {
		return certPair{}, fmt.Errorf("ab: %s key: %w", kind, err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		Subject:      pkix.Name{CommonName: "localhost", Organization: []string{"edge ab"}},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		// Backdated a little so a slightly slow clock still accepts it.
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(7 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return certPair{}, fmt.Errorf("ab: %s certificate: %w", kind, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return certPair{}, fmt.Errorf("ab: %s key: %w", kind, err)
	}
	p := certPair{Cert: filepath.Join(dir, name+".crt"), Key: filepath.Join(dir, name+".key")}
	if err := os.WriteFile(p.Cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return certPair{}, fmt.Errorf("ab: %w", err)
	}
	if err := os.WriteFile(p.Key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return certPair{}, fmt.Errorf("ab: %w", err)
	}
	return p, nil
}
