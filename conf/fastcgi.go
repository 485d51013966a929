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
	KeepConn           bool
	HideHeaders        []string // lowercased
	PassHeaders        []string // lowercased
	IgnoreHeaders      []string // X-Accel-Redirect, X-Accel-Buffering, ...
	NextUpstream       []string // error, timeout, invalid_header, http_500, ..., off
	NextUpstreamTries  int
	PassRequestHeaders bool // default on
	PassRequestBody    bool // default on
	IgnoreClientAbort  bool
	CatchStderr        []string
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

func defaultFastCGI() FastCGI {
	return FastCGI{
		ConnectTimeout:     60 * time.Second,
		SendTimeout:        60 * time.Second,
		ReadTimeout:        60 * time.Second,
		Buffering:          true,
		RequestBuffering:   true,
		KeepConn:           true,
		NextUpstream:       []string{"error", "timeout"},
		PassRequestHeaders: true,
		PassRequestBody:    true,
	}
}

func init() {
	dur := func(get func(*FastCGI) *time.Duration) func(c *compiler, f *frame, d *Directive) error {
		return func(c *compiler, f *frame, d *Directive) (err error) {
			*get(&f.loc.FastCGI), err = parseTime(d, d.Args[0])
			return
		}
	}
	onoff := func(get func(*FastCGI) *bool) func(c *compiler, f *frame, d *Directive) error {
		return func(c *compiler, f *frame, d *Directive) error { *get(&f.loc.FastCGI) = flagOn(d); return nil }
	}
	register(
		&spec{name: "fastcgi_pass", ctx: ctxLocation | ctxLocationIf, args: take1, set: setFastCGIPass},
		&spec{name: "fastcgi_param", ctx: ctxHSL, args: take23, multi: true, set: setFastCGIParam},
		&spec{name: "fastcgi_index", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) error { f.loc.FastCGI.Index = d.Args[0]; return nil }},
		&spec{name: "fastcgi_split_path_info", ctx: ctxLocation, args: take1, set: setSplitPathInfo},
		&spec{name: "fastcgi_intercept_errors", ctx: ctxHSL, args: takeFlag, set: onoff(func(x *FastCGI) *bool { return &x.InterceptErrors })},
		&spec{name: "fastcgi_connect_timeout", ctx: ctxHSL, args: take1, set: dur(func(x *FastCGI) *time.Duration { return &x.ConnectTimeout })},
		&spec{name: "fastcgi_send_timeout", ctx: ctxHSL, args: take1, set: dur(func(x *FastCGI) *time.Duration { return &x.SendTimeout })},
		&spec{name: "fastcgi_read_timeout", ctx: ctxHSL, args: take1, set: dur(func(x *FastCGI) *time.Duration { return &x.ReadTimeout })},
		&spec{name: "fastcgi_buffering", ctx: ctxHSL, args: takeFlag, set: onoff(func(x *FastCGI) *bool { return &x.Buffering })},
		&spec{name: "fastcgi_request_buffering", ctx: ctxHSL, args: takeFlag, set: onoff(func(x *FastCGI) *bool { return &x.RequestBuffering })},
		&spec{name: "fastcgi_keep_conn", ctx: ctxHSL, args: takeFlag, set: onoff(func(x *FastCGI) *bool { return &x.KeepConn })},
		&spec{name: "fastcgi_pass_request_headers", ctx: ctxHSL, args: takeFlag, set: onoff(func(x *FastCGI) *bool { return &x.PassRequestHeaders })},
		&spec{name: "fastcgi_pass_request_body", ctx: ctxHSL, args: takeFlag, set: onoff(func(x *FastCGI) *bool { return &x.PassRequestBody })},
		&spec{name: "fastcgi_ignore_client_abort", ctx: ctxHSL, args: takeFlag, set: onoff(func(x *FastCGI) *bool { return &x.IgnoreClientAbort })},
		&spec{name: "fastcgi_hide_header", ctx: ctxHSL, args: take1, multi: true, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.FastCGI.HideHeaders = append(f.loc.FastCGI.HideHeaders, strings.ToLower(d.Args[0]))
			return nil
		}},
		&spec{name: "fastcgi_pass_header", ctx: ctxHSL, args: take1, multi: true, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.FastCGI.PassHeaders = append(f.loc.FastCGI.PassHeaders, strings.ToLower(d.Args[0]))
			return nil
		}},
		&spec{name: "fastcgi_ignore_headers", ctx: ctxHSL, args: take1More, set: setFastCGIIgnoreHeaders},
		&spec{name: "fastcgi_next_upstream", ctx: ctxHSL, args: take1More, set: setFastCGINextUpstream},
		&spec{name: "fastcgi_next_upstream_tries", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.loc.FastCGI.NextUpstreamTries, err = parseInt(d, d.Args[0])
			return
		}},
		&spec{name: "fastcgi_catch_stderr", ctx: ctxHSL, args: take1, multi: true, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.FastCGI.CatchStderr = append(f.loc.FastCGI.CatchStderr, d.Args[0])
			return nil
		}},

		&spec{name: "upstream", ctx: ctxHTTP, args: take1 | isBlock, multi: true, set: setUpstream},
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

