// This file holds the proxy module's directives (ngx_http_proxy_commands).
// proxy_pass takes "http://host[:port][/uri]", "https://...",
// "http://unix:/path:[/uri]", or a URL whose host is the name of an
// upstream{} (the blocks fastcgi_pass uses); names are resolved once the
// whole file is read, as for fastcgi_pass. What the directives do to a
// request is in proxy/proxypass.go; the HTTP client is proxy/httpproxy.
package conf

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"time"

	"edge/cache/cachecfg"
	"edge/proxy/httpproxy"
)

// Proxy is a location's proxy_* settings (inherited).
type Proxy struct {
	// SetHeaders is proxy_set_header's list, inherited as a whole by a
	// level that has none.
	SetHeaders         []ProxyHeader
	PassRequestHeaders bool // default on
	PassRequestBody    bool // default on
	HTTP11             bool // proxy_http_version 1.1; nginx's default is 1.0
	HideHeaders        []string
	PassHeaders        []string
	// Redirects is proxy_redirect's list; nil means "default".
	// RedirectOff is "proxy_redirect off" at the level that set it.
	Redirects        []ProxyRedirect
	RedirectOff      bool
	ConnectTimeout   time.Duration // default 60s
	SendTimeout      time.Duration // default 60s
	ReadTimeout      time.Duration // default 60s
	Buffering        bool          // default on
	RequestBuffering bool          // default on
	BufferSize       int64         // proxy_buffer_size, the largest response header (default 4k)
	InterceptErrors  bool
	// NextUpstream is proxy_next_upstream's list (error, timeout,
	// invalid_header, http_500, ..., non_idempotent, off).
	NextUpstream        []string
	NextUpstreamTries   int
	NextUpstreamTimeout time.Duration
	IgnoreHeaders       []string // lowercased X-Accel-* and friends
	// IgnoreCache is IgnoreHeaders' part that proxy_cache reads, parsed
	// once (ignoreHeaders).
	IgnoreCache cachecfg.Ignore
	// Method is proxy_method (nil: the request's).
	Method            *Script
	IgnoreClientAbort bool
	SocketKeepalive   bool // proxy_socket_keepalive
	// Cookie rewrites: proxy_cookie_domain and proxy_cookie_path (lists,
	// "off" clears a level's), proxy_cookie_flags.
	CookieDomains []ProxyRedirect
	CookiePaths   []ProxyRedirect
	CookieFlags   []ProxyCookieFlags
	// SetBody is proxy_set_body: the body sent instead of the client's.
	SetBody *Script
	// SSL is the proxy_ssl_* settings of an https:// upstream.
	SSL ProxySSL
	// TempPath is proxy_temp_path, where a buffered response larger than
	// edge keeps in memory goes ("" : client_body_temp_path's).
	TempPath string
}

// ProxyHeader is one proxy_set_header.
type ProxyHeader struct {
	Name  string
	Value *Script
}

// ProxyRedirect is one proxy_redirect: "default", or a from/to pair
// (From "~"/"~*" patterns are in Regex).
type ProxyRedirect struct {
	Default bool
	From    *Script
	Regex   *Regex
	To      *Script
}

// ProxyCookieFlags is one proxy_cookie_flags: a cookie name (or "~"
// regex) and its flags.
type ProxyCookieFlags struct {
	Cookie string
	Regex  *Regex
	Flags  []string
}

// ProxySSL is a location's proxy_ssl_* settings.
type ProxySSL struct {
	Verify             bool
	TrustedCertificate string
	ServerName         bool
	Name               *Script // nil: the proxy_pass host
	SessionReuse       bool    // default on
	Certificate        string
	CertificateKey     string
	Protocols          []string // default TLSv1 TLSv1.1 TLSv1.2 (as nginx 1.22)
}

// ProxyPass is the target of one proxy_pass.
type ProxyPass struct {
	Raw string
	// Target is the parsed URL of a proxy_pass without variables.
	Target httpproxy.Target
	// Upstream is the upstream{} its host names, if any.
	Upstream *Upstream
	// Script is set for a proxy_pass with variables: each request
	// evaluates it to a URL (whose host may name an upstream{}).
	Script *Script
	// Location is the location's name whose prefix a URI part replaces;
	// NoPrefix marks where nginx has none (regex and named locations,
	// "if" blocks).
	Location string
	NoPrefix bool
	File     string
	Line     int
}

