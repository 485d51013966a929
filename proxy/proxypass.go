// This file connects the pipeline to HTTP upstreams (proxy_pass): it
// evaluates the location's proxy_* settings into an httpproxy.Request
// (the URI sent upstream, proxy_set_header, the body buffered or
// streamed), has a server picked and retried with the loop fastcgi_pass
// uses (tryServers: weights, max_fails/fail_timeout, backup,
// proxy_next_upstream, $upstream_*), and turns the answer into a
// Response: buffered by default (memory, then an unlinked temp file), or
// streamed with a flush per read (proxy_buffering off, "X-Accel-Buffering:
// no"); X-Accel-Redirect becomes an internal redirect, proxy_redirect
// rewrites Location and Refresh, proxy_intercept_errors hands error
// statuses to error_page, and a 101 to a client that asked to upgrade
// becomes a tunnel (proxyupgrade.go). The client is package httpproxy.
package proxy

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"edge/cache"
	"edge/conf"
	"edge/proxy/httpproxy"
)

// proxyVars are the request's $proxy_host and $proxy_port, set once the
// proxy_pass target is known.
type proxyVars struct{ host, port string }

// proxyVar gives $proxy_host, $proxy_port and $proxy_add_x_forwarded_for.
func (r *Request) proxyVar(id conf.VarID) string {
	switch id {
	case conf.VarProxyHost:
		return r.px.host
	case conf.VarProxyPort:
		return r.px.port
	case conf.VarProxyAddXForwardedFor:
		var xff []httpproxy.Header
		for _, h := range r.Header.AppendAll(nil) {
			if strings.EqualFold(h.Name, "X-Forwarded-For") {
				xff = append(xff, httpproxy.Header{Name: h.Name, Value: h.Value})
			}
		}
		return httpproxy.AddXForwardedFor(xff, r.Conn.RemoteAddr())
	}
	return ""
}

// proxyBackends holds a site's proxy_pass servers, made on first use:
// one backend per upstream{} (its servers share the block's keep-alive
// pool) and per address, so that locations passing to the same place
// share its round robin and failure counts, as nginx's do.
type proxyBackends struct {
	mu      sync.Mutex
	byKey   map[proxyBackendKey]*backend
	dynamic int
	hide    map[*conf.Location]*httpproxy.HideHeaders
	tls     map[proxyTLSKey]*httpproxy.TLSConfig
}

// proxyBackendKey names a backend: an upstream{} by its name, or an
// address (network and address); a struct, so that a lookup builds no
// string.
type proxyBackendKey struct {
	scheme, network, address, upstream string
}

// proxyTLSKey names one location's TLS settings for one proxy_ssl_name.
type proxyTLSKey struct {
	loc  *conf.Location
	name string
}

// proxyTLS returns the location's proxy_ssl_* settings for an https://
// upstream, made once per location and name (certificates are read then).
func (rt *Site) proxyTLS(r *Request, t *httpproxy.Target) (*httpproxy.TLSConfig, error) {
	sc := &r.loc.Proxy.SSL
	name := t.Host
	if sc.Name != nil {
		name = rt.eval(r, sc.Name)
	}
	pb := &rt.proxies
	key := proxyTLSKey{r.loc, name}
	pb.mu.Lock()
	c := pb.tls[key]
	pb.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c = &httpproxy.TLSConfig{Verify: sc.Verify, ServerName: sc.ServerName, Name: name, NoSessionReuse: !sc.SessionReuse}
	if sc.TrustedCertificate != "" {
		pem, err := os.ReadFile(sc.TrustedCertificate)
		if err != nil {
			return nil, err
		}
		if c.Roots, err = httpproxy.LoadRoots(pem); err != nil {
			return nil, err
		}
	}
	if sc.Certificate != "" {
		cert, err := tls.LoadX509KeyPair(sc.Certificate, sc.CertificateKey)
		if err != nil {
			return nil, err
		}
		c.Certificate = &cert
	}
	for _, p := range sc.Protocols {
		v := map[string]uint16{"TLSv1": tls.VersionTLS10, "TLSv1.1": tls.VersionTLS11, "TLSv1.2": tls.VersionTLS12, "TLSv1.3": tls.VersionTLS13}[p]
		if v == 0 {
			continue // SSLv2, SSLv3: not in crypto/tls
		}
		if c.MinVersion == 0 || v < c.MinVersion {
			c.MinVersion = v
		}
		if v > c.MaxVersion {
			c.MaxVersion = v
		}
	}
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if old := pb.tls[key]; old != nil {
		return old, nil
	}
	if pb.tls == nil {
		pb.tls = map[proxyTLSKey]*httpproxy.TLSConfig{}
	}
	pb.tls[key] = c
	return c, nil
}

