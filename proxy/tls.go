// This file terminates TLS on listeners with "ssl": one tls.Config per
// listen group, built once per plan, whose GetConfigForClient picks the
// server{} by SNI with nginx's server_name rules (ListenGroup.Lookup; the
// default server for clients without SNI) and returns that server's own
// tls.Config, also built once. Nothing is allocated per handshake beyond
// what crypto/tls itself needs (issue 5: handshakes per second).
//
// Certificates come from certmagic (tls_certs.go), session tickets from
// tls_tickets.go, ACME from tls_acme.go; docs/tls.md maps every ssl_*
// directive onto these.
package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"edge/conf"
)

// tlsState is one plan's TLS state: a config per ssl listen group.
type tlsState struct {
	shared *tlsShared
	// groups by network+" "+address, so a connection accepted just before a
	// reload still finds its group in the new site.
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

// newTLSState builds the TLS state of a plan: certificates loaded into
// certmagic, a tls.Config per server per group. It fails when a
// certificate cannot be cached or the local CA cannot be made.
func newTLSState(plan *conf.Plan, sh *shared) (*tlsState, error) {
	if plan.HTTP == nil {
		return nil, nil
	}
	var ssl []*conf.ListenGroup
	for _, g := range plan.HTTP.Listens {
		if g.Listen.SSL {
			ssl = append(ssl, g)
		}
	}
	acme, err := newACMEState(plan, &sh.tls, sh)
	if err != nil {
		return nil, err
	}
	if len(ssl) == 0 && acme == nil {
		return nil, nil
	}
	t := &tlsState{shared: &sh.tls, groups: map[string]*tlsGroup{}, acme: acme}
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
				if sc, err = t.serverCerts(srv, sh); err != nil {
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

// tlsHandshake runs the server side of a TLS handshake within the
// default server's client_header_timeout (nginx's limit for it too). It
// reads the first byte itself, and returns it with errPlainHTTP when the
// client speaks plain HTTP.
func (rt *site) tlsHandshake(c net.Conn, info *connInfo) (tc *tls.Conn, first [1]byte, err error) {
	g := info.group
	var tg *tlsGroup
	if rt.tls != nil {
		tg = rt.tls.groups[g.Listen.Network+" "+g.Listen.Addr]
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
		return nil, first, errPlainHTTP
	}
	tc = tls.Server(&replayConn{Conn: c, first: first[0], pending: true}, tg.config)
	if err = tc.HandshakeContext(context.Background()); err != nil {
		if rt.errLog.Enabled(conf.LevelInfo) {
			rt.errLog.Logf(conf.LevelInfo, "TLS handshake failed (%v) while SSL handshaking, client: %s, server: %s",
				err, info.remote.Addr(), g.Listen.Addr)
		}
		return nil, first, err
	}
	return tc, first, nil
}

// errPlainHTTP: the client sent plain HTTP to a TLS port (tlsHandshake).
var errPlainHTTP = errors.New("proxy: plain HTTP request sent to a TLS port")

// replayConn gives the TLS engine the first byte tlsHandshake read to
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

// tlsCommitted runs once the site serves (after the listeners are
// bound): it drops certificates no longer used from certmagic's cache,
// starts ACME management and says where the local CA is.
func (rt *site) tlsCommitted() {
	if rt.tls == nil {
		return
	}
	rt.tls.shared.commit(rt.tls, rt.errLog)
	if rt.tls.acme != nil {
		rt.tls.acme.start()
	}
}

// LocalCAHint tells how to trust edge's local development CA when the
// current configuration uses it (a localhost server without a
// certificate), or returns "".
func (s *Server) LocalCAHint() string {
	rt := s.rt.Load()
	if rt == nil || rt.tls == nil || rt.tls.localCA.ca == nil {
		return ""
	}
	return rt.tls.localCA.ca.TrustHint()
}
