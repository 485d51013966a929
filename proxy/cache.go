// This file connects the upstream handlers to the response cache
// (fastcgi_cache and proxy_cache, cache/), for both alike: the zones of a
// plan, kept across reloads; the lookup before the upstream is asked
// (HIT, UPDATING and STALE answered from the entry with sendfile, the
// stored gzip variant for clients that take it); the decision and the
// store of the upstream's response (MISS, EXPIRED, BYPASS); stale answers
// for failures, revalidation, the store of a background update; and
// purging (ngx_cache_purge's and NGINX Plus's *_cache_purge). What is
// FastCGI's own (its params, its background request) is in
// fastcgi_cache.go, proxy_pass's in proxy_cache.go.
package proxy

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"edge/cache"
	"edge/conf"
	"edge/proxy/httpproxy"
	"edge/proxy/logs"
)

// cacheZones holds the open zones by name; they outlive plans, as nginx
// keeps a keys zone across reloads.
type cacheZones struct {
	mu    sync.Mutex
	zones map[string]*cache.Zone
}

// open opens or reconfigures the zones a plan declares and closes those
// it no longer names (their files stay on disk). A zone whose path or
// levels changed fails the reload, as in nginx.
func (cz *cacheZones) open(plan *conf.Plan, errLog *logs.ErrorLog) (map[string]*cache.Zone, error) {
	cz.mu.Lock()
	defer cz.mu.Unlock()
	out := map[string]*cache.Zone{}
	if plan.HTTP == nil {
		return out, nil
	}
	if cz.zones == nil {
		cz.zones = map[string]*cache.Zone{}
	}
	var opened []*cache.Zone
	fail := func(err error) (map[string]*cache.Zone, error) {
		for _, z := range opened {
			z.Close()
		}
		return nil, err
	}
	for name, p := range plan.HTTP.CachePaths {
		cfg := cache.ZoneConfig{Path: p.Path, Levels: p.Levels, Name: name, KeysZoneSize: p.KeysZoneSize,
			Inactive: p.Inactive, MaxSize: p.MaxSize, MinFree: p.MinFree}
		if z := cz.zones[name]; z != nil {
			if err := z.Reconfigure(cfg); err != nil {
				return fail(&conf.Error{Level: conf.LevelEmerg, Msg: strings.TrimPrefix(err.Error(), "cache: "), File: p.File, Line: p.Line})
			}
			out[name] = z
			continue
		}
		z, err := cache.Open(cfg, cache.Options{Logf: func(format string, args ...any) {
			errLog.Logf(conf.LevelCrit, format, args...)
		}})
		if err != nil {
			return fail(&conf.Error{Level: conf.LevelEmerg, Msg: strings.TrimPrefix(err.Error(), "cache: "), File: p.File, Line: p.Line})
		}
		opened = append(opened, z)
		out[name] = z
	}
	for name, z := range cz.zones {
		if out[name] == nil {
			z.Close()
		}
	}
	cz.zones = out
	return out, nil
}

// closeAll stops every zone's manager at shutdown.
func (cz *cacheZones) closeAll() {
	cz.mu.Lock()
	defer cz.mu.Unlock()
	for name, z := range cz.zones {
		z.Close()
		delete(cz.zones, name)
	}
}

// requestCache is a request's use of the cache.
type requestCache struct {
	// status is $upstream_cache_status.
	status cache.Status
	// served: the response comes from the cache or will be stored, so
	// conditional requests and ranges are answered by edge (nginx clears
	// r->disable_not_modified for a cacheable response).
	served bool
	zone   *cache.Zone
	l      *cache.Lookup
	hdr    *cacheHeaders
	// cfg is the handler's settings (the location's fastcgi_cache or
	// proxy_cache).
	cfg *conf.Cache
	// validators were sent upstream (*_cache_revalidate).
	revalidating bool
	// headAsGet: a cached HEAD goes upstream as a GET
	// (proxy_cache_convert_head).
	headAsGet bool
}

