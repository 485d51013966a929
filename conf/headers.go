// This file holds the headers module (add_header, expires) and the gzip
// module's directives.
package conf

import (
	"strconv"
	"strings"
	"time"
)

func init() {
	register(
		&spec{name: "add_header", ctx: ctxHSLif, args: take23, multi: true, set: setAddHeader},
		&spec{name: "expires", ctx: ctxHSLif, args: take12, set: setExpires},

		&spec{name: "gzip", ctx: ctxHSLif, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.Gzip.On = flagOn(d); return nil }},
		&spec{name: "gzip_types", ctx: ctxHSL, args: take1More, set: setGzipTypes},
		&spec{name: "gzip_min_length", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.loc.Gzip.MinLength, err = parseSize(d, d.Args[0])
			return
		}},
		&spec{name: "gzip_comp_level", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			n, err := strconv.Atoi(d.Args[0])
			if err != nil {
				return emergf(d, "invalid number \"%s\"", d.Args[0])
			}
			if n < 1 || n > 9 {
				return emergf(d, "\"gzip_comp_level\" directive: the value must be in 1..9 range")
			}
			f.loc.Gzip.CompLevel = n
			return nil
		}},
		&spec{name: "gzip_http_version", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			if d.Args[0] != "1.0" && d.Args[0] != "1.1" {
				return emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be \"1.0\" or \"1.1\"", d.Args[0], d.Name)
			}
			f.loc.Gzip.HTTPVersion = d.Args[0]
			return nil
		}},
		&spec{name: "gzip_proxied", ctx: ctxHSL, args: take1More, set: setGzipProxied},
		&spec{name: "gzip_disable", ctx: ctxHSL, args: take1More, set: setGzipDisable},
		&spec{name: "gzip_vary", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.Gzip.Vary = flagOn(d); return nil }},
		&spec{name: "gzip_static", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			switch d.Args[0] {
			case "on", "off", "always":
				f.loc.GzipStatic = d.Args[0]
				return nil
			}
			return emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be \"on\", \"off\" or \"always\"", d.Args[0], d.Name)
		}},
	)
}

func setAddHeader(c *compiler, f *frame, d *Directive) error {
	if !c.isSet(f.loc, "add_header_seen") {
		f.loc.AddHeaders = nil
		c.mark(f.loc, "add_header_seen")
	}
	h := HeaderAdd{Name: d.Args[0]}
	if len(d.Args) == 3 {
		if d.Args[2] != "always" {
			return emergf(d, "invalid parameter \"%s\"", d.Args[2])
		}
		h.Always = true
	}
	v, err := c.compileScript(d, d.Args[1])
	if err != nil {
		return err
	}
	h.Value = v
	f.loc.AddHeaders = append(f.loc.AddHeaders, h)
	return nil
}

// setExpires reads "expires [modified] time | epoch | max | off | $var".
func setExpires(c *compiler, f *frame, d *Directive) error {
	args := d.Args
	modified := false
	if len(args) == 2 {
		if args[0] != "modified" {
			return emergf(d, "invalid value \"%s\" in \"expires\" directive", args[0])
		}
		modified = true
		args = args[1:]
	}
	v := args[0]
	if strings.Contains(v, "$") {
		if modified {
			return emergf(d, "\"expires modified\" with a variable is not supported")
		}
		s, err := c.compileScript(d, v)
		if err != nil {
			return err
		}
		f.loc.Expires = Expires{Mode: ExpiresVar, Var: s}
		return nil
	}
	e, ok := ParseExpires(v)
	if !ok {
		return emergf(d, "invalid value \"%s\" in \"expires\" directive", v)
	}
	if modified {
		if e.Mode != ExpiresAccess {
			return emergf(d, "invalid value \"%s\" in \"expires\" directive", v)
		}
		e.Mode = ExpiresModified
	}
	f.loc.Expires = e
	return nil
}

// ParseExpires reads one expires value: "epoch", "max", "off",
// "@15h30m" (daily), "-1h" or "30d". A variable's value is parsed with it
// at request time.
func ParseExpires(v string) (Expires, bool) {
	switch v {
	case "epoch":
		return Expires{Mode: ExpiresEpoch}, true
	case "max":
		return Expires{Mode: ExpiresMax}, true
	case "off":
		return Expires{Mode: ExpiresOff}, true
	}
	if strings.HasPrefix(v, "@") {
		t, ok := ParseDuration(v[1:])
		if !ok || t >= 24*time.Hour {
			return Expires{}, false
		}
		return Expires{Mode: ExpiresDaily, Time: t}, true
	}
	neg := false
	if strings.HasPrefix(v, "-") {
		neg, v = true, v[1:]
	} else if strings.HasPrefix(v, "+") {
		v = v[1:]
	}
	t, ok := ParseDuration(v)
	if !ok {
		return Expires{}, false
	}
	if neg {
		t = -t
	}
	return Expires{Mode: ExpiresAccess, Time: t}, true
}

func setGzipTypes(c *compiler, f *frame, d *Directive) error {
	g := &f.loc.Gzip
	g.Types = map[string]bool{"text/html": true}
	g.AnyType = false
	for _, t := range d.Args {
		if t == "*" {
			g.AnyType = true
			continue
		}
		g.Types[strings.ToLower(t)] = true
	}
	return nil
}

var gzipProxiedValues = map[string]bool{"off": true, "expired": true, "no-cache": true, "no-store": true,
	"private": true, "no_last_modified": true, "no_etag": true, "auth": true, "any": true}

func setGzipProxied(c *compiler, f *frame, d *Directive) error {
	for _, a := range d.Args {
		if !gzipProxiedValues[a] {
			return emergf(d, "invalid value \"%s\" in \"%s\" directive", a, d.Name)
		}
	}
	f.loc.Gzip.Proxied = append([]string(nil), d.Args...)
	return nil
}

func setGzipDisable(c *compiler, f *frame, d *Directive) error {
	g := &f.loc.Gzip
	g.Disable, g.DisableMSIE6 = nil, false
	for _, a := range d.Args {
		if a == "msie6" {
			g.DisableMSIE6 = true
			continue
		}
		re, err := c.compileRegex(d, a, true)
		if err != nil {
			return err
		}
		g.Disable = append(g.Disable, re)
	}
	return nil
}

// mergeGzip inherits gzip settings directive by directive.
func (c *compiler) mergeGzip(l, p *Location) {
	set := func(n string) bool { return c.isSet(l, n) }
	g, pg := &l.Gzip, &p.Gzip
	if !set("gzip") {
		g.On = pg.On
	}
	if !set("gzip_types") {
		g.Types, g.AnyType = pg.Types, pg.AnyType
	}
	if !set("gzip_min_length") {
		g.MinLength = pg.MinLength
	}
	if !set("gzip_comp_level") {
		g.CompLevel = pg.CompLevel
	}
	if !set("gzip_http_version") {
		g.HTTPVersion = pg.HTTPVersion
	}
	if !set("gzip_proxied") {
		g.Proxied = pg.Proxied
	}
	if !set("gzip_disable") {
		g.Disable, g.DisableMSIE6 = pg.Disable, pg.DisableMSIE6
	}
	if !set("gzip_vary") {
		g.Vary = pg.Vary
	}
	if !set("gzip_static") {
		l.GzipStatic = p.GzipStatic
	}
}
