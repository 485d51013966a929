// This file holds the fastcgi module's cache directives
// (ngx_http_fastcgi_commands' fastcgi_cache_*, fastcgi_no_cache) and the
// purge directive of ngx_cache_purge and NGINX Plus. The values the cache
// store reads (valid rules, use_stale, levels) are cache/cachecfg's types,
// parsed here so that "edge -t" reports their errors; proxy hands them to
// cache/ unchanged.
package conf

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"edge/cache/cachecfg"
)

// CachePath is one fastcgi_cache_path: a directory and its keys zone.
type CachePath struct {
	// Module is the module whose directive declared it ("fastcgi" or
	// "proxy"): a zone serves its own module's caching only, as nginx
	// tags a shared zone with its module.
	Module       string
	Name         string // keys_zone=name:size
	Path         string
	Levels       []int
	KeysZoneSize int64
	Inactive     time.Duration // default 10m
	MaxSize      int64         // 0: no bound
	MinFree      int64
	UseTempPath  bool // default on; edge writes under the cache path either way
	File         string
	Line         int
}

// Cache is a location's fastcgi_cache or proxy_cache settings (each
// inherits on its own, as in nginx).
type Cache struct {
	// Zone is fastcgi_cache's zone name; "" is off. ZoneScript is set
	// instead when the name has variables (evaluated per request; an
	// empty value or "off" caches nothing).
	Zone       string
	ZoneScript *Script
	Key        *Script // nil: no fastcgi_cache_key, every URL shares one entry
	Valid      []cachecfg.ValidRule
	// CachePOST: fastcgi_cache_methods names POST (GET and HEAD always).
	CachePOST        bool
	MinUses          int
	Bypass           []*Script
	NoCache          []*Script
	Lock             bool
	LockTimeout      time.Duration
	LockAge          time.Duration
	UseStale         cachecfg.UseStale
	BackgroundUpdate bool
	Revalidate       bool
	// Purge is the method form of fastcgi_cache_purge (ngx_cache_purge's
	// "PURGE from 127.0.0.1") or NGINX Plus's "$var" form; nil is off.
	Purge *CachePurge
	// ConvertHead is proxy_cache_convert_head (default on; the fastcgi
	// module has none): a cached HEAD is sent upstream as a GET, so the
	// entry it fills also answers GETs.
	ConvertHead bool
}

// CachePurge is one fastcgi_cache_purge.
type CachePurge struct {
	// Method is the method that purges (ngx_cache_purge's form; "on" is
	// PURGE); From are the addresses allowed to (All: anyone). Others
	// get 403.
	Method string
	From   []netip.Prefix
	All    bool
	// Predicate is NGINX Plus's form: a request for which it evaluates
	// to neither "" nor "0" purges its own key.
	Predicate *Script
	// Zone and Key are the location form ("fastcgi_cache_purge zone
	// key"): the location's content handler purges Key from Zone.
	Zone string
	Key  *Script
}

// String is the purge form as written, for edge -T's dump.
func (p *CachePurge) String() string {
	switch {
	case p == nil:
		return "off"
	case p.Predicate != nil:
		return p.Predicate.Raw
	case p.Zone != "":
		return p.Zone + " " + p.Key.Raw
	case p.All:
		return p.Method + " from all"
	}
	from := make([]string, len(p.From))
	for i, n := range p.From {
		from[i] = n.String()
	}
	return p.Method + " from " + strings.Join(from, " ")
}

// Allowed reports whether addr may purge with the method form.
func (p *CachePurge) Allowed(addr netip.Addr) bool {
	if p.All {
		return true
	}
	addr = addr.Unmap()
	for _, n := range p.From {
		if n.Contains(addr) {
			return true
		}
	}
	return false
}

// cacheRef is a fastcgi_cache or fastcgi_cache_purge naming a zone,
// checked once every fastcgi_cache_path is known (nginx resolves zones
// after the whole configuration is read).
type cacheRef struct {
	d    *Directive
	zone string
	loc  *Location // the level the directive was read at
}

func init() {
	register(cacheDirectives("fastcgi", func(l *LocConf) *Cache { return &l.FastCGICache })...)
	register(cacheDirectives("proxy", func(l *LocConf) *Cache { return &l.ProxyCache })...)
	register(flagSlot("proxy_cache_convert_head", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.ProxyCache.ConvertHead }, true))
}

