// This file holds what fastcgi_cache needs beyond the shared cache code
// (cache.go): the handler's cacheUse, the revalidation params, and the
// background update that asks PHP again without the client.
package proxy

import (
	"context"
	"strings"

	"edge/cache"
	"edge/conf"
	"edge/fastcgi"
)

// fastcgiCacheUse is the location's fastcgi_cache for cacheBegin; b is
// the backend a background update asks.
func (rt *Site) fastcgiCacheUse(r *Request, b *backend) cacheUse {
	if !configured(&r.loc.FastCGICache) {
		return cacheUse{cfg: &r.loc.FastCGICache}
	}
	return cacheUse{cfg: &r.loc.FastCGICache, ignore: r.loc.FastCGI.IgnoreCache, handler: cacheFastCGI, b: b}
}

// fastcgiValidators adds the stored validators of a revalidation as the
// conditional params PHP reads (HTTP_IF_MODIFIED_SINCE,
// HTTP_IF_NONE_MATCH).
func (rt *Site) fastcgiValidators(r *Request) {
	lm, etag, ok := rt.cacheValidators(r)
	if !ok {
		return
	}
	if lm != "" {
		r.params = append(r.params, HeaderKV{"HTTP_IF_MODIFIED_SINCE", lm})
	}
	if etag != "" {
		r.params = append(r.params, HeaderKV{"HTTP_IF_NONE_MATCH", etag})
	}
}

// backgroundUpdate refreshes an expired entry after a STALE answer
// (fastcgi_cache_background_update): the same FastCGI request runs
// without the client, its response is stored, and the lookup ends with
// it. A request body is not sent again (only GET and HEAD get here,
// unless POST is cached, whose body is then not replayed).
func (rt *Site) backgroundUpdate(r *Request, b *backend, l *cache.Lookup) {
	loc := r.loc
	var params []HeaderKV
	headers := cacheRequestHeaders(r.Header.AppendAll(nil))
	for _, kv := range cgiParams(nil, &loc.FastCGI, r.srv, headers, func(s *conf.Script) string { return rt.eval(r, s) }) {
		params = append(params, HeaderKV{strings.Clone(kv.Name), strings.Clone(kv.Value)})
	}
	if b == nil || len(b.servers) == 0 {
		l.Done()
		return
	}
	go func() {
		defer l.Done()
		req := &fastcgi.Request{}
		for _, p := range params {
			req.Params.Add(p.Name, p.Value)
		}
		f := &loc.FastCGI
		fastcgiConnLimits(req, f)
		srv := b.pick(rt.now(), nil)
		if srv == nil {
			return
		}
		resp, err := srv.client.Do(context.Background(), req)
		if err != nil {
			return
		}
		defer resp.Close()
		var fields, head []cache.Field
		for _, h := range resp.Header {
			name, lname := headerName(h.Name)
			fd := cache.Field{Name: name, Value: string(h.Value)}
			fields = append(fields, fd)
			if (fastcgiHidden[lname] || hiddenByConf(f, lname)) && !passedByConf(f, lname) {
				continue
			}
			head = append(head, fd)
		}
		if cache.FieldValue(head, "Content-Type") == "" {
			head = append(head, cache.Field{Name: "Content-Type", Value: loc.DefaultType})
		}
		storeBackground(l, loc, resp.Status, fields, head, resp.Body)
	}()
}
