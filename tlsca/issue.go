// issue.go makes certificates into PEM for whoever needs throwaway ones:
// a key (ECDSA P-256, or RSA 2048 where seed 003 compares the two), and a
// certificate for a set of names, signed by a parent or by itself.
// testenv's per-test CA and its leaves, and edge ab's self-signed
// certificates, are made here; the local CA (localca.go) keeps its own
// templates, since what it writes persists and users trust it.
package tlsca

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"time"
)

// Cert describes a certificate Issue makes. Zero fields are left out of
// it, except where the comment gives a default.
type Cert struct {
	// Names are the DNS names and IP addresses it is for (none for a CA).
	Names []string
	// CommonName is the subject's common name; "" means Names[0].
	CommonName string
	// Organization is the subject's organization.
	Organization string
	// NotBefore and NotAfter bound its validity.
	NotBefore, NotAfter time.Time
	// Serial is its serial number; nil means a random 128-bit one.
	Serial *big.Int
	// CA makes a certificate authority that signs certificates (and
	// OCSP responses) instead of a server certificate.
	CA bool
	// OCSPServer is the URL of its OCSP responder.
	OCSPServer string
}

// NewKey makes an ECDSA P-256 key, or an RSA 2048 one when rsaKey is set.
func NewKey(rsaKey bool) (crypto.Signer, error) {
	var key crypto.Signer
	var err error
	if rsaKey {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	} else {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		return nil, fmt.Errorf("tlsca: %w", err)
	}
	return key, nil
}

// Issue makes c for key, signed by parent with parentKey, or by key itself
// when parent is nil, and returns it in DER.
func Issue(c Cert, key crypto.Signer, parent *x509.Certificate, parentKey crypto.Signer) ([]byte, error) {
	tmpl := &x509.Certificate{
		SerialNumber: c.Serial,
		Subject:      pkix.Name{CommonName: c.CommonName},
		NotBefore:    c.NotBefore,
		NotAfter:     c.NotAfter,
	}
	if tmpl.SerialNumber == nil {
		tmpl.SerialNumber = randomSerial()
	}
	if tmpl.Subject.CommonName == "" && len(c.Names) > 0 {
		tmpl.Subject.CommonName = c.Names[0]
	}
	if c.Organization != "" {
		tmpl.Subject.Organization = []string{c.Organization}
	}
	if c.CA {
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
		tmpl.BasicConstraintsValid, tmpl.IsCA = true, true
	} else {
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	addNames(tmpl, c.Names)
	if c.OCSPServer != "" {
		tmpl.OCSPServer = []string{c.OCSPServer}
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		return nil, fmt.Errorf("tlsca: %w", err)
	}
	return der, nil
}

// addNames puts each name into the certificate's IP addresses or DNS
// names, whichever it is.
func addNames(tmpl *x509.Certificate, names []string) {
	for _, n := range names {
		if ip, err := netip.ParseAddr(n); err == nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, net.IP(ip.AsSlice()))
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
}

// CertPEM encodes certificates (a chain: the leaf first) as PEM.
func CertPEM(ders ...[]byte) []byte {
	var out []byte
	for _, der := range ders {
		out = append(out, pemBlock("CERTIFICATE", der)...)
	}
	return out
}

// KeyPEM encodes a private key as PKCS #8 PEM.
func KeyPEM(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("tlsca: %w", err)
	}
	return pemBlock("PRIVATE KEY", der), nil
}