// cacheUse is what a handler hands cacheBegin: its settings, and how it
// differs from the other handler.
type cacheUse struct {
	cfg *conf.Cache
	// ignore is the cache's part of the handler's *_ignore_headers.
	ignore cache.Ignore
	// handler is the handler that asks, for its default key and its
	// background update (cacheNone: neither). Fields rather than
	// closures: a closure was an allocation a request, HIT or not.
	handler cacheHandler
	// b is the upstream a background update asks; req and tls are
	// proxy_pass's request (its body left out) and TLS settings.
	b   *backend
	req *httpproxy.Request
	tls *httpproxy.TLSConfig
}

// cacheHandler names the handler of a cacheUse.
type cacheHandler uint8

const (
	cacheNone cacheHandler = iota
	// cacheFastCGI: no default key ("", every URL shares one entry, as
	// fastcgi_cache without a key); backgroundUpdate.
	cacheFastCGI
	// cacheProxy: proxyDefaultKey; proxyBackgroundUpdate.
	cacheProxy
)

// cacheBackground runs u's upstream request again without the client and
// stores its answer (storeBackground), with a copy of the request's
// headers (cacheHeaders.freeze); it ends with l.Done, at once when u has
// no handler.
func (rt *Site) cacheBackground(r *Request, u cacheUse, l *cache.Lookup) {
	if u.handler == cacheNone {
		l.Done()
		return
	}
	r.cache.hdr.freeze()
	if u.handler == cacheFastCGI {
		rt.backgroundUpdate(r, u.b, l)
	} else {
		rt.proxyBackgroundUpdate(r, u.b, u.req, u.tls, l)
	}
}

// cacheHeaders reads the request headers a Vary names: the request's own
// while it runs, a copy for a background update that outlives it.
type cacheHeaders struct {
	r    *Request
	copy map[string]string
}

func (h *cacheHeaders) get(name string) string {
	if h.copy != nil {
		return h.copy[strings.ToLower(name)]
	}
	return h.r.Header.Get(name)
}

// freeze copies the headers, for a lookup that outlives the request.
func (h *cacheHeaders) freeze() {
	m := map[string]string{}
	for _, kv := range h.r.Header.AppendAll(nil) {
		k := strings.ToLower(kv.Name)
		if old, ok := m[k]; ok {
			m[k] = old + ", " + kv.Value
		} else {
			m[k] = strings.Clone(kv.Value)
		}
	}
	h.copy = m
}

// configured reports whether a location caches at all (a zone or
// variables), so that a handler builds its cacheUse only then.
func configured(c *conf.Cache) bool { return c.Zone != "" || c.ZoneScript != nil }

// cacheZone is the location's zone for this request: fastcgi_cache's
// (proxy_cache's) name, or its variables' value ("" and "off" cache
// nothing).
func (rt *Site) cacheZone(r *Request, c *conf.Cache) *cache.Zone {
	name := c.Zone
	if c.ZoneScript != nil {
		name = rt.eval(r, c.ZoneScript)
	}
	if name == "" || name == "off" {
		return nil
	}
	return rt.caches[name]
}

// cachePolicy is the location's settings as cache/ takes them.
func cachePolicy(c *conf.Cache, ig cache.Ignore) cache.Policy {
	return cache.Policy{Valid: c.Valid, Ignore: ig, MinUses: c.MinUses, Lock: c.Lock, LockTimeout: c.LockTimeout,
		LockAge: c.LockAge, UseStale: c.UseStale, BackgroundUpdate: c.BackgroundUpdate, Revalidate: c.Revalidate}
}

// predicate is ngx_http_test_predicates over scripts.
func (rt *Site) predicate(r *Request, list []*conf.Script) bool {
	for _, s := range list {
		if cache.AnyTrue(rt.eval(r, s)) {
			return true
		}
	}
	return false
}

// cacheHidden reports the request headers nginx does not pass to the
// upstream while a location caches (ngx_http_fastcgi_cache_headers,
// ngx_http_proxy_cache_headers):
// edge answers conditional and range requests from the response itself.
func cacheHidden(name string) bool {
	for _, h := range [...]string{"If-Modified-Since", "If-Unmodified-Since", "If-None-Match", "If-Match", "Range", "If-Range"} {
		if strings.EqualFold(name, h) {
			return true
		}
	}
	return false
}

