// This file holds the fastcgi module's directives and the upstream block
// (ngx_http_fastcgi_commands, ngx_http_upstream_commands). fastcgi_pass
// takes "unix:/path", "host:port", or the name of an upstream{} or an
// fpm_pool{}; names are resolved once the whole file is read, since nginx
// lets an upstream be defined after its first use.
package conf

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"edge/cache/cachecfg"
)

// FastCGI is a location's FastCGI settings (inherited).
type FastCGI struct {
	Params        []FastCGIParam // inherited as a whole when a level has none
	Index         string
	SplitPathInfo *Regex
	// InterceptErrors passes backend responses >= 300 to error_page.
	InterceptErrors bool
	ConnectTimeout  time.Duration // default 60s
	SendTimeout     time.Duration // default 60s
	ReadTimeout     time.Duration // default 60s
	// Buffering reads the whole response from PHP before sending it (so a
	// slow client never holds a PHP worker); "X-Accel-Buffering: no" from
	// the application turns it off per response.
	Buffering bool // default on
	// RequestBuffering reads the whole request body before PHP sees it.
	RequestBuffering bool // default on
	// KeepConn reuses FastCGI connections. nginx's default is off; edge's
	// default is on, bounded below the pool's worker count (see docs).
	KeepConn      bool
	HideHeaders   []string // lowercased
	PassHeaders   []string // lowercased
	IgnoreHeaders []string // X-Accel-Redirect, X-Accel-Buffering, ...
	// IgnoreCache is IgnoreHeaders' part that fastcgi_cache reads, parsed
	// once here (ignoreHeaders).
	IgnoreCache        cachecfg.Ignore
	NextUpstream       []string // error, timeout, invalid_header, http_500, ..., off
	NextUpstreamTries  int
	PassRequestHeaders bool // default on
	PassRequestBody    bool // default on
	IgnoreClientAbort  bool
	CatchStderr        []string
	SocketKeepalive    bool // fastcgi_socket_keepalive
}

// FastCGIParam is one fastcgi_param.
type FastCGIParam struct {
	Name       string
	Value      *Script
	IfNotEmpty bool
}

// FastCGIPass is the target of one fastcgi_pass.
type FastCGIPass struct {
	Raw      string
	Network  string // "tcp" or "unix" for a single address
	Address  string
	Upstream *Upstream // when the name is an upstream{}
	Pool     *FPMPool  // when the name is an fpm_pool{}
	// Script, when set, is a fastcgi_pass with variables: each request
	// evaluates it to an address, a "unix:" path or the name of an
	// upstream{} or fpm_pool{}, as nginx does (ngx_http_fastcgi_eval);
	// Network, Address, Upstream and Pool are then unset.
	Script *Script
	File   string
	Line   int
}

// ParseFastCGITarget reads the address of a fastcgi_pass: "unix:PATH"
// or "HOST:PORT" give their network and address; anything else is a
// name (network ""), which names an upstream{} or fpm_pool{}. A bad port
// is an error worded as nginx's.
func ParseFastCGITarget(a string) (network, address string, err error) {
	if len(a) >= 5 && strings.EqualFold(a[:5], "unix:") {
		return "unix", a[5:], nil
	}
	h, port, serr := net.SplitHostPort(a)
	if serr != nil {
		return "", a, nil
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("invalid port in upstream \"%s\"", a)
	}
	return "tcp", net.JoinHostPort(h, port), nil
}

// Upstream is an upstream{} block.
type Upstream struct {
	Name              string
	Servers           []UpstreamServer
	Keepalive         int // idle connections kept per edge process; 0 = none
	KeepaliveTimeout  time.Duration
	KeepaliveRequests int
	KeepaliveTime     time.Duration // proxy_pass's connections only (conf/proxy.go)
	File              string
	Line              int
}

// UpstreamServer is one server line of an upstream.
type UpstreamServer struct {
	Network     string
	Address     string
	Weight      int
	MaxFails    int
	FailTimeout time.Duration
	Backup      bool
	Down        bool
	MaxConns    int
}

