// Tests of the ssl_* and acme_* directives' load-time checks: each case is
// a configuration and the [emerg] it must give (nginx's wording where
// nginx has the check), or the settings it must produce. Certificates are
// made per test run, so no key material lives in the repository.
package conf

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testCertFiles are ec.crt/ec.key, rsa.crt/rsa.key, an encrypted copy of
// the ECDSA key (ec.enc.key, password "secret"), password files and nginx
// ticket key files, made once per test run.
var testCertFiles = sync.OnceValues(func() (map[string][]byte, error) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		"password.txt": []byte("wrong\nsecret\n"),
		"bad-pass.txt": []byte("wrong\n"),
		"ticket48.key": make([]byte, 48),
		"ticket80.key": bytes.Repeat([]byte{1}, 80),
		"ticket50.key": make([]byte, 50),
	}
	for name, key := range map[string]crypto.Signer{"ec": ecKey, "rsa": rsaKey} {
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(1),
			Subject:      pkix.Name{CommonName: "example.com"},
			DNSNames:     []string{"example.com", "www.example.com"},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(24 * time.Hour),
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
		if err != nil {
			return nil, err
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, err
		}
		files[name+".crt"] = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		files[name+".key"] = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	}
	ecDER, err := x509.MarshalECPrivateKey(ecKey)
	if err != nil {
		return nil, err
	}
	enc, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", ecDER, []byte("secret"), x509.PEMCipherAES256) //nolint:staticcheck // nginx's traditional format
	if err != nil {
		return nil, err
	}
	files["ec.enc.key"] = pem.EncodeToMemory(enc)
	return files, nil
})