func init() {
	px := func(l *LocConf) *Proxy { return &l.Proxy }
	flag := func(name string, get func(*Proxy) *bool, def bool) *spec {
		return flagSlot(name, ctxHSL, atLoc, func(l *LocConf) *bool { return get(px(l)) }, def)
	}
	msec := func(name string, get func(*Proxy) *time.Duration) *spec {
		return msecSlot(name, ctxHSL, atLoc, func(l *LocConf) *time.Duration { return get(px(l)) }, 60*time.Second)
	}
	list := func(name string, get func(*Proxy) *[]string) *spec {
		s := &spec{name: name, ctx: ctxHSL, args: take1, multi: true, set: func(c *compiler, f *frame, d *Directive) error {
			p := get(px(&f.loc.LocConf))
			*p = append(*p, strings.ToLower(d.Args[0]))
			return nil
		}}
		return s.setSlot(field(func(l *LocConf) *[]string { return get(px(l)) }, nil))
	}
	register(
		&spec{name: "proxy_pass", ctx: ctxLocation | ctxLocationIf, args: take1, local: true, set: setProxyPass},
		(&spec{name: "proxy_set_header", ctx: ctxHSL, args: take2, multi: true, set: setProxySetHeader}).setSlot(
			field(func(l *LocConf) *[]ProxyHeader { return &l.Proxy.SetHeaders }, nil)),
		flag("proxy_pass_request_headers", func(x *Proxy) *bool { return &x.PassRequestHeaders }, true),
		flag("proxy_pass_request_body", func(x *Proxy) *bool { return &x.PassRequestBody }, true),
		value("proxy_http_version", ctxHSL, take1, atLoc, func(l *LocConf) *bool { return &l.Proxy.HTTP11 }, false, parseProxyHTTPVersion),
		list("proxy_hide_header", func(x *Proxy) *[]string { return &x.HideHeaders }),
		list("proxy_pass_header", func(x *Proxy) *[]string { return &x.PassHeaders }),
		(&spec{name: "proxy_redirect", ctx: ctxHSL, args: take12, multi: true, set: setProxyRedirect}).setSlot(fields(
			field(func(l *LocConf) *[]ProxyRedirect { return &l.Proxy.Redirects }, nil),
			field(func(l *LocConf) *bool { return &l.Proxy.RedirectOff }, false))),
		msec("proxy_connect_timeout", func(x *Proxy) *time.Duration { return &x.ConnectTimeout }),
		msec("proxy_send_timeout", func(x *Proxy) *time.Duration { return &x.SendTimeout }),
		msec("proxy_read_timeout", func(x *Proxy) *time.Duration { return &x.ReadTimeout }),
		flag("proxy_buffering", func(x *Proxy) *bool { return &x.Buffering }, true),
		flag("proxy_request_buffering", func(x *Proxy) *bool { return &x.RequestBuffering }, true),
		sizeSlot("proxy_buffer_size", ctxHSL, atLoc, func(l *LocConf) *int64 { return &l.Proxy.BufferSize }, 4096),
		flag("proxy_intercept_errors", func(x *Proxy) *bool { return &x.InterceptErrors }, false),
		value("proxy_next_upstream", ctxHSL, take1More, atLoc, func(l *LocConf) *[]string { return &l.Proxy.NextUpstream }, []string{"error", "timeout"}, parseProxyNextUpstream),
		numSlot("proxy_next_upstream_tries", ctxHSL, atLoc, func(l *LocConf) *int { return &l.Proxy.NextUpstreamTries }, 0),
		msecSlot("proxy_next_upstream_timeout", ctxHSL, atLoc, func(l *LocConf) *time.Duration { return &l.Proxy.NextUpstreamTimeout }, 0),
		ignoreHeaders("proxy_ignore_headers", func(l *LocConf) *[]string { return &l.Proxy.IgnoreHeaders },
			func(l *LocConf) *cachecfg.Ignore { return &l.Proxy.IgnoreCache }),
		value("proxy_method", ctxHSL, take1, atLoc, func(l *LocConf) **Script { return &l.Proxy.Method }, nil, func(c *compiler, d *Directive) (*Script, error) {
			return c.compileScript(d, d.Args[0])
		}),
		flag("proxy_ignore_client_abort", func(x *Proxy) *bool { return &x.IgnoreClientAbort }, false),
		flag("proxy_socket_keepalive", func(x *Proxy) *bool { return &x.SocketKeepalive }, false),
		cookieRule("proxy_cookie_domain", func(x *Proxy) *[]ProxyRedirect { return &x.CookieDomains }),
		cookieRule("proxy_cookie_path", func(x *Proxy) *[]ProxyRedirect { return &x.CookiePaths }),
		(&spec{name: "proxy_cookie_flags", ctx: ctxHSL, args: take1More, multi: true, set: setProxyCookieFlags}).setSlot(
			field(func(l *LocConf) *[]ProxyCookieFlags { return &l.Proxy.CookieFlags }, nil)),
		value("proxy_set_body", ctxHSL, take1, atLoc, func(l *LocConf) **Script { return &l.Proxy.SetBody }, nil, func(c *compiler, d *Directive) (*Script, error) {
			return c.compileScript(d, d.Args[0])
		}),
		flagSlot("proxy_ssl_verify", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.Proxy.SSL.Verify }, false),
		pathSlot("proxy_ssl_trusted_certificate", ctxHSL, atLoc, func(l *LocConf) *string { return &l.Proxy.SSL.TrustedCertificate }, ""),
		flagSlot("proxy_ssl_server_name", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.Proxy.SSL.ServerName }, false),
		value("proxy_ssl_name", ctxHSL, take1, atLoc, func(l *LocConf) **Script { return &l.Proxy.SSL.Name }, nil, func(c *compiler, d *Directive) (*Script, error) {
			return c.compileScript(d, d.Args[0])
		}),
		flagSlot("proxy_ssl_session_reuse", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.Proxy.SSL.SessionReuse }, true),
		pathSlot("proxy_ssl_certificate", ctxHSL, atLoc, func(l *LocConf) *string { return &l.Proxy.SSL.Certificate }, ""),
		pathSlot("proxy_ssl_certificate_key", ctxHSL, atLoc, func(l *LocConf) *string { return &l.Proxy.SSL.CertificateKey }, ""),
		value("proxy_ssl_protocols", ctxHSL, take1More, atLoc, func(l *LocConf) *[]string { return &l.Proxy.SSL.Protocols }, nil, parseProxySSLProtocols),
		// The levels are accepted: edge's temp files are unlinked at once,
		// so no directory tree is needed.
		value("proxy_temp_path", ctxHSL, take1234, atLoc, func(l *LocConf) *string { return &l.Proxy.TempPath }, "", pathArg),
	)
}