func init() {
	fc := func(l *LocConf) *FastCGI { return &l.FastCGI }
	flag := func(name string, get func(*FastCGI) *bool, def bool) *spec {
		return flagSlot(name, ctxHSL, atLoc, func(l *LocConf) *bool { return get(fc(l)) }, def)
	}
	msec := func(name string, get func(*FastCGI) *time.Duration) *spec {
		return msecSlot(name, ctxHSL, atLoc, func(l *LocConf) *time.Duration { return get(fc(l)) }, 60*time.Second)
	}
	list := func(name string, get func(*FastCGI) *[]string, lower bool) *spec {
		s := &spec{name: name, ctx: ctxHSL, args: take1, multi: true, set: func(c *compiler, f *frame, d *Directive) error {
			v := d.Args[0]
			if lower {
				v = strings.ToLower(v)
			}
			p := get(fc(&f.loc.LocConf))
			*p = append(*p, v)
			return nil
		}}
		return s.setSlot(field(func(l *LocConf) *[]string { return get(fc(l)) }, nil))
	}
	register(
		&spec{name: "fastcgi_pass", ctx: ctxLocation | ctxLocationIf, args: take1, local: true, set: setFastCGIPass},
		(&spec{name: "fastcgi_param", ctx: ctxHSL, args: take23, multi: true, set: setFastCGIParam}).setSlot(
			field(func(l *LocConf) *[]FastCGIParam { return &l.FastCGI.Params }, nil)),
		strSlot("fastcgi_index", ctxHSL, atLoc, func(l *LocConf) *string { return &l.FastCGI.Index }, ""),
		// fastcgi_split_path_info is a location-only directive, but nginx
		// still inherits it into nested locations.
		value("fastcgi_split_path_info", ctxLocation, take1, atLoc, func(l *LocConf) **Regex { return &l.FastCGI.SplitPathInfo }, nil, parseSplitPathInfo),
		flag("fastcgi_intercept_errors", func(x *FastCGI) *bool { return &x.InterceptErrors }, false),
		msec("fastcgi_connect_timeout", func(x *FastCGI) *time.Duration { return &x.ConnectTimeout }),
		msec("fastcgi_send_timeout", func(x *FastCGI) *time.Duration { return &x.SendTimeout }),
		msec("fastcgi_read_timeout", func(x *FastCGI) *time.Duration { return &x.ReadTimeout }),
		flag("fastcgi_buffering", func(x *FastCGI) *bool { return &x.Buffering }, true),
		flag("fastcgi_request_buffering", func(x *FastCGI) *bool { return &x.RequestBuffering }, true),
		// edge's default keeps connections (docs/nginx-differences.md).
		flag("fastcgi_keep_conn", func(x *FastCGI) *bool { return &x.KeepConn }, true),
		flag("fastcgi_pass_request_headers", func(x *FastCGI) *bool { return &x.PassRequestHeaders }, true),
		flag("fastcgi_pass_request_body", func(x *FastCGI) *bool { return &x.PassRequestBody }, true),
		flag("fastcgi_ignore_client_abort", func(x *FastCGI) *bool { return &x.IgnoreClientAbort }, false),
		flag("fastcgi_socket_keepalive", func(x *FastCGI) *bool { return &x.SocketKeepalive }, false),
		list("fastcgi_hide_header", func(x *FastCGI) *[]string { return &x.HideHeaders }, true),
		list("fastcgi_pass_header", func(x *FastCGI) *[]string { return &x.PassHeaders }, true),
		ignoreHeaders("fastcgi_ignore_headers", func(l *LocConf) *[]string { return &l.FastCGI.IgnoreHeaders },
			func(l *LocConf) *cachecfg.Ignore { return &l.FastCGI.IgnoreCache }),
		value("fastcgi_next_upstream", ctxHSL, take1More, atLoc, func(l *LocConf) *[]string { return &l.FastCGI.NextUpstream }, []string{"error", "timeout"}, parseFastCGINextUpstream),
		numSlot("fastcgi_next_upstream_tries", ctxHSL, atLoc, func(l *LocConf) *int { return &l.FastCGI.NextUpstreamTries }, 0),
		list("fastcgi_catch_stderr", func(x *FastCGI) *[]string { return &x.CatchStderr }, false),

		&spec{name: "upstream", ctx: ctxHTTP, args: take1 | isBlock, multi: true, local: true, set: setUpstream},
		&spec{name: "keepalive", ctx: ctxUpstream, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.up.Keepalive, err = parseInt(d, d.Args[0])
			return
		}},
	)
}

// upstreamTable holds the directives of upstream{} whose names mean
// something else elsewhere (server, keepalive_timeout, ...); setUpstream
// looks here first.
var upstreamTable = map[string]*spec{
	"server": {name: "server", ctx: ctxUpstream, args: take1More, multi: true, set: setUpstreamServer},
	"keepalive_timeout": {name: "keepalive_timeout", ctx: ctxUpstream, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
		f.up.KeepaliveTimeout, err = parseTime(d, d.Args[0])
		return
	}},
	"keepalive_requests": {name: "keepalive_requests", ctx: ctxUpstream, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
		f.up.KeepaliveRequests, err = parseInt(d, d.Args[0])
		return
	}},
}

