// This file implements ngx_http_acme_module's directives with certmagic:
// each acme_issuer becomes a certmagic config with an ACMEIssuer whose
// storage is the issuer's state_path (shared by several edge instances
// through certmagic's file locks), acme_certificate names the identifiers
// it manages (obtained and renewed in the background by certmagic's
// maintenance), and the http-01 challenge is answered by edge's own
// listeners: any request for /.well-known/acme-challenge/TOKEN, before
// the rewrite phase, so "return 301 https://..." on the port 80 server
// does not get in the way.
package tlsterm

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"

	"github.com/caddyserver/certmagic"
	"github.com/mholt/acmez/v3/acme"

	"edge/conf"
)

// acmeState is one plan's ACME state.
type acmeState struct {
	// managers are the certmagic configs, one per issuer and key type.
	managers []*acmeManager
	// byName finds the manager of an identifier.
	byName map[string]*acmeManager
	// servers are the servers with acme_certificate.
	servers map[*conf.Server]*acmeServer
	log     func() *logRef
	started sync.Once
}

// acmeManager manages the certificates of one issuer and key type.
type acmeManager struct {
	issuer *conf.ACMEIssuer
	magic  *certmagic.Config
	acme   *certmagic.ACMEIssuer
	names  []string
}

// acmeServer serves one server's ACME certificate.
type acmeServer struct {
	magic *certmagic.Config
	// defaultName is asked for when a client sends no SNI.
	defaultName string
}

// newACMEState makes the certmagic configs of a plan's acme_certificate
// directives. Nothing is obtained until the plan serves (start).
func newACMEState(plan *conf.Plan, ts *Shared, log Log) (*acmeState, error) {
	a := &acmeState{byName: map[string]*acmeManager{}, servers: map[*conf.Server]*acmeServer{}, log: ts.errLog.Load}
	host, port := challengeListener(plan)
	byKey := map[string]*acmeManager{}
	for _, srv := range plan.HTTP.Servers {
		if srv.TLS == nil || srv.TLS.ACME == nil {
			continue
		}
		ac := srv.TLS.ACME
		key := fmt.Sprintf("%p %s %v", ac.Issuer, ac.KeyType, srv.TLS.Stapling)
		m := byKey[key]
		if m == nil {
			ts.init(log)
			var err error
			if m, err = newACMEManager(ts, ac, srv.TLS.Stapling, host, port); err != nil {
				return nil, err
			}
			byKey[key] = m
			a.managers = append(a.managers, m)
		}
		for _, id := range ac.Identifiers {
			if a.byName[id] == nil {
				a.byName[id] = m
				m.names = append(m.names, id)
			}
		}
		a.servers[srv] = &acmeServer{magic: m.magic, defaultName: ac.Identifiers[0]}
	}
	if len(a.managers) == 0 {
		return nil, nil
	}
	return a, nil
}

// challengeListener is the plain listener ACME servers reach for http-01:
// the one on port 80, else the first plain TCP one (for tests and setups
// that forward port 80). certmagic is told it is busy, so it leaves the
// answering to edge instead of binding a port itself.
func challengeListener(plan *conf.Plan) (string, int) {
	var host string
	var port int
	for _, g := range plan.HTTP.Listens {
		if g.Listen.SSL || g.Listen.Network != "tcp" {
			continue
		}
		ap, err := netip.ParseAddrPort(g.Listen.Addr)
		if err != nil {
			continue
		}
		if port == 0 || ap.Port() == 80 {
			host, port = ap.Addr().String(), int(ap.Port())
			if ap.Addr().IsUnspecified() {
				host = ""
			}
		}
	}
	return host, port
}

