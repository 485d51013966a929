// This file holds the TLS settings of a server: the directive table of
// nginx's ngx_http_ssl_module (ssl_certificate, ssl_protocols,
// ssl_ciphers, ...) and of ngx_http_acme_module (acme_issuer blocks,
// acme_certificate), their merge rules (http level inherits into servers,
// as ngx_http_ssl_merge_srv_conf does) and the checks nginx makes at load
// time: certificates and keys are read and matched here, so "edge -t"
// fails on a missing or mismatched file as "nginx -t" does.
//
// What each directive becomes in Go's crypto/tls, and where edge differs
// from nginx, is in docs/tls.md.
package conf

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// ServerTLS is a server's TLS configuration, with http-level settings and
// edge's defaults merged in.
type ServerTLS struct {
	// Certificates are the ssl_certificate/ssl_certificate_key pairs, in
	// file order. A client gets the first one it supports, ECDSA before
	// RSA (see Preferred).
	Certificates []CertPair
	// LocalCA is set when the server has no certificate and only local
	// names (localhost, *.localhost, loopback addresses): edge issues one
	// from its local development CA for LocalNames.
	LocalCA    bool
	LocalNames []string
	// ACME is the server's acme_certificate, nil without one.
	ACME *ACMECertificate

	// Protocols as written (default "TLSv1.2 TLSv1.3"), and the versions
	// they give (tls.VersionTLS12..tls.VersionTLS13).
	Protocols  []string
	MinVersion uint16
	MaxVersion uint16
	// Ciphers is the ssl_ciphers string ("" = edge's default, ECDHE with
	// AES-GCM or ChaCha20-Poly1305); CipherSuites the TLS 1.2 suites it
	// gives. TLS 1.3 suites are Go's and not configurable.
	Ciphers      string
	CipherSuites []uint16
	// PreferServerCiphers is accepted; Go's crypto/tls chooses the suite
	// itself (by hardware AES support), so it has no effect.
	PreferServerCiphers bool
	// Curves is ssl_ecdh_curve in preference order; nil means Go's
	// default list ("auto"). Default: X25519MLKEM768, X25519, P-256.
	Curves    []tls.CurveID
	CurvesRaw string

	// SessionCache is ssl_session_cache as written ("none" by default).
	// Go has no server-side session cache: resumption is by tickets, which
	// SessionTickets turns on (the default) and SessionTimeout bounds.
	SessionCache   string
	SessionTimeout time.Duration // default 5m, as nginx
	SessionTickets bool          // default on
	// TicketKeyFiles are the ssl_session_ticket_key files; TicketKeys the
	// keys derived from them (the first encrypts, all decrypt). Empty:
	// per-process random keys, rotated daily.
	TicketKeyFiles []string
	TicketKeys     [][32]byte

	// Stapling is ssl_stapling; certificates without an OCSP responder
	// have it turned off with a [warn], as nginx does.
	Stapling           bool
	StaplingVerify     bool
	StaplingFile       string // a DER OCSP response to staple as is
	StaplingResponder  string // overrides the certificate's responder URL
	TrustedCertificate string

	// BufferSize is ssl_buffer_size (default 16k). Go sizes records itself
	// (small first records, then full ones); see docs/tls.md.
	BufferSize int
	// EarlyData is ssl_early_data: accepted, but Go refuses 0-RTT over TCP.
	EarlyData bool
	// RejectHandshake is ssl_reject_handshake: handshakes that select this
	// server fail.
	RejectHandshake bool
	// DHParam is ssl_dhparam as written; Go has no DHE, so it is unused.
	DHParam string
	// PasswordFile is ssl_password_file as written.
	PasswordFile string

	// HTTP2 is true when h2 is offered by ALPN: on a TLS listener unless
	// "http2 off" is written for the server (edge's default), or when
	// "http2 on" or "listen ... http2" says so.
	HTTP2 bool

	// keys are the ssl_certificate_key values until checkTLS pairs them
	// with Certificates (nginx inherits the two lists separately).
	keys []certKey
}

// CertPair is one ssl_certificate / ssl_certificate_key pair, read and
// checked at load time.
type CertPair struct {
	Cert string // the path (or "data:..." value) as written, resolved
	Key  string
	// ACME marks "$acme_certificate" / "$acme_certificate_key": the
	// server's acme_certificate provides the pair at run time.
	ACME bool
	// CertPEM is the certificate chain as read; KeyPEM the key (decrypted
	// with ssl_password_file when it was encrypted).
	CertPEM []byte
	KeyPEM  []byte
	// KeyType names the public key ("ECDSA P-256", "RSA 2048", "Ed25519").
	KeyType string
	// Names are the certificate's DNS and IP names, for messages.
	Names []string
	// Staple is true when ssl_stapling is on and the certificate names an
	// OCSP responder (or ssl_stapling_responder gives one).
	Staple bool
	// OCSPStaple is the content of ssl_stapling_file, if any.
	OCSPStaple []byte
	File       string
	Line       int
}