// get returns the backend for a target, t's address or the upstream{} u.
func (pb *proxyBackends) get(t *httpproxy.Target, u *conf.Upstream) *backend {
	key := proxyBackendKey{scheme: t.Scheme, network: t.Network, address: t.Address}
	if u != nil {
		key = proxyBackendKey{scheme: t.Scheme, upstream: u.Name}
	}
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if b := pb.byKey[key]; b != nil {
		return b
	}
	var tlsConf *httpproxy.TLSConfig
	if t.Scheme == "https" {
		tlsConf = &httpproxy.TLSConfig{}
	}
	b := &backend{name: t.Host}
	if t.Network == "unix" {
		b.name = "unix:" + t.Address
	}
	if u == nil {
		b.servers = []*upServer{{addr: serverAddr(t.Network, t.Address), weight: 1, maxFails: 1, failTimeout: 10 * time.Second,
			http: &httpproxy.Upstream{Network: t.Network, Address: t.Address, TLS: tlsConf}}}
		if pb.dynamic >= maxDynamicTargets {
			return b // a target only requests name, past the bound: not kept
		}
		pb.dynamic++
	} else {
		var ka *httpproxy.Keepalive
		if u.Keepalive > 0 {
			ka = &httpproxy.Keepalive{Max: u.Keepalive, Requests: u.KeepaliveRequests, Timeout: u.KeepaliveTimeout, Time: u.KeepaliveTime}
		}
		b.name = u.Name
		for _, s := range u.Servers {
			b.servers = append(b.servers, &upServer{addr: serverAddr(s.Network, s.Address), weight: max(s.Weight, 1),
				maxFails: s.MaxFails, failTimeout: s.FailTimeout, backup: s.Backup, down: s.Down,
				http: &httpproxy.Upstream{Network: s.Network, Address: s.Address, TLS: tlsConf, Keepalive: ka}})
		}
	}
	if pb.byKey == nil {
		pb.byKey = map[proxyBackendKey]*backend{}
	}
	pb.byKey[key] = b
	return b
}

// close closes the idle upstream connections of every backend and keeps
// none after the responses under way: the site's plan was replaced. The
// next plan's backends open their own, as nginx's new workers do.
func (pb *proxyBackends) close() {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	for _, b := range pb.byKey {
		for _, s := range b.servers {
			if k := s.http.Keepalive; k != nil {
				k.Close()
			}
		}
	}
}

// hideHeaders returns a location's proxy_hide_header/proxy_pass_header
// set, made once.
func (pb *proxyBackends) hideHeaders(l *conf.Location) *httpproxy.HideHeaders {
	if len(l.Proxy.HideHeaders) == 0 && len(l.Proxy.PassHeaders) == 0 {
		return httpproxy.DefaultHide
	}
	pb.mu.Lock()
	defer pb.mu.Unlock()
	h := pb.hide[l]
	if h == nil {
		h = httpproxy.NewHideHeaders(l.Proxy.HideHeaders, l.Proxy.PassHeaders)
		if pb.hide == nil {
			pb.hide = map[*conf.Location]*httpproxy.HideHeaders{}
		}
		pb.hide[l] = h
	}
	return h
}

