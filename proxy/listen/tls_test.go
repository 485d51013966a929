// Tests of TLS termination on a real Server bound to loopback ports, with
// Go's crypto/tls as the client: server choice by SNI, certificate choice
// (ECDSA before RSA), ALPN, session tickets (timeout, other server, keys
// shared by two servers), OCSP stapling against a local responder, the
// local CA for localhost, reloads. The handshake benchmark and the
// ticket sealer's table are in tlsterm.
package listen_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"

	"edge/conf"
	"edge/proxy/internal/plantest"
	"edge/proxy/listen"
	"edge/testenv"
)

// tlsSite is a Server serving a configuration from a temp dir.
type tlsSite struct {
	dir   string
	pki   *testenv.PKI
	srv   *listen.Server
	port  int // substituted for {{PORT}}
	port2 int // substituted for {{PORT2}}
}

// newTLSSite makes the dir, the PKI (ec = example.com ECDSA, rsa = the
// same names RSA, other = other.test ECDSA) and free ports.
func newTLSSite(t *testing.T) *tlsSite {
	t.Helper()
	t.Setenv("EDGE_DATA_DIR", t.TempDir())
	dir := t.TempDir()
	s := &tlsSite{dir: dir, port: testenv.FreePort(t), port2: testenv.FreePort(t)}
	s.pki = testenv.NewPKI(t, dir)
	s.pki.Leaf(t, "ec", false, "example.com", "www.example.com")
	s.pki.Leaf(t, "rsa", true, "example.com", "www.example.com")
	s.pki.Leaf(t, "other", false, "other.test")
	s.pki.Leaf(t, "plain", false, "plain.test")
	testenv.WriteFile(t, filepath.Join(dir, "html", "index.html"), []byte("hello\n"), 0o600)
	return s
}

// plan compiles an http{} body (with {{PORT}}, {{PORT2}}, {{DIR}}).
func (s *tlsSite) plan(t *testing.T, httpBody string) *conf.Plan {
	t.Helper()
	text := "daemon off; error_log stderr " + tlsTestLogLevel + "; pid off;\nevents {}\nhttp {\naccess_log off;\n" + httpBody + "\n}\n"
	text = strings.NewReplacer("{{PORT}}", fmt.Sprint(s.port), "{{PORT2}}", fmt.Sprint(s.port2), "{{DIR}}", s.dir).Replace(text)
	return plantest.Load(t, s.dir, text)
}

// start applies a plan to a new Server.
func (s *tlsSite) start(t *testing.T, httpBody string) {
	t.Helper()
	s.srv = listen.NewServer(listen.Options{})
	if err := s.srv.Apply(s.plan(t, httpBody)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.srv.Close)
}

// dial makes a TLS connection with cfg (RootCAs default to the test CA)
// and reads one response so that TLS 1.3 session tickets arrive.
func (s *tlsSite) dial(t *testing.T, port int, cfg *tls.Config) tls.ConnectionState {
	t.Helper()
	if cfg.RootCAs == nil {
		cfg.RootCAs = s.pki.Pool
	}
	c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), cfg)
	if err != nil {
		t.Fatalf("dial %s: %v", cfg.ServerName, err)
	}
	defer c.Close()
	if c.ConnectionState().NegotiatedProtocol != "h2" {
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", cfg.ServerName)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("reading the response: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return c.ConnectionState()
}

const twoServers = `
server {
    listen 127.0.0.1:{{PORT}} ssl;
    server_name other.test;
    ssl_certificate other.crt; ssl_certificate_key other.key;
    root html;
}
server {
    listen 127.0.0.1:{{PORT}} ssl default_server;
    server_name example.com www.example.com;
    ssl_certificate rsa.crt; ssl_certificate_key rsa.key;
    ssl_certificate ec.crt; ssl_certificate_key ec.key;
    root html;
}
server {
    listen 127.0.0.1:{{PORT}} ssl;
    server_name ~^rejected\.;
    ssl_reject_handshake on;
}
# no "ssl" of its own: the other servers make the address TLS, as in nginx
server {
    listen 127.0.0.1:{{PORT}};
    server_name plain.test;
    ssl_certificate plain.crt; ssl_certificate_key plain.key;
    root html;
}
`

