package httpproxy

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"edge/testenv"
)

// tlsSeen is what a TLS backend saw of one handshake.
type tlsSeen struct {
	sni        string
	resumed    bool
	clientCert string
}

func tlsBackend(t *testing.T, names []string, clientAuth bool) (*backend, *testenv.PKI, func() []tlsSeen) {
	t.Helper()
	return tlsBackendServing(t, names, clientAuth, respond("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntls"))
}

func tlsBackendServing(t *testing.T, names []string, clientAuth bool, serve func(b *backend, c net.Conn, br *bufio.Reader)) (*backend, *testenv.PKI, func() []tlsSeen) {
	t.Helper()
	pki := testenv.NewPKI(t, t.TempDir())
	certFile, keyFile := pki.Leaf(t, "up", false, names...)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	if clientAuth {
		cfg.ClientAuth = tls.RequireAnyClientCert
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []tlsSeen
	b := startBackend(t, tls.NewListener(ln, cfg), func(b *backend, c net.Conn, br *bufio.Reader) {
		tc := c.(*tls.Conn)
		if err := tc.Handshake(); err != nil {
			return
		}
		st := tc.ConnectionState()
		s := tlsSeen{sni: st.ServerName, resumed: st.DidResume}
		if len(st.PeerCertificates) > 0 {
			s.clientCert = st.PeerCertificates[0].Subject.CommonName
		}
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
		serve(b, c, br)
	})
	return b, pki, func() []tlsSeen {
		mu.Lock()
		defer mu.Unlock()
		return append([]tlsSeen(nil), seen...)
	}
}

func TestTLSUpstream(t *testing.T) {
	t.Run("defaults: no verification, no SNI, sessions reused", func(t *testing.T) {
		b, _, seen := tlsBackend(t, []string{"up.test"}, false)
		u := b.upstream()
		u.TLS = &TLSConfig{Name: "up.test"}
		for i := 0; i < 2; i++ {
			if _, body, err := fetch(t, u, get("/")); err != nil || body != "tls" {
				t.Fatalf("%v %q", err, body)
			}
		}
		s := seen()
		if len(s) != 2 || s[0].sni != "" || s[1].sni != "" || !s[1].resumed {
			t.Errorf("handshakes %+v", s)
		}
	})
	t.Run("session reuse off", func(t *testing.T) {
		b, _, seen := tlsBackend(t, []string{"up.test"}, false)
		u := b.upstream()
		u.TLS = &TLSConfig{NoSessionReuse: true}
		fetch(t, u, get("/"))
		fetch(t, u, get("/"))
		if s := seen(); len(s) != 2 || s[1].resumed {
			t.Errorf("handshakes %+v", s)
		}
	})
	t.Run("verify with the trusted CA and SNI", func(t *testing.T) {
		b, pki, seen := tlsBackend(t, []string{"up.test"}, false)
		pem, err := os.ReadFile(pki.Dir + "/ca.crt")
		if err != nil {
			t.Fatal(err)
		}
		roots, err := LoadRoots(pem)
		if err != nil {
			t.Fatal(err)
		}
		u := b.upstream()
		u.TLS = &TLSConfig{Verify: true, Roots: roots, ServerName: true, Name: "up.test:8443"}
		if _, body, err := fetch(t, u, get("/")); err != nil || body != "tls" {
			t.Fatalf("%v %q", err, body)
		}
		if s := seen(); len(s) != 1 || s[0].sni != "up.test" {
			t.Errorf("handshakes %+v", s)
		}
		// The wrong name fails the handshake: a connect error (502).
		u2 := b.upstream()
		u2.TLS = &TLSConfig{Verify: true, Roots: roots, Name: "other.test"}
		if _, _, err := fetch(t, u2, get("/")); kindOf(err) != KindConnect || !strings.Contains(err.Error(), "does not match") {
			t.Errorf("wrong name: %v", err)
		}
		// An untrusted chain fails too.
		u3 := b.upstream()
		other := testenv.NewPKI(t, t.TempDir())
		u3.TLS = &TLSConfig{Verify: true, Roots: other.Pool, Name: "up.test"}
		if _, _, err := fetch(t, u3, get("/")); kindOf(err) != KindConnect {
			t.Errorf("untrusted: %v", err)
		}
	})
	t.Run("no SNI for an IP address", func(t *testing.T) {
		b, _, seen := tlsBackend(t, []string{"127.0.0.1"}, false)
		u := b.upstream()
		u.TLS = &TLSConfig{ServerName: true, Name: "127.0.0.1"}
		fetch(t, u, get("/"))
		if s := seen(); len(s) != 1 || s[0].sni != "" {
			t.Errorf("handshakes %+v", s)
		}
	})
	t.Run("client certificate", func(t *testing.T) {
		b, pki, seen := tlsBackend(t, []string{"up.test"}, true)
		certFile, keyFile := pki.Leaf(t, "client", false, "client.test")
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		u := b.upstream()
		u.TLS = &TLSConfig{Certificate: &cert}
		if _, body, err := fetch(t, u, get("/")); err != nil || body != "tls" {
			t.Fatalf("%v %q", err, body)
		}
		if s := seen(); len(s) != 1 || s[0].clientCert != "client.test" {
			t.Errorf("handshakes %+v", s)
		}
	})
}

// clientPair stands for the client's hijacked connection: the side the
// tunnel gets and the side the test plays the client on.
func clientPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return server, client
}