// cacheRequestHeaders drops cacheHidden from the headers passed to PHP.
func cacheRequestHeaders(headers []HeaderKV) []HeaderKV {
	out := headers[:0]
	for _, h := range headers {
		if !cacheHidden(h.Name) {
			out = append(out, h)
		}
	}
	return out
}

// cacheBegin runs before the upstream is asked. done is true when the
// request was answered (from the cache, by a purge, or a cached error):
// the handler then returns next and status.
func (rt *Site) cacheBegin(r *Request, u cacheUse) (next step, status int, done bool) {
	rc := &r.cache
	// An earlier location of this request (before an internal redirect)
	// may have used the cache; its lookup has ended (cacheEnd).
	rc.l, rc.hdr, rc.served, rc.revalidating, rc.headAsGet = nil, nil, false, false, false
	c := u.cfg
	rc.cfg = c
	rc.zone = rt.cacheZone(r, c)
	if rc.zone == nil {
		return stepDone, 0, false
	}
	key := ""
	switch {
	case c.Key != nil:
		key = rt.eval(r, c.Key)
	case u.handler == cacheProxy:
		key = rt.proxyDefaultKey(r)
	}
	if p := c.Purge; p != nil {
		switch {
		case p.Predicate != nil && cache.AnyTrue(rt.eval(r, p.Predicate)):
			// NGINX Plus answers 204 whether or not the key was cached.
			rc.zone.Purge(key)
			return stepDone, 204, true
		case p.Method != "" && r.Method == p.Method:
			return stepDone, rt.purgeAnswer(r, p, rc.zone, key), true
		}
	}
	if r.Method != "GET" && r.Method != "HEAD" && !(r.Method == "POST" && c.CachePOST) {
		return stepDone, 0, false
	}
	// ngx_http_upstream_cache converts before the key and the bypass
	// test, so a bypassed HEAD goes as a GET too.
	rc.headAsGet = r.Method == "HEAD" && c.ConvertHead
	rc.hdr = &cacheHeaders{r: r}
	l := rc.zone.Lookup(r.context(), cache.Request{Key: key, Bypass: rt.predicate(r, c.Bypass), Header: rc.hdr.get}, cachePolicy(c, u.ignore))
	rc.l, rc.status = l, l.Status
	switch {
	case l.ErrorStatus != 0:
		return stepDone, l.ErrorStatus, true
	case l.Entry != nil && (l.Status == cache.StatusHit || l.Status == cache.StatusUpdating || l.Status == cache.StatusStale):
		if l.Background {
			rt.cacheBackground(r, u, l)
		}
		rt.sendEntry(r, l.Entry)
		return stepDone, 0, true
	}
	return stepDone, 0, false
}

// cacheEnd ends the request's lookup (see cache.Lookup's Done), unless a
// background update owns it.
func (rt *Site) cacheEnd(r *Request) {
	l := r.cache.l
	if l == nil {
		return
	}
	r.cache.l = nil
	if !l.Background {
		l.Entry.Close() // a no-op once sendEntry gave the file to the response
		l.Done()
	}
}

// cacheValidators are the stored Last-Modified and ETag a revalidation
// sends upstream as If-Modified-Since and If-None-Match (nginx's
// $upstream_cache_last_modified and $upstream_cache_etag); ok is false
// when there is nothing to revalidate.
func (rt *Site) cacheValidators(r *Request) (lastModified, etag string, ok bool) {
	l := r.cache.l
	if l == nil {
		return "", "", false
	}
	lastModified, etag, ok = l.Validators()
	r.cache.revalidating = ok
	return lastModified, etag, ok
}

// cacheFailed handles a failed round trip (status 502 or 504 edge
// answers): a stale entry when *_cache_use_stale allows it,
// otherwise the error is remembered when fastcgi_cache_valid names it.
func (rt *Site) cacheFailed(r *Request, status int) bool {
	l := r.cache.l
	if l == nil {
		return false
	}
	f := cache.FailError
	if status == 504 {
		f = cache.FailTimeout
	}
	if l.Stale(f, 0) {
		r.cache.status = l.Status
		rt.sendEntry(r, l.Entry)
		return true
	}
	l.Failed(status)
	return false
}

