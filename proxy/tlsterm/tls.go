// This file terminates TLS on listeners with "ssl": one tls.Config per
// listen group, built once per plan, whose GetConfigForClient picks the
// server{} by SNI with nginx's server_name rules (ListenGroup.Lookup; the
// default server for clients without SNI) and returns that server's own
// tls.Config, also built once. Nothing is allocated per handshake beyond
// what crypto/tls itself needs (issue 5: handshakes per second).
//
// Certificates come from certmagic (certs.go), session tickets from
// tickets.go, ACME from acme.go; docs/tls.md maps every ssl_* directive
// onto these.
//
// Package tlsterm is TLS termination for edge's listeners: a State per
// plan, a Shared that outlives plans. It knows listen groups and servers
// from conf, and nothing of requests or HTTP engines: the server hands it
// a connection and gets back a *tls.Conn.
package tlsterm

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"

	"edge/conf"
)

// Log is where TLS writes its error log lines (proxy's ErrorLog).
type Log interface {
	Enabled(level conf.Level) bool
	Logf(level conf.Level, format string, args ...any)
}

// logRef holds a Log for an atomic.Pointer.
type logRef struct{ Log }

// State is one plan's TLS state: a config per ssl listen group.
type State struct {
	shared *Shared
	// groups by network+" "+address, so a connection accepted just before a
	// reload still finds its group in the new State.
	groups map[string]*tlsGroup
	// certs are every server's certificate sets, for the commit step.
	certs []*serverCerts
	acme  *acmeState
	// localCA is set when a server uses edge's local development CA.
	localCA localCAUse
}

// tlsGroup is the TLS side of one listen group.
type tlsGroup struct {
	group  *conf.ListenGroup
	config *tls.Config
	// servers holds each server's config; nil for ssl_reject_handshake.
	servers map[*conf.Server]*tls.Config
	// handshakeTimeout is the default server's client_header_timeout,
	// which nginx also applies to the handshake.
	handshakeTimeout time.Duration
}

// errRejected ends handshakes that select a server with
// ssl_reject_handshake on.
var errRejected = errors.New("proxy: handshake rejected by ssl_reject_handshake")

// New builds the TLS state of a plan: certificates loaded into
// certmagic, a tls.Config per server per group. It fails when a
// certificate cannot be cached or the local CA cannot be made. It
// returns nil when the plan has neither ssl listeners nor ACME.
func New(plan *conf.Plan, ts *Shared, log Log) (*State, error) {
	if plan.HTTP == nil {
		return nil, nil
	}
	var ssl []*conf.ListenGroup
	for _, g := range plan.HTTP.Listens {
		if g.Listen.SSL {
			ssl = append(ssl, g)
		}
	}
	acme, err := newACMEState(plan, ts, log)
	if err != nil {
		return nil, err
	}
	if len(ssl) == 0 && acme == nil {
		return nil, nil
	}
	t := &State{shared: ts, groups: map[string]*tlsGroup{}, acme: acme}
	built := map[*conf.Server]*serverCerts{}
	for _, g := range ssl {
		tg := &tlsGroup{group: g, servers: map[*conf.Server]*tls.Config{}, handshakeTimeout: g.Default.ClientHeaderTimeout}
		for _, srv := range g.Servers {
			if srv.TLS == nil || srv.TLS.RejectHandshake {
				tg.servers[srv] = nil
				continue
			}
			sc := built[srv]
			if sc == nil {
				if sc, err = t.serverCerts(srv, log); err != nil {
					return nil, err
				}
				built[srv] = sc
				t.certs = append(t.certs, sc)
			}
			tg.servers[srv] = serverConfig(srv, sc, t.shared.ticketSealer(srv.TLS, srv))
		}
		tg.config = tg.listenerConfig()
		t.groups[g.Listen.Network+" "+g.Listen.Addr] = tg
	}
	return t, nil
}