func init() {
	// keepalive_time bounds how long proxy_pass keeps one connection to
	// a server of the block (FastCGI connections are not bounded by it).
	upstreamTable["keepalive_time"] = &spec{name: "keepalive_time", ctx: ctxUpstream, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
		f.up.KeepaliveTime, err = parseTime(d, d.Args[0])
		return
	}}
}

// cookieRule makes proxy_cookie_domain / proxy_cookie_path: "off" or
// "from to" ("~"/"~*" regexes), the list of the level that has one.
func cookieRule(name string, get func(*Proxy) *[]ProxyRedirect) *spec {
	s := &spec{name: name, ctx: ctxHSL, args: take12, multi: true, set: func(c *compiler, f *frame, d *Directive) error {
		list := get(&f.loc.Proxy)
		if len(d.Args) == 1 {
			if d.Args[0] != "off" {
				return emergf(d, "invalid parameter \"%s\"", d.Args[0])
			}
			*list = []ProxyRedirect{}
			return nil
		}
		r, err := c.proxyRule(d)
		if err != nil {
			return err
		}
		*list = append(*list, r)
		return nil
	}}
	return s.setSlot(field(func(l *LocConf) *[]ProxyRedirect { return get(&l.Proxy) }, nil))
}

// proxyRule reads a "from to" pair of proxy_redirect or proxy_cookie_*.
func (c *compiler) proxyRule(d *Directive) (ProxyRedirect, error) {
	r := ProxyRedirect{}
	from := d.Args[0]
	if strings.HasPrefix(from, "~") {
		caseless := strings.HasPrefix(from, "~*")
		src := strings.TrimPrefix(strings.TrimPrefix(from, "~*"), "~")
		re, err := c.compileRegex(d, src, caseless)
		if err != nil {
			return r, err
		}
		r.Regex = re
	} else {
		sc, err := c.compileScript(d, from)
		if err != nil {
			return r, err
		}
		r.From = sc
	}
	to, err := c.compileScript(d, d.Args[1])
	if err != nil {
		return r, err
	}
	r.To = to
	return r, nil
}