func setFastCGIPass(c *compiler, f *frame, d *Directive) error {
	a := d.Args[0]
	p := &FastCGIPass{Raw: a, File: d.File, Line: d.Line}
	f.loc.Content = Content{Kind: ContentFastCGI, FastCGI: p}
	if strings.Contains(a, "$") {
		sc, err := c.compileScript(d, a)
		if err != nil {
			return err
		}
		if !sc.Static {
			p.Script = sc
			return nil
		}
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
	if !c.isSet(f.loc, "fastcgi_param_seen") {
		f.loc.FastCGI.Params = nil
		c.mark(f.loc, "fastcgi_param_seen")
	}
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

// setSplitPathInfo requires exactly two captures, as nginx does.
func setSplitPathInfo(c *compiler, f *frame, d *Directive) error {
	re, err := c.compileRegex(d, d.Args[0], false)
	if err != nil {
		return err
	}
	if re.NumCaptures() != 2 {
		return emergf(d, "pattern \"%s\" must have 2 captures", d.Args[0])
	}
	f.loc.FastCGI.SplitPathInfo = re
	return nil
}

var fastcgiIgnorable = map[string]bool{"x-accel-redirect": true, "x-accel-expires": true, "x-accel-limit-rate": true,
	"x-accel-buffering": true, "x-accel-charset": true, "expires": true, "cache-control": true, "set-cookie": true, "vary": true}

func setFastCGIIgnoreHeaders(c *compiler, f *frame, d *Directive) error {
	var list []string
	for _, a := range d.Args {
		l := strings.ToLower(a)
		if !fastcgiIgnorable[l] {
			return emergf(d, "invalid value \"%s\" in \"%s\" directive", a, d.Name)
		}
		list = append(list, l)
	}
	f.loc.FastCGI.IgnoreHeaders = list
	return nil
}

var nextUpstreamValues = map[string]bool{"error": true, "timeout": true, "invalid_header": true, "http_500": true,
	"http_503": true, "http_403": true, "http_404": true, "http_429": true, "non_idempotent": true, "off": true}

func setFastCGINextUpstream(c *compiler, f *frame, d *Directive) error {
	for _, a := range d.Args {
		if !nextUpstreamValues[a] {
			return emergf(d, "invalid value \"%s\" in \"%s\" directive", a, d.Name)
		}
	}
	f.loc.FastCGI.NextUpstream = append([]string(nil), d.Args...)
	return nil
}

// mergeFastCGI inherits FastCGI settings directive by directive; the
// param list inherits only as a whole (nginx's rule).
func (c *compiler) mergeFastCGI(l, p *Location) {
	set := func(n string) bool { return c.isSet(l, n) }
	x, px := &l.FastCGI, &p.FastCGI
	inherit := func(name string, apply func()) {
		if !set(name) {
			apply()
		}
	}
	inherit("fastcgi_param", func() { x.Params = px.Params })
	inherit("fastcgi_index", func() { x.Index = px.Index })
	inherit("fastcgi_intercept_errors", func() { x.InterceptErrors = px.InterceptErrors })
	inherit("fastcgi_connect_timeout", func() { x.ConnectTimeout = px.ConnectTimeout })
	inherit("fastcgi_send_timeout", func() { x.SendTimeout = px.SendTimeout })
	inherit("fastcgi_read_timeout", func() { x.ReadTimeout = px.ReadTimeout })
	inherit("fastcgi_buffering", func() { x.Buffering = px.Buffering })
	inherit("fastcgi_request_buffering", func() { x.RequestBuffering = px.RequestBuffering })
	inherit("fastcgi_keep_conn", func() { x.KeepConn = px.KeepConn })
	inherit("fastcgi_pass_request_headers", func() { x.PassRequestHeaders = px.PassRequestHeaders })
	inherit("fastcgi_pass_request_body", func() { x.PassRequestBody = px.PassRequestBody })
	inherit("fastcgi_ignore_client_abort", func() { x.IgnoreClientAbort = px.IgnoreClientAbort })
	inherit("fastcgi_hide_header", func() { x.HideHeaders = px.HideHeaders })
	inherit("fastcgi_pass_header", func() { x.PassHeaders = px.PassHeaders })
	inherit("fastcgi_ignore_headers", func() { x.IgnoreHeaders = px.IgnoreHeaders })
	inherit("fastcgi_next_upstream", func() { x.NextUpstream = px.NextUpstream })
	inherit("fastcgi_next_upstream_tries", func() { x.NextUpstreamTries = px.NextUpstreamTries })
	inherit("fastcgi_catch_stderr", func() { x.CatchStderr = px.CatchStderr })
	// fastcgi_split_path_info is a location-only directive, but nginx
	// still inherits it into nested locations.
	if x.SplitPathInfo == nil {
		x.SplitPathInfo = px.SplitPathInfo
	}
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
		if !s.multi && c.isSet(uf.loc, e.Name) {
			return emergf(e, "\"%s\" directive is duplicate", e.Name)
		}
		c.mark(uf.loc, e.Name)
		if err := s.set(c, uf, e); err != nil {
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