// cacheDirectives makes one module's cache directives
// (<module>_cache_path, <module>_cache, ..., <module>_no_cache,
// <module>_cache_purge) over the Cache that at picks: the fastcgi and
// proxy modules declare the same set (ngx_http_fastcgi_commands,
// ngx_http_proxy_commands) with the same setters.
func cacheDirectives(module string, at func(*LocConf) *Cache) []*spec {
	flag := func(name string, get func(*Cache) *bool) *spec {
		return flagSlot(module+name, ctxHSL, atLoc, func(l *LocConf) *bool { return get(at(l)) }, false)
	}
	msec := func(name string, get func(*Cache) *time.Duration) *spec {
		return msecSlot(module+name, ctxHSL, atLoc, func(l *LocConf) *time.Duration { return get(at(l)) }, 5*time.Second)
	}
	predicates := func(name string, get func(*Cache) *[]*Script) *spec {
		s := &spec{name: module + name, ctx: ctxHSL, args: take1More, multi: true, set: func(c *compiler, f *frame, d *Directive) error {
			for _, a := range d.Args {
				sc, err := c.compileScript(d, a)
				if err != nil {
					return err
				}
				p := get(at(&f.loc.LocConf))
				*p = append(*p, sc)
			}
			return nil
		}}
		return s.setSlot(field(func(l *LocConf) *[]*Script { return get(at(l)) }, nil))
	}
	in := func(set func(c *compiler, f *frame, d *Directive, x *Cache) error) func(c *compiler, f *frame, d *Directive) error {
		return func(c *compiler, f *frame, d *Directive) error { return set(c, f, d, at(&f.loc.LocConf)) }
	}
	return []*spec{
		{name: module + "_cache_path", ctx: ctxHTTP, args: take1More, multi: true, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			return setCachePath(c, d, module)
		}},
		(&spec{name: module + "_cache", ctx: ctxHSL, args: take1, set: in(setCacheZone)}).setSlot(fields(
			field(func(l *LocConf) *string { return &at(l).Zone }, ""),
			field(func(l *LocConf) **Script { return &at(l).ZoneScript }, nil))),
		value(module+"_cache_key", ctxHSL, take1, atLoc, func(l *LocConf) **Script { return &at(l).Key }, nil,
			func(c *compiler, d *Directive) (*Script, error) { return c.compileScript(d, d.Args[0]) }),
		(&spec{name: module + "_cache_valid", ctx: ctxHSL, args: take1More, multi: true, set: in(setCacheValid)}).setSlot(
			field(func(l *LocConf) *[]cachecfg.ValidRule { return &at(l).Valid }, nil)),
		value(module+"_cache_methods", ctxHSL, take1More, atLoc, func(l *LocConf) *bool { return &at(l).CachePOST }, false, parseCacheMethods),
		numSlot(module+"_cache_min_uses", ctxHSL, atLoc, func(l *LocConf) *int { return &at(l).MinUses }, 1),
		predicates("_cache_bypass", func(x *Cache) *[]*Script { return &x.Bypass }),
		predicates("_no_cache", func(x *Cache) *[]*Script { return &x.NoCache }),
		flag("_cache_lock", func(x *Cache) *bool { return &x.Lock }),
		msec("_cache_lock_timeout", func(x *Cache) *time.Duration { return &x.LockTimeout }),
		msec("_cache_lock_age", func(x *Cache) *time.Duration { return &x.LockAge }),
		value(module+"_cache_use_stale", ctxHSL, take1More, atLoc, func(l *LocConf) *cachecfg.UseStale { return &at(l).UseStale }, 0,
			func(c *compiler, d *Directive) (cachecfg.UseStale, error) {
				u, err := cachecfg.ParseUseStale(d.Args, module == "proxy")
				if err != nil {
					return 0, emergf(d, "%s", strings.TrimPrefix(err.Error(), "cache: "))
				}
				return u, nil
			}),
		flag("_cache_background_update", func(x *Cache) *bool { return &x.BackgroundUpdate }),
		flag("_cache_revalidate", func(x *Cache) *bool { return &x.Revalidate }),
		(&spec{name: module + "_cache_purge", ctx: ctxHSL, args: take1More, set: in(setCachePurge)}).setSlot(
			field(func(l *LocConf) **CachePurge { return &at(l).Purge }, nil)),
	}
}