// newACMEManager makes a certmagic config for an issuer and key type.
func newACMEManager(ts *Shared, ac *conf.ACMECertificate, staple bool, host string, port int) (*acmeManager, error) {
	iss := ac.Issuer
	storagePath := iss.StatePath
	if storagePath == "" {
		// "state_path off": nothing kept across restarts.
		dir, err := os.MkdirTemp("", "edge-acme-"+iss.Name+"-")
		if err != nil {
			return nil, fmt.Errorf("proxy: acme_issuer %s: %v", iss.Name, err)
		}
		storagePath = dir
	}
	magic := certmagic.New(ts.cache, certmagic.Config{
		Storage:   &certmagic.FileStorage{Path: storagePath},
		KeySource: certmagic.StandardKeyGenerator{KeyType: certmagicKeyType(ac.KeyType)},
		OCSP:      certmagic.OCSPConfig{DisableStapling: !staple, HTTPProxy: http.ProxyFromEnvironment},
		Logger:    ts.plain.Logger,
	})
	tmpl := certmagic.ACMEIssuer{
		CA:                      iss.URI,
		Agreed:                  iss.AcceptTOS,
		DisableTLSALPNChallenge: true,
		AltHTTPPort:             port,
		ListenHost:              host,
		Logger:                  ts.plain.Logger,
	}
	if len(iss.Contact) > 0 {
		tmpl.Email = iss.Contact[0]
	}
	if iss.TrustedCertificate != "" {
		pool, err := certPool(iss.TrustedCertificate)
		if err != nil {
			return nil, fmt.Errorf("proxy: acme_issuer %s: %v", iss.Name, err)
		}
		tmpl.TrustedRoots = pool
	}
	if iss.AccountKey != "" {
		pemKey, err := os.ReadFile(iss.AccountKey)
		if err != nil {
			return nil, fmt.Errorf("proxy: acme_issuer %s: %v", iss.Name, err)
		}
		tmpl.AccountKeyPEM = string(pemKey)
	}
	if iss.EABKeyID != "" {
		tmpl.ExternalAccount = &acme.EAB{KeyID: iss.EABKeyID, MACKey: iss.EABMACKey}
	}
	issuer := certmagic.NewACMEIssuer(magic, tmpl)
	magic.Issuers = []certmagic.Issuer{issuer}
	return &acmeManager{issuer: iss, magic: magic, acme: issuer}, nil
}

func certmagicKeyType(kt string) certmagic.KeyType {
	switch kt {
	case "ecdsa:384":
		return certmagic.P384
	case "rsa:2048":
		return certmagic.RSA2048
	case "rsa:4096":
		return certmagic.RSA4096
	}
	return certmagic.P256
}

// certPool reads a PEM bundle of CA certificates.
func certPool(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("no certificate in %s", path)
	}
	return pool, nil
}

// server returns a server's ACME certificate source.
func (a *acmeState) server(srv *conf.Server) *acmeServer { return a.servers[srv] }

// configForName is the certmagic config that manages an identifier.
func (a *acmeState) configForName(name string) *certmagic.Config {
	if m := a.byName[strings.ToLower(name)]; m != nil {
		return m.magic
	}
	return nil
}

// start asks certmagic to load or obtain every managed certificate, in
// the background; it runs once the plan's listeners are bound, so the
// http-01 challenge port is edge's.
func (a *acmeState) start() {
	a.started.Do(func() {
		for _, m := range a.managers {
			if err := m.magic.ManageAsync(context.Background(), m.names); err != nil {
				a.log().Logf(conf.LevelError, "acme_issuer %s: managing %s failed: %v", m.issuer.Name, strings.Join(m.names, ", "), err)
			}
		}
	})
}

// get returns the managed certificate for a handshake; a client without
// SNI gets the certificate of the server's first identifier.
func (s *acmeServer) get(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if hello.ServerName == "" {
		h := *hello
		h.ServerName = s.defaultName
		hello = &h
	}
	return s.magic.GetCertificate(hello)
}

// ChallengePrefix is where ACME servers fetch http-01 answers (RFC
// 8555, section 8.3).
const ChallengePrefix = "/.well-known/acme-challenge/"

// AnswersChallenges reports whether the plan has ACME certificates, whose
// http-01 challenges Challenge answers. t may be nil.
func (t *State) AnswersChallenges() bool { return t != nil && t.acme != nil }

// Challenge answers an ACME http-01 challenge request (a GET under
// ChallengePrefix) with the status and body certmagic gives, and reports
// whether one of the plan's issuers knew it.
func (t *State) Challenge(req *http.Request) (status int, body []byte, ok bool) {
	for _, m := range t.acme.managers {
		w := &challengeWriter{header: http.Header{}}
		if !m.acme.HandleHTTPChallenge(w, req) {
			continue
		}
		status = w.status
		if status == 0 {
			status = http.StatusOK
		}
		return status, w.body, true
	}
	return 0, nil, false
}

// challengeWriter collects what certmagic writes for a challenge.
type challengeWriter struct {
	header http.Header
	status int
	body   []byte
}

func (w *challengeWriter) Header() http.Header { return w.header }

func (w *challengeWriter) Write(p []byte) (int, error) {
	w.body = append(w.body, p...)
	return len(p), nil
}

func (w *challengeWriter) WriteHeader(status int) { w.status = status }

var _ io.Writer = (*challengeWriter)(nil)
