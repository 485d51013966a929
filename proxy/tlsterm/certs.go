// This file holds certificates for TLS: certmagic's cache, which outlives
// plans and runs the maintenance that keeps OCSP staples fresh and renews
// ACME certificates, and each server's certificate set, a snapshot that
// handshakes read with one atomic load (issue 5: keep the GetCertificate
// path cheap).
//
// A server keeps nginx's semantics: the server is chosen by SNI with
// server_name rules, and its own ssl_certificate pairs are served whatever
// names they carry (certmagic alone would choose by the certificate's
// names). Of several pairs, the first the client supports is served,
// ECDSA before RSA (seed 003: ECDSA handshakes 2-3x faster).
package tlsterm

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"edge/conf"
	"edge/tlsca"
)

// stapleRefresh is how often a server with OCSP stapling re-reads its
// certificates from certmagic's cache, where maintenance replaces staples
// (certmagic checks them hourly).
const stapleRefresh = time.Minute

// Shared is the TLS state kept across reloads. The zero value is ready.
type Shared struct {
	mu sync.Mutex
	// errLog is the current plan's error log, for certmagic's messages
	// from its own goroutines (proxy swaps its own reference unsynchronised).
	errLog atomic.Pointer[logRef]
	// cache is certmagic's certificate cache, made on first use.
	cache *certmagic.Cache
	// plain caches certificates without OCSP stapling.
	plain *certmagic.Config
	// current is the State that serves, for certmagic's maintenance.
	current atomic.Pointer[State]
	// tickets seals tickets for servers without ssl_session_ticket_key:
	// Go's random keys, rotated daily, kept across reloads.
	tickets *tls.Config
	// localCA is edge's development CA, loaded on first use.
	localCA    *tlsca.LocalCA
	localCADir string
}

// init makes certmagic's cache and the plain config on first use.
func (ts *Shared) init(log Log) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.cache != nil {
		return
	}
	ts.errLog.Store(&logRef{log})
	logger := ts.logger()
	ts.cache = certmagic.NewCache(certmagic.CacheOptions{GetConfigForCert: ts.configForCert, Logger: logger})
	ts.plain = certmagic.New(ts.cache, certmagic.Config{
		OCSP:    certmagic.OCSPConfig{DisableStapling: true},
		Storage: &certmagic.FileStorage{Path: filepath.Join(dataDir(), "certmagic")},
		Logger:  logger,
	})
	ts.tickets = &tls.Config{}
}

// configForCert tells certmagic's maintenance which config manages a
// cached certificate: an ACME config for managed ones, the stapling
// config a server asked for, else the plain one.
func (ts *Shared) configForCert(c certmagic.Certificate) (*certmagic.Config, error) {
	if t := ts.current.Load(); t != nil {
		if cfg := t.configFor(c); cfg != nil {
			return cfg, nil
		}
	}
	return ts.plain, nil
}

// configFor finds the config for a cached certificate in one State.
func (t *State) configFor(c certmagic.Certificate) *certmagic.Config {
	for _, sc := range t.certs {
		if cfg := sc.configFor(c.Hash()); cfg != nil {
			return cfg
		}
	}
	if t.acme != nil {
		for _, n := range c.Names {
			if cfg := t.acme.configForName(n); cfg != nil {
				return cfg
			}
		}
	}
	return nil
}

// commit makes t the State certmagic's maintenance serves, drops the
// certificates only the previous plan used, and starts the background
// work of the new one (fetching first OCSP staples).
func (ts *Shared) commit(t *State, log Log) {
	if ts.cache == nil {
		return
	}
	ts.errLog.Store(&logRef{log})
	prev := ts.current.Swap(t)
	// Certificates the previous plan used and this one does not leave the
	// cache (and its maintenance). A stapled one still being fetched for
	// this plan is re-added by its background fetch.
	var stale []string
	if prev != nil {
		now := t.hashes()
		for h := range prev.hashes() {
			if !now[h] {
				stale = append(stale, h)
			}
		}
	}
	ts.cache.Remove(stale)
	for _, sc := range t.certs {
		sc.startStapling(log)
	}
	if t.localCA.ca != nil && log.Enabled(conf.LevelNotice) {
		log.Logf(conf.LevelNotice, "certificates for %s are issued by edge's local CA %s (docs/tls.md says how to trust it)",
			strings.Join(t.localCA.names, ", "), t.localCA.ca.RootPath())
	}
	if t.localCA.ca != nil {
		exportLocalCA(t.localCA.ca, log)
	}
}

