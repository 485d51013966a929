// sslciphers_test.go checks ssl_ciphers against the seeds' strings and
// against OpenSSL's own "openssl ciphers", and ssl_protocols and
// ssl_ecdh_curve against nginx's values.

package conf

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// Go's IDs for the suites the tests expect, by OpenSSL name.
const (
	ecdsaAES128GCM = tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
	ecdsaAES256GCM = tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
	rsaAES128GCM   = tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
	rsaAES256GCM   = tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
	ecdsaCHACHA    = tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
	rsaCHACHA      = tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256
	ecdsaAES128SHA = tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA
	ecdsaAES256SHA = tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA
	rsaAES128SHA   = tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA
	rsaAES256SHA   = tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA
)

// sslAllGo is what ALL, HIGH or DEFAULT leave for Go: OpenSSL's order,
// ECDHE AEAD first, 256-bit before 128-bit within each tier.
var sslAllGo = []uint16{
	ecdsaAES256GCM, rsaAES256GCM, ecdsaCHACHA, rsaCHACHA, ecdsaAES128GCM, rsaAES128GCM,
	ecdsaAES256SHA, rsaAES256SHA, ecdsaAES128SHA, rsaAES128SHA,
}

const mozillaIntermediate = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:" +
	"ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:" +
	"ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:" +
	"DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305"