// proxyTarget is the location's proxy_pass URL, evaluated when it has
// variables, with its backend: the upstream{} its host names, its
// address, or the addresses the resolver gave for its host name.
func (rt *Site) proxyTarget(r *Request, p *conf.ProxyPass) (httpproxy.Target, *backend, int) {
	if p.Script == nil {
		return p.Target, rt.proxies.get(&p.Target, p.Upstream), 0
	}
	url := rt.eval(r, p.Script)
	t, err := httpproxy.ParseTarget(url)
	if err != nil {
		rt.log.errorf(r, "%s", strings.TrimPrefix(err.Error(), "httpproxy: "))
		return t, nil, 500
	}
	var u *conf.Upstream
	if t.Network == "tcp" && t.Port == "" {
		u = findUpstream(rt.plan.HTTP.Upstreams, t.Host)
	}
	if u == nil && t.Network == "tcp" && net.ParseIP(t.Host) == nil && !rt.plan.HTTP.NamedPasses[strings.ToLower(t.Address)] {
		addrs, terr := rt.resolveHost(r, t.Host)
		if terr != nil {
			rt.log.errorf(r, "%s", terr.msg)
			return t, nil, terr.status
		}
		return t, resolvedProxyBackend(&t, addrs), 0
	}
	return t, rt.proxies.get(&t, u), 0
}