// targetScript compiles the argument of fastcgi_pass or proxy_pass when
// it holds variables that make the target a per-request choice; nil when
// the target is fixed (no variables, or only ones known at load).
func (c *compiler) targetScript(d *Directive, a string) (*Script, error) {
	if !strings.Contains(a, "$") {
		return nil, nil
	}
	sc, err := c.compileScript(d, a)
	if err != nil || sc.Static {
		return nil, err
	}
	return sc, nil
}

func setFastCGIPass(c *compiler, f *frame, d *Directive) error {
	a := d.Args[0]
	p := &FastCGIPass{Raw: a, File: d.File, Line: d.Line}
	f.loc.Content = Content{Kind: ContentFastCGI, FastCGI: p}
	markAutoRedirect(f)
	if sc, err := c.targetScript(d, a); err != nil || sc != nil {
		p.Script = sc
		return err
	}
	network, address, err := ParseFastCGITarget(a)
	if err != nil {
		return emergf(d, "%s", err)
	}
	// A name is resolved in resolveFastCGIPasses, once every upstream{}
	// and fpm_pool{} is known.
	p.Network, p.Address = network, address
	c.fastcgiPasses = append(c.fastcgiPasses, p)
	return nil
}

// resolveFastCGIPasses binds fastcgi_pass names to upstreams and pools.
func (c *compiler) resolveFastCGIPasses() error {
	for _, p := range c.fastcgiPasses {
		if p.Network == "tcp" {
			if host, _, err := net.SplitHostPort(p.Address); err == nil && !c.hostResolves(host) {
				return &Error{Level: LevelEmerg, Msg: "host not found in upstream \"" + host + "\"", File: p.File, Line: p.Line}
			}
			c.noteNamedPass(p.Address)
		}
		if p.Network != "" {
			continue
		}
		if u := c.plan.HTTP.Upstreams[p.Raw]; u != nil {
			p.Upstream = u
			continue
		}
		if pool := c.findPool(p.Raw); pool != nil {
			p.Pool = pool
			continue
		}
		return &Error{Level: LevelEmerg, Msg: "no port in upstream \"" + p.Raw + "\"", File: p.File, Line: p.Line}
	}
	return nil
}

func setFastCGIParam(c *compiler, f *frame, d *Directive) error {
	p := FastCGIParam{Name: d.Args[0]}
	if len(d.Args) == 3 {
		if d.Args[2] != "if_not_empty" {
			return emergf(d, "invalid parameter \"%s\"", d.Args[2])
		}
		p.IfNotEmpty = true
	}
	v, err := c.compileScript(d, d.Args[1])
	if err != nil {
		return err
	}
	p.Value = v
	f.loc.FastCGI.Params = append(f.loc.FastCGI.Params, p)
	return nil
}

// parseSplitPathInfo requires exactly two captures, as nginx does.
func parseSplitPathInfo(c *compiler, d *Directive) (*Regex, error) {
	re, err := c.compileRegex(d, d.Args[0], false)
	if err != nil {
		return nil, err
	}
	if re.NumCaptures() != 2 {
		return nil, emergf(d, "pattern \"%s\" must have 2 captures", d.Args[0])
	}
	return re, nil
}

var fastcgiIgnorable = map[string]bool{"x-accel-redirect": true, "x-accel-expires": true, "x-accel-limit-rate": true,
	"x-accel-buffering": true, "x-accel-charset": true, "expires": true, "cache-control": true, "set-cookie": true, "vary": true}

// ignoreHeaders is the entry of fastcgi_ignore_headers or
// proxy_ignore_headers: the names, lowercased, for the X-Accel-* checks,
// and the bits the cache reads (cachecfg.Ignore), parsed here once rather
// than at every cache lookup. Both inherit together; Dump shows the names.
func ignoreHeaders(name string, names func(*LocConf) *[]string, bits func(*LocConf) *cachecfg.Ignore) *spec {
	s := &spec{name: name, ctx: ctxHSL, args: take1More, set: func(c *compiler, f *frame, d *Directive) error {
		list, err := parseFastCGIIgnoreHeaders(c, d)
		if err != nil {
			return err
		}
		ig, err := cachecfg.ParseIgnore(list)
		if err != nil {
			return emergf(d, "invalid value in \"%s\" directive", d.Name)
		}
		*names(atLoc(f)), *bits(atLoc(f)) = list, ig
		return nil
	}}
	list := field(names, nil)
	sl := fields(list, field(bits, 0))
	sl.show = list.show
	return s.setSlot(sl)
}