// cacheResponse looks at the upstream's response head before its body
// is read:
// a stale entry may answer an error status, a 304 to a revalidation
// renews the entry. It returns true when the entry was sent instead.
func (rt *Site) cacheResponse(r *Request, status int, fields []cache.Field) bool {
	l := r.cache.l
	if l == nil {
		return false
	}
	if status == 304 && r.cache.revalidating && l.Status == cache.StatusExpired {
		_ = l.Revalidated(fields)
		r.cache.status = l.Status
		rt.sendEntry(r, l.Entry)
		return true
	}
	if status >= 400 && l.Stale(cache.FailNone, status) {
		r.cache.status = l.Status
		rt.sendEntry(r, l.Entry)
		return true
	}
	return false
}

// cacheIntercepted tells the lookup that the upstream's error status is
// answered by an error_page (*_intercept_errors), which remembers it when
// the response is cacheable (Lookup.Intercepted).
func (rt *Site) cacheIntercepted(r *Request, status int, fields []cache.Field) {
	if l := r.cache.l; l != nil {
		l.Intercepted(status, fields)
	}
}

// cacheStore stores the upstream's buffered response when it is
// cacheable and *_no_cache does not say otherwise. fields are the
// upstream's header lines in order (for the decision); the head stored is
// the one the client gets, hidden headers removed.
func (rt *Site) cacheStore(r *Request, status int, fields []cache.Field) *cache.Writer {
	l := r.cache.l
	if l == nil {
		return nil
	}
	fr := l.Decide(status, fields)
	if !fr.OK() || rt.predicate(r, r.cache.cfg.NoCache) {
		return nil
	}
	r.cache.served = true
	head := make([]cache.Field, 0, len(r.resp.Header.list))
	for _, h := range r.resp.Header.list {
		head = append(head, cache.Field{Name: h.name, Value: h.value})
	}
	h := &r.resp.Header
	return l.Store(status, head, fr, cacheStoreOptions(r.loc, status, h.Get("Content-Encoding"), h.Get("Content-Type"), r.resp.Length))
}

// cacheStoreOptions are the compressed variants to store with an entry:
// gzip at gzip_comp_level and br at brotli_comp_level, each where its
// settings apply to the response (whatever the client accepts). n is the
// body's length when known (-1 otherwise), which sets brotli's window as
// the filter would.
func cacheStoreOptions(loc *conf.Location, status int, contentEncoding, contentType string, n int64) cache.StoreOptions {
	var o cache.StoreOptions
	if (status != 200 && status != 403 && status != 404) || contentEncoding != "" {
		return o
	}
	if g := &loc.Gzip; g.On && encodingType(&g.Encoding, contentType) {
		o.GzipLevel = g.CompLevel
	}
	if b := &loc.Brotli; b.On && encodingType(&b.Encoding, contentType) {
		o.Brotli = &cache.BrotliOptions{Level: b.CompLevel, Window: brotliWindow(n, b.Window)}
	}
	return o
}

// storeBody writes a buffered body into w and commits it.
func storeBody(w *cache.Writer, resp *Response) {
	if w == nil {
		return
	}
	switch resp.Kind {
	case BodyBytes:
		w.Write(resp.Bytes)
	case BodyFile:
		if _, err := io.Copy(w, io.NewSectionReader(resp.File, resp.Offset, resp.Length)); err != nil {
			w.Abort()
			return
		}
	}
	_ = w.Commit()
}