// caExportEnv names a file that edge keeps a copy of its local CA's root
// certificate in, whenever a plan uses the CA: in the compose stack, a
// directory of the host (deploy/compose.yaml), so that the host's
// browsers can trust https://localhost without fetching it first.
const caExportEnv = "EDGE_CA_EXPORT"

// exportLocalCA copies the root to $EDGE_CA_EXPORT, when set. A failure
// is logged and serving goes on: the certificates are still good.
func exportLocalCA(ca *tlsca.LocalCA, log Log) {
	path := os.Getenv(caExportEnv)
	if path == "" {
		return
	}
	changed, err := ca.Export(path)
	switch {
	case err != nil:
		log.Logf(conf.LevelError, "cannot copy edge's local CA root certificate to %s ($%s): %v", path, caExportEnv, err)
	case changed:
		log.Logf(conf.LevelNotice, "edge's local CA root certificate copied to %s ($%s)", path, caExportEnv)
	}
}

// hashes are the certmagic hashes of a State's certificates.
func (t *State) hashes() map[string]bool {
	out := map[string]bool{}
	for _, sc := range t.certs {
		sc.refreshMu.Lock()
		for _, e := range sc.entries {
			if e.hash != "" {
				out[e.hash] = true
			}
		}
		sc.refreshMu.Unlock()
	}
	return out
}

// serverCerts is one server's certificates as handshakes see them.
type serverCerts struct {
	// list is the snapshot handshakes read: preferred (ECDSA) first.
	list atomic.Pointer[[]*tls.Certificate]
	// entries say where each list element comes from, in the same order.
	entries []certEntry
	// refreshAt is when the list is next re-read from certmagic's cache
	// (unix nanoseconds; 0: never, no staples to follow).
	refreshAt atomic.Int64
	refreshMu sync.Mutex
	cache     *certmagic.Cache
	// acme serves the server's acme_certificate, nil without one.
	acme *acmeServer
}

// certEntry is one certificate of a server.
type certEntry struct {
	hash string // certmagic's hash ("" when not cached there)
	name string // a name on the certificate, to find it in the cache
	// config is the stapling config when ssl_stapling is on, else nil.
	config *certmagic.Config
	// certPEM and keyPEM are cached with config in the background.
	certPEM, keyPEM []byte
}

// serverCerts loads a server's certificates: its ssl_certificate pairs
// into certmagic's cache, a leaf from the local CA, or its ACME
// certificate.
func (t *State) serverCerts(srv *conf.Server, log Log) (*serverCerts, error) {
	ts := t.shared
	ts.init(log)
	sc := &serverCerts{cache: ts.cache}
	type loaded struct {
		cert      *tls.Certificate
		entry     certEntry
		preferred bool
	}
	var all []loaded
	ctx := context.Background()
	for i := range srv.TLS.Certificates {
		p := &srv.TLS.Certificates[i]
		if p.ACME {
			continue
		}
		cert, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM)
		if err != nil {
			return nil, fmt.Errorf("cannot load certificate \"%s\": %v", p.Cert, err)
		}
		if p.OCSPStaple != nil {
			cert.OCSPStaple = p.OCSPStaple
		}
		e := certEntry{name: firstName(p.Names, cert)}
		if p.Staple {
			// Stapling fetches over the network: certmagic caches these in
			// the background once the plan serves (commit).
			e.config = ts.staplingConfig(srv.TLS)
			e.certPEM, e.keyPEM = p.CertPEM, p.KeyPEM
		} else {
			hash, err := ts.plain.CacheUnmanagedCertificatePEMBytes(ctx, p.CertPEM, p.KeyPEM, []string{"edge"})
			if err != nil {
				return nil, fmt.Errorf("cannot load certificate \"%s\": %v", p.Cert, err)
			}
			e.hash = hash
		}
		all = append(all, loaded{&cert, e, p.Preferred()})
	}
	if srv.TLS.LocalCA {
		cert, err := ts.localLeaf(srv.TLS.LocalNames)
		if err != nil {
			return nil, err
		}
		hash, err := ts.plain.CacheUnmanagedTLSCertificate(ctx, cert, []string{"edge", "edge-local-ca"})
		if err != nil {
			return nil, fmt.Errorf("proxy: local CA certificate: %v", err)
		}
		all = append(all, loaded{&cert, certEntry{hash: hash, name: srv.TLS.LocalNames[0]}, true})
		t.localCA.use(ts.localCA, srv.TLS.LocalNames)
	}
	if srv.TLS.ACME != nil && t.acme != nil {
		sc.acme = t.acme.server(srv)
	}
	// ECDSA first, otherwise in file order (a stable sort).
	slices.SortStableFunc(all, func(a, b loaded) int {
		switch {
		case a.preferred == b.preferred:
			return 0
		case a.preferred:
			return -1
		}
		return 1
	})
	list := make([]*tls.Certificate, len(all))
	for i, l := range all {
		list[i] = l.cert
		sc.entries = append(sc.entries, l.entry)
	}
	sc.list.Store(&list)
	return sc, nil
}

