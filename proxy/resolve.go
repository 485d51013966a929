// This file resolves the host name a proxy_pass or fastcgi_pass with
// variables gave, when it names no upstream{}, with the location's
// `resolver` (package proxy/resolver), as ngx_http_upstream_init_request
// does: without a resolver 502 "no resolver defined to resolve", a name
// that fails 502 "could not be resolved", else a group made for the one
// request of the answer's addresses (rotated by the resolver), each with
// weight 1, max_fails 1, fail_timeout 10s (nginx's
// ngx_http_upstream_create_round_robin_peer), tried in turn by
// *_next_upstream, no connection kept.
package proxy

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"time"

	"edge/fastcgi"
	"edge/proxy/httpproxy"
	"edge/proxy/resolver"
)

// resolveHost returns host's addresses from the request's location's
// resolver, or the status and error line nginx gives.
func (rt *Site) resolveHost(r *Request, host string) ([]netip.Addr, *targetError) {
	res := r.loc.Resolver
	if res == nil {
		return nil, &targetError{502, "no resolver defined to resolve " + host}
	}
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	addrs, err := res.Resolve(ctx, host, r.loc.ResolverTimeout)
	if err != nil {
		var e *resolver.Error
		if !errors.As(err, &e) {
			e = &resolver.Error{Code: resolver.CodeTimedOut}
		}
		return nil, &targetError{502, host + " could not be resolved (" + e.Error() + ")"}
	}
	return addrs, nil
}

// resolvedServer is one address of a resolved name, as nginx makes it.
func resolvedServer(network string, addr netip.Addr, port string) *upServer {
	address := net.JoinHostPort(addr.String(), port)
	return &upServer{addr: serverAddr(network, address), weight: 1, maxFails: 1, failTimeout: 10 * time.Second}
}

// resolvedProxyBackend is the group of one request's proxy_pass to a
// resolved name: t's port on each address.
func resolvedProxyBackend(t *httpproxy.Target, addrs []netip.Addr) *backend {
	_, port, _ := net.SplitHostPort(t.Address)
	var tlsConf *httpproxy.TLSConfig
	if t.Scheme == "https" {
		tlsConf = &httpproxy.TLSConfig{}
	}
	b := &backend{name: t.Host}
	for _, a := range addrs {
		s := resolvedServer("tcp", a, port)
		s.http = &httpproxy.Upstream{Network: "tcp", Address: net.JoinHostPort(a.String(), port), TLS: tlsConf}
		b.servers = append(b.servers, s)
	}
	return b
}

// resolvedFastCGIBackend is the same for a fastcgi_pass "name:port".
func resolvedFastCGIBackend(target, port string, addrs []netip.Addr, newClient func(address string) *fastcgi.Client) *backend {
	b := &backend{name: target}
	for _, a := range addrs {
		s := resolvedServer("tcp", a, port)
		s.client = newClient(net.JoinHostPort(a.String(), port))
		b.servers = append(b.servers, s)
	}
	return b
}