// sendEntry answers from a cache entry: its status and head, and its
// body sent from memory or from the entry's file (the gzip variant to a client the
// location's gzip would compress for, so a HIT compresses nothing).
func (rt *Site) sendEntry(r *Request, e *cache.Entry) {
	out := r.resp
	out.Header.reset()
	out.Status = e.Status
	for _, f := range e.Header {
		out.Header.Add(f.Name, f.Value)
	}
	r.cache.served = true
	g := &r.loc.Gzip
	// Where brotli takes the body for this client (ngx_brotli runs
	// before gzip), the stored br variant goes, or the identity body for
	// the brotli filter to compress when none was stored; the stored gzip
	// variant goes where gzip takes it.
	br := rt.brotliWouldTake(r, e)
	sec, token, ratioVar := e.Identity, "", (*string)(nil)
	switch {
	case br && e.Brotli.Len > 0:
		sec, token, ratioVar = e.Brotli, "br", &r.brotliRatio
	case !br && e.Gzip.Len > 0 && g.On && rt.gzipOK(r, g):
		sec, token, ratioVar = e.Gzip, "gzip", &r.gzipRatio
	}
	if token != "" {
		out.Header.Set("Content-Encoding", token)
		out.Header.Del("Accept-Ranges")
		weakenETag(&out.Header)
		*ratioVar = ratio(int(e.Identity.Len), int(sec.Len))
		// The filters ask for Vary for an identity body; the stored
		// variant needs it too. It is framed as the filter frames what
		// it compresses.
		r.gzipVary = true
		out.Unsized = true
	}
	switch {
	case e.Data != nil:
		// A small entry the zone keeps in memory (cache/memory.go): sent
		// as edge's file cache sends a small static file, no file opened.
		out.Kind, out.Bytes, out.Length = BodyBytes, e.Bytes(sec), sec.Len
		if e.Kept != nil {
			out.Mirror = FileMirror{File: e.Kept, Data: e.Data}
		}
	case sec.Len == 0:
		e.File.Close()
		out.Kind, out.File, out.CloseFile, out.Bytes, out.Length = BodyBytes, nil, false, nil, 0
	default:
		out.Kind, out.File, out.CloseFile, out.Offset, out.Length = BodyFile, e.File, true, sec.Off, sec.Len
	}
	e.File = nil // the response owns it now
}

// weakenETag makes a strong ETag weak for a compressed body, as the gzip
// filter does.
func weakenETag(h *ResponseHeader) {
	et := h.Get("ETag")
	switch {
	case et == "", strings.HasPrefix(et, "W/"):
	case strings.HasPrefix(et, "\""):
		h.Set("ETag", "W/"+et)
	default:
		h.Del("ETag")
	}
}

// purgePage is ngx_cache_purge's answer to a purge that removed an entry.
const purgePage = "<html>\r\n<head><title>Successful purge</title></head>\r\n<body bgcolor=\"white\">\r\n<center><h1>Successful purge</h1>\r\n<br>Key : %KEY%\r\n</center>\r\n</body>\r\n</html>\r\n"

// purgeAnswer purges key (a "*" suffix purges the prefix) for the method
// form and the location form: 403 from an address the form does not
// allow, 404 when nothing was cached, else ngx_cache_purge's page.
func (rt *Site) purgeAnswer(r *Request, p *conf.CachePurge, z *cache.Zone, key string) int {
	if p.Method != "" && !p.Allowed(r.Conn.Remote.Addr()) {
		rt.log.errorf(r, "access forbidden by rule")
		return 403
	}
	if z.Purge(key) == 0 {
		return 404
	}
	out := r.resp
	out.Status = 200
	out.Header.Set("Content-Type", "text/html")
	body := []byte(strings.Replace(purgePage, "%KEY%", key, 1))
	out.Kind, out.Bytes, out.Length = BodyBytes, body, int64(len(body))
	return 0
}

// cachePurgeHandler is the content handler of "fastcgi_cache_purge zone
// key" (or proxy_cache_purge's) in a location.
func (rt *Site) cachePurgeHandler(r *Request) int {
	p := r.loc.Content.Purge
	z := rt.caches[p.Zone]
	if z == nil {
		return 500
	}
	return rt.purgeAnswer(r, p, z, rt.eval(r, p.Key))
}

// storeBackground stores a background update's answer (status, the
// upstream's header lines in fields, the client's head in head, the body
// read from body) when the lookup decides it is cacheable.
func storeBackground(l *cache.Lookup, loc *conf.Location, status int, fields, head []cache.Field, body io.Reader) {
	fr := l.Decide(status, fields)
	if !fr.OK() {
		return
	}
	var buf bytes.Buffer
	if err := readUpTo(&buf, body, 64<<20); err != nil {
		return
	}
	o := cacheStoreOptions(loc, status, cache.FieldValue(head, "Content-Encoding"), cache.FieldValue(head, "Content-Type"), int64(buf.Len()))
	if w := l.Store(status, head, fr, o); w != nil {
		w.Write(buf.Bytes())
		_ = w.Commit()
	}
}
