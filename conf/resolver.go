// This file holds the core module's resolver and resolver_timeout: the
// DNS servers proxy_pass and fastcgi_pass ask for a host name their
// variables give that names no upstream{}. The resolver itself (its
// cache, the queries) is proxy/resolver; one is made here per directive,
// at load, so the levels that inherit it share its cache, as nginx's do.
package conf

import (
	"net/netip"
	"strconv"
	"strings"
	"time"

	"edge/proxy/resolver"
)

func init() {
	register(
		(&spec{name: "resolver", ctx: ctxHSL, args: take1More, set: setResolver}).setSlot(
			field(func(l *LocConf) **resolver.Resolver { return &l.Resolver }, nil)),
		msecSlot("resolver_timeout", ctxHSL, atLoc, func(l *LocConf) *time.Duration { return &l.ResolverTimeout }, 30*time.Second),
	)
}

// setResolver reads "resolver address ... [valid=time] [ipv4=on|off]
// [ipv6=on|off] [status_zone=zone]" (ngx_resolver_create). An address is
// an IP address or a host name (looked up now, each of its addresses a
// server), with an optional port, 53 by default; IPv6 ones in brackets.
// ipv4= and status_zone= are later nginx's (1.23.1, 1.27); nginx 1.22
// takes them for host names.
func setResolver(c *compiler, f *frame, d *Directive) error {
	cfg := resolver.Config{IPv4: true, IPv6: true}
	for _, a := range d.Args {
		name, val, hasVal := strings.Cut(a, "=")
		if hasVal {
			switch name {
			case "valid":
				t, ok := ParseDuration(val)
				if !ok || t < time.Second && t != 0 {
					return emergf(d, "invalid parameter: %s", a)
				}
				cfg.Valid = t
				continue
			case "ipv4", "ipv6":
				on := val == "on"
				if !on && val != "off" {
					return emergf(d, "invalid parameter: %s", a)
				}
				if name == "ipv4" {
					cfg.IPv4 = on
				} else {
					cfg.IPv6 = on
				}
				continue
			case "status_zone":
				continue // no status API to report it in
			}
		}
		servers, err := c.resolverAddrs(d, a)
		if err != nil {
			return err
		}
		cfg.Servers = append(cfg.Servers, servers...)
	}
	if len(cfg.Servers) == 0 {
		return emergf(d, "no name servers defined")
	}
	if !cfg.IPv4 && !cfg.IPv6 {
		return emergf(d, "\"ipv4\" and \"ipv6\" cannot both be \"off\"")
	}
	f.loc.Resolver = resolver.New(cfg)
	return nil
}

// resolverAddrs reads one server address of the resolver directive.
func (c *compiler) resolverAddrs(d *Directive, a string) ([]netip.AddrPort, error) {
	host, port := a, 53
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return nil, emergf(d, "invalid IPv6 address in resolver \"%s\"", a)
		}
		host = a[1:end]
		rest := a[end+1:]
		if rest != "" {
			p, err := strconv.Atoi(strings.TrimPrefix(rest, ":"))
			if !strings.HasPrefix(rest, ":") || err != nil || p < 1 || p > 65535 {
				return nil, emergf(d, "invalid port in resolver \"%s\"", a)
			}
			port = p
		}
	} else if h, p, ok := strings.Cut(a, ":"); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, emergf(d, "invalid port in resolver \"%s\"", a)
		}
		host, port = h, n
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.AddrPort{netip.AddrPortFrom(ip.Unmap(), uint16(port))}, nil
	}
	ips := c.lookupHost(host)
	if len(ips) == 0 {
		return nil, emergf(d, "host not found in resolver \"%s\"", a)
	}
	out := make([]netip.AddrPort, 0, len(ips))
	for _, ip := range ips {
		out = append(out, netip.AddrPortFrom(ip.Unmap(), uint16(port)))
	}
	return out, nil
}