func upgradeRequest() *Request {
	r := get("/ws")
	r.HTTP11 = true
	r.Set = []Header{{"Upgrade", "websocket"}, {"Connection", "upgrade"}}
	r.Client = []Header{{"Upgrade", "websocket"}, {"Connection", "Upgrade"}}
	return r
}

func TestTunnel(t *testing.T) {
	const upgraded = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n"
	echo := func(b *backend, c net.Conn, br *bufio.Reader) {
		if _, _, ok := b.readRequest(br); !ok {
			return
		}
		io.WriteString(c, upgraded+"hello\n")
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			io.WriteString(c, "echo "+line)
		}
	}
	t.Run("echo, then the client closes", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", echo)
		resp, err := b.upstream().Do(t.Context(), upgradeRequest())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 101 || !resp.Upgrade {
			t.Fatalf("status %d upgrade %v", resp.Status, resp.Upgrade)
		}
		if got := b.got()[0]; !strings.Contains(got, "Upgrade: websocket\r\nConnection: upgrade\r\nHost: backend\r\n") {
			t.Errorf("request %q", got)
		}
		var names []string
		for _, h := range resp.ClientHeaders(nil, nil) {
			names = append(names, h.Name)
		}
		if strings.Join(names, ",") != "Upgrade" {
			t.Errorf("client headers %v", names)
		}
		srv, cli := clientPair(t)
		done := make(chan error, 1)
		go func() { done <- resp.Tunnel(srv, time.Minute) }()
		br := bufio.NewReader(cli)
		if line, _ := br.ReadString('\n'); line != "hello\n" {
			t.Fatalf("first %q", line)
		}
		for i := 0; i < 100; i++ {
			fmt.Fprintf(cli, "m%d\n", i)
			if line, _ := br.ReadString('\n'); line != fmt.Sprintf("echo m%d\n", i) {
				t.Fatalf("message %d: %q", i, line)
			}
		}
		cli.Close()
		if err := <-done; err != nil {
			t.Errorf("tunnel: %v", err)
		}
	})
	t.Run("the upstream closes", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", func(b *backend, c net.Conn, br *bufio.Reader) {
			b.readRequest(br)
			io.WriteString(c, upgraded+"bye")
		})
		resp, err := b.upstream().Do(t.Context(), upgradeRequest())
		if err != nil {
			t.Fatal(err)
		}
		srv, cli := clientPair(t)
		done := make(chan error, 1)
		go func() { done <- resp.Tunnel(srv, 0) }()
		got, _ := io.ReadAll(cli)
		if string(got) != "bye" {
			t.Errorf("client got %q", got)
		}
		if err := <-done; err != nil {
			t.Errorf("tunnel: %v", err)
		}
	})
	t.Run("proxy_read_timeout ends an idle tunnel", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", func(b *backend, c net.Conn, br *bufio.Reader) {
			b.readRequest(br)
			io.WriteString(c, upgraded)
			io.Copy(io.Discard, br)
		})
		u := b.upstream()
		u.ReadTimeout = 100 * time.Millisecond
		resp, err := u.Do(t.Context(), upgradeRequest())
		if err != nil {
			t.Fatal(err)
		}
		srv, cli := clientPair(t)
		done := make(chan error, 1)
		go func() { done <- resp.Tunnel(srv, 0) }()
		if _, err := io.ReadAll(cli); err != nil {
			t.Errorf("client: %v", err)
		}
		if err := <-done; kindOf(err) != KindTimeout {
			t.Errorf("tunnel: %v", err)
		}
	})
	t.Run("101 without the client's Upgrade is no tunnel", func(t *testing.T) {
		b := newBackend(t, "tcp", "127.0.0.1:0", respondOnce(upgraded))
		req := upgradeRequest()
		req.Client = nil
		resp, err := b.upstream().Do(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Close()
		if resp.Upgrade || resp.ContentLength != 0 {
			t.Errorf("upgrade %v length %d", resp.Upgrade, resp.ContentLength)
		}
	})
}