func parseFastCGIIgnoreHeaders(c *compiler, d *Directive) ([]string, error) {
	var list []string
	for _, a := range d.Args {
		l := strings.ToLower(a)
		if !fastcgiIgnorable[l] {
			return nil, emergf(d, "invalid value \"%s\" in \"%s\" directive", a, d.Name)
		}
		list = append(list, l)
	}
	return list, nil
}

var nextUpstreamValues = map[string]bool{"error": true, "timeout": true, "invalid_header": true, "http_500": true,
	"http_503": true, "http_403": true, "http_404": true, "http_429": true, "non_idempotent": true, "off": true}

func parseFastCGINextUpstream(c *compiler, d *Directive) ([]string, error) {
	for _, a := range d.Args {
		if !nextUpstreamValues[a] {
			return nil, emergf(d, "invalid value \"%s\" in \"%s\" directive", a, d.Name)
		}
	}
	return append([]string(nil), d.Args...), nil
}

// setUpstream reads an upstream{} block.
func setUpstream(c *compiler, f *frame, d *Directive) error {
	name := d.Args[0]
	if _, dup := c.plan.HTTP.Upstreams[name]; dup {
		return emergf(d, "duplicate upstream \"%s\"", name)
	}
	u := &Upstream{Name: name, File: d.File, Line: d.Line}
	uf := &frame{ctx: ctxUpstream, loc: &Location{}, up: u}
	for _, e := range d.Block {
		s := upstreamTable[e.Name]
		if s == nil {
			var err error
			if s, err = c.lookup(e, ctxUpstream); err != nil {
				return err
			}
			if s == nil {
				continue
			}
		} else if !checkArgs(s, len(e.Args)) {
			return emergf(e, "invalid number of arguments in \"%s\" directive", e.Name)
		}
		if err := c.apply(uf, s, e); err != nil {
			return err
		}
	}
	if len(u.Servers) == 0 {
		return emergf(d, "no servers are inside upstream")
	}
	c.plan.HTTP.Upstreams[name] = u
	return nil
}

// setUpstreamServer reads "server address [weight=n] [max_fails=n]
// [fail_timeout=time] [backup] [down] [max_conns=n]".
func setUpstreamServer(c *compiler, f *frame, d *Directive) error {
	s := UpstreamServer{Weight: 1, MaxFails: 1, FailTimeout: 10 * time.Second}
	a := d.Args[0]
	if strings.HasPrefix(a, "unix:") {
		s.Network, s.Address = "unix", a[5:]
	} else {
		h, port, err := net.SplitHostPort(a)
		if err != nil {
			if strings.Contains(a, ":") && !strings.HasPrefix(a, "[") {
				return emergf(d, "invalid port in upstream \"%s\"", a)
			}
			h, port = strings.Trim(a, "[]"), "80"
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return emergf(d, "invalid port in upstream \"%s\"", a)
		}
		if !c.hostResolves(h) {
			return emergf(d, "host not found in upstream \"%s\"", a)
		}
		s.Network, s.Address = "tcp", net.JoinHostPort(h, port)
	}
	for _, o := range d.Args[1:] {
		var err error
		switch {
		case strings.HasPrefix(o, "weight="):
			s.Weight, err = strconv.Atoi(o[7:])
			if err == nil && s.Weight < 1 {
				err = errText("bad weight")
			}
		case strings.HasPrefix(o, "max_fails="):
			s.MaxFails, err = strconv.Atoi(o[10:])
		case strings.HasPrefix(o, "max_conns="):
			s.MaxConns, err = strconv.Atoi(o[10:])
		case strings.HasPrefix(o, "fail_timeout="):
			var ok bool
			if s.FailTimeout, ok = ParseDuration(o[13:]); !ok {
				err = errText("bad time")
			}
		case o == "backup":
			s.Backup = true
		case o == "down":
			s.Down = true
		default:
			return emergf(d, "invalid parameter \"%s\"", o)
		}
		if err != nil {
			return emergf(d, "invalid parameter \"%s\"", o)
		}
	}
	f.up.Servers = append(f.up.Servers, s)
	return nil
}