// proxyPass sends the request to the location's HTTP upstream.
func (rt *Site) proxyPass(r *Request) (step, int) {
	l := r.loc
	p := l.Content.Proxy
	pc := &l.Proxy
	target, b, status := rt.proxyTarget(r, p)
	if status != 0 {
		return stepDone, status
	}
	r.px = proxyVars{host: target.ProxyHost, port: target.ProxyPort}

	method := r.Method
	if pc.Method != nil {
		method = rt.eval(r, pc.Method)
	}
	r.headers = appendArrived(r.Header, r.headers[:0])
	// One array holds the client's headers and proxy_set_header's (each
	// slice capped, so that appending to one never writes into the other).
	n := len(r.headers)
	hdrs := make([]httpproxy.Header, n, n+len(pc.SetHeaders))
	for i, h := range r.headers {
		hdrs[i] = httpproxy.Header{Name: h.Name, Value: h.Value}
	}
	client := hdrs[:n:n]
	location := p.Location
	if p.NoPrefix {
		location = ""
	}
	rawPath, _, _ := strings.Cut(r.RawTarget, "?")
	uri := httpproxy.UpstreamURI(&httpproxy.URIRequest{
		PassURI: target.URI, Variables: p.Script != nil, Location: location, LocationChanged: r.locChanged,
		URI: r.uri, Args: r.args, RequestURI: requestURI(r.RawTarget), RequestURIValid: !r.internal,
		Escape: r.internal || strings.Contains(rawPath, "%"),
	})
	nonIdem := slices.Contains(pc.NextUpstream, "non_idempotent")
	req := &httpproxy.Request{
		Method: method, URI: uri, HTTP11: pc.HTTP11, ProxyHost: target.ProxyHost,
		Client: client, NoClientHeaders: !pc.PassRequestHeaders,
		NoRetry: !slices.Contains(pc.NextUpstream, "error"), NonIdempotent: nonIdem,
	}
	var tlsConf *httpproxy.TLSConfig
	if target.Scheme == "https" {
		var err error
		if tlsConf, err = rt.proxyTLS(r, &target); err != nil {
			rt.log.errorf(r, "%v", err)
			return stepDone, 502
		}
	}
	// proxy_cache: answered from the cache, or asked with the cache's
	// headers (proxy_cache.go).
	defer rt.cacheEnd(r)
	if next, status, done := rt.cacheBegin(r, rt.proxyCacheUse(r, b, req, tlsConf)); done {
		return next, status
	}
	body, bodyLen, status := rt.proxyBody(r)
	if status != 0 {
		return stepDone, status
	}
	if pc.SetBody != nil {
		// proxy_set_body: the client's body is not sent (nor read).
		v := rt.eval(r, pc.SetBody)
		body, bodyLen = strings.NewReader(v), int64(len(v))
	}
	if f, ok := body.(*os.File); ok {
		defer f.Close()
	}
	req.Body, req.BodyLength = body, bodyLen
	if body != nil && pc.SetBody == nil && !pc.RequestBuffering && r.ContentLength > 0 {
		// Streamed as it comes (proxyBody): the head goes upstream with
		// what of the body is here already, without waiting for more. A
		// body that cannot tell has its first 16 KiB read before the
		// head goes (upstream.go).
		req.BodyReady, req.Streamed = r.bodyReady()
	}
	// Evaluated after the body is read, where nginx evaluates them.
	req.Set = rt.proxySetHeaders(r, hdrs[n:n])
	if r.cache.zone != nil {
		req.Client, req.Set = rt.proxyCacheHeaders(r, req.Client, req.Set)
		if r.cache.headAsGet {
			// proxy_cache_convert_head: the entry a HEAD fills answers
			// GETs too (it wins over proxy_method, as in nginx).
			req.Method = "GET"
		}
	}
	start := rt.now()
	// With proxy_ignore_client_abort, a client that goes away (an HTTP/2
	// reset, an HTTP/1 close) leaves the upstream's answer to be read to
	// its end all the same.
	ctx, stop := rt.upstreamContext(r, pc.IgnoreClientAbort)
	defer stop()
	// proxy_next_upstream_timeout: no next server once it has passed.
	inTime := func(now time.Time) bool {
		return pc.NextUpstreamTimeout <= 0 || now.Sub(start) < pc.NextUpstreamTimeout
	}
	var resp *httpproxy.Response
	method = req.Method
	_, status = rt.tryServers(r, b, pc.NextUpstreamTries, target.Scheme, func(srv *upServer, t *upstreamTry, again, more bool) (int, bool) {
		if seeker, ok := body.(io.Seeker); ok && again {
			_, _ = seeker.Seek(0, io.SeekStart)
		}
		u := proxyUpstream(srv, tlsConf, pc)
		var err error
		resp, err = u.Do(ctx, req)
		end := rt.now()
		if err != nil {
			var e *httpproxy.Error
			if !errors.As(err, &e) {
				e = &httpproxy.Error{Kind: httpproxy.KindClosed, Op: "read response header", Err: err}
			}
			st := e.Status()
			t.status, t.responseTime = st, end.Sub(t.start)
			if e.Connected {
				t.connectTime = e.ConnectTime
			}
			if e.Kind == httpproxy.KindCanceled {
				rt.clientClosed(r, ctx)
			} else {
				rt.log.errorf(r, "%s (%v) while %s, upstream: \"%s://%s%s\"", proxyErrorWords(e), e.Err, proxyOpWords(e.Op), target.Scheme, srv.addr, uri)
			}
			// A streamed body that reached this server cannot be sent again.
			_, seekable := body.(io.Seeker)
			resend := body == nil || seekable || !e.Sent
			return st, proxyNextAllows(pc.NextUpstream, e) && httpproxy.Retryable(err, method, nonIdem) && resend && inTime(end)
		}
		t.connectTime, t.headerTime, t.status = resp.ConnectTime, end.Sub(t.start), resp.Status
		if more && proxyNextStatus(pc.NextUpstream, resp.Status) && (httpproxy.Idempotent(method) || nonIdem) && inTime(end) {
			resp.Close()
			t.responseTime = rt.now().Sub(t.start)
			return resp.Status, true
		}
		return 0, false
	})
	if status != 0 {
		if status == 499 {
			r.resp.Drop = true
		} else if rt.cacheFailed(r, status) {
			return stepDone, 0
		}
		return stepDone, status
	}
	return rt.proxyResponse(r, &target, p, resp)
}

// proxyUpstream is srv's upstream as a location's proxy_* settings use
// it: its TLS (nil: the server's own), timeouts, socket keepalive and
// header buffer.
func proxyUpstream(srv *upServer, tls *httpproxy.TLSConfig, pc *conf.Proxy) httpproxy.Upstream {
	u := *srv.http
	if tls != nil {
		u.TLS = tls
	}
	u.ConnectTimeout, u.SendTimeout, u.ReadTimeout = pc.ConnectTimeout, pc.SendTimeout, pc.ReadTimeout
	u.SocketKeepalive = pc.SocketKeepalive
	u.BufferSize = int(pc.BufferSize)
	return u
}

