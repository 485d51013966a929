// Package tlsca is edge's local development CA, in the spirit of mkcert: an
// ECDSA P-256 root kept in a directory, which the user trusts once, and leaf
// certificates for localhost names issued from it and cached beside it. It
// is what edge serves HTTPS with when run without a configuration.
//
// This file holds the whole CA: creating or loading the root, issuing and
// caching leaves, and the text that tells a user how to trust the root.
package tlsca

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

const (
	rootValidity = 10 * 365 * 24 * time.Hour
	// leafValidity stays under the 398 days browsers accept for server
	// certificates, so a leaf works whichever browser policy applies.
	leafValidity = 365 * 24 * time.Hour
	// leafRenewBefore is how close to expiry a cached leaf is replaced.
	leafRenewBefore = 30 * 24 * time.Hour
	// clockSkew backdates certificates so a machine whose clock is a little
	// behind still accepts them.
	clockSkew = time.Hour
)

// createRaceWait bounds how long a process that lost the race to create the
// root waits for the winner to finish writing it (a variable for tests).
var createRaceWait = 5 * time.Second

// errNoRoot says that neither root file exists yet.
var errNoRoot = errors.New("tlsca: no root yet")

// errHalfWritten says root.key exists without root.crt, which is what
// another process creating the root looks like for a moment.
var errHalfWritten = errors.New("tlsca: root being written")

// LocalCA is an ECDSA P-256 root kept under dir (created 0700), used to
// issue leaf certificates for localhost names.
type LocalCA struct {
	dir  string
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	now  func() time.Time // decides validity and renewal; time.Now outside tests

	mu sync.Mutex // serialises issuing so one process writes a leaf once
}

// LoadOrCreateLocalCA loads the root from dir/root.crt (PEM) and
// dir/root.key (PEM, 0600), or creates both, and dir (0700), when neither
// exists. Several processes starting at once agree on one root: the files
// are published with link(2), which fails when the name exists.
func LoadOrCreateLocalCA(dir string) (*LocalCA, error) {
	return loadOrCreate(dir, time.Now)
}

// loadOrCreate is LoadOrCreateLocalCA with a clock.
func loadOrCreate(dir string, now func() time.Time) (*LocalCA, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("tlsca: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("tlsca: %w", err)
	}
	ca := &LocalCA{dir: abs, now: now}
	err = ca.loadRoot()
	if errors.Is(err, errNoRoot) {
		err = ca.createRoot()
	}
	if errors.Is(err, fs.ErrExist) || errors.Is(err, errHalfWritten) {
		err = ca.waitForRoot()
	}
	if err != nil {
		return nil, err
	}
	return ca, nil
}

// RootPath is the absolute path of the root certificate (PEM), the file a
// user adds to trust stores.
func (ca *LocalCA) RootPath() string { return filepath.Join(ca.dir, "root.crt") }