func TestParseSSLCiphers(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   []uint16
		warn   []string // each must appear in some warning
		noWarn []string // none may appear in any warning
		exact  bool     // no warnings other than warn
	}{
		{
			name:   "seed 000",
			in:     "ALL:!kEDH!ADH:RC4+RSA:+HIGH:+SSLv2:+EXP",
			want:   sslAllGo,
			warn:   []string{"RC4 suites", "EXPORT suites", "3DES suites", "anonymous suites", `"SSLv2" selects nothing`, "kRSA"},
			noWarn: []string{"DHE suites"}, // !kEDH removed them
		},
		{
			name: "seed 000 with MEDIUM and LOW",
			in:   "ALL:!kEDH!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP",
			want: sslAllGo,
			warn: []string{"RC4 suites", "single-DES suites (LOW)"},
		},
		{
			name:   "nginx default",
			in:     "HIGH:!aNULL:!MD5",
			want:   sslAllGo,
			warn:   []string{"DHE suites (kEDH) are not supported by Go's crypto/tls; ECDHE is used instead", "kRSA"},
			noWarn: []string{"RC4", "3DES", "anonymous", "EXPORT"},
		},
		{
			name:  "Mozilla intermediate",
			in:    mozillaIntermediate,
			want:  []uint16{ecdsaAES128GCM, rsaAES128GCM, ecdsaAES256GCM, rsaAES256GCM, ecdsaCHACHA, rsaCHACHA},
			warn:  []string{"DHE suites (kEDH)"},
			exact: true,
		},
		{
			name:  "ECDHE+AESGCM",
			in:    "ECDHE+AESGCM",
			want:  []uint16{ecdsaAES256GCM, rsaAES256GCM, ecdsaAES128GCM, rsaAES128GCM},
			exact: true,
		},
		{
			name:  "EECDH+AESGCM:EDH+AESGCM",
			in:    "EECDH+AESGCM:EDH+AESGCM",
			want:  []uint16{ecdsaAES256GCM, rsaAES256GCM, ecdsaAES128GCM, rsaAES128GCM},
			warn:  []string{"DHE suites"},
			exact: true,
		},
		{
			name:   "DEFAULT",
			in:     "DEFAULT",
			want:   sslAllGo,
			warn:   []string{"DHE suites"},
			noWarn: []string{"anonymous", "RC4", "3DES", "NULL"},
		},
		{
			name: "DEFAULT with more rules",
			in:   "DEFAULT:!DHE:!kRSA:!PSK:!SRP:!SHA256:!SHA384",
			want: sslAllGo,
		},
		{
			name:  "+ moves to the end",
			in:    "ECDHE+AESGCM:+AES256",
			want:  []uint16{ecdsaAES128GCM, rsaAES128GCM, ecdsaAES256GCM, rsaAES256GCM},
			exact: true,
		},
		{
			name:  "+ after a name",
			in:    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256:+ECDHE-RSA-AES256-GCM-SHA384",
			want:  []uint16{ecdsaAES128GCM, rsaAES256GCM},
			exact: true,
		},
		{
			name:  "- deletes and a later add appends",
			in:    "ECDHE+AESGCM:-AES256:ECDHE+AESGCM",
			want:  []uint16{ecdsaAES128GCM, rsaAES128GCM, ecdsaAES256GCM, rsaAES256GCM},
			exact: true,
		},
		{
			name:  "! deletes for good",
			in:    "ECDHE+AESGCM:!AES256:AES256+ECDHE",
			want:  []uint16{ecdsaAES128GCM, rsaAES128GCM},
			exact: true,
		},
		{
			name:  "a known name may be followed by the next element directly",
			in:    "ECDHE+AESGCM!AES256",
			want:  []uint16{ecdsaAES128GCM, rsaAES128GCM},
			exact: true,
		},
		{
			name:  "name order kept",
			in:    "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-SHA",
			want:  []uint16{rsaAES128GCM, rsaAES256SHA},
			exact: true,
		},
		{
			name:  "@STRENGTH",
			in:    "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-SHA:@STRENGTH",
			want:  []uint16{rsaAES256SHA, rsaAES128GCM},
			exact: true,
		},
		{
			name:  "@STRENGTH applies where it stands",
			in:    "ECDHE-RSA-AES128-GCM-SHA256:@STRENGTH:ECDHE-RSA-AES256-SHA",
			want:  []uint16{rsaAES128GCM, rsaAES256SHA},
			exact: true,
		},
		{
			name:  "@SECLEVEL=3 drops suites without forward secrecy",
			in:    "AES128-SHA:ECDHE-RSA-AES128-SHA:@SECLEVEL=3",
			want:  []uint16{rsaAES128SHA},
			exact: true,
		},
		{
			name:  "@SECLEVEL=4 drops 128-bit suites",
			in:    "ECDHE+AESGCM:@SECLEVEL=4",
			want:  []uint16{ecdsaAES256GCM, rsaAES256GCM},
			exact: true,
		},
		{
			name:  "insecure suite named explicitly",
			in:    "ECDHE-RSA-AES128-GCM-SHA256:AES128-SHA",
			want:  []uint16{rsaAES128GCM, tls.TLS_RSA_WITH_AES_128_CBC_SHA},
			warn:  []string{`"AES128-SHA" is insecure`},
			exact: true,
		},
		{
			name:  "3DES named explicitly",
			in:    "ECDHE+AESGCM:DES-CBC3-SHA",
			want:  []uint16{ecdsaAES256GCM, rsaAES256GCM, ecdsaAES128GCM, rsaAES128GCM, tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA},
			warn:  []string{`"DES-CBC3-SHA" is insecure`},
			exact: true,
		},
		{
			name:  "3DES by alias is left out",
			in:    "ECDHE+AESGCM:3DES",
			want:  []uint16{ecdsaAES256GCM, rsaAES256GCM, ecdsaAES128GCM, rsaAES128GCM},
			warn:  []string{"3DES suites", "anonymous", "DHE suites"},
			exact: true,
		},
		{
			name:  "RC4 by alias is left out",
			in:    "ECDHE+AESGCM:RC4+RSA",
			want:  []uint16{ecdsaAES256GCM, rsaAES256GCM, ecdsaAES128GCM, rsaAES128GCM},
			warn:  []string{"RC4 suites", "EXPORT"},
			exact: true,
		},
		{
			name:  "eNULL and aNULL",
			in:    "ECDHE+AESGCM:eNULL:aNULL:!EXP:!kEDH",
			want:  []uint16{ecdsaAES256GCM, rsaAES256GCM, ecdsaAES128GCM, rsaAES128GCM},
			warn:  []string{"NULL-encryption suites (eNULL)", "anonymous suites (aNULL, ADH, AECDH)"},
			exact: true,
		},
		{
			name: "OpenSSL 1.1 name of an old suite",
			in:   "ECDHE+AESGCM:DHE-RSA-DES-CBC3-SHA",
			want: []uint16{ecdsaAES256GCM, rsaAES256GCM, ecdsaAES128GCM, rsaAES128GCM},
			warn: []string{"DHE suites"},
		},
		{
			name:  "unknown name ignored up to the separator",
			in:    "FOO!ECDHE+AESGCM:ECDHE-RSA-AES128-GCM-SHA256",
			want:  []uint16{rsaAES128GCM},
			warn:  []string{`unknown cipher or alias "FOO", so "FOO!ECDHE+AESGCM" is ignored`},
			exact: true,
		},
		{
			name:  "TLS 1.3 name",
			in:    "TLS_AES_128_GCM_SHA256:ECDHE-RSA-AES128-GCM-SHA256",
			want:  []uint16{rsaAES128GCM},
			warn:  []string{`"TLS_AES_128_GCM_SHA256" is a TLS 1.3 suite`},
			exact: true,
		},
		{
			name:  "DEFAULT after the start",
			in:    "ECDHE-RSA-AES128-GCM-SHA256:DEFAULT",
			want:  []uint16{rsaAES128GCM},
			warn:  []string{`"DEFAULT" is only understood at the start`},
			exact: true,
		},
		{
			name:  "parts that exclude each other",
			in:    "kRSA+ECDHE:ECDHE-RSA-AES128-GCM-SHA256",
			want:  []uint16{rsaAES128GCM},
			warn:  []string{`"kRSA+ECDHE" selects nothing`},
			exact: true,
		},
		{
			name:  "comma and space separators",
			in:    "ECDHE-RSA-AES128-GCM-SHA256, ECDHE-ECDSA-AES128-GCM-SHA256 ECDHE-RSA-CHACHA20-POLY1305",
			want:  []uint16{rsaAES128GCM, ecdsaAES128GCM, rsaCHACHA},
			exact: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSSLCiphers(tt.in)
			if err != nil {
				t.Fatalf("ParseSSLCiphers(%q): %v", tt.in, err)
			}
			if !slices.Equal(got.Suites, tt.want) {
				t.Errorf("suites\n got %s\nwant %s", suiteNames(got.Suites), suiteNames(tt.want))
			}
			checkWarnings(t, got.Warnings, tt.warn, tt.noWarn, tt.exact)
		})
	}
}