// Preferred reports whether the pair is tried before RSA ones: ECDSA and
// Ed25519 certificates handshake several times faster (seed 003).
func (p *CertPair) Preferred() bool { return !strings.HasPrefix(p.KeyType, "RSA") }

// ACMEIssuer is an acme_issuer block (ngx_http_acme_module).
type ACMEIssuer struct {
	Name string
	// URI is the ACME directory URL.
	URI string
	// Contact is the account's contact addresses ("mailto:" removed).
	Contact []string
	// StatePath holds accounts, keys and certificates; several edge
	// instances may share it. "" when "state_path off".
	StatePath string
	// AcceptTOS is accept_terms_of_service.
	AcceptTOS bool
	// AccountKey is a key file, or "" to generate one (kept in StatePath).
	AccountKey string
	// AccountKeyType is account_key's key type when it names one instead
	// of a file; certmagic always makes ECDSA P-256 account keys.
	AccountKeyType string
	// Challenge is "http-01" (the default and the only one edge answers).
	Challenge string
	// EAB is external_account_key: a key id and the base64url MAC key.
	EABKeyID  string
	EABMACKey string
	// TrustedCertificate is the CA bundle that signs the ACME server's
	// own certificate ("" = the system roots); Verify off skips checking it.
	TrustedCertificate string
	Verify             bool
	File               string
	Line               int
}

// ACMECertificate is an acme_certificate directive.
type ACMECertificate struct {
	Issuer *ACMEIssuer
	// Identifiers are the names the certificate is for (by default the
	// server's exact server_name values).
	Identifiers []string
	// KeyType is the certificate key: "ecdsa:256" (default), "ecdsa:384",
	// "rsa:2048", "rsa:4096" (the types certmagic generates).
	KeyType string
	File    string
	Line    int
}

func init() {
	register(tlsSpecs()...)
	register(acmeSpecs()...)
}