func TestTLSServerBySNI(t *testing.T) {
	s := newTLSSite(t)
	s.start(t, twoServers)
	tests := []struct {
		sni, verifyAs, wantCN string
	}{
		{"other.test", "other.test", "other.test"},
		{"example.com", "example.com", "example.com"},
		{"WWW.Example.COM.", "www.example.com", "example.com"},
		{"plain.test", "plain.test", "plain.test"},
		// No SNI (an IP address): the default server.
		{"", "example.com", "example.com"},
		// An unknown name: the default server too, as in nginx.
		{"unknown.test", "example.com", "example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.sni, func(t *testing.T) {
			cfg := &tls.Config{ServerName: tt.sni, InsecureSkipVerify: true}
			cs := s.dial(t, s.port, cfg)
			leaf := cs.PeerCertificates[0]
			if err := leaf.VerifyHostname(tt.verifyAs); err != nil || leaf.Subject.CommonName != tt.wantCN {
				t.Errorf("got certificate %s %v", leaf.Subject.CommonName, leaf.DNSNames)
			}
		})
	}
	if _, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), &tls.Config{ServerName: "rejected.test", InsecureSkipVerify: true}); err == nil {
		t.Error("ssl_reject_handshake: the handshake succeeded")
	}
}

func TestTLSPrefersECDSA(t *testing.T) {
	s := newTLSSite(t)
	s.start(t, twoServers)
	tests := []struct {
		name    string
		cfg     *tls.Config
		wantKey string
	}{
		{"TLS 1.3 client", &tls.Config{ServerName: "example.com"}, "ECDSA"},
		{"TLS 1.2 client with both", &tls.Config{ServerName: "example.com", MaxVersion: tls.VersionTLS12}, "ECDSA"},
		{"TLS 1.2 RSA-only client", &tls.Config{ServerName: "example.com", MaxVersion: tls.VersionTLS12,
			CipherSuites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}}, "RSA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := s.dial(t, s.port, tt.cfg)
			if got := cs.PeerCertificates[0].PublicKeyAlgorithm.String(); got != tt.wantKey {
				t.Errorf("got a %s certificate, want %s", got, tt.wantKey)
			}
		})
	}
}

func TestTLSDefaults(t *testing.T) {
	s := newTLSSite(t)
	s.start(t, twoServers+`
server {
    listen 127.0.0.1:{{PORT2}} ssl;
    server_name example.com;
    http2 off;
    ssl_certificate ec.crt; ssl_certificate_key ec.key;
    root html;
}`)
	t.Run("h2 by ALPN without http2 on", func(t *testing.T) {
		cs := s.dial(t, s.port, &tls.Config{ServerName: "example.com", NextProtos: []string{"h2", "http/1.1"}})
		if cs.NegotiatedProtocol != "h2" || cs.Version != tls.VersionTLS13 {
			t.Errorf("got %q over %x", cs.NegotiatedProtocol, cs.Version)
		}
	})
	t.Run("http2 off", func(t *testing.T) {
		cs := s.dial(t, s.port2, &tls.Config{ServerName: "example.com", NextProtos: []string{"h2", "http/1.1"}})
		if cs.NegotiatedProtocol != "http/1.1" {
			t.Errorf("got %q", cs.NegotiatedProtocol)
		}
	})
	refused := []struct {
		name string
		cfg  *tls.Config
	}{
		{"TLS 1.1", &tls.Config{ServerName: "example.com", MaxVersion: tls.VersionTLS11, MinVersion: tls.VersionTLS10}},
		{"CBC suites only", &tls.Config{ServerName: "example.com", MaxVersion: tls.VersionTLS12,
			CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA}}},
		{"RSA key exchange only", &tls.Config{ServerName: "example.com", MaxVersion: tls.VersionTLS12,
			CipherSuites: []uint16{tls.TLS_RSA_WITH_AES_128_GCM_SHA256}}},
		{"P-384 only", &tls.Config{ServerName: "example.com", CurvePreferences: []tls.CurveID{tls.CurveP384}}},
	}
	for _, tt := range refused {
		t.Run("refuses "+tt.name, func(t *testing.T) {
			tt.cfg.RootCAs = s.pki.Pool
			if c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), tt.cfg); err == nil {
				c.Close()
				t.Error("handshake succeeded")
			}
		})
	}
}

