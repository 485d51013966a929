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
		(&spec{name: "add_header", ctx: ctxHSLif, args: take23, multi: true, set: setAddHeader}).setSlot(
			field(func(l *LocConf) *[]HeaderAdd { return &l.AddHeaders }, nil)),
		(&spec{name: "expires", ctx: ctxHSLif, args: take12, set: setExpires}).setSlot(
			field(func(l *LocConf) *Expires { return &l.Expires }, Expires{})),

		flagSlot("gzip", ctxHSLif, atLoc, func(l *LocConf) *bool { return &l.Gzip.On }, false),
		(&spec{name: "gzip_types", ctx: ctxHSL, args: take1More, set: setGzipTypes}).setSlot(fields(
			field(func(l *LocConf) *map[string]bool { return &l.Gzip.Types }, map[string]bool{"text/html": true}),
			field(func(l *LocConf) *bool { return &l.Gzip.AnyType }, false))),
		sizeSlot("gzip_min_length", ctxHSL, atLoc, func(l *LocConf) *int64 { return &l.Gzip.MinLength }, 20),
		value("gzip_comp_level", ctxHSL, take1, atLoc, func(l *LocConf) *int { return &l.Gzip.CompLevel }, 1, parseCompLevel),
		value("gzip_http_version", ctxHSL, take1, atLoc, func(l *LocConf) *string { return &l.Gzip.HTTPVersion }, "1.1", parseGzipHTTPVersion),
		value("gzip_proxied", ctxHSL, take1More, atLoc, func(l *LocConf) *[]string { return &l.Gzip.Proxied }, nil, parseGzipProxied),
		(&spec{name: "gzip_disable", ctx: ctxHSL, args: take1More, set: setGzipDisable}).setSlot(fields(
			field(func(l *LocConf) *[]*Regex { return &l.Gzip.Disable }, nil),
			field(func(l *LocConf) *bool { return &l.Gzip.DisableMSIE6 }, false))),
		flagSlot("gzip_vary", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.Gzip.Vary }, false),
		// gzip_static is accepted (docs/directives.md): its value is checked.
		&spec{name: "gzip_static", ctx: ctxHSL, args: take1, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			_, err := enumArg("on", "off", "always")(c, d)
			return err
		}},
	)
}

func parseCompLevel(c *compiler, d *Directive) (int, error) {
	n, err := strconv.Atoi(d.Args[0])
	if err != nil {
		return 0, emergf(d, "invalid number \"%s\"", d.Args[0])
	}
	if n < 1 || n > 9 {
		return 0, emergf(d, "\"gzip_comp_level\" directive: the value must be in 1..9 range")
	}
	return n, nil
}

func parseGzipHTTPVersion(c *compiler, d *Directive) (string, error) {
	if d.Args[0] != "1.0" && d.Args[0] != "1.1" {
		return "", emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be \"1.0\" or \"1.1\"", d.Args[0], d.Name)
	}
	return d.Args[0], nil
}

func setAddHeader(c *compiler, f *frame, d *Directive) error {
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

// setExpires reads "expires [modified] time | epoch | max | off", where
// the time may hold variables: then it is parsed per request, as nginx's
// ngx_http_headers_expires keeps a complex value, and with "modified" a
// value of epoch, max, off or a daily time is invalid there as here. The
// error texts are nginx's.
func setExpires(c *compiler, f *frame, d *Directive) error {
	args := d.Args
	modified := false
	if len(args) == 2 {
		if args[0] != "modified" {
			return emergf(d, "\"expires\" directive invalid value")
		}
		modified = true
		args = args[1:]
	}
	v := args[0]
	if strings.Contains(v, "$") {
		s, err := c.compileScript(d, v)
		if err != nil {
			return err
		}
		if !s.Static {
			mode := ExpiresAccess
			if modified {
				mode = ExpiresModified
			}
			f.loc.Expires = Expires{Mode: mode, Var: s}
			return nil
		}
	}
	e, reason := ParseExpires(v, modified)
	if reason != "" {
		return emergf(d, "\"expires\" directive %s", reason)
	}
	f.loc.Expires = e
	return nil
}

// ParseExpires reads one expires value as ngx_http_parse_expires does:
// "epoch", "max", "off" (not after "modified"), "@15h30m" (daily, at most
// 24 hours, not after "modified"), or a time in whole seconds with an
// optional sign ("-1h", "+30d", "2048"). A variable's value is parsed here
// per request. reason is nginx's error text, "" when v is valid.
func ParseExpires(v string, modified bool) (e Expires, reason string) {
	if !modified {
		switch v {
		case "epoch":
			return Expires{Mode: ExpiresEpoch}, ""
		case "max":
			return Expires{Mode: ExpiresMax}, ""
		case "off":
			return Expires{Mode: ExpiresOff}, ""
		}
	}
	e.Mode = ExpiresAccess
	if modified {
		e.Mode = ExpiresModified
	}
	neg := false
	switch {
	case strings.HasPrefix(v, "@"):
		if modified {
			return Expires{}, "daily time cannot be used with \"modified\" parameter"
		}
		e.Mode, v = ExpiresDaily, v[1:]
	case strings.HasPrefix(v, "+"):
		v = v[1:]
	case strings.HasPrefix(v, "-"):
		neg, v = true, v[1:]
	}
	// ngx_parse_time with is_sec set takes no "ms".
	t, ok := ParseDuration(v)
	if !ok || strings.Contains(v, "ms") {
		return Expires{}, "invalid value"
	}
	if e.Mode == ExpiresDaily && t > 24*time.Hour {
		return Expires{}, "daily time value must be less than 24 hours"
	}
	if neg {
		t = -t
	}
	e.Time = t
	return e, ""
}

func setGzipTypes(c *compiler, f *frame, d *Directive) error {
	setEncodingTypes(&f.loc.Gzip.Encoding, d)
	return nil
}

// setEncodingTypes reads a gzip_types or brotli_types list: text/html is always
// in it (nginx's ngx_http_html_default_types) and "*" takes any type.
func setEncodingTypes(e *Encoding, d *Directive) {
	e.Types = map[string]bool{"text/html": true}
	e.AnyType = false
	for _, t := range d.Args {
		if t == "*" {
			e.AnyType = true
			continue
		}
		e.Types[strings.ToLower(t)] = true
	}
}

var gzipProxiedValues = map[string]bool{"off": true, "expired": true, "no-cache": true, "no-store": true,
	"private": true, "no_last_modified": true, "no_etag": true, "auth": true, "any": true}

func parseGzipProxied(c *compiler, d *Directive) ([]string, error) {
	for _, a := range d.Args {
		if !gzipProxiedValues[a] {
			return nil, emergf(d, "invalid value \"%s\" in \"%s\" directive", a, d.Name)
		}
	}
	return append([]string(nil), d.Args...), nil
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