// tlsSpecs are ngx_http_ssl_module's directives: a server's TLS
// settings, inherited from the http level.
func tlsSpecs() []*spec {
	return []*spec{
		(&spec{name: "ssl_certificate", ctx: ctxHS, args: take1, multi: true, set: setSSLCertificate}).setSlot(
			field(func(t *ServerTLS) *[]CertPair { return &t.Certificates }, nil)),
		// Keys inherit apart from certificates, as in nginx; checkTLS
		// pairs them.
		(&spec{name: "ssl_certificate_key", ctx: ctxHS, args: take1, multi: true, set: setSSLCertificate}).setSlot(
			field(func(t *ServerTLS) *[]certKey { return &t.keys }, nil)),
		confPathSlot("ssl_password_file", ctxHS, atTLS, func(t *ServerTLS) *string { return &t.PasswordFile }, ""),
		(&spec{name: "ssl_protocols", ctx: ctxHS, args: take1More, set: setSSLProtocols}).setSlot(fields(
			field(func(t *ServerTLS) *[]string { return &t.Protocols }, defaultProtocols),
			field(func(t *ServerTLS) *uint16 { return &t.MinVersion }, tls.VersionTLS12),
			field(func(t *ServerTLS) *uint16 { return &t.MaxVersion }, tls.VersionTLS13))),
		(&spec{name: "ssl_ciphers", ctx: ctxHS, args: take1, set: setSSLCiphers}).setSlot(fields(
			field(func(t *ServerTLS) *string { return &t.Ciphers }, ""),
			field(func(t *ServerTLS) *[]uint16 { return &t.CipherSuites }, defaultCipherSuites))),
		flagSlot("ssl_prefer_server_ciphers", ctxHS, atTLS, func(t *ServerTLS) *bool { return &t.PreferServerCiphers }, false),
		(&spec{name: "ssl_ecdh_curve", ctx: ctxHS, args: take1, set: setSSLCurve}).setSlot(fields(
			field(func(t *ServerTLS) *[]tls.CurveID { return &t.Curves }, defaultCurves),
			field(func(t *ServerTLS) *string { return &t.CurvesRaw }, ""))),
		value("ssl_session_cache", ctxHS, take12, atTLS, func(t *ServerTLS) *string { return &t.SessionCache }, "none", parseSSLSessionCache),
		msecSlot("ssl_session_timeout", ctxHS, atTLS, func(t *ServerTLS) *time.Duration { return &t.SessionTimeout }, 5*time.Minute),
		flagSlot("ssl_session_tickets", ctxHS, atTLS, func(t *ServerTLS) *bool { return &t.SessionTickets }, true),
		(&spec{name: "ssl_session_ticket_key", ctx: ctxHS, args: take1, multi: true, set: setSSLTicketKey}).setSlot(fields(
			field(func(t *ServerTLS) *[]string { return &t.TicketKeyFiles }, nil),
			field(func(t *ServerTLS) *[][32]byte { return &t.TicketKeys }, nil))),
		flagSlot("ssl_stapling", ctxHS, atTLS, func(t *ServerTLS) *bool { return &t.Stapling }, false),
		flagSlot("ssl_stapling_verify", ctxHS, atTLS, func(t *ServerTLS) *bool { return &t.StaplingVerify }, false),
		confPathSlot("ssl_stapling_file", ctxHS, atTLS, func(t *ServerTLS) *string { return &t.StaplingFile }, ""),
		value("ssl_stapling_responder", ctxHS, take1, atTLS, func(t *ServerTLS) *string { return &t.StaplingResponder }, "", parseStaplingResponder),
		// In acme_issuer{} it is the issuer's own.
		(&spec{name: "ssl_trusted_certificate", ctx: ctxHS | ctxACMEIssuer, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			if f.acme != nil {
				f.acme.TrustedCertificate = c.path(d.Args[0])
				return nil
			}
			tlsOf(f.srv).TrustedCertificate = c.confPath(d.Args[0])
			return nil
		}}).setSlot(field(func(t *ServerTLS) *string { return &t.TrustedCertificate }, "")),
		value("ssl_buffer_size", ctxHS, take1, atTLS, func(t *ServerTLS) *int { return &t.BufferSize }, 16<<10, func(c *compiler, d *Directive) (int, error) {
			n, err := parseSize(d, d.Args[0])
			return int(n), err
		}),
		value("ssl_early_data", ctxHS, takeFlag, atTLS, func(t *ServerTLS) *bool { return &t.EarlyData }, false, func(c *compiler, d *Directive) (bool, error) {
			on := flagOn(d)
			if on {
				c.warnf(d, "\"ssl_early_data on\" has no effect in edge: Go's crypto/tls does not accept 0-RTT data over TCP, "+
					"so clients send their first request after the handshake (1-RTT); a client that still holds an "+
					"early-data ticket from nginx fails one handshake, then reconnects")
			}
			return on, nil
		}),
		value("ssl_dhparam", ctxHS, take1, atTLS, func(t *ServerTLS) *string { return &t.DHParam }, "", func(c *compiler, d *Directive) (string, error) {
			c.warnf(d, "the \"ssl_dhparam\" directive is ignored by edge: Go's crypto/tls has no DHE key exchange; "+
				"ECDHE (X25519MLKEM768, X25519, P-256) is used instead")
			return c.confPath(d.Args[0]), nil
		}),
		flagSlot("ssl_reject_handshake", ctxHS, atTLS, func(t *ServerTLS) *bool { return &t.RejectHandshake }, false),
	}
}

// acmeSpecs are ngx_http_acme_module's directives.
func acmeSpecs() []*spec {
	return []*spec{
		&spec{name: "acme_issuer", ctx: ctxHTTP, args: take1 | isBlock, multi: true, local: true, set: setACMEIssuer},
		// acme_certificate is the server's own.
		&spec{name: "acme_certificate", ctx: ctxServer, args: take1More, local: true, set: setACMECertificate},
		&spec{name: "uri", ctx: ctxACMEIssuer, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			u := d.Args[0]
			if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
				return emergf(d, "invalid URL \"%s\" in \"uri\" directive", u)
			}
			f.acme.URI = u
			return nil
		}},
		&spec{name: "contact", ctx: ctxACMEIssuer, args: take1, multi: true, set: func(c *compiler, f *frame, d *Directive) error {
			f.acme.Contact = append(f.acme.Contact, strings.TrimPrefix(d.Args[0], "mailto:"))
			return nil
		}},
		&spec{name: "state_path", ctx: ctxACMEIssuer, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			f.acme.StatePath = ""
			if d.Args[0] != "off" {
				f.acme.StatePath = c.path(d.Args[0])
			}
			return nil
		}},
		&spec{name: "accept_terms_of_service", ctx: ctxACMEIssuer, args: take0, set: func(c *compiler, f *frame, d *Directive) error {
			f.acme.AcceptTOS = true
			return nil
		}},
		&spec{name: "account_key", ctx: ctxACMEIssuer, args: take1, set: setACMEAccountKey},
		&spec{name: "challenge", ctx: ctxACMEIssuer, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			switch strings.ToLower(d.Args[0]) {
			case "http", "http-01":
				f.acme.Challenge = "http-01"
				return nil
			case "tls-alpn", "tls-alpn-01":
				return emergf(d, "\"challenge %s\" is not supported by edge: edge answers the http-01 challenge on its port 80 servers", d.Args[0])
			}
			return emergf(d, "invalid value \"%s\" in \"challenge\" directive", d.Args[0])
		}},
		&spec{name: "external_account_key", ctx: ctxACMEIssuer, args: take2, set: setACMEEAB},
		&spec{name: "ssl_verify", ctx: ctxACMEIssuer, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error {
			if !flagOn(d) {
				// certmagic offers no way to skip the check.
				return emergf(d, "\"ssl_verify off\" is not supported by edge: give the ACME server's CA certificate with \"ssl_trusted_certificate\"")
			}
			f.acme.Verify = true
			return nil
		}},
	}
}

