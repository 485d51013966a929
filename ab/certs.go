// This file makes the built-in site's certificates: one ECDSA P-256 and
// one RSA 2048 (seed 003 compares the two), self-signed for localhost and
// 127.0.0.1 (with tlsca.Issue). Both servers read the same files, and the
// load generators do not verify certificates, so no CA is involved.

package ab

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"edge/tlsca"
)

// certPair is a certificate and key written as PEM files.
type certPair struct {
	Cert, Key string
}

// writeSelfSigned creates dir/name.crt and dir/name.key with a key of the
// given kind ("ecdsa" or "rsa").
func writeSelfSigned(dir, name, kind string) (certPair, error) {
	if kind != "ecdsa" && kind != "rsa" {
		return certPair{}, fmt.Errorf("ab: unknown key kind %q", kind)
	}
	key, err := tlsca.NewKey(kind == "rsa")
	if err != nil {
		return certPair{}, fmt.Errorf("ab: %s key: %w", kind, err)
	}
	now := time.Now()
	der, err := tlsca.Issue(tlsca.Cert{Names: []string{"localhost", "127.0.0.1"}, Organization: "edge ab",
		// Backdated a little so a slightly slow clock still accepts it.
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour)}, key, nil, nil)
	if err != nil {
		return certPair{}, fmt.Errorf("ab: %s certificate: %w", kind, err)
	}
	keyPEM, err := tlsca.KeyPEM(key)
	if err != nil {
		return certPair{}, fmt.Errorf("ab: %s key: %w", kind, err)
	}
	p := certPair{Cert: filepath.Join(dir, name+".crt"), Key: filepath.Join(dir, name+".key")}
	if err := os.WriteFile(p.Cert, tlsca.CertPEM(der), 0o644); err != nil {
		return certPair{}, fmt.Errorf("ab: %w", err)
	}
	if err := os.WriteFile(p.Key, keyPEM, 0o600); err != nil {
		return certPair{}, fmt.Errorf("ab: %w", err)
	}
	return p, nil
}