var proxyCookieFlagValues = map[string]bool{"secure": true, "nosecure": true, "httponly": true, "nohttponly": true,
	"samesite=strict": true, "samesite=lax": true, "samesite=none": true, "nosamesite": true}

// setProxyCookieFlags reads "proxy_cookie_flags off | cookie [flag ...]".
func setProxyCookieFlags(c *compiler, f *frame, d *Directive) error {
	p := &f.loc.Proxy
	if len(d.Args) == 1 && d.Args[0] == "off" {
		p.CookieFlags = []ProxyCookieFlags{}
		return nil
	}
	if len(d.Args) < 2 {
		return emergf(d, "invalid number of arguments in \"%s\" directive", d.Name)
	}
	cf := ProxyCookieFlags{Cookie: d.Args[0]}
	if strings.HasPrefix(cf.Cookie, "~") {
		caseless := strings.HasPrefix(cf.Cookie, "~*")
		re, err := c.compileRegex(d, strings.TrimPrefix(strings.TrimPrefix(cf.Cookie, "~*"), "~"), caseless)
		if err != nil {
			return err
		}
		cf.Regex = re
	}
	for _, fl := range d.Args[1:] {
		l := strings.ToLower(fl)
		if !proxyCookieFlagValues[l] {
			return emergf(d, "invalid parameter \"%s\"", fl)
		}
		cf.Flags = append(cf.Flags, l)
	}
	p.CookieFlags = append(p.CookieFlags, cf)
	return nil
}

func parseProxySSLProtocols(c *compiler, d *Directive) ([]string, error) {
	for _, a := range d.Args {
		switch a {
		case "SSLv2", "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3":
		default:
			return nil, emergf(d, "invalid value \"%s\" in \"%s\" directive", a, d.Name)
		}
	}
	return append([]string(nil), d.Args...), nil
}

func parseProxyHTTPVersion(c *compiler, d *Directive) (bool, error) {
	switch d.Args[0] {
	case "1.0":
		return false, nil
	case "1.1":
		return true, nil
	}
	return false, emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be \"1.0\" or \"1.1\"", d.Args[0], d.Name)
}

var proxyNextUpstreamValues = map[string]bool{"http_502": true, "http_504": true}

func parseProxyNextUpstream(c *compiler, d *Directive) ([]string, error) {
	for _, a := range d.Args {
		if !nextUpstreamValues[a] && !proxyNextUpstreamValues[a] {
			return nil, emergf(d, "invalid value \"%s\" in \"%s\" directive", a, d.Name)
		}
	}
	return append([]string(nil), d.Args...), nil
}

func setProxySetHeader(c *compiler, f *frame, d *Directive) error {
	v, err := c.compileScript(d, d.Args[1])
	if err != nil {
		return err
	}
	f.loc.Proxy.SetHeaders = append(f.loc.Proxy.SetHeaders, ProxyHeader{Name: d.Args[0], Value: v})
	return nil
}

// setProxyRedirect reads "proxy_redirect default | off | from to". A
// level with "off" has no rules; "default" becomes the rule made from the
// location's proxy_pass at request time.
func setProxyRedirect(c *compiler, f *frame, d *Directive) error {
	p := &f.loc.Proxy
	if len(d.Args) == 1 {
		switch d.Args[0] {
		case "off":
			p.RedirectOff = true
			p.Redirects = nil
			return nil
		case "default":
			if p.RedirectOff {
				return emergf(d, "invalid parameter \"default\"")
			}
			p.Redirects = append(p.Redirects, ProxyRedirect{Default: true})
			return nil
		}
		return emergf(d, "invalid parameter \"%s\"", d.Args[0])
	}
	if p.RedirectOff {
		return emergf(d, "invalid parameter \"%s\"", d.Args[0])
	}
	r, err := c.proxyRule(d)
	if err != nil {
		return err
	}
	p.Redirects = append(p.Redirects, r)
	return nil
}