// tlsOf returns a server's (or the http level's) TLS settings, made on
// first use.
func tlsOf(s *Server) *ServerTLS {
	if s.TLS == nil {
		s.TLS = &ServerTLS{}
	}
	return s.TLS
}

// setSSLCertificate reads ssl_certificate and ssl_certificate_key; the
// files are read once the server is complete (checkTLS), when
// ssl_password_file is known.
func setSSLCertificate(c *compiler, f *frame, d *Directive) error {
	v := d.Args[0]
	want := "$acme_certificate"
	if d.Name == "ssl_certificate_key" {
		want = "$acme_certificate_key"
	}
	acme := v == want
	if !acme && !strings.HasPrefix(v, "data:") && strings.Contains(v, "$") {
		return emergf(d, "variables in \"%s\" are not supported by edge (only \"%s\", with acme_certificate)", d.Name, want)
	}
	if !acme && !strings.HasPrefix(v, "data:") {
		v = c.confPath(v)
	}
	t := tlsOf(f.srv)
	if d.Name == "ssl_certificate" {
		t.Certificates = append(t.Certificates, CertPair{Cert: v, ACME: acme, File: d.File, Line: d.Line})
		return nil
	}
	// Keys are kept in their own list until checkTLS pairs them, because
	// nginx inherits certificates and keys separately.
	t.keys = append(t.keys, certKey{path: v, acme: acme, file: d.File, line: d.Line})
	return nil
}

// certKey is one ssl_certificate_key before pairing.
type certKey struct {
	path string
	acme bool
	file string
	line int
}

func setSSLProtocols(c *compiler, f *frame, d *Directive) error {
	min, max, warnings, err := ParseSSLProtocols(d.Args)
	if err != nil {
		return emergf(d, "%s", strings.TrimPrefix(err.Error(), "conf: "))
	}
	for _, w := range warnings {
		c.warnf(d, "%s", w)
	}
	t := tlsOf(f.srv)
	t.Protocols, t.MinVersion, t.MaxVersion = append([]string(nil), d.Args...), min, max
	return nil
}

// setSSLCiphers maps an OpenSSL cipher string onto Go's suites. What Go
// cannot do (DHE, RC4, EXPORT, NULL, 3DES, aNULL, ...) is named in a
// [warn] with what edge uses instead; a string that leaves nothing Go
// supports is an [emerg]. Never a silent downgrade (issue 5, seed 000).
func setSSLCiphers(c *compiler, f *frame, d *Directive) error {
	res, err := ParseSSLCiphers(d.Args[0])
	if err != nil {
		return emergf(d, "%s", strings.TrimPrefix(err.Error(), "conf: "))
	}
	for _, w := range res.Warnings {
		c.warnf(d, "%s", w)
	}
	t := tlsOf(f.srv)
	t.Ciphers, t.CipherSuites = d.Args[0], res.Suites
	return nil
}

func setSSLCurve(c *compiler, f *frame, d *Directive) error {
	curves, err := ParseSSLCurves(d.Args[0])
	if err != nil {
		return emergf(d, "%s", strings.TrimPrefix(err.Error(), "conf: "))
	}
	t := tlsOf(f.srv)
	t.Curves, t.CurvesRaw = curves, d.Args[0]
	return nil
}

// setSSLSessionCache checks ssl_session_cache with nginx's grammar (off |
// none | [builtin[:size]] [shared:name:size]). edge keeps no session
// cache: resumption uses tickets (docs/tls.md).
func parseSSLSessionCache(c *compiler, d *Directive) (string, error) {
	for _, a := range d.Args {
		ok := false
		switch {
		case a == "off" || a == "none":
			ok = len(d.Args) == 1
		case a == "builtin":
			ok = true
		case strings.HasPrefix(a, "builtin:"):
			n, err := strconv.Atoi(a[len("builtin:"):])
			ok = err == nil && n > 0
		case strings.HasPrefix(a, "shared:"):
			name, size, found := strings.Cut(a[len("shared:"):], ":")
			if found && name != "" {
				n, err := parseSize(d, size)
				if err == nil && n < 8*4096 {
					return "", emergf(d, "session cache \"%s\" is too small", a)
				}
				ok = err == nil
			}
		}
		if !ok {
			return "", emergf(d, "invalid session cache \"%s\"", a)
		}
	}
	return strings.Join(d.Args, " "), nil
}

