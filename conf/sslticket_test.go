// sslticket_test.go checks reading ssl_session_ticket_key files and that
// two servers given the same file resume each other's sessions.

package conf

import (
	"bytes"
	"crypto/tls"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTicketFile writes n bytes of a fixed pattern (seeded by seed) and
// returns the path.
func writeTicketFile(t *testing.T, name string, n int, seed byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	buf := bytes.Repeat([]byte{seed}, n)
	for i := range buf {
		buf[i] += byte(i)
	}
	if err := os.WriteFile(p, buf, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadSSLTicketKeySizes(t *testing.T) {
	tests := []struct {
		size int
		ok   bool
	}{{48, true}, {80, true}, {47, false}, {0, false}, {49, false}, {81, false}, {4096, false}}
	for _, tt := range tests {
		p := writeTicketFile(t, "ticket.key", tt.size, 1)
		_, err := LoadSSLTicketKey(p)
		if tt.ok {
			if err != nil {
				t.Errorf("%d bytes: %v", tt.size, err)
			}
			continue
		}
		want := `conf: "` + p + `" must be 48 or 80 bytes`
		if err == nil || err.Error() != want {
			t.Errorf("%d bytes: error = %v, want %q", tt.size, err, want)
		}
	}
}

func TestLoadSSLTicketKeyDeterministic(t *testing.T) {
	a := writeTicketFile(t, "a.key", 80, 7)
	aCopy := writeTicketFile(t, "a-copy.key", 80, 7) // another instance's copy
	b := writeTicketFile(t, "b.key", 80, 8)
	short := writeTicketFile(t, "short.key", 48, 7)
	ka1, err := LoadSSLTicketKey(a)
	if err != nil {
		t.Fatal(err)
	}
	ka2, _ := LoadSSLTicketKey(a)
	kaCopy, _ := LoadSSLTicketKey(aCopy)
	kb, _ := LoadSSLTicketKey(b)
	kShort, _ := LoadSSLTicketKey(short)
	if ka1 != ka2 || ka1 != kaCopy {
		t.Error("the same content gave different keys")
	}
	if ka1 == kb || ka1 == kShort {
		t.Error("different content gave the same key")
	}
	if ka1 == [32]byte{} {
		t.Error("zero key")
	}
}

func TestLoadSSLTicketKeysOrderAndErrors(t *testing.T) {
	first := writeTicketFile(t, "current.key", 80, 1)
	second := writeTicketFile(t, "previous.key", 48, 2)
	keys, err := LoadSSLTicketKeys([]string{first, second})
	if err != nil {
		t.Fatal(err)
	}
	k1, _ := LoadSSLTicketKey(first)
	k2, _ := LoadSSLTicketKey(second)
	if len(keys) != 2 || keys[0] != k1 || keys[1] != k2 {
		t.Error("keys are not in directive order")
	}
	missing := filepath.Join(t.TempDir(), "missing.key")
	if _, err := LoadSSLTicketKeys([]string{first, missing}); err == nil || !strings.HasPrefix(err.Error(), "conf: ssl_session_ticket_key: ") {
		t.Errorf("missing file: error = %v", err)
	}
}

// TestSSLTicketKeyResumesAcrossServers is the point of the directive: a
// client that got a ticket from one server resumes on another given the
// same file, also after that one rotated in a new key, but not on a server
// with another file.
func TestSSLTicketKeyResumesAcrossServers(t *testing.T) {
	shared := writeTicketFile(t, "shared.key", 80, 3)
	other := writeTicketFile(t, "other.key", 80, 4)
	fresh := writeTicketFile(t, "fresh.key", 48, 5)
	cert, pool := selfSignedECDSA(t)
	client := &tls.Config{RootCAs: pool, ServerName: "localhost", ClientSessionCache: tls.NewLRUClientSessionCache(4)}

	first := ticketServer(t, cert, shared)
	if connect(t, first, client) {
		t.Fatal("the first connection resumed")
	}
	tests := []struct {
		name  string
		files []string
		want  bool
	}{
		{"same file", []string{shared}, true},
		{"same file as decrypt-only key after rotation", []string{fresh, shared}, true},
		{"other file", []string{other}, false},
	}
	for _, tt := range tests {
		// Each server gets a new ticket to the cache; start from one
		// issued under the shared key.
		connect(t, first, client)
		addr := ticketServer(t, cert, tt.files...)
		if got := connect(t, addr, client); got != tt.want {
			t.Errorf("%s: resumed = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// ticketServer starts a TLS server on loopback whose ticket keys come from
// files, answering each connection with one line.
func ticketServer(t *testing.T, cert tls.Certificate, files ...string) string {
	t.Helper()
	keys, err := LoadSSLTicketKeys(files)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	cfg.SetSessionTicketKeys(keys)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("ok\n"))
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// connect makes one connection, reads the reply (which also takes in the
// TLS 1.3 ticket sent after the handshake) and reports whether it resumed.
func connect(t *testing.T, addr string, cfg *tls.Config) bool {
	t.Helper()
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.ReadAll(c); err != nil {
		t.Fatal(err)
	}
	return c.ConnectionState().DidResume
}