// setCachePath reads "fastcgi_cache_path path [levels=] keys_zone=name:size
// [inactive=] [max_size=] [min_free=] [use_temp_path=]" as
// ngx_http_file_cache_set_slot does, with its messages.
func setCachePath(c *compiler, d *Directive, module string) error {
	p := &CachePath{Module: module, Path: c.path(d.Args[0]), Inactive: 10 * time.Minute, UseTempPath: true, File: d.File, Line: d.Line}
	for _, a := range d.Args[1:] {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "levels":
			lv, err := cachecfg.ParseLevels(v)
			if err != nil || v == "" {
				return emergf(d, "invalid \"levels\" \"%s\"", a)
			}
			p.Levels = lv
		case "keys_zone":
			name, size, ok := strings.Cut(v, ":")
			if !ok || name == "" {
				return emergf(d, "invalid keys zone size \"%s\"", a)
			}
			n, err := parseSize(d, size)
			if err != nil {
				return emergf(d, "invalid keys zone size \"%s\"", a)
			}
			if n < 8192 {
				return emergf(d, "keys zone \"%s\" is too small", a)
			}
			p.Name, p.KeysZoneSize = name, n
		case "inactive":
			t, ok := ParseDuration(v)
			if !ok {
				return emergf(d, "invalid inactive value \"%s\"", a)
			}
			p.Inactive = t
		case "max_size", "min_free":
			n, err := parseSize(d, v)
			if err != nil {
				return emergf(d, "invalid %s value \"%s\"", k, a)
			}
			if k == "max_size" {
				p.MaxSize = n
			} else {
				p.MinFree = n
			}
		case "use_temp_path":
			switch v {
			case "on":
				p.UseTempPath = true
			case "off":
				p.UseTempPath = false
			default:
				return emergf(d, "invalid use_temp_path value \"%s\", it must be \"on\" or \"off\"", a)
			}
		case "loader_files", "loader_threshold", "loader_sleep", "manager_files", "manager_threshold", "manager_sleep":
			// They pace nginx's loader and manager processes; edge's run
			// as goroutines with their own pacing (docs/cache.md).
			if _, ok := ParseDuration(v); !ok {
				return emergf(d, "invalid %s value \"%s\"", k, a)
			}
		default:
			return emergf(d, "invalid parameter \"%s\"", a)
		}
	}
	if p.Name == "" {
		return emergf(d, "\"%s\" must have \"keys_zone\" parameter", d.Name)
	}
	paths := c.plan.HTTP.CachePaths
	if paths == nil {
		paths = map[string]*CachePath{}
		c.plan.HTTP.CachePaths = paths
	}
	if paths[p.Name] != nil {
		return emergf(d, "duplicate zone \"%s\"", p.Name)
	}
	for _, o := range paths {
		if o.Path == p.Path {
			// nginx names both places and no third.
			return &Error{Level: LevelEmerg, Msg: fmt.Sprintf("the same path name \"%s\" used in %s:%d and in %s:%d", p.Path, o.File, o.Line, d.File, d.Line)}
		}
	}
	paths[p.Name] = p
	return nil
}

// setCacheZone reads "fastcgi_cache zone|off" (and proxy_cache); a name with variables
// is evaluated per request.
func setCacheZone(c *compiler, f *frame, d *Directive, x *Cache) error {
	a := d.Args[0]
	if a == "off" {
		x.Zone, x.ZoneScript = "", nil
		return nil
	}
	if strings.Contains(a, "$") {
		sc, err := c.compileScript(d, a)
		if err != nil {
			return err
		}
		if !sc.Static {
			x.ZoneScript = sc
			c.cacheRefs = append(c.cacheRefs, cacheRef{d: d, loc: f.loc})
			return nil
		}
	}
	x.Zone = a
	c.cacheRefs = append(c.cacheRefs, cacheRef{d: d, zone: a, loc: f.loc})
	return nil
}

// setCacheValid reads "fastcgi_cache_valid [code ...] time".
func setCacheValid(c *compiler, f *frame, d *Directive, x *Cache) error {
	last := d.Args[len(d.Args)-1]
	t, ok := ParseDuration(last)
	if !ok {
		return emergf(d, "invalid time value \"%s\"", last)
	}
	rules, err := cachecfg.ValidRules(d.Args[:len(d.Args)-1], t)
	if err != nil {
		return emergf(d, "%s", strings.TrimPrefix(err.Error(), "cache: "))
	}
	x.Valid = append(x.Valid, rules...)
	return nil
}

// parseCacheMethods reads fastcgi_cache_methods: GET and HEAD are always
// cached, POST only when named.
func parseCacheMethods(c *compiler, d *Directive) (bool, error) {
	post := false
	for _, a := range d.Args {
		switch a {
		case "GET", "HEAD":
		case "POST":
			post = true
		default:
			return false, emergf(d, "invalid value \"%s\"", a)
		}
	}
	return post, nil
}