// proxySetHeaders appends the location's proxy_set_header list, evaluated,
// to set.
func (rt *Site) proxySetHeaders(r *Request, set []httpproxy.Header) []httpproxy.Header {
	for _, h := range r.loc.Proxy.SetHeaders {
		set = append(set, httpproxy.Header{Name: h.Name, Value: rt.eval(r, h.Value)})
	}
	return set
}

// proxyBody is the body sent upstream: buffered whole
// (proxy_request_buffering on, and a body of unknown length over
// HTTP/1.0), or streamed as it arrives. A client that sent
// "Content-Length: 0" has it passed on (length 0); one that sent no body
// none (-1).
func (rt *Site) proxyBody(r *Request) (io.Reader, int64, int) {
	pc := &r.loc.Proxy
	if !pc.PassRequestBody || pc.SetBody != nil {
		return nil, -1, 0
	}
	if r.Body == nil || r.ContentLength == 0 {
		if r.Header.Get("Content-Length") != "" || r.Header.Get("Transfer-Encoding") != "" {
			return nil, 0, 0
		}
		return nil, -1, 0
	}
	if !pc.RequestBuffering && (r.ContentLength > 0 || pc.HTTP11) {
		if r.ContentLength > 0 {
			return r.teeBody(io.LimitReader(r.Body, r.ContentLength)), r.ContentLength, 0
		}
		return r.teeBody(r.Body), -1, 0
	}
	body, n, status := rt.bufferBody(r)
	r.bodyLength = n
	return body, n, status
}

// proxyErrorWords is how nginx's error log names a failure.
func proxyErrorWords(e *httpproxy.Error) string {
	switch e.Kind {
	case httpproxy.KindConnect:
		return "connect() failed"
	case httpproxy.KindTimeout:
		return "upstream timed out"
	case httpproxy.KindInvalidHeader:
		return "upstream sent invalid header"
	case httpproxy.KindClient:
		return "client prematurely closed connection"
	}
	return "upstream prematurely closed connection"
}

// proxyOpWords turns an Error's Op into nginx's "while ..." words.
func proxyOpWords(op string) string {
	switch op {
	case "connect", "SSL handshake":
		return "connecting to upstream"
	case "send request":
		return "sending request to upstream"
	case "read response header":
		return "reading response header from upstream"
	case "read request body":
		return "reading client request body"
	}
	return "reading upstream"
}

// proxyNextAllows applies proxy_next_upstream's error, timeout and
// invalid_header to a failure.
func proxyNextAllows(list []string, e *httpproxy.Error) bool {
	for _, v := range list {
		switch v {
		case "off":
			return false
		case "error":
			if e.Kind == httpproxy.KindConnect || e.Kind == httpproxy.KindClosed {
				return true
			}
		case "timeout":
			if e.Kind == httpproxy.KindTimeout {
				return true
			}
		case "invalid_header":
			if e.Kind == httpproxy.KindInvalidHeader {
				return true
			}
		}
	}
	return false
}

// proxyNextStatus applies proxy_next_upstream's http_* to a status.
func proxyNextStatus(list []string, status int) bool {
	for _, v := range list {
		if strings.HasPrefix(v, "http_") && v[5:] == strconv.Itoa(status) {
			return true
		}
	}
	return false
}