// configFor returns the stapling config of one of the server's
// certificates, or nil.
func (sc *serverCerts) configFor(hash string) *certmagic.Config {
	sc.refreshMu.Lock()
	defer sc.refreshMu.Unlock()
	for _, e := range sc.entries {
		if e.hash == hash && e.config != nil {
			return e.config
		}
	}
	return nil
}

// parseLeaf parses the first certificate of a PEM chain.
func parseLeaf(chain []byte) (*x509.Certificate, error) {
	for rest := chain; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, errors.New("proxy: no certificate in PEM data")
		}
		if b.Type == "CERTIFICATE" {
			return x509.ParseCertificate(b.Bytes)
		}
	}
}

// firstName is a name on the certificate to look it up by in the cache.
func firstName(names []string, cert tls.Certificate) string {
	if len(names) > 0 {
		return strings.ToLower(names[0])
	}
	if cert.Leaf != nil {
		return strings.ToLower(cert.Leaf.Subject.CommonName)
	}
	return ""
}

// errNoCertificate ends a handshake for a server whose ACME certificate
// is not there yet.
var errNoCertificate = errors.New("proxy: no certificate available yet")

// get is the server's GetCertificate: one atomic load and, with several
// certificates, the first the client supports.
func (sc *serverCerts) get(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	list := *sc.list.Load()
	if sc.acme != nil {
		cert, err := sc.acme.get(hello)
		if err == nil || len(list) == 0 {
			return cert, err
		}
	}
	if at := sc.refreshAt.Load(); at != 0 && time.Now().UnixNano() >= at {
		sc.refresh()
		list = *sc.list.Load()
	}
	switch len(list) {
	case 0:
		return nil, errNoCertificate
	case 1:
		return list[0], nil
	}
	for _, c := range list {
		if hello.SupportsCertificate(c) == nil {
			return c, nil
		}
	}
	return list[0], nil
}

// startStapling caches the certificates with ssl_stapling through
// certmagic in the background (which fetches their first OCSP response),
// then keeps the snapshot in step with the cache.
func (sc *serverCerts) startStapling(log Log) {
	var pending []int
	for i, e := range sc.entries {
		if e.config != nil && e.hash == "" {
			pending = append(pending, i)
		}
	}
	if len(pending) == 0 {
		return
	}
	go func() {
		for _, i := range pending {
			e := &sc.entries[i]
			hash, err := sc.cacheStapled(e)
			if err != nil {
				log.Logf(conf.LevelWarn, "OCSP stapling for \"%s\" failed: %v", e.name, err)
				continue
			}
			sc.refreshMu.Lock()
			e.hash = hash
			sc.refreshMu.Unlock()
		}
		sc.refreshAt.Store(1) // due now
		sc.refresh()
	}()
}

// cacheStapled caches a certificate with its stapling config, which
// fetches an OCSP response. certmagic keeps the first copy of a
// certificate it is given, so when another server cached the same one
// without stapling, that copy is replaced (the response fetched by the
// first call is in storage by then, so no second fetch is made).
func (sc *serverCerts) cacheStapled(e *certEntry) (string, error) {
	ctx := context.Background()
	tags := []string{"edge", "edge-stapling"}
	hash, err := e.config.CacheUnmanagedCertificatePEMBytes(ctx, e.certPEM, e.keyPEM, tags)
	if err != nil || sc.cachedStaple(e.name, hash) != nil {
		return hash, err
	}
	sc.cache.Remove([]string{hash})
	return e.config.CacheUnmanagedCertificatePEMBytes(ctx, e.certPEM, e.keyPEM, tags)
}

// cachedStaple returns the OCSP staple of a cached certificate.
func (sc *serverCerts) cachedStaple(name, hash string) []byte {
	for _, c := range sc.cache.AllMatchingCertificates(name) {
		if c.Hash() == hash {
			return c.OCSPStaple
		}
	}
	return nil
}