// setCachePurge reads the three forms of fastcgi_cache_purge:
//   - "fastcgi_cache_purge zone key" (ngx_cache_purge, in a location):
//     the location purges key from zone;
//   - "fastcgi_cache_purge on|off|METHOD [from all|address ...]"
//     (ngx_cache_purge): a request with the method (PURGE for "on") to a
//     caching location purges its key, from the listed addresses only;
//   - "fastcgi_cache_purge $var" (NGINX Plus): a request for which $var
//     is neither "" nor "0" purges its key.
func setCachePurge(c *compiler, f *frame, d *Directive, x *Cache) error {
	a := d.Args
	switch {
	case len(a) == 1 && strings.HasPrefix(a[0], "$"):
		sc, err := c.compileScript(d, a[0])
		if err != nil {
			return err
		}
		x.Purge = &CachePurge{Predicate: sc}
		return nil
	case len(a) == 2 && a[1] != "from":
		if f.ctx != ctxLocation {
			return emergf(d, "\"%s\" with a zone and a key is only allowed in a location", d.Name)
		}
		key, err := c.compileScript(d, a[1])
		if err != nil {
			return err
		}
		p := &CachePurge{Zone: a[0], Key: key}
		f.loc.Content = Content{Kind: ContentCachePurge, Purge: p}
		c.cacheRefs = append(c.cacheRefs, cacheRef{d: d, zone: a[0], loc: f.loc})
		return nil
	}
	if a[0] == "off" {
		if len(a) > 1 {
			return emergf(d, "invalid number of arguments in \"%s\" directive", d.Name)
		}
		x.Purge = nil
		return nil
	}
	p := &CachePurge{Method: a[0]}
	if p.Method == "on" {
		p.Method = "PURGE"
	}
	for _, ch := range p.Method {
		if ch < 'A' || ch > 'Z' {
			return emergf(d, "invalid parameter \"%s\"", a[0])
		}
	}
	switch {
	case len(a) == 1:
		// ngx_cache_purge without "from" checks no address.
		p.All = true
	case a[1] != "from" || len(a) == 2:
		return emergf(d, "invalid parameter \"%s\"", a[1])
	}
	for _, s := range a[min(len(a), 2):] {
		if s == "all" {
			p.All = true
			continue
		}
		var n netip.Prefix
		if strings.Contains(s, "/") {
			pp, err := netip.ParsePrefix(s)
			if err != nil {
				return emergf(d, "invalid parameter \"%s\"", s)
			}
			n = pp.Masked()
		} else {
			ip, err := netip.ParseAddr(s)
			if err != nil {
				return emergf(d, "invalid parameter \"%s\"", s)
			}
			n = netip.PrefixFrom(ip, ip.BitLen())
		}
		p.From = append(p.From, n)
	}
	x.Purge = p
	return nil
}

// resolveCacheZones runs once the tree is read and merged: every zone a
// fastcgi_cache or fastcgi_cache_purge names must be a
// fastcgi_cache_path's (nginx: "zone ... is unknown"), and likewise for
// proxy_cache and proxy_cache_path (a zone of the other module is
// nginx's "declared for a different use"); a fastcgi caching location
// without fastcgi_cache_key gets nginx's warning (proxy_cache_key has a
// default), and one that ignores Set-Cookie gets edge's.
func (c *compiler) resolveCacheZones() error {
	paths := c.plan.HTTP.CachePaths
	for _, ref := range c.cacheRefs {
		module, _, _ := strings.Cut(ref.d.Name, "_")
		if ref.zone != "" {
			p := paths[ref.zone]
			if p == nil {
				return emergf(ref.d, "\"%s\" zone \"%s\" is unknown", ref.d.Name, ref.zone)
			}
			if p.Module != module {
				return emergf(ref.d, "the shared memory zone \"%s\" is already declared for a different use", ref.zone)
			}
		}
		var ignore []string
		switch ref.d.Name {
		case "fastcgi_cache":
			if ref.loc.FastCGICache.Key == nil {
				c.warnf(ref.d, "no \"fastcgi_cache_key\" for \"fastcgi_cache\"")
			}
			ignore = ref.loc.FastCGI.IgnoreHeaders
		case "proxy_cache":
			ignore = ref.loc.Proxy.IgnoreHeaders
		default:
			continue
		}
		for _, h := range ignore {
			if h == "set-cookie" {
				c.warnf(ref.d, "\"%s_ignore_headers Set-Cookie\" with \"%s\": a cached response's Set-Cookie is sent to every visitor who gets it from the cache", module, ref.d.Name)
				break
			}
		}
	}
	return nil
}