func TestTLSSessionTickets(t *testing.T) {
	s := newTLSSite(t)
	s.start(t, twoServers)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			cache := tls.NewLRUClientSessionCache(4)
			cfg := func(sni string) *tls.Config {
				return &tls.Config{ServerName: sni, MaxVersion: v, ClientSessionCache: cache}
			}
			if s.dial(t, s.port, cfg("example.com")).DidResume {
				t.Fatal("first connection resumed")
			}
			if !s.dial(t, s.port, cfg("example.com")).DidResume {
				t.Error("second connection did not resume")
			}
		})
	}
	t.Run("ticket of another server", func(t *testing.T) {
		// The client keys its cache by ServerName: file example.com's
		// ticket under other.test, as a client switching names would.
		cache := &fixedSessionCache{}
		s.dial(t, s.port, &tls.Config{ServerName: "example.com", ClientSessionCache: cache})
		if cache.state == nil {
			t.Fatal("no ticket received")
		}
		cs := s.dial(t, s.port, &tls.Config{ServerName: "other.test", ClientSessionCache: cache, InsecureSkipVerify: true})
		if cs.DidResume {
			t.Error("example.com's ticket resumed a session on other.test")
		}
	})
}

// fixedSessionCache returns the last session stored for any key.
type fixedSessionCache struct {
	mu    sync.Mutex
	state *tls.ClientSessionState
}

func (c *fixedSessionCache) Get(string) (*tls.ClientSessionState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state, c.state != nil
}

func (c *fixedSessionCache) Put(_ string, cs *tls.ClientSessionState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cs != nil {
		c.state = cs
	}
}

func TestTLSTicketKeyFileSharedByTwoServers(t *testing.T) {
	s := newTLSSite(t)
	key := make([]byte, 80)
	rand.Read(key)
	testenv.WriteFile(t, filepath.Join(s.dir, "ticket.key"), key, 0o600)
	site := `
ssl_session_ticket_key ticket.key;
server {
    listen 127.0.0.1:%d ssl;
    server_name example.com;
    ssl_certificate ec.crt; ssl_certificate_key ec.key;
    root html;
}`
	a := listen.NewServer(listen.Options{})
	if err := a.Apply(s.plan(t, fmt.Sprintf(site, s.port))); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := listen.NewServer(listen.Options{})
	if err := b.Apply(s.plan(t, fmt.Sprintf(site, s.port2))); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			cache := tls.NewLRUClientSessionCache(4)
			s.dial(t, s.port, &tls.Config{ServerName: "example.com", MaxVersion: v, ClientSessionCache: cache})
			if !s.dial(t, s.port2, &tls.Config{ServerName: "example.com", MaxVersion: v, ClientSessionCache: cache}).DidResume {
				t.Error("a session from the first server did not resume on the second")
			}
		})
	}
}

// ocspResponder answers every OCSP request "good", signed by the CA.
func ocspResponder(t *testing.T, pki *testenv.PKI) (*httptest.Server, *int) {
	var mu sync.Mutex
	calls := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, err := ocsp.ParseRequest(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		*calls++
		mu.Unlock()
		now := time.Now()
		resp, err := ocsp.CreateResponse(pki.Cert, pki.Cert, ocsp.Response{
			Status: ocsp.Good, SerialNumber: req.SerialNumber,
			ThisUpdate: now.Add(-time.Minute), NextUpdate: now.Add(time.Hour),
		}, pki.Key)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/ocsp-response")
		w.Write(resp)
	}))
	t.Cleanup(srv.Close)
	return srv, calls
}