// setSSLTicketKey reads an nginx ticket key file (48 or 80 bytes) now, as
// nginx does at load time, so "edge -t" reports a bad file.
func setSSLTicketKey(c *compiler, f *frame, d *Directive) error {
	p := c.confPath(d.Args[0])
	key, err := LoadSSLTicketKey(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return emergf(d, "%s", openError(p, pe))
		}
		return emergf(d, "%s", strings.TrimPrefix(err.Error(), "conf: "))
	}
	t := tlsOf(f.srv)
	t.TicketKeyFiles = append(t.TicketKeyFiles, p)
	t.TicketKeys = append(t.TicketKeys, key)
	return nil
}

func parseStaplingResponder(c *compiler, d *Directive) (string, error) {
	u := d.Args[0]
	if !strings.HasPrefix(u, "http://") {
		// nginx's OCSP client speaks plain HTTP only, and so do responders.
		return "", emergf(d, "invalid URL prefix in \"%s\"", u)
	}
	return u, nil
}

// setACMEIssuer reads an acme_issuer block.
func setACMEIssuer(c *compiler, f *frame, d *Directive) error {
	name := d.Args[0]
	if c.acmeIssuers == nil {
		c.acmeIssuers = map[string]*ACMEIssuer{}
	}
	if _, dup := c.acmeIssuers[name]; dup {
		return emergf(d, "duplicate acme_issuer \"%s\"", name)
	}
	iss := &ACMEIssuer{Name: name, StatePath: c.path("acme_" + name), Challenge: "http-01", Verify: true, File: d.File, Line: d.Line}
	if err := c.block(&frame{ctx: ctxACMEIssuer, loc: &Location{}, acme: iss}, d.Block); err != nil {
		return err
	}
	if iss.URI == "" {
		return emergf(d, "\"uri\" is missing in acme_issuer \"%s\"", name)
	}
	c.acmeIssuers[name] = iss
	return nil
}

// setACMECertificate reads "acme_certificate issuer [identifier ...]
// [key=alg[:size]]"; the issuer is looked up once the http block is read.
func setACMECertificate(c *compiler, f *frame, d *Directive) error {
	ac := &ACMECertificate{Issuer: &ACMEIssuer{Name: d.Args[0]}, KeyType: "ecdsa:256", File: d.File, Line: d.Line}
	for _, a := range d.Args[1:] {
		if k, ok := strings.CutPrefix(a, "key="); ok {
			kt, ok := acmeKeyType(k)
			if !ok {
				return emergf(d, "invalid key type \"%s\" in \"acme_certificate\" directive", k)
			}
			ac.KeyType = kt
			continue
		}
		if strings.ContainsAny(a, "*~$") {
			return emergf(d, "invalid identifier \"%s\" in \"acme_certificate\" directive (wildcards need the dns-01 challenge, which edge does not answer)", a)
		}
		ac.Identifiers = append(ac.Identifiers, strings.ToLower(a))
	}
	tlsOf(f.srv).ACME = ac
	return nil
}

// acmeKeyType normalises "ecdsa", "ecdsa:384", "rsa", "rsa:4096".
func acmeKeyType(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "ecdsa", "ecdsa:256":
		return "ecdsa:256", true
	case "ecdsa:384":
		return "ecdsa:384", true
	case "rsa", "rsa:2048":
		return "rsa:2048", true
	case "rsa:4096":
		return "rsa:4096", true
	}
	return "", false
}

func setACMEAccountKey(c *compiler, f *frame, d *Directive) error {
	if kt, ok := acmeKeyType(d.Args[0]); ok {
		f.acme.AccountKeyType = kt
		return nil
	}
	p := c.path(d.Args[0])
	if _, err := os.Stat(p); err != nil {
		return emergf(d, "%s", openError(p, err))
	}
	f.acme.AccountKey = p
	return nil
}

// setACMEEAB reads "external_account_key KID FILE": the file holds the
// base64url MAC key the CA gave with the key id.
func setACMEEAB(c *compiler, f *frame, d *Directive) error {
	p := c.path(d.Args[1])
	data, err := os.ReadFile(p)
	if err != nil {
		return emergf(d, "%s", openError(p, err))
	}
	f.acme.EABKeyID, f.acme.EABMACKey = d.Args[0], strings.TrimSpace(string(data))
	return nil
}