// TestTunnelConcurrent runs echo tunnels side by side: every message
// comes back once and in order, and every tunnel ends cleanly when its
// client closes.
func TestTunnelConcurrent(t *testing.T) {
	const tunnels, messages = 20, 200
	b := newBackend(t, "tcp", "127.0.0.1:0", func(b *backend, c net.Conn, br *bufio.Reader) {
		if _, _, ok := b.readRequest(br); !ok {
			return
		}
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n")
		io.Copy(c, br)
	})
	u := b.upstream()
	errs := make(chan error, tunnels)
	for i := 0; i < tunnels; i++ {
		resp, err := u.Do(t.Context(), upgradeRequest())
		if err != nil {
			t.Fatal(err)
		}
		srv, cli := clientPair(t)
		done := make(chan error, 1)
		go func() { done <- resp.Tunnel(srv, time.Minute) }()
		go func(i int) {
			br := bufio.NewReader(cli)
			go func() {
				for m := 0; m < messages; m++ {
					fmt.Fprintf(cli, "t%d m%d\n", i, m)
				}
			}()
			for m := 0; m < messages; m++ {
				line, err := br.ReadString('\n')
				if want := fmt.Sprintf("t%d m%d\n", i, m); err != nil || line != want {
					errs <- fmt.Errorf("tunnel %d: got %q %v, want %q", i, line, err, want)
					return
				}
			}
			cli.Close()
			errs <- <-done
		}(i)
	}
	for i := 0; i < tunnels; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestTunnelTLS runs a tunnel over an https upstream, where both
// directions go through one crypto/tls connection at once.
func TestTunnelTLS(t *testing.T) {
	b, _, _ := tlsBackendServing(t, []string{"up.test"}, false, func(b *backend, c net.Conn, br *bufio.Reader) {
		if _, _, ok := b.readRequest(br); !ok {
			return
		}
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n")
		io.Copy(c, br)
	})
	u := b.upstream()
	u.TLS = &TLSConfig{}
	resp, err := u.Do(t.Context(), upgradeRequest())
	if err != nil || !resp.Upgrade {
		t.Fatalf("%v %v", resp, err)
	}
	srv, cli := clientPair(t)
	done := make(chan error, 1)
	go func() { done <- resp.Tunnel(srv, time.Minute) }()
	payload := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB each way at once
	go io.WriteString(cli, payload)
	got := make([]byte, len(payload))
	if _, err := io.ReadFull(cli, got); err != nil || string(got) != payload {
		t.Fatalf("echo: %v", err)
	}
	cli.Close()
	if err := <-done; err != nil {
		t.Errorf("tunnel: %v", err)
	}
}
