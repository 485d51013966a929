// Tests of the TLS state without a server: the ticket sealer's stamps,
// and a benchmark of full handshakes through edge's configs against a
// bare crypto/tls config. proxy's tls_test.go tests TLS termination on a
// real Server.
package tlsterm

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"edge/conf"
	"edge/testenv"
)

// quietLog is an error log that drops everything.
type quietLog struct{}

func (quietLog) Enabled(conf.Level) bool         { return false }
func (quietLog) Logf(conf.Level, string, ...any) {}

// loadPlan compiles a configuration text written into dir.
func loadPlan(tb testing.TB, dir, text string) *conf.Plan {
	tb.Helper()
	path := filepath.Join(dir, "edge.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	plan, err := conf.Load(path, conf.LoadOptions{Prefix: dir})
	if err != nil {
		tb.Fatalf("loading the test plan: %v", err)
	}
	return plan
}

func TestTicketSealerTimeout(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	srv := &conf.Server{Names: []conf.ServerName{{Name: "example.com"}}}
	other := &conf.Server{Names: []conf.ServerName{{Name: "other.test"}}}
	sealer := &ticketSealer{keys: &tls.Config{}, timeout: 5 * time.Minute, server: serverTag(srv), now: func() time.Time { return now }}
	stamp := func(s *ticketSealer) [][]byte {
		ss := &tls.SessionState{}
		s.wrapStamp(ss)
		return ss.Extra
	}
	tests := []struct {
		name  string
		extra [][]byte
		at    time.Duration
		want  bool
	}{
		{"fresh", stamp(sealer), time.Minute, true},
		{"at the timeout", stamp(sealer), 5 * time.Minute, false},
		{"expired", stamp(sealer), time.Hour, false},
		{"other server", stamp(&ticketSealer{timeout: time.Hour, server: serverTag(other), now: sealer.now}), 0, false},
		{"no stamp", nil, 0, false},
		{"foreign extra before the stamp", append([][]byte{[]byte("x")}, stamp(sealer)...), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := *sealer
			check.now = func() time.Time { return now.Add(tt.at) }
			if got := check.valid(tt.extra); got != tt.want {
				t.Errorf("valid = %v, want %v", got, tt.want)
			}
		})
	}
}

// BenchmarkTLSHandshake measures full handshakes (client and server, over
// loopback TCP) through edge's configs against a bare crypto/tls config
// with the same certificate, so the cost of server choice by SNI,
// certificate choice and ticket sealing shows as the difference.
func BenchmarkTLSHandshake(b *testing.B) {
	b.Setenv("EDGE_DATA_DIR", b.TempDir())
	dir := b.TempDir()
	pki := testenv.NewPKI(b, dir)
	pki.Leaf(b, "ec", false, "example.com")
	pki.Leaf(b, "rsa", true, "example.com")
	for _, kind := range []string{"ec", "rsa"} {
		plan := loadPlan(b, dir, fmt.Sprintf(`events {} http { access_log off; server { listen 127.0.0.1:1 ssl; server_name example.com;
			ssl_certificate %[1]s.crt; ssl_certificate_key %[1]s.key; } server { listen 127.0.0.1:1 ssl; server_name other.test;
			ssl_certificate %[1]s.crt; ssl_certificate_key %[1]s.key; } }`, kind))
		st, err := New(plan, &Shared{}, quietLog{})
		if err != nil {
			b.Fatal(err)
		}
		edgeCfg := st.groups["tcp 127.0.0.1:1"].config
		cert, err := tls.LoadX509KeyPair(filepath.Join(dir, kind+".crt"), filepath.Join(dir, kind+".key"))
		if err != nil {
			b.Fatal(err)
		}
		bare := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}
		for _, c := range []struct {
			name string
			cfg  *tls.Config
		}{{"edge", edgeCfg}, {"bare", bare}} {
			b.Run(kind+"/"+c.name, func(b *testing.B) {
				benchHandshakes(b, c.cfg, pki.Pool)
			})
		}
	}
}

func benchHandshakes(b *testing.B, cfg *tls.Config, roots *x509.CertPool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				tc := tls.Server(c, cfg)
				if tc.Handshake() == nil {
					io.Copy(io.Discard, tc) // let session tickets go out
				}
				tc.Close()
			}()
		}
	}()
	client := &tls.Config{ServerName: "example.com", RootCAs: roots, NextProtos: []string{"h2", "http/1.1"}}
	b.ReportAllocs()
	for b.Loop() {
		c, err := tls.Dial("tcp", ln.Addr().String(), client)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}