// checkWarnings checks that every want is in some warning, no noWant is in
// any, and with exact that every warning is wanted.
func checkWarnings(t *testing.T, got, want, noWant []string, exact bool) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
			t.Errorf("no warning contains %q; warnings:\n%s", w, strings.Join(got, "\n"))
		}
	}
	for _, g := range got {
		if !strings.HasPrefix(g, "ssl_ciphers: ") {
			t.Errorf("warning %q does not start with the directive name", g)
		}
		for _, n := range noWant {
			if strings.Contains(g, n) {
				t.Errorf("unexpected warning %q", g)
			}
		}
		wanted := slices.ContainsFunc(want, func(w string) bool { return strings.Contains(g, w) })
		if exact && !wanted {
			t.Errorf("unexpected warning %q", g)
		}
	}
}

func suiteNames(ids []uint16) string {
	var names []string
	for _, id := range ids {
		names = append(names, tls.CipherSuiteName(id))
	}
	return strings.Join(names, " ")
}

func TestParseSSLCiphersErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"!ALL", `conf: ssl_ciphers "!ALL" selects no cipher suites`},
		{"", `selects no cipher suites`},
		{"BOGUS", `selects no cipher suites`},
		{"RC4-MD5", `selects no cipher suite that Go's crypto/tls supports, only RC4 suites`},
		{"kEDH:ADH", `only EXPORT, aNULL and DHE suites`},
		{"CAMELLIA+ECDHE", `only CAMELLIA suites`},
		{"HIGH:$x", `unexpected '$' at offset 5`},
		{"RC4+", `a name is missing at the end`},
		{"HIGH:!:MEDIUM", `unexpected ':'`},
		{"HIGH:@FOO", `unknown command "@FOO"`},
		{"HIGH:@SECLEVEL=9", `unknown command "@SECLEVEL=9"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseSSLCiphers(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseSSLCiphers(%q) error = %v, want it to contain %q", tt.in, err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "conf: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

// TestParseSSLCiphersOnlyGoSafeSuites checks, over many strings, that no
// suite Go calls insecure comes out unless it was named on its own.
func TestParseSSLCiphersOnlyGoSafeSuites(t *testing.T) {
	for _, in := range []string{
		"ALL", "ALL:COMPLEMENTOFALL", "HIGH:MEDIUM:LOW:EXP", "RSA:ECDHE", "RC4:3DES:ECDHE",
		"ALL:+RC4:@STRENGTH", "SHA256:SHA384:ECDHE+AESGCM", "DEFAULT:RC4-MD5:ECDHE",
	} {
		res, err := ParseSSLCiphers(in)
		if err != nil {
			t.Fatalf("ParseSSLCiphers(%q): %v", in, err)
		}
		for _, id := range res.Suites {
			if insecure, ok := sslGoSuites[id]; !ok || insecure {
				t.Errorf("ParseSSLCiphers(%q) returned %s", in, tls.CipherSuiteName(id))
			}
		}
	}
}

// TestSSLCipherOrderMatchesOpenSSL runs the same strings through the
// machine's "openssl ciphers" and compares the order of the suites both know.
// OpenSSL 3 no longer has RC4, DES or export suites, so those are compared
// only where this code has them too.
func TestSSLCipherOrderMatchesOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatalf("openssl is needed to compare cipher strings (apt-get install openssl): %v", err)
	}
	for _, in := range []string{
		"ALL", "ALL:COMPLEMENTOFALL", "HIGH:!aNULL:!MD5", "DEFAULT", "COMPLEMENTOFDEFAULT",
		"ECDHE+AESGCM", "ALL:!kEDH!ADH:RC4+RSA:+HIGH:+SSLv2:+EXP", "ALL:@STRENGTH",
		"ALL:+AES128:@STRENGTH", "ALL:-AES:+AES128:AES", "RSA:DH:ECDH:PSK", "TLSv1:SSLv3",
		"aRSA:+SHA1", "kRSA+AESGCM+AES256", "ECDHE+AES+SHA:AES128-SHA:!ECDSA",
		"AES:CAMELLIA:ARIA:!aNULL:@STRENGTH", mozillaIntermediate, "EECDH+AESGCM:EDH+AESGCM",
		"DEFAULT:!DHE:+SHA256", "ALL:-ECDHE:ECDHE+AES128", "SRP:aDSS", "ALL:!AESGCM+AES256",
		"TLSv1.2:-ECDSA:ECDSA", "AESCCM8:CHACHA20:SHA384:+kDHE", "ALL:!COMPLEMENTOFDEFAULT:+MEDIUM",
	} {
		out, err := exec.Command("openssl", "ciphers", in).CombinedOutput()
		if err != nil {
			t.Errorf("openssl ciphers %q: %v\n%s", in, err, out)
			continue
		}
		suites, _, _, err := sslOpenSSLOrder(in)
		if err != nil {
			t.Errorf("sslOpenSSLOrder(%q): %v", in, err)
			continue
		}
		var want []string
		for _, name := range strings.Split(strings.TrimSpace(string(out)), ":") {
			if strings.HasPrefix(name, "TLS_") { // TLS 1.3, always listed
				continue
			}
			if sslSuitesByName[name] == nil {
				t.Errorf("openssl lists %q, which the suite table lacks", name)
			}
			want = append(want, name)
		}
		var got []string
		for _, s := range suites {
			if slices.Contains(want, s.name) {
				got = append(got, s.name)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %v\nwant %v", in, got, want)
		}
	}
}

// TestParseSSLCiphersHandshake checks that Go accepts the result: a TLS 1.2
// server configured from the seed's string negotiates an ECDHE AEAD suite.
func TestParseSSLCiphersHandshake(t *testing.T) {
	res, err := ParseSSLCiphers("ALL:!kEDH!ADH:RC4+RSA:+HIGH:+SSLv2:+EXP")
	if err != nil {
		t.Fatal(err)
	}
	cert, pool := selfSignedECDSA(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{cert},
		CipherSuites: res.Suites,
		MaxVersion:   tls.VersionTLS12,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.(*tls.Conn).Handshake()
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st := c.ConnectionState()
	if st.Version != tls.VersionTLS12 || !slices.Contains(res.Suites, st.CipherSuite) {
		t.Fatalf("negotiated %x %s, want TLS 1.2 and one of %s", st.Version, tls.CipherSuiteName(st.CipherSuite), suiteNames(res.Suites))
	}
	if !strings.HasPrefix(tls.CipherSuiteName(st.CipherSuite), "TLS_ECDHE_ECDSA_WITH_AES_") || !strings.Contains(tls.CipherSuiteName(st.CipherSuite), "GCM") {
		t.Errorf("negotiated %s, want ECDHE-ECDSA AES-GCM", tls.CipherSuiteName(st.CipherSuite))
	}
}

// selfSignedECDSA makes a throwaway certificate for "localhost".
func selfSignedECDSA(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

func TestParseSSLProtocols(t *testing.T) {
	tests := []struct {
		args     []string
		min, max uint16
		warnings int
		err      string
	}{
		{args: []string{"TLSv1.2", "TLSv1.3"}, min: tls.VersionTLS12, max: tls.VersionTLS13},
		{args: []string{"TLSv1.3", "TLSv1.2"}, min: tls.VersionTLS12, max: tls.VersionTLS13},
		{args: []string{"TLSv1.3"}, min: tls.VersionTLS13, max: tls.VersionTLS13},
		{args: []string{"tlsv1.2"}, min: tls.VersionTLS12, max: tls.VersionTLS12},
		{args: []string{"TLSv1.2", "TLSv1.2"}, min: tls.VersionTLS12, max: tls.VersionTLS12, warnings: 1},
		{args: []string{"TLSv1", "TLSv1.1", "TLSv1.2"}, err: "conf: ssl_protocols: TLSv1 is not offered by edge (Go's crypto/tls"},
		{args: []string{"TLSv1.2", "TLSv1.1"}, err: "TLSv1.1 is not offered by edge"},
		{args: []string{"SSLv3", "TLSv1.2"}, err: "conf: ssl_protocols: SSLv3 is not implemented by Go's crypto/tls"},
		{args: []string{"SSLv2"}, err: "SSLv2 is not implemented by Go's crypto/tls"},
		{args: []string{"TLSv1.4"}, err: `conf: ssl_protocols: invalid value "TLSv1.4"`},
		{args: nil, err: "needs at least one protocol"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			min, max, warnings, err := ParseSSLProtocols(tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if min != tt.min || max != tt.max || len(warnings) != tt.warnings {
				t.Errorf("got %x..%x %q, want %x..%x and %d warnings", min, max, warnings, tt.min, tt.max, tt.warnings)
			}
		})
	}
}

func TestParseSSLCurves(t *testing.T) {
	tests := []struct {
		in   string
		want []tls.CurveID
		err  string
	}{
		{in: "auto", want: nil},
		{in: "X25519:prime256v1", want: []tls.CurveID{tls.X25519, tls.CurveP256}},
		{in: "X25519MLKEM768:X25519:secp256r1", want: []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256}},
		{in: "P-256:P-384:P-521", want: []tls.CurveID{tls.CurveP256, tls.CurveP384, tls.CurveP521}},
		{in: "secp384r1", want: []tls.CurveID{tls.CurveP384}},
		{in: "secp521r1:x25519", want: []tls.CurveID{tls.CurveP521, tls.X25519}},
		{in: "X448", err: `unknown or unsupported curve "X448"`},
		{in: "X25519:brainpoolP256r1", err: `"brainpoolP256r1"`},
		{in: "X25519::P-256", err: "empty curve name"},
		{in: "X25519:x25519", err: `curve "x25519" is listed twice`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSSLCurves(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "conf: ssl_ecdh_curve") {
					t.Fatalf("error = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