// serverConfig is a server's tls.Config on one listen group. Settings
// come from the merged plan (conf/ssl.go); what Go cannot change (TLS 1.3
// suites, record sizes) is described in docs/tls.md.
func serverConfig(srv *conf.Server, sc *serverCerts, tickets *ticketSealer) *tls.Config {
	t := srv.TLS
	cfg := &tls.Config{
		MinVersion:       t.MinVersion,
		MaxVersion:       t.MaxVersion,
		CipherSuites:     t.CipherSuites,
		CurvePreferences: t.Curves,
		GetCertificate:   sc.get,
		// h2 first, or browsers that offer both settle on http/1.1
		// (LIBRARIES.md, certmagic's TLSConfig).
		NextProtos:             []string{"http/1.1"},
		SessionTicketsDisabled: !t.SessionTickets,
	}
	if t.HTTP2 {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	if t.SessionTickets {
		cfg.WrapSession = tickets.wrap
		cfg.UnwrapSession = tickets.unwrap
	}
	return cfg
}

// listenerConfig is the config a group's connections start with: with one
// server it is that server's; with several, GetConfigForClient picks one.
func (tg *tlsGroup) listenerConfig() *tls.Config {
	if len(tg.servers) == 1 {
		for _, cfg := range tg.servers {
			if cfg != nil {
				return cfg
			}
		}
	}
	return &tls.Config{GetConfigForClient: tg.configForClient}
}

// configForClient picks the server by SNI the way nginx does
// (ngx_http_ssl_servername): exact name, wildcards, regexps, then the
// default server, which also serves clients that send no SNI.
func (tg *tlsGroup) configForClient(hello *tls.ClientHelloInfo) (*tls.Config, error) {
	// A regex name out of its match budget leaves the default server, as
	// ngx_http_ssl_servername does when the lookup fails.
	srv, _ := tg.group.Lookup(sniHost(hello.ServerName), nil)
	cfg := tg.servers[srv]
	if cfg == nil {
		return nil, errRejected
	}
	return cfg, nil
}

// sniHost lowercases a server name and drops a trailing dot, without
// allocating in the usual (already lowercase) case.
func sniHost(name string) string {
	name = strings.TrimSuffix(name, ".")
	for i := 0; i < len(name); i++ {
		if c := name[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(name)
		}
	}
	return name
}

// Handshake runs the server side of a TLS handshake for a connection
// accepted on group g from client, within the default server's
// client_header_timeout (nginx's limit for it too). It reads the first
// byte itself, and returns it with ErrPlainHTTP when the client speaks
// plain HTTP. A failed handshake is logged at info. t may be nil (no
// TLS in the plan).
func (t *State) Handshake(c net.Conn, g *conf.ListenGroup, client netip.Addr, log Log) (tc *tls.Conn, first [1]byte, err error) {
	var tg *tlsGroup
	if t != nil {
		tg = t.groups[g.Listen.Network+" "+g.Listen.Addr]
	}
	if tg == nil {
		return nil, first, errors.New("proxy: TLS is not configured for " + g.Listen.Addr)
	}
	timeout := tg.handshakeTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	_ = c.SetDeadline(time.Now().Add(timeout))
	defer c.SetDeadline(time.Time{})
	// The first byte tells TLS from plain HTTP, as nginx tells them
	// (ngx_http_ssl_handshake): a handshake record starts with 0x16, an
	// SSLv2-style hello has the top bit set; anything else is a plain
	// request sent to a TLS port.
	if _, err := io.ReadFull(c, first[:]); err != nil {
		return nil, first, err
	}
	if first[0] != 0x16 && first[0]&0x80 == 0 {
		return nil, first, ErrPlainHTTP
	}
	tc = tls.Server(&replayConn{Conn: c, first: first[0], pending: true}, tg.config)
	if err = tc.HandshakeContext(context.Background()); err != nil {
		if log.Enabled(conf.LevelInfo) {
			log.Logf(conf.LevelInfo, "TLS handshake failed (%v) while SSL handshaking, client: %s, server: %s",
				err, client, g.Listen.Addr)
		}
		return nil, first, err
	}
	return tc, first, nil
}

// ErrPlainHTTP: the client sent plain HTTP to a TLS port (Handshake).
var ErrPlainHTTP = errors.New("proxy: plain HTTP request sent to a TLS port")

// replayConn gives the TLS engine the first byte Handshake read to
// tell TLS from plain HTTP, then reads the connection.
type replayConn struct {
	net.Conn
	first   byte
	pending bool
}

func (c *replayConn) Read(p []byte) (int, error) {
	if c.pending && len(p) > 0 {
		p[0], c.pending = c.first, false
		return 1, nil
	}
	return c.Conn.Read(p)
}

// Commit runs once the plan serves (after the listeners are bound): it
// drops certificates no longer used from certmagic's cache, starts ACME
// management and says where the local CA is. t may be nil.
func (t *State) Commit(log Log) {
	if t == nil {
		return
	}
	t.shared.commit(t, log)
	if t.acme != nil {
		t.acme.start()
	}
}

// LocalCAHint tells how to trust edge's local development CA when the
// plan uses it (a localhost server without a certificate), or returns "".
// t may be nil.
func (t *State) LocalCAHint() string {
	if t == nil || t.localCA.ca == nil {
		return ""
	}
	return t.localCA.ca.TrustHint()
}