// Edge's defaults where nginx's would be weaker (issue 5): TLS 1.2-1.3,
// ECDHE with AEAD ciphers only, hybrid post-quantum X25519MLKEM768 first.
var (
	defaultProtocols    = []string{"TLSv1.2", "TLSv1.3"}
	defaultCipherSuites = []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
		tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	}
	defaultCurves = []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256}
)

// mergeTLS fills a TLS server's settings from the http level (which
// mergeHTTP gave the defaults), each directive on its own, as
// ngx_http_ssl_merge_srv_conf does. Certificates and keys inherit
// separately (nginx's rule), and are paired and read by checkTLS.
func (c *compiler) mergeTLS(s *Server) {
	t := s.TLS
	mergeSlots(c, tlsSlots, s.Loc, t, c.httpTLS)
	// HTTP/2 is part of edge's TLS defaults (issue 5): offered unless
	// "http2 off" is written at the server or http level.
	t.HTTP2 = s.HTTP2 || !c.given(s.Loc, http2Spec) && !c.given(c.httpLoc, http2Spec)
	for _, l := range s.Listens {
		t.HTTP2 = t.HTTP2 || l.HTTP2
	}
}

// checkTLS finishes a server's TLS settings once everything is merged:
// it pairs certificates with keys, reads and checks them (nginx's load
// time errors), resolves acme_certificate, and falls back to the local
// CA for localhost servers without a certificate. Servers on no TLS
// address lose their TLS settings after the checks (nginx also loads the
// files of such servers); a server whose address another server's
// "listen ... ssl" made TLS keeps them, and without a certificate it
// loses them: a handshake that picks it fails, as in nginx.
func (c *compiler) checkTLS(s *Server) error {
	t := s.TLS
	if t == nil {
		return nil
	}
	if err := c.pairCertificates(s); err != nil {
		return err
	}
	if err := c.resolveACME(s); err != nil {
		return err
	}
	if !c.onSSL(s) {
		s.TLS = nil
		return nil
	}
	if len(t.Certificates) == 0 && !t.RejectHandshake {
		if names := localNames(s); len(names) > 0 {
			t.LocalCA, t.LocalNames = true, names
			return nil
		}
		if !hasSSL(s) {
			s.TLS = nil
			return nil
		}
		l := firstSSLListen(s)
		return &Error{Level: LevelEmerg, File: l.File, Line: l.Line,
			Msg: "no \"ssl_certificate\" is defined for the \"listen ... ssl\" directive"}
	}
	return nil
}

// pairCertificates matches ssl_certificate_key to ssl_certificate by
// position and loads each pair.
func (c *compiler) pairCertificates(s *Server) error {
	t := s.TLS
	if len(t.keys) < len(t.Certificates) {
		last := t.Certificates[len(t.Certificates)-1]
		return &Error{Level: LevelEmerg, File: last.File, Line: last.Line,
			Msg: fmt.Sprintf("no \"ssl_certificate_key\" is defined for certificate \"%s\"", last.Cert)}
	}
	var passwords []string
	if t.PasswordFile != "" && len(t.Certificates) > 0 {
		var err error
		if passwords, err = readPasswords(t.PasswordFile); err != nil {
			return &Error{Level: LevelEmerg, File: t.Certificates[0].File, Line: t.Certificates[0].Line, Msg: err.Error()}
		}
	}
	var staple []byte
	if t.Stapling && t.StaplingFile != "" {
		data, err := os.ReadFile(t.StaplingFile)
		if err != nil {
			return &Error{Level: LevelEmerg, Msg: openError(t.StaplingFile, err)}
		}
		staple = data
	}
	// Pairs are shared with the http level and other servers until here:
	// copy before filling them in.
	pairs := make([]CertPair, len(t.Certificates))
	for i, p := range t.Certificates {
		k := t.keys[i]
		p.Key = k.path
		if p.ACME != k.acme {
			return &Error{Level: LevelEmerg, File: k.file, Line: k.line,
				Msg: "\"$acme_certificate\" and \"$acme_certificate_key\" must be used together"}
		}
		if !p.ACME {
			if err := loadCertPair(&p, passwords); err != nil {
				return err
			}
			p.OCSPStaple = staple
			p.Staple = t.Stapling && staple == nil
			if p.Staple && !p.hasResponder() && t.StaplingResponder == "" {
				c.plan.Warnings = append(c.plan.Warnings, &Error{Level: LevelWarn, File: p.File, Line: p.Line,
					Msg: fmt.Sprintf("\"ssl_stapling\" ignored, no OCSP responder URL in the certificate \"%s\"", p.Cert)})
				p.Staple = false
			}
		}
		pairs[i] = p
	}
	t.Certificates = pairs
	t.keys = nil
	return nil
}