// refresh re-reads the server's certificates from certmagic's cache,
// where OCSP maintenance updates staples, and plans the next refresh.
func (sc *serverCerts) refresh() {
	if !sc.refreshMu.TryLock() {
		return // another handshake is refreshing; use the current list
	}
	defer sc.refreshMu.Unlock()
	at := sc.refreshAt.Load()
	if at == 0 || time.Now().UnixNano() < at {
		return
	}
	old := *sc.list.Load()
	list := slices.Clone(old)
	for i, e := range sc.entries {
		if e.hash == "" || e.name == "" {
			continue
		}
		for _, c := range sc.cache.AllMatchingCertificates(e.name) {
			if c.Hash() == e.hash {
				cert := c.Certificate
				if cert.OCSPStaple == nil && old[i].OCSPStaple != nil {
					cert.OCSPStaple = old[i].OCSPStaple // an ssl_stapling_file staple
				}
				list[i] = &cert
				break
			}
		}
	}
	sc.list.Store(&list)
	sc.refreshAt.Store(time.Now().Add(stapleRefresh).UnixNano())
}

// staplingConfig is a certmagic config that staples OCSP responses, with
// ssl_stapling_responder as the responder for every URL the server's
// certificates name.
func (ts *Shared) staplingConfig(t *conf.ServerTLS) *certmagic.Config {
	ocsp := certmagic.OCSPConfig{
		// A proxy function makes certmagic use a client with a timeout
		// instead of http.DefaultClient, which has none.
		HTTPProxy: http.ProxyFromEnvironment,
	}
	if t.StaplingResponder != "" {
		ocsp.ResponderOverrides = map[string]string{}
		for _, p := range t.Certificates {
			if leaf, err := parseLeaf(p.CertPEM); err == nil {
				for _, u := range leaf.OCSPServer {
					ocsp.ResponderOverrides[u] = t.StaplingResponder
				}
			}
		}
	}
	return certmagic.New(ts.cache, certmagic.Config{
		OCSP:    ocsp,
		Storage: ts.plain.Storage,
		Logger:  ts.plain.Logger,
	})
}

// localLeaf issues (or reuses) a certificate from edge's local CA.
func (ts *Shared) localLeaf(names []string) (tls.Certificate, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	dir := filepath.Join(dataDir(), "localca")
	if ts.localCA == nil || ts.localCADir != dir {
		ca, err := tlsca.LoadOrCreateLocalCA(dir)
		if err != nil {
			return tls.Certificate{}, err
		}
		ts.localCA, ts.localCADir = ca, dir
	}
	return ts.localCA.Leaf(names)
}

// localCAUse records that a plan serves certificates of the local CA.
type localCAUse struct {
	ca    *tlsca.LocalCA
	names []string
}

func (u *localCAUse) use(ca *tlsca.LocalCA, names []string) {
	u.ca = ca
	for _, n := range names {
		if !slices.Contains(u.names, n) {
			u.names = append(u.names, n)
		}
	}
}

// dataDir is where edge keeps state that is not configuration: the local
// CA and certmagic's OCSP staples. EDGE_DATA_DIR, else
// $XDG_DATA_HOME/edge, else ~/.local/share/edge.
func dataDir() string {
	if d := os.Getenv("EDGE_DATA_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "edge")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "edge-data")
	}
	return filepath.Join(home, ".local", "share", "edge")
}

// logger returns a zap logger that writes certmagic's messages into
// edge's error log, at nginx's levels (certmagic's info lines, such as
// "obtaining certificate", appear with "error_log ... info").
func (ts *Shared) logger() *zap.Logger {
	return zap.New(&errorLogCore{errLog: ts.errLog.Load})
}

// errorLogCore is a zapcore.Core over edge's error log.
type errorLogCore struct {
	errLog func() *logRef
	fields []zapcore.Field
}

func zapLevel(l zapcore.Level) conf.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return conf.LevelDebug
	case l == zapcore.InfoLevel:
		return conf.LevelInfo
	case l == zapcore.WarnLevel:
		return conf.LevelWarn
	}
	return conf.LevelError
}

func (c *errorLogCore) Enabled(l zapcore.Level) bool { return c.errLog().Enabled(zapLevel(l)) }

func (c *errorLogCore) With(fields []zapcore.Field) zapcore.Core {
	return &errorLogCore{errLog: c.errLog, fields: append(slices.Clone(c.fields), fields...)}
}

func (c *errorLogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *errorLogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range append(slices.Clone(c.fields), fields...) {
		f.AddTo(enc)
	}
	var b strings.Builder
	b.WriteString("certmagic: ")
	if e.LoggerName != "" {
		b.WriteString(e.LoggerName)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, ", %s: %v", k, enc.Fields[k])
	}
	c.errLog().Logf(zapLevel(e.Level), "%s", b.String())
	return nil
}

func (c *errorLogCore) Sync() error { return nil }
