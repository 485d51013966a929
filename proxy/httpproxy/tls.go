// tls.go is the client side of https:// upstreams: the proxy_ssl_*
// directives mapped onto crypto/tls, with nginx's defaults (no
// verification, no SNI, sessions reused).

package httpproxy

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
)

// TLSConfig is an https:// upstream's proxy_ssl_* settings. Its zero
// value is nginx's default: no certificate verification, no SNI, session
// reuse on.
type TLSConfig struct {
	// Verify checks the upstream's certificate against Roots and Name
	// (proxy_ssl_verify on).
	Verify bool
	// Roots are proxy_ssl_trusted_certificate's CAs (LoadRoots). nginx
	// refuses Verify without them ("no proxy_ssl_trusted_certificate
	// for proxy_ssl_verify"); here every handshake then fails. The
	// system's pool is never used, as in nginx.
	Roots *x509.CertPool
	// ServerName sends Name in SNI (proxy_ssl_server_name on). As RFC
	// 6066 asks (and nginx does), an IP address is never sent.
	ServerName bool
	// Name is proxy_ssl_name: the name verified and sent in SNI, without
	// a port; "" means the proxy_pass host (set it to Target.Host).
	Name string
	// Certificate is proxy_ssl_certificate with its key, shown when the
	// upstream asks for a client certificate.
	Certificate *tls.Certificate
	// NoSessionReuse turns session resumption off (proxy_ssl_session_reuse
	// off).
	NoSessionReuse bool
	// MinVersion and MaxVersion are proxy_ssl_protocols' bounds (0:
	// crypto/tls's defaults, TLS 1.2 and 1.3).
	MinVersion, MaxVersion uint16
	// ALPN is offered as is; nginx 1.22 offers none.
	ALPN []string

	once sync.Once
	cfg  *tls.Config
}

// LoadRoots reads PEM certificates (proxy_ssl_trusted_certificate's
// file) into a pool.
func LoadRoots(pem []byte) (*x509.CertPool, error) {
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pem) {
		return nil, errors.New("httpproxy: no certificate in the trusted certificate file")
	}
	return p, nil
}

// config builds the tls.Config once. Verification is done by hand in
// VerifyConnection, since crypto/tls ties the checked name to the SNI it
// sends, and nginx sends none by default yet may verify a name.
func (t *TLSConfig) config() *tls.Config {
	t.once.Do(func() {
		name := sslName(t.Name)
		c := &tls.Config{
			InsecureSkipVerify: true, // checked in VerifyConnection
			MinVersion:         t.MinVersion,
			MaxVersion:         t.MaxVersion,
			NextProtos:         t.ALPN,
		}
		if t.ServerName && name != "" {
			if _, err := netip.ParseAddr(name); err != nil {
				c.ServerName = name
			}
		}
		if !t.NoSessionReuse {
			c.ClientSessionCache = tls.NewLRUClientSessionCache(64)
		}
		if t.Certificate != nil {
			cert := t.Certificate
			c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
				return cert, nil
			}
		}
		if t.Verify {
			roots := t.Roots
			c.VerifyConnection = func(cs tls.ConnectionState) error {
				return verify(cs, roots, name)
			}
		}
		t.cfg = c
	})
	return t.cfg
}

// sslName strips a port from a proxy_ssl_name value, as nginx does with
// its default, $proxy_host.
func sslName(name string) string {
	if strings.HasPrefix(name, "[") {
		if i := strings.IndexByte(name, ']'); i > 0 {
			return name[1:i]
		}
		return name
	}
	if i := strings.LastIndexByte(name, ':'); i >= 0 && strings.Count(name, ":") == 1 {
		return name[:i]
	}
	return name
}

// verify is proxy_ssl_verify: the chain must lead to roots and the leaf
// must be for name.
func verify(cs tls.ConnectionState, roots *x509.CertPool, name string) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("httpproxy: upstream sent no certificate")
	}
	if roots == nil {
		return errors.New("httpproxy: proxy_ssl_verify without trusted certificates")
	}
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	leaf := cs.PeerCertificates[0]
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter}); err != nil {
		return fmt.Errorf("httpproxy: upstream SSL certificate verify error: %w", err)
	}
	if err := leaf.VerifyHostname(name); err != nil {
		return fmt.Errorf("httpproxy: upstream SSL certificate does not match %q", name)
	}
	return nil
}