// proxyResponse turns the upstream's answer into r.resp.
func (rt *Site) proxyResponse(r *Request, t *httpproxy.Target, p *conf.ProxyPass, resp *httpproxy.Response) (step, int) {
	l := r.loc
	pc := &l.Proxy
	out := r.resp
	for _, h := range resp.Header {
		r.up.header.Add(h.Name, h.Value)
	}
	if v := resp.Accel.LimitRate; v != "" && !slices.Contains(pc.IgnoreHeaders, "x-accel-limit-rate") {
		r.accelLimitRate(v)
	}
	if a := resp.Accel.Redirect; a != "" && !slices.Contains(pc.IgnoreHeaders, "x-accel-redirect") {
		resp.Close()
		r.up.finish(rt.now(), 0)
		for _, h := range resp.ClientHeaders(nil, rt.proxies.hideHeaders(l)) {
			out.Header.Add(h.Name, h.Value)
		}
		return rt.accelRedirect(r, a)
	}
	var fields []cache.Field
	if r.cache.l != nil {
		fields = proxyCacheFields(resp)
		if rt.cacheResponse(r, resp.Status, fields) {
			resp.Close()
			r.up.finish(rt.now(), 0)
			return stepDone, 0
		}
	}
	if pc.InterceptErrors && resp.Status >= 300 && l.ErrorPages[resp.Status] != nil {
		resp.Close()
		rt.cacheIntercepted(r, resp.Status, fields)
		r.up.finish(rt.now(), 0)
		return stepDone, resp.Status
	}
	// proxy_redirect's rules are made when a header needs them, as
	// nginx evaluates them for the header it rewrites.
	var rules []httpproxy.Rule
	rulesMade := false
	cookies := rt.proxyCookies(r)
	var kept [16]httpproxy.Header
	for _, h := range resp.ClientHeaders(kept[:0], rt.proxies.hideHeaders(l)) {
		if cookies != nil && strings.EqualFold(h.Name, "Set-Cookie") {
			if v, ok := httpproxy.RewriteSetCookie(cookies, h.Value); ok {
				h.Value = v
			}
		}
		location, refresh := strings.EqualFold(h.Name, "Location"), strings.EqualFold(h.Name, "Refresh")
		if (location || refresh) && !rulesMade {
			rules, rulesMade = rt.proxyRedirects(r, p, t), true
		}
		if len(rules) > 0 {
			switch {
			case location:
				if v, ok := httpproxy.RewriteLocation(rules, h.Value); ok {
					h.Value = v
				}
			case refresh:
				if v, ok := httpproxy.RewriteRefresh(rules, h.Value); ok {
					h.Value = v
				}
			}
		}
		out.Header.Add(h.Name, h.Value)
	}
	out.Status = resp.Status
	if resp.Reason != "" {
		out.Reason, out.ReasonFor = resp.Reason, resp.Status
	}
	if resp.Upgrade {
		return rt.proxyUpgrade(r, resp)
	}
	if resp.Status == 101 {
		// A 101 the client did not ask for: nginx passes it and closes.
		resp.Close()
		out.Kind, out.HeadOnly, out.Close = BodyNone, true, true
		r.up.finish(rt.now(), 0)
		return stepDone, 0
	}
	buffering := pc.Buffering
	if a := resp.Accel.Buffering; a != "" && !slices.Contains(pc.IgnoreHeaders, "x-accel-buffering") {
		buffering = !strings.EqualFold(a, "no")
	}
	var w *cache.Writer
	if buffering {
		w = rt.cacheStore(r, resp.Status, fields)
	}
	if (r.Method == "HEAD" && !r.cache.headAsGet) || resp.ContentLength == 0 || (r.Method == "HEAD" && w == nil) {
		resp.Close()
		if w != nil {
			_ = w.Commit() // an empty body
		}
		out.Kind, out.HeadOnly, out.Length = BodyNone, true, -1
		for _, h := range resp.Header {
			if strings.EqualFold(h.Name, "Content-Length") {
				if n, err := strconv.ParseInt(strings.TrimSpace(h.Value), 10, 64); err == nil && n >= 0 {
					out.Length = n
				}
			}
		}
		r.up.finish(rt.now(), 0)
		return stepDone, 0
	}
	if buffering {
		st := rt.bufferProxied(r, t, resp)
		if w != nil {
			if st != 0 {
				w.Abort()
			} else {
				// Stored before the client gets it, so a waiter on the
				// lock wakes to a complete entry.
				storeBody(w, r.resp)
			}
		}
		return stepDone, st
	}
	out.Kind = BodyStream
	out.Length = resp.ContentLength
	out.Stream = func(w io.Writer, flush func() error) error {
		cw := &CountWriter{W: w}
		err := resp.Stream(cw, flush)
		resp.Close()
		r.up.finish(rt.now(), cw.N)
		return err
	}
	return stepDone, 0
}