// hasResponder reports whether the leaf names an OCSP responder.
func (p *CertPair) hasResponder() bool {
	leaf, err := leafOf(p.CertPEM)
	return err == nil && len(leaf.OCSPServer) > 0
}

// resolveACME finds the issuer of acme_certificate and checks that
// $acme_certificate is only used with it.
func (c *compiler) resolveACME(s *Server) error {
	t := s.TLS
	usesACME := false
	for _, p := range t.Certificates {
		usesACME = usesACME || p.ACME
	}
	ac := t.ACME
	if ac == nil {
		if usesACME {
			p := t.Certificates[0]
			return &Error{Level: LevelEmerg, File: p.File, Line: p.Line,
				Msg: "\"ssl_certificate $acme_certificate\" needs an \"acme_certificate\" directive in the same server"}
		}
		return nil
	}
	iss := c.acmeIssuers[ac.Issuer.Name]
	if iss == nil {
		return &Error{Level: LevelEmerg, File: ac.File, Line: ac.Line,
			Msg: fmt.Sprintf("no \"acme_issuer\" is defined for \"%s\"", ac.Issuer.Name)}
	}
	resolved := *ac
	resolved.Issuer = iss
	if len(resolved.Identifiers) == 0 {
		for _, n := range s.Names {
			if n.Kind == NameExact && n.Name != "" {
				resolved.Identifiers = append(resolved.Identifiers, n.Name)
			}
		}
	}
	if len(resolved.Identifiers) == 0 {
		return &Error{Level: LevelEmerg, File: ac.File, Line: ac.Line,
			Msg: "no identifiers for \"acme_certificate\": the server has no exact server_name (wildcards and regular expressions need the dns-01 challenge)"}
	}
	t.ACME = &resolved
	return nil
}

// loadCertPair reads a certificate chain and its key, decrypting the key
// with the ssl_password_file passwords when it is encrypted, and checks
// that they belong together. Messages follow nginx's "cannot load
// certificate" wording with the reason in Go's words.
func loadCertPair(p *CertPair, passwords []string) error {
	fail := func(format string, args ...any) error {
		return &Error{Level: LevelEmerg, File: p.File, Line: p.Line, Msg: fmt.Sprintf(format, args...)}
	}
	certPEM, err := readPEMValue(p.Cert)
	if err != nil {
		return fail("cannot load certificate \"%s\": %s", p.Cert, err)
	}
	keyPEM, err := readPEMValue(p.Key)
	if err != nil {
		return fail("cannot load certificate key \"%s\": %s", p.Key, err)
	}
	leaf, err := leafOf(certPEM)
	if err != nil {
		return fail("cannot load certificate \"%s\": %s", p.Cert, err)
	}
	keyPEM, err = decryptKey(keyPEM, passwords)
	if err != nil {
		return fail("cannot load certificate key \"%s\": %s", p.Key, err)
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		reason := strings.TrimPrefix(err.Error(), "tls: ")
		if strings.Contains(reason, "does not match") {
			reason = "the key does not match the certificate \"" + p.Cert + "\""
		}
		return fail("cannot load certificate key \"%s\": %s", p.Key, reason)
	}
	p.CertPEM, p.KeyPEM = certPEM, keyPEM
	p.KeyType = keyType(leaf)
	p.Names = append(append([]string(nil), leaf.DNSNames...), ipStrings(leaf)...)
	return nil
}

// readPEMValue reads a file, or the text after "data:".
func readPEMValue(v string) ([]byte, error) {
	if data, ok := strings.CutPrefix(v, "data:"); ok {
		return []byte(data), nil
	}
	b, err := os.ReadFile(v)
	if err != nil {
		return nil, errors.New(strings.Replace(openError(v, err), " \""+v+"\"", "", 1))
	}
	return b, nil
}

// leafOf parses the first certificate of a PEM chain.
func leafOf(chain []byte) (*x509.Certificate, error) {
	rest := chain
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, errors.New("no certificate in PEM data")
		}
		if b.Type == "CERTIFICATE" {
			return x509.ParseCertificate(b.Bytes)
		}
	}
}

// decryptKey returns the key PEM with an encrypted key decrypted by the
// first password that works. Go reads OpenSSL's traditional encrypted PEM
// ("Proc-Type: 4,ENCRYPTED") only, not encrypted PKCS #8.
func decryptKey(keyPEM []byte, passwords []string) ([]byte, error) {
	var out bytes.Buffer
	rest := keyPEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY":
			return nil, errors.New("the key is encrypted PKCS #8, which Go cannot decrypt; re-encrypt it in the traditional format: " +
				"openssl pkey -in KEY -traditional -aes256 -out NEW.key")
		case x509.IsEncryptedPEMBlock(b): //nolint:staticcheck // the only way to read nginx's encrypted keys
			if len(passwords) == 0 {
				return nil, errors.New("the key is encrypted and no \"ssl_password_file\" is given")
			}
			der, err := decryptBlock(b, passwords)
			if err != nil {
				return nil, err
			}
			pem.Encode(&out, &pem.Block{Type: b.Type, Bytes: der})
		default:
			pem.Encode(&out, b)
		}
	}
	return out.Bytes(), nil
}

