// This file holds what proxy_cache needs beyond the shared cache code
// (cache.go): the handler's cacheUse (the default key
// $scheme$proxy_host$request_uri), the client headers a caching location
// does not pass, the revalidation headers, and the background update
// that sends the request again without the client.
package proxy

import (
	"context"
	"strings"

	"edge/cache"
	"edge/conf"
	"edge/proxy/httpproxy"
)

// proxyCacheUse is the location's proxy_cache for cacheBegin. req is the
// request a background update sends (its body left out), to b.
func (rt *Site) proxyCacheUse(r *Request, b *backend, req *httpproxy.Request, tls *httpproxy.TLSConfig) cacheUse {
	if !configured(&r.loc.ProxyCache) {
		return cacheUse{cfg: &r.loc.ProxyCache}
	}
	return cacheUse{cfg: &r.loc.ProxyCache, ignore: r.loc.Proxy.IgnoreCache, handler: cacheProxy, b: b, req: req, tls: tls}
}

// proxyDefaultKey is proxy_cache_key's default,
// $scheme$proxy_host$request_uri (ngx_http_proxy_merge_loc_conf).
func (rt *Site) proxyDefaultKey(r *Request) string {
	return rt.builtin(r, conf.VarScheme) + r.px.host + rt.builtin(r, conf.VarRequestURI)
}

// proxyCacheHeaders drops the conditional and range headers from the
// client's (cacheHidden; ngx_http_proxy_cache_headers sends them empty)
// and, for a revalidation (proxy_cache_revalidate), sets the stored
// validators as If-Modified-Since and If-None-Match.
func (rt *Site) proxyCacheHeaders(r *Request, client, set []httpproxy.Header) ([]httpproxy.Header, []httpproxy.Header) {
	out := client[:0]
	for _, h := range client {
		if !cacheHidden(h.Name) {
			out = append(out, h)
		}
	}
	if lm, etag, ok := rt.cacheValidators(r); ok {
		set = append(set[:len(set):len(set)], httpproxy.Header{Name: "If-Modified-Since", Value: lm},
			httpproxy.Header{Name: "If-None-Match", Value: etag})
	}
	return out, set
}

// proxyCacheFields are the upstream's header lines as cache/ reads them.
func proxyCacheFields(resp *httpproxy.Response) []cache.Field {
	fields := make([]cache.Field, len(resp.Header))
	for i, h := range resp.Header {
		fields[i] = cache.Field{Name: h.Name, Value: h.Value}
	}
	return fields
}

// proxyBackgroundUpdate refreshes an expired entry after a STALE answer
// (proxy_cache_background_update): the request is sent again without
// the client (and without a body), its answer stored, and the lookup
// ends with it. The head stored is the upstream's with the location's
// hidden headers removed; proxy_redirect and proxy_cookie_* rewrites,
// which need the client's request, are not applied to it.
// It runs from cacheBegin, before proxyPass fills in the request's body:
// client is copied here, and the copy goes with the update.
func (rt *Site) proxyBackgroundUpdate(r *Request, b *backend, client *httpproxy.Request, tls *httpproxy.TLSConfig, l *cache.Lookup) {
	loc := r.loc
	pc := &loc.Proxy
	hide := rt.proxies.hideHeaders(loc)
	req := *client
	req.Body, req.BodyLength = nil, -1
	if r.cache.headAsGet {
		req.Method = "GET"
	}
	req.Set = cloneHeaders(rt.proxySetHeaders(r, nil))
	req.Client, req.Set = rt.proxyCacheHeaders(r, cloneHeaders(req.Client), req.Set)
	req.URI, req.ProxyHost = strings.Clone(req.URI), strings.Clone(req.ProxyHost)
	if b == nil || len(b.servers) == 0 {
		l.Done()
		return
	}
	go func() {
		defer l.Done()
		srv := b.pick(rt.now(), nil)
		if srv == nil {
			return
		}
		u := proxyUpstream(srv, tls, pc)
		resp, err := u.Do(context.Background(), &req)
		if err != nil {
			return
		}
		defer resp.Close()
		var head []cache.Field
		for _, h := range resp.ClientHeaders(nil, hide) {
			head = append(head, cache.Field{Name: h.Name, Value: h.Value})
		}
		storeBackground(l, loc, resp.Status, proxyCacheFields(resp), head, resp)
	}()
}

func cloneHeaders(list []httpproxy.Header) []httpproxy.Header {
	out := make([]httpproxy.Header, len(list))
	for i, h := range list {
		out[i] = httpproxy.Header{Name: strings.Clone(h.Name), Value: strings.Clone(h.Value)}
	}
	return out
}