// bufferProxied reads the whole response so the upstream connection is
// free before the client has read a byte (bufferInto).
func (rt *Site) bufferProxied(r *Request, t *httpproxy.Target, resp *httpproxy.Response) int {
	n, err := rt.bufferInto(r, resp)
	resp.Close()
	r.up.finish(rt.now(), n)
	if err == nil {
		return 0
	}
	r.resp.Header.reset()
	var e *httpproxy.Error
	if errors.As(err, &e) {
		rt.log.errorf(r, "%s (%v) while reading upstream, upstream: \"%s://%s\"", proxyErrorWords(e), e.Err, t.Scheme, r.up.last().addr)
		return e.Status()
	}
	rt.log.errorf(r, "%v while reading upstream, upstream: \"%s://%s\"", err, t.Scheme, r.up.last().addr)
	return 502
}

// proxyRedirects evaluates the location's proxy_redirect rules ("default"
// from its proxy_pass); none with "off", or for a proxy_pass with
// variables without explicit rules.
func (rt *Site) proxyRedirects(r *Request, p *conf.ProxyPass, t *httpproxy.Target) []httpproxy.Rule {
	pc := &r.loc.Proxy
	if pc.RedirectOff {
		return nil
	}
	if pc.Redirects == nil {
		if p.Script != nil {
			return nil
		}
		return []httpproxy.Rule{httpproxy.DefaultRedirect(p.Raw, t, p.Location)}
	}
	return rt.proxyRules(r, pc.Redirects, func() httpproxy.Rule { return httpproxy.DefaultRedirect(p.Raw, t, p.Location) }, p.Script == nil)
}

// proxyRules evaluates proxy_redirect or proxy_cookie_* rules; def makes
// "default", used only when allowed (a proxy_pass without variables).
func (rt *Site) proxyRules(r *Request, list []conf.ProxyRedirect, def func() httpproxy.Rule, allowDefault bool) []httpproxy.Rule {
	rules := make([]httpproxy.Rule, 0, len(list))
	for i := range list {
		rd := &list[i]
		switch {
		case rd.Default:
			if allowDefault {
				rules = append(rules, def())
			}
		case rd.Regex != nil:
			re, to := rd.Regex, rd.To
			rules = append(rules, httpproxy.Rule{Regex: func(v string) (string, bool) {
				ok, err := matchRegex(r, re, v)
				if err != nil || !ok {
					return "", false
				}
				return rt.eval(r, to), true
			}})
		default:
			rules = append(rules, httpproxy.Rule{From: rt.eval(r, rd.From), To: rt.eval(r, rd.To)})
		}
	}
	return rules
}

// proxyCookies evaluates proxy_cookie_domain, _path and _flags; nil when
// the location has none.
func (rt *Site) proxyCookies(r *Request) *httpproxy.CookieRewrite {
	pc := &r.loc.Proxy
	if len(pc.CookieDomains) == 0 && len(pc.CookiePaths) == 0 && len(pc.CookieFlags) == 0 {
		return nil
	}
	c := &httpproxy.CookieRewrite{
		Domains: rt.proxyRules(r, pc.CookieDomains, nil, false),
		Paths:   rt.proxyRules(r, pc.CookiePaths, nil, false),
	}
	for _, f := range pc.CookieFlags {
		cf := httpproxy.CookieFlags{Cookie: f.Cookie, Flags: f.Flags}
		if re := f.Regex; re != nil {
			cf.Cookie = ""
			cf.Regex = func(name string) bool {
				ok, err := re.Match(name)
				return err == nil && ok
			}
		}
		c.Flags = append(c.Flags, cf)
	}
	return c
}