func decryptBlock(b *pem.Block, passwords []string) ([]byte, error) {
	for _, pw := range passwords {
		der, err := x509.DecryptPEMBlock(b, []byte(pw)) //nolint:staticcheck // see decryptKey
		if err == nil {
			return der, nil
		}
	}
	return nil, errors.New("no password in \"ssl_password_file\" decrypts the key")
}

// readPasswords reads ssl_password_file: one password per line, as nginx.
func readPasswords(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errors.New(openError(path, err))
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if line != "" {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty file \"%s\"", path)
	}
	return out, nil
}

// keyType names a certificate's public key.
func keyType(c *x509.Certificate) string {
	switch k := c.PublicKey.(type) {
	case *ecdsa.PublicKey:
		return "ECDSA " + k.Curve.Params().Name
	case *rsa.PublicKey:
		return "RSA " + strconv.Itoa(k.N.BitLen())
	case ed25519.PublicKey:
		return "Ed25519"
	}
	return c.PublicKeyAlgorithm.String()
}

func ipStrings(c *x509.Certificate) []string {
	var out []string
	for _, ip := range c.IPAddresses {
		out = append(out, ip.String())
	}
	return out
}

// localNames returns the names the local CA certifies for a server
// without a certificate: its local server names plus localhost and the
// loopback addresses. nil when any name is not local, because a
// certificate from a private CA for a public name would only teach users
// to click through warnings.
func localNames(s *Server) []string {
	var names []string
	for _, n := range s.Names {
		switch {
		case n.Kind == NameExact && n.Name == "":
		case n.Kind == NameExact && isLocalName(n.Name):
			names = append(names, n.Name)
		default:
			return nil
		}
	}
	if len(names) == 0 {
		return nil
	}
	for _, n := range []string{"localhost", "127.0.0.1", "::1"} {
		if !contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func isLocalName(n string) bool {
	if n == "localhost" || strings.HasSuffix(n, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(n, "[]"))
	return err == nil && ip.IsLoopback()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func firstSSLListen(s *Server) Listen {
	for _, l := range s.Listens {
		if l.SSL {
			return l
		}
	}
	return Listen{File: s.File, Line: s.Line}
}

// dumpTLS describes a server's TLS settings for Plan.Dump.
func dumpTLS(b *strings.Builder, t *ServerTLS) {
	if t == nil {
		return
	}
	var suites []string
	for _, id := range t.CipherSuites {
		suites = append(suites, tls.CipherSuiteName(id))
	}
	var curves []string
	for _, id := range t.Curves {
		curves = append(curves, id.String())
	}
	if t.Curves == nil {
		curves = []string{"auto"}
	}
	fmt.Fprintf(b, "  tls protocols=%s http2=%v reject=%v\n", strings.Join(t.Protocols, ","), t.HTTP2, t.RejectHandshake)
	fmt.Fprintf(b, "  tls ciphers=%s\n", strings.Join(suites, ","))
	fmt.Fprintf(b, "  tls curves=%s\n", strings.Join(curves, ","))
	fmt.Fprintf(b, "  tls session_cache=%q timeout=%s tickets=%v ticket_keys=%d\n", t.SessionCache, t.SessionTimeout, t.SessionTickets, len(t.TicketKeys))
	fmt.Fprintf(b, "  tls stapling=%v verify=%v buffer_size=%d early_data=%v\n", t.Stapling, t.StaplingVerify, t.BufferSize, t.EarlyData)
	for _, p := range t.Certificates {
		if p.ACME {
			fmt.Fprintf(b, "  tls certificate $acme_certificate\n")
			continue
		}
		fmt.Fprintf(b, "  tls certificate %s key %s (%s) names=%s staple=%v\n", p.Cert, p.Key, p.KeyType, strings.Join(p.Names, ","), p.Staple)
	}
	if t.LocalCA {
		fmt.Fprintf(b, "  tls local CA names=%s\n", strings.Join(t.LocalNames, ","))
	}
	if a := t.ACME; a != nil {
		i := a.Issuer
		fmt.Fprintf(b, "  tls acme issuer=%s uri=%s identifiers=%s key=%s state=%s tos=%v contact=%s\n",
			i.Name, i.URI, strings.Join(a.Identifiers, ","), a.KeyType, i.StatePath, i.AcceptTOS, strings.Join(i.Contact, ","))
	}
}