func setProxyPass(c *compiler, f *frame, d *Directive) error {
	if f.loc.Content.Kind != ContentStatic {
		return emergf(d, "\"%s\" directive is duplicate", d.Name)
	}
	a := d.Args[0]
	p := &ProxyPass{Raw: a, File: d.File, Line: d.Line}
	// nginx cuts a location's prefix only in a prefix or exact location.
	if f.ctx == ctxLocationIf || f.loc.Kind == LocRegex || f.loc.Kind == LocNamed {
		p.NoPrefix = true
	} else {
		p.Location = f.loc.Name
	}
	f.loc.Content = Content{Kind: ContentProxy, Proxy: p}
	markAutoRedirect(f)
	if sc, err := c.targetScript(d, a); err != nil || sc != nil {
		p.Script = sc
		return err
	}
	t, err := httpproxy.ParseTarget(a)
	if err != nil {
		return emergf(d, "%s", strings.TrimPrefix(err.Error(), "httpproxy: "))
	}
	if err := httpproxy.CheckURIPart(t.URI, false, p.NoPrefix); err != nil {
		return emergf(d, "%s", strings.TrimPrefix(err.Error(), "httpproxy: "))
	}
	p.Target = t
	c.proxyPasses = append(c.proxyPasses, p)
	return nil
}

// resolveProxyPasses binds proxy_pass hosts without a port to the
// upstream{} of that name, as nginx does (a host with a port, or without
// an upstream of its name, is an address).
func (c *compiler) resolveProxyPasses() error {
	for _, p := range c.proxyPasses {
		if p.Target.Network != "tcp" {
			continue
		}
		if p.Target.Port == "" {
			p.Upstream = c.plan.HTTP.Upstreams[p.Target.Host]
		}
		if p.Upstream == nil {
			if !c.hostResolves(p.Target.Host) {
				return &Error{Level: LevelEmerg, Msg: "host not found in upstream \"" + p.Target.Host + "\"", File: p.File, Line: p.Line}
			}
			c.noteNamedPass(p.Target.Address)
		}
	}
	return nil
}

// hostResolves reports whether the host of a *_pass without variables or
// of an upstream's server is an address, or a name the system resolves:
// nginx resolves them as it reads the configuration and refuses one it
// cannot ("host not found in upstream"), so a typo fails `edge -t` and a
// reload rather than every request. Each name is looked up once a load;
// the connections still resolve it when they are made.
func (c *compiler) hostResolves(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	if ok, seen := c.resolved[host]; seen {
		return ok
	}
	ok := len(c.lookupHost(host)) > 0
	if c.resolved == nil {
		c.resolved = map[string]bool{}
	}
	c.resolved[host] = ok
	return ok
}

// noteNamedPass records the address "host:port" of a *_pass without
// variables when its host is a name (HTTP.NamedPasses).
func (c *compiler) noteNamedPass(address string) {
	host, _, err := net.SplitHostPort(address)
	if err != nil || net.ParseIP(host) != nil {
		return
	}
	if c.plan.HTTP.NamedPasses == nil {
		c.plan.HTTP.NamedPasses = map[string]bool{}
	}
	c.plan.HTTP.NamedPasses[strings.ToLower(address)] = true
}

// String is how Plan.Dump shows a proxy_set_header.
func (h ProxyHeader) String() string { return h.Name + " " + h.Value.Raw }

// String is how Plan.Dump shows a proxy_redirect.
func (r ProxyRedirect) String() string {
	switch {
	case r.Default:
		return "default"
	case r.Regex != nil:
		return "~" + r.Regex.Source + " " + r.To.Raw
	}
	return r.From.Raw + " " + r.To.Raw
}

// markAutoRedirect is what nginx's *_pass directives do to the location
// they are written in: when its name ends in "/", a request for the name
// without the slash is redirected to it (ngx_http_core_find_location's
// NGX_DONE). Only the locations of the prefix tree count, not an "if"
// block's.
func markAutoRedirect(f *frame) {
	switch f.loc.Kind {
	case LocPrefix, LocExact, LocNoRegex:
		if f.ctx != ctxLocationIf && strings.HasSuffix(f.loc.Name, "/") {
			f.loc.AutoRedirect = true
		}
	}
}

// lookupHost resolves a name of the configuration with the lookup the
// load was given, else the system's (lookupHost).
func (c *compiler) lookupHost(host string) []netip.Addr {
	if c.lookupFn != nil {
		return c.lookupFn(host)
	}
	return lookupHost(host)
}

// lookupHost is the system resolver's addresses for a name in the
// configuration (none when it has none), within 10 s: the names of
// *_pass, upstream servers, set_real_ip_from and resolver, looked up at
// load as nginx looks them up.
func lookupHost(host string) []netip.Addr {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	return ips
}
