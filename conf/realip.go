// This file holds the realip module's directives
// (ngx_http_realip_commands): set_real_ip_from, real_ip_header and
// real_ip_recursive. The address logic is proxy/realip's; the pipeline
// runs it before the server's rewrites (proxy/access.go).
package conf

import (
	"net/netip"

	"edge/proxy/realip"
)

// RealIP is a level's realip settings (ngx_http_realip_loc_conf_t).
type RealIP struct {
	// From is set_real_ip_from; nil trusts nothing (realip is off). A
	// level that writes none inherits its parent's list whole.
	From      *realip.Trusted
	FromList  []string      // the values as written, for Dump
	Source    realip.Source // real_ip_header; X-Real-IP by default
	Header    string        // the field name for Source Field
	Recursive bool          // real_ip_recursive
}

// Config is the engine's view of the settings.
func (r *RealIP) Config() *realip.Config {
	return &realip.Config{From: r.From, Source: r.Source, Header: r.Header, Recursive: r.Recursive}
}

func init() {
	ri := func(l *LocConf) *RealIP { return &l.RealIP }
	register(
		(&spec{name: "set_real_ip_from", ctx: ctxHSL, args: take1, multi: true, set: setRealIPFrom}).
			setSlot(&slot[LocConf]{
				merge: func(dst, src *LocConf) { dst.RealIP.From, dst.RealIP.FromList = src.RealIP.From, src.RealIP.FromList },
				init:  func(c *compiler, top *LocConf) { top.RealIP.From, top.RealIP.FromList = nil, nil },
				show:  func(x *LocConf) string { return showValue(x.RealIP.FromList) },
			}),
		(&spec{name: "real_ip_header", ctx: ctxHSL, args: take1, set: setRealIPHeader}).
			setSlot(fields(field(func(l *LocConf) *realip.Source { return &ri(l).Source }, realip.XRealIP),
				field(func(l *LocConf) *string { return &ri(l).Header }, ""))),
		flagSlot("real_ip_recursive", ctxHSL, atLoc, func(l *LocConf) *bool { return &ri(l).Recursive }, false),
	)
}

// setRealIPFrom is ngx_http_realip_from: "unix:", an address or a CIDR
// (host bits set are a warning), else a host name resolved now, each of
// its addresses trusted.
func setRealIPFrom(c *compiler, f *frame, d *Directive) error {
	l := &f.loc.LocConf.RealIP
	if l.From == nil {
		l.From = &realip.Trusted{}
	}
	a := d.Args[0]
	l.FromList = append(l.FromList, a)
	low, err := l.From.Add(a)
	if err == nil {
		if low {
			c.warnf(d, "low address bits of %s are meaningless", a)
		}
		return nil
	}
	ips := c.lookupHost(a)
	if len(ips) == 0 {
		return emergf(d, "host not found in set_real_ip_from \"%s\"", a)
	}
	for _, ip := range ips {
		ip = ip.Unmap()
		l.From.AddPrefix(netip.PrefixFrom(ip, ip.BitLen()))
	}
	return nil
}

// setRealIPHeader is ngx_http_realip: X-Real-IP, X-Forwarded-For,
// proxy_protocol (compared as written, as nginx does), or any other field
// name, found in any case.
func setRealIPHeader(c *compiler, f *frame, d *Directive) error {
	l := &f.loc.LocConf.RealIP
	a := d.Args[0]
	l.Header = ""
	switch {
	case a == "X-Real-IP":
		l.Source = realip.XRealIP
	case a == "X-Forwarded-For":
		l.Source = realip.XForwardedFor
	case a == "proxy_protocol":
		l.Source = realip.ProxyProtocol
	default:
		l.Source, l.Header = realip.Field, a
	}
	return nil
}