// writeTestCerts writes testCertFiles into dir.
func writeTestCerts(t *testing.T, dir string) {
	t.Helper()
	files, err := testCertFiles()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// loadTLSConf loads "events{} http{ BODY }" from a temp dir that holds the
// test certificates.
func loadTLSConf(t *testing.T, body string) (*Plan, string, error) {
	t.Helper()
	dir := t.TempDir()
	writeTestCerts(t, dir)
	path := filepath.Join(dir, "edge.conf")
	if err := os.WriteFile(path, []byte("events {}\nhttp {\n"+body+"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Load(path, LoadOptions{Prefix: dir})
	return plan, dir, err
}

func TestSSLLoadErrors(t *testing.T) {
	const srv = "listen 127.0.0.1:8443 ssl; server_name example.com; "
	const pair = "ssl_certificate ec.crt; ssl_certificate_key ec.key; "
	tests := []struct {
		name, body, want string
	}{
		{"SSLv3 refused", "ssl_protocols SSLv3 TLSv1.2;",
			"ssl_protocols: SSLv3 is not implemented by Go's crypto/tls, so edge does not offer it; use TLSv1.2 and TLSv1.3 in DIR/edge.conf:3"},
		{"TLSv1.1 refused", "server { " + srv + pair + "ssl_protocols TLSv1.1 TLSv1.2; }",
			"ssl_protocols: TLSv1.1 is not offered by edge"},
		{"no certificate", "server { " + srv + "}",
			"no \"ssl_certificate\" is defined for the \"listen ... ssl\" directive in DIR/edge.conf:3"},
		{"no key", "server { " + srv + "ssl_certificate ec.crt; }",
			"no \"ssl_certificate_key\" is defined for certificate \"DIR/ec.crt\""},
		{"missing file", "server { " + srv + "ssl_certificate nope.crt; ssl_certificate_key ec.key; }",
			"cannot load certificate \"DIR/nope.crt\": open() failed (2: No such file or directory) in DIR/edge.conf:3"},
		{"key mismatch", "server { " + srv + "ssl_certificate ec.crt; ssl_certificate_key rsa.key; }",
			"cannot load certificate key \"DIR/rsa.key\": "},
		{"encrypted key without password file", "server { " + srv + "ssl_certificate ec.crt; ssl_certificate_key ec.enc.key; }",
			"the key is encrypted and no \"ssl_password_file\" is given"},
		{"wrong password", "server { " + srv + "ssl_certificate ec.crt; ssl_certificate_key ec.enc.key; ssl_password_file bad-pass.txt; }",
			"no password in \"ssl_password_file\" decrypts the key"},
		{"variables", "server { " + srv + "ssl_certificate $ssl_server_name.crt; ssl_certificate_key ec.key; }",
			"variables in \"ssl_certificate\" are not supported by edge"},
		{"acme variable without acme_certificate", "server { " + srv + "ssl_certificate $acme_certificate; ssl_certificate_key $acme_certificate_key; }",
			"\"ssl_certificate $acme_certificate\" needs an \"acme_certificate\" directive in the same server"},
		{"unknown issuer", "server { " + srv + "acme_certificate nope; ssl_certificate $acme_certificate; ssl_certificate_key $acme_certificate_key; }",
			"no \"acme_issuer\" is defined for \"nope\""},
		{"issuer without uri", "acme_issuer le { contact a@b.test; }",
			"\"uri\" is missing in acme_issuer \"le\""},
		{"tls-alpn challenge", "acme_issuer le { uri https://x.test/dir; challenge tls-alpn-01; }",
			"\"challenge tls-alpn-01\" is not supported by edge"},
		{"only DHE", "ssl_ciphers DHE-RSA-AES128-GCM-SHA256;",
			"ssl_ciphers \"DHE-RSA-AES128-GCM-SHA256\" selects no cipher suite that Go's crypto/tls supports, only DHE suites"},
		{"bad session cache", "ssl_session_cache shared:SSL;",
			"invalid session cache \"shared:SSL\""},
		{"small session cache", "ssl_session_cache shared:SSL:1k;",
			"session cache \"shared:SSL:1k\" is too small"},
		{"ticket key size", "ssl_session_ticket_key ticket50.key;",
			"\"DIR/ticket50.key\" must be 48 or 80 bytes"},
		{"ticket key missing", "ssl_session_ticket_key nope.key;",
			"open() \"DIR/nope.key\" failed (2: No such file or directory)"},
		{"ssl on", "server { ssl on; }",
			"the \"ssl\" directive is not supported by edge: use \"listen ... ssl\""},
		{"bad curve", "ssl_ecdh_curve X25519:brainpoolP256r1;",
			"unknown or unsupported curve \"brainpoolP256r1\""},
		{"duplicate", "ssl_protocols TLSv1.2; ssl_protocols TLSv1.3;",
			"\"ssl_protocols\" directive is duplicate"},
		{"stapling responder over https", "ssl_stapling_responder https://ocsp.test/;",
			"invalid URL prefix in \"https://ocsp.test/\""},
		{"not in location", "server { location / { ssl_protocols TLSv1.2; } }",
			"\"ssl_protocols\" directive is not allowed here"},
		{"acme_certificate at http level", "acme_certificate le;",
			"\"acme_certificate\" directive is not allowed here"},
		{"acme wildcard identifier", "server { " + srv + "acme_certificate le *.example.com; }",
			"invalid identifier \"*.example.com\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, dir, err := loadTLSConf(t, tt.body)
			if err == nil {
				t.Fatalf("loaded without error; want %q", tt.want)
			}
			got := strings.ReplaceAll(err.Error(), dir, "DIR")
			if !strings.Contains(got, tt.want) {
				t.Errorf("error\n  %s\nwant it to contain\n  %s", got, tt.want)
			}
		})
	}
}

func TestSSLSettings(t *testing.T) {
	const srv = "listen 127.0.0.1:8443 ssl; server_name example.com; "
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, s *ServerTLS)
	}{
		{"encrypted key with password file", "server { " + srv + "ssl_certificate ec.crt; ssl_certificate_key ec.enc.key; ssl_password_file password.txt; }",
			func(t *testing.T, s *ServerTLS) {
				p := s.Certificates[0]
				if _, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM); err != nil {
					t.Errorf("decrypted pair does not load: %v", err)
				}
			}},
		{"data: values", "server { " + srv + "ssl_certificate data:CERT; ssl_certificate_key data:KEY; }",
			func(t *testing.T, s *ServerTLS) {
				if s.Certificates[0].KeyType != "ECDSA P-256" {
					t.Errorf("key type %q", s.Certificates[0].KeyType)
				}
			}},
		{"ticket keys keep their order", "ssl_session_ticket_key ticket80.key; ssl_session_ticket_key ticket48.key; server { " + srv + "ssl_certificate ec.crt; ssl_certificate_key ec.key; }",
			func(t *testing.T, s *ServerTLS) {
				if len(s.TicketKeys) != 2 || !strings.HasSuffix(s.TicketKeyFiles[0], "ticket80.key") || s.TicketKeys[0] == s.TicketKeys[1] {
					t.Errorf("ticket keys %v", s.TicketKeyFiles)
				}
			}},
		{"reject_handshake needs no certificate", "server { " + srv + "ssl_reject_handshake on; }",
			func(t *testing.T, s *ServerTLS) {
				if !s.RejectHandshake || len(s.Certificates) != 0 {
					t.Errorf("reject=%v certs=%d", s.RejectHandshake, len(s.Certificates))
				}
			}},
		{"http2 off at http level", "http2 off; server { " + srv + "ssl_certificate ec.crt; ssl_certificate_key ec.key; }",
			func(t *testing.T, s *ServerTLS) {
				if s.HTTP2 {
					t.Error("h2 offered despite http2 off")
				}
			}},
		{"acme identifiers and key", "acme_issuer le { uri https://acme.test/dir; state_path off; } server { " + srv +
			"acme_certificate le example.com api.example.com key=rsa:4096; ssl_certificate $acme_certificate; ssl_certificate_key $acme_certificate_key; }",
			func(t *testing.T, s *ServerTLS) {
				a := s.ACME
				if a == nil || a.Issuer.URI != "https://acme.test/dir" || a.Issuer.StatePath != "" ||
					strings.Join(a.Identifiers, ",") != "example.com,api.example.com" || a.KeyType != "rsa:4096" || !s.Certificates[0].ACME {
					t.Errorf("acme %+v", a)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if strings.Contains(body, "data:CERT") {
				dir := t.TempDir()
				writeTestCerts(t, dir)
				cert, _ := os.ReadFile(filepath.Join(dir, "ec.crt"))
				key, _ := os.ReadFile(filepath.Join(dir, "ec.key"))
				body = strings.NewReplacer("data:CERT", quoteWord("data:"+string(cert)), "data:KEY", quoteWord("data:"+string(key))).Replace(body)
			}
			plan, _, err := loadTLSConf(t, body)
			if err != nil {
				t.Fatal(err)
			}
			s := plan.HTTP.Servers[len(plan.HTTP.Servers)-1]
			if s.TLS == nil {
				t.Fatal("no TLS settings")
			}
			tt.check(t, s.TLS)
		})
	}
}