func TestTLSOCSPStapling(t *testing.T) {
	s := newTLSSite(t)
	responder, _ := ocspResponder(t, s.pki)
	s.pki.LeafWithOCSP(t, "stapled", false, responder.URL, "example.com")
	s.start(t, `
server {
    listen 127.0.0.1:{{PORT}} ssl;
    server_name example.com;
    ssl_certificate stapled.crt; ssl_certificate_key stapled.key;
    ssl_stapling on;
    ssl_stapling_verify on;
    root html;
}
server {
    listen 127.0.0.1:{{PORT2}} ssl;
    server_name example.com;
    ssl_certificate stapled.crt; ssl_certificate_key stapled.key;
    root html;
}`)
	// The first staple is fetched in the background: poll for it.
	deadline := time.Now().Add(10 * time.Second)
	var staple []byte
	for staple == nil && time.Now().Before(deadline) {
		staple = s.dial(t, s.port, &tls.Config{ServerName: "example.com"}).OCSPResponse
		if staple == nil {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if staple == nil {
		t.Fatal("no OCSP staple within 10s")
	}
	resp, err := ocsp.ParseResponse(staple, s.pki.Cert)
	if err != nil || resp.Status != ocsp.Good {
		t.Errorf("staple: %v %+v", err, resp)
	}
	if got := s.dial(t, s.port2, &tls.Config{ServerName: "example.com"}).OCSPResponse; got != nil {
		t.Error("a staple without ssl_stapling")
	}
}

func TestTLSLocalCA(t *testing.T) {
	s := newTLSSite(t)
	s.start(t, `
server {
    listen 127.0.0.1:{{PORT}} ssl;
    server_name localhost app.localhost;
    root html;
}`)
	root, err := os.ReadFile(filepath.Join(os.Getenv("EDGE_DATA_DIR"), "localca", "root.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(root)
	for _, name := range []string{"localhost", "app.localhost"} {
		cs := s.dial(t, s.port, &tls.Config{ServerName: name, RootCAs: pool})
		if cs.PeerCertificates[0].PublicKeyAlgorithm != x509.ECDSA {
			t.Errorf("%s: local CA leaf is %s", name, cs.PeerCertificates[0].PublicKeyAlgorithm)
		}
	}
	// An IP address: no SNI, the certificate names 127.0.0.1 too.
	c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if hint := s.srv.LocalCAHint(); !strings.Contains(hint, "root.crt") {
		t.Errorf("trust hint: %q", hint)
	}
}

func TestTLSReloadChangesCertificate(t *testing.T) {
	s := newTLSSite(t)
	site := `
server {
    listen 127.0.0.1:{{PORT}} ssl;
    server_name example.com;
    ssl_certificate %s.crt; ssl_certificate_key %s.key;
    root html;
}`
	s.start(t, fmt.Sprintf(site, "ec", "ec"))
	if got := s.dial(t, s.port, &tls.Config{ServerName: "example.com"}).PeerCertificates[0].PublicKeyAlgorithm; got != x509.ECDSA {
		t.Fatalf("before reload: %s", got)
	}
	if err := s.srv.Apply(s.plan(t, fmt.Sprintf(site, "rsa", "rsa"))); err != nil {
		t.Fatal(err)
	}
	if got := s.dial(t, s.port, &tls.Config{ServerName: "example.com"}).PeerCertificates[0].PublicKeyAlgorithm; got != x509.RSA {
		t.Errorf("after reload: %s", got)
	}
}

// tlsTestLogLevel is the error_log level of the test sites.
var tlsTestLogLevel = "warn"

// TestTLSPortPlainHTTP: a plain HTTP request to a TLS port gets nginx's
// 497, "400 The plain HTTP request was sent to HTTPS port", and closes;
// error_page 497 turns it into a redirect, the usual way to send such
// clients to https. TLS clients on the same port are served as before.
func TestTLSPortPlainHTTP(t *testing.T) {
	s := newTLSSite(t)
	port3 := testenv.FreePort(t)
	s.start(t, twoServers+`
server {
    listen 127.0.0.1:{{PORT2}} ssl;
    server_name example.com;
    ssl_certificate ec.crt; ssl_certificate_key ec.key;
    error_page 497 https://$host:{{PORT2}}$request_uri;
    root html;
}
server {
    listen 127.0.0.1:`+fmt.Sprint(port3)+` ssl;
    server_name example.com;
    ssl_certificate ec.crt; ssl_certificate_key ec.key;
    error_page 497 /index.html;
    root html;
}
`)
	plain := func(port int, req string) *http.Response {
		t.Helper()
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("reading the answer to %q: %v", req, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp
	}
	resp := plain(s.port, "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !resp.Close || !bytes.Contains(body, []byte("<center>The plain HTTP request was sent to HTTPS port</center>")) {
		t.Errorf("plain HTTP to the TLS port: %d close=%v %q", resp.StatusCode, resp.Close, body)
	}
	resp = plain(s.port2, "GET /a?b=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")
	if want := fmt.Sprintf("https://example.com:%d/a?b=1", s.port2); resp.StatusCode != 302 || resp.Header.Get("Location") != want {
		t.Errorf("error_page 497: %d Location %q, want 302 %q", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	// A page for 497 is sent as the 400 it stands for, as nginx sends it.
	resp = plain(port3, "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != 400 || string(body) != "hello\n" {
		t.Errorf("error_page 497 /index.html: %d %q, want 400 with the page", resp.StatusCode, body)
	}
	if cs := s.dial(t, s.port, &tls.Config{ServerName: "example.com"}); !cs.HandshakeComplete {
		t.Error("the TLS handshake did not complete")
	}
}