// Export copies the root certificate (PEM, mode 0644) to path, a place
// outside the CA's directory where trust stores pick it up (in the compose
// stack, a directory of the host). The file is replaced whole, and only
// when it differs; changed says it was written. The key stays in dir.
func (ca *LocalCA) Export(path string) (changed bool, err error) {
	data, err := os.ReadFile(ca.RootPath())
	if err != nil {
		return false, fmt.Errorf("tlsca: %w", err)
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	return true, replaceFile(path, data, 0o644)
}

// keyPath is the root's private key.
func (ca *LocalCA) keyPath() string { return filepath.Join(ca.dir, "root.key") }

// loadRoot reads and checks both root files.
func (ca *LocalCA) loadRoot() error {
	certPEM, certErr := os.ReadFile(ca.RootPath())
	keyPEM, keyErr := os.ReadFile(ca.keyPath())
	switch {
	case errors.Is(certErr, fs.ErrNotExist) && errors.Is(keyErr, fs.ErrNotExist):
		return errNoRoot
	case errors.Is(certErr, fs.ErrNotExist) && keyErr == nil:
		return errHalfWritten
	case certErr != nil:
		return fmt.Errorf("tlsca: %w", certErr)
	case keyErr != nil:
		return fmt.Errorf("tlsca: %s exists but its key cannot be read: %w", ca.RootPath(), keyErr)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("tlsca: root in %s: %w", ca.dir, err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return fmt.Errorf("tlsca: %s: %w", ca.RootPath(), err)
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok || !cert.IsCA {
		return fmt.Errorf("tlsca: %s is not an ECDSA CA certificate", ca.RootPath())
	}
	if ca.now().After(cert.NotAfter) {
		return fmt.Errorf("tlsca: root %s expired on %s; remove it and root.key to make a new one (and trust the new one)",
			ca.RootPath(), cert.NotAfter.Format(time.DateOnly))
	}
	ca.cert, ca.key = cert, key
	return nil
}

// waitForRoot loads the root that a concurrent process is writing.
func (ca *LocalCA) waitForRoot() error {
	// Real time, not ca.now: this waits for another process, it does not
	// judge a certificate.
	deadline := time.Now().Add(createRaceWait)
	for {
		err := ca.loadRoot()
		if !errors.Is(err, errHalfWritten) || time.Now().After(deadline) {
			if errors.Is(err, errHalfWritten) {
				return fmt.Errorf("tlsca: %s exists without root.crt; remove it to make a new root", ca.keyPath())
			}
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// createRoot makes a new root and publishes key then certificate, each
// only if its name is free, so a racing process sees either nothing, a
// key alone (and waits), or both.
func (ca *LocalCA) createRoot() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("tlsca: %w", err)
	}
	now := ca.now()
	who := userAndHost()
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject: pkix.Name{
			Organization:       []string{"edge local development CA"},
			OrganizationalUnit: []string{who},
			CommonName:         "edge local CA " + who,
		},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(rootValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true, // it signs leaves only
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("tlsca: %w", err)
	}
	keyPEM, err := KeyPEM(key)
	if err != nil {
		return err
	}
	if err := publishNew(ca.keyPath(), keyPEM, 0o600); err != nil {
		return err
	}
	if err := publishNew(ca.RootPath(), pemBlock("CERTIFICATE", der), 0o644); err != nil {
		return err
	}
	ca.cert, err = x509.ParseCertificate(der)
	ca.key = key
	return err
}

// Leaf returns an ECDSA P-256 certificate for names (DNS names and IP
// addresses, e.g. localhost, 127.0.0.1, ::1), valid about a year, signed by
// the root, with Leaf set. It is cached as dir/leaf-<hash>.crt and .key,
// the hash covering the root and the set of names, and reissued when
// missing, unreadable, not matching the names or the root, or within 30
// days of expiry.
func (ca *LocalCA) Leaf(names []string) (tls.Certificate, error) {
	names, err := normalizeNames(names)
	if err != nil {
		return tls.Certificate{}, err
	}
	ca.mu.Lock()
	defer ca.mu.Unlock()
	base := filepath.Join(ca.dir, "leaf-"+ca.leafHash(names))
	if cert, ok := ca.cachedLeaf(base, names); ok {
		return cert, nil
	}
	return ca.issueLeaf(base, names)
}

// leafHash names a leaf's files after the root and the sorted names.
func (ca *LocalCA) leafHash(names []string) string {
	h := sha256.New()
	h.Write(ca.cert.Raw)
	for _, n := range sortedCopy(names) {
		h.Write([]byte{0})
		h.Write([]byte(n))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// cachedLeaf loads base.crt/base.key if they still serve: same names,
// chaining to this root, far enough from expiry.
func (ca *LocalCA) cachedLeaf(base string, names []string) (tls.Certificate, bool) {
	cert, err := tls.LoadX509KeyPair(base+".crt", base+".key")
	if err != nil {
		return tls.Certificate{}, false
	}
	if cert.Leaf == nil { // GODEBUG=x509keypairleaf=0
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return tls.Certificate{}, false
		}
	}
	leaf := cert.Leaf
	now := ca.now()
	switch {
	case leaf.NotAfter.Sub(now) < leafRenewBefore,
		!slices.Equal(sortedCopy(sanNames(leaf)), sortedCopy(names)),
		ca.verify(leaf, now) != nil:
		return tls.Certificate{}, false
	}
	return cert, true
}

// verify checks that leaf chains to the root for server use at now.
func (ca *LocalCA) verify(leaf *x509.Certificate, now time.Time) error {
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	_, err := leaf.Verify(x509.VerifyOptions{
		Roots:       roots,
		CurrentTime: now,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	return err
}

// issueLeaf signs a new leaf for names and caches it under base.
func (ca *LocalCA) issueLeaf(base string, names []string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tlsca: %w", err)
	}
	now := ca.now()
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject: pkix.Name{
			Organization:       []string{"edge local development certificate"},
			OrganizationalUnit: []string{userAndHost()},
			CommonName:         names[0], // for people reading it; verifiers use the SANs
		},
		NotBefore:   now.Add(-clockSkew),
		NotAfter:    now.Add(leafValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if tmpl.NotAfter.After(ca.cert.NotAfter) { // never outlive the root
		tmpl.NotAfter = ca.cert.NotAfter
	}
	addNames(tmpl, names)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tlsca: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tlsca: %w", err)
	}
	keyPEM, err := KeyPEM(key)
	if err != nil {
		return tls.Certificate{}, err
	}
	// Key first: a reader that sees a new certificate with an old key
	// rejects the pair and reissues, so a torn update heals itself.
	if err := replaceFile(base+".key", keyPEM, 0o600); err != nil {
		return tls.Certificate{}, err
	}
	if err := replaceFile(base+".crt", pemBlock("CERTIFICATE", der), 0o644); err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// normalizeNames lowercases DNS names, writes IP addresses canonically,
// drops repeats and rejects what cannot go into a certificate, keeping the
// order given (the first becomes the subject's common name).
func normalizeNames(names []string) ([]string, error) {
	var out []string
	for _, raw := range names {
		n, err := normalizeName(raw)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("tlsca: a leaf certificate needs at least one name")
	}
	return out, nil
}

// normalizeName checks and canonicalises one name.
func normalizeName(raw string) (string, error) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(raw)), ".")
	if ip, err := netip.ParseAddr(strings.Trim(n, "[]")); err == nil {
		if ip.Zone() != "" {
			return "", fmt.Errorf("tlsca: invalid name %q: an address with a zone cannot go into a certificate", raw)
		}
		return ip.Unmap().String(), nil
	}
	labels := strings.Split(n, ".")
	for i, l := range labels {
		if l == "*" && i == 0 && len(labels) > 1 {
			continue
		}
		if l == "" || len(l) > 63 || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return "", fmt.Errorf("tlsca: invalid name %q", raw)
		}
	}
	return n, nil
}

// sanNames lists a certificate's DNS and IP names as normalizeName writes them.
func sanNames(c *x509.Certificate) []string {
	names := slices.Clone(c.DNSNames)
	for _, ip := range c.IPAddresses {
		if a, ok := netip.AddrFromSlice(ip); ok {
			names = append(names, a.Unmap().String())
		}
	}
	return names
}

// sortedCopy returns names sorted, leaving the argument alone.
func sortedCopy(names []string) []string {
	s := slices.Clone(names)
	slices.Sort(s)
	return s
}

// TrustHint tells a user how to make clients trust the root: on Debian
// system-wide, with curl for one request, and in Firefox and Chrome/Chromium
// (which read their own NSS databases on Linux).
func (ca *LocalCA) TrustHint() string {
	root := shellQuote(ca.RootPath())
	var b strings.Builder
	fmt.Fprintf(&b, "edge's local CA is %s. To trust it:\n", ca.RootPath())
	fmt.Fprintf(&b, "  Debian/Ubuntu, system-wide (curl, wget, PHP, Go, ...):\n")
	fmt.Fprintf(&b, "    sudo cp %s /usr/local/share/ca-certificates/edge-local.crt && sudo update-ca-certificates\n", root)
	fmt.Fprintf(&b, "  curl, for one request:\n")
	fmt.Fprintf(&b, "    curl --cacert %s https://localhost/\n", root)
	fmt.Fprintf(&b, "  Chrome/Chromium (apt install libnss3-tools for certutil):\n")
	fmt.Fprintf(&b, "    certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n edge-local -i %s\n", root)
	fmt.Fprintf(&b, "  Firefox, for each profile directory under ~/.mozilla/firefox:\n")
	fmt.Fprintf(&b, "    certutil -d sql:$HOME/.mozilla/firefox/PROFILE -A -t C,, -n edge-local -i %s\n", root)
	fmt.Fprintf(&b, "Keep %s private: whoever has it can impersonate any site to clients that trust this root.\n", ca.keyPath())
	return b.String()
}

// shellQuote quotes a path for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// userAndHost names who made a certificate, so several local roots in one
// trust store can be told apart.
func userAndHost() string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	return name + "@" + host
}

// randomSerial returns a random positive 128-bit serial number.
func randomSerial() *big.Int {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return serial.Add(serial, big.NewInt(1))
}

// pemBlock encodes one PEM block.
func pemBlock(typ string, der []byte) []byte {
	var b bytes.Buffer
	pem.Encode(&b, &pem.Block{Type: typ, Bytes: der})
	return b.Bytes()
}

// writeTemp writes data with perm to a new temporary file next to path,
// flushed to disk, and returns its name.
func writeTemp(path string, data []byte, perm fs.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("tlsca: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("tlsca: %w", err)
	}
	return f.Name(), nil
}

// publishNew puts data at path complete or not at all, failing with an
// error matching fs.ErrExist when path already exists.
func publishNew(path string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		return fmt.Errorf("tlsca: %w", err)
	}
	return nil
}

// replaceFile puts data at path complete, replacing what was there.
func replaceFile(path string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("tlsca: %w", err)
	}
	return nil
}
