// This file holds listen and server_name, and builds the per-address
// groups of servers with their name lookup (nginx's
// ngx_http_optimize_servers): exact names, then the longest leading
// wildcard, then the longest trailing wildcard, then regexps in file order,
// then the default server.
package conf

import (
	"net"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// setListen reads "listen address[:port] [options]".
func setListen(c *compiler, f *frame, d *Directive) error {
	l := Listen{Network: "tcp", File: d.File, Line: d.Line}
	addr := d.Args[0]
	switch {
	case strings.HasPrefix(addr, "unix:"):
		l.Network = "unix"
		l.Addr = c.path(addr[5:])
	default:
		a, err := parseListenAddr(addr)
		if err != nil {
			return emergf(d, "%s in \"%s\" of the \"listen\" directive", err.Error(), addr)
		}
		l.Addr = a
	}
	for _, o := range d.Args[1:] {
		switch {
		case o == "default_server" || o == "default":
			l.DefaultServer = true
		case o == "ssl":
			l.SSL = true
		case o == "http2":
			l.HTTP2 = true
			c.warnf(d, "the \"listen ... http2\" directive is deprecated, use the \"http2\" directive instead")
		case o == "reuseport":
			l.ReusePort, l.Bind = true, true
		case o == "proxy_protocol":
			l.ProxyProtocol = true
		case o == "quic" || o == "http3":
			return emergf(d, "\"%s\" in \"listen\" is not supported by edge yet (HTTP/3 is planned)", o)
		case o == "deferred" || o == "bind" || strings.HasPrefix(o, "fastopen=") ||
			strings.HasPrefix(o, "rcvbuf=") || strings.HasPrefix(o, "sndbuf=") ||
			strings.HasPrefix(o, "so_keepalive=") || strings.HasPrefix(o, "setfib=") ||
			strings.HasPrefix(o, "accept_filter="):
			// Socket tuning that does not change behaviour; Go's defaults
			// apply. Each implies a socket of the address's own.
			l.Bind = true
		case strings.HasPrefix(o, "backlog="):
			n, err := strconv.Atoi(o[8:])
			if err != nil || n == 0 {
				return emergf(d, "invalid backlog \"%s\"", o[8:])
			}
			l.Backlog, l.Bind = n, true
		case o == "ipv6only=on":
			l.IPv6Only, l.Bind = true, true
		case o == "ipv6only=off":
			l.IPv6Only, l.Bind = false, true
		default:
			return emergf(d, "invalid parameter \"%s\"", o)
		}
	}
	if strings.HasPrefix(l.Addr, "[") {
		// nginx listens on IPv6 wildcards with IPV6_V6ONLY set by default.
		if !strings.Contains(strings.Join(d.Args, " "), "ipv6only=off") {
			l.IPv6Only = true
		}
	}
	for _, o := range f.srv.Listens {
		if o.Network == l.Network && o.Addr == l.Addr {
			return emergf(d, "a duplicate listen %s", l.Addr)
		}
	}
	f.srv.Listens = append(f.srv.Listens, l)
	return nil
}

// parseListenAddr turns nginx's address forms into "host:port":
// "80", "*:80", "127.0.0.1", "127.0.0.1:80", "[::]:80", "[::1]",
// "localhost:8080".
func parseListenAddr(s string) (string, error) {
	host, port := "", "80"
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.Index(s, "]")
		if end < 0 {
			return "", errText("invalid IPv6 address")
		}
		host = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return "", errText("invalid port")
			}
			port = rest[1:]
		}
		if _, err := netip.ParseAddr(host); err != nil {
			return "", errText("invalid IPv6 address")
		}
	case isDigits(s):
		host, port = "0.0.0.0", s
	default:
		if i := strings.LastIndex(s, ":"); i >= 0 {
			host, port = s[:i], s[i+1:]
		} else {
			host = s
		}
		if host == "*" || host == "" {
			host = "0.0.0.0"
		}
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return "", errText("invalid port")
	}
	if _, err := netip.ParseAddr(host); err != nil {
		ips, err := net.LookupHost(host)
		if err != nil || len(ips) == 0 {
			return "", errText("host not found")
		}
		host = ips[0]
	}
	return net.JoinHostPort(host, strconv.Itoa(p)), nil
}

type errText string

func (e errText) Error() string { return string(e) }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// setServerName reads server_name entries.
func setServerName(c *compiler, f *frame, d *Directive) error {
	for _, a := range d.Args {
		sn := ServerName{Name: strings.ToLower(a)}
		switch {
		case strings.HasPrefix(a, "~"):
			// nginx makes a server name regexp caseless when it holds a
			// capital (ngx_http_core_server_name): the host it is
			// matched against is lowercased.
			re, err := c.compileRegex(d, a[1:], strings.ContainsFunc(a, func(r rune) bool { return r >= 'A' && r <= 'Z' }))
			if err != nil {
				return err
			}
			sn.Kind, sn.Regex, sn.Name = NameRegex, re, a
		case strings.HasPrefix(a, "*.") || strings.HasPrefix(a, "."):
			if strings.Contains(a[1:], "*") {
				return emergf(d, "invalid server name or wildcard \"%s\" on %s", a, listenNameForMsg(f.srv))
			}
			sn.Kind = NameWildPrefix
		case strings.HasSuffix(a, ".*"):
			if strings.Contains(a[:len(a)-2], "*") {
				return emergf(d, "invalid server name or wildcard \"%s\" on %s", a, listenNameForMsg(f.srv))
			}
			sn.Kind = NameWildSuffix
		case strings.Contains(a, "*"):
			return emergf(d, "invalid server name or wildcard \"%s\" on %s", a, listenNameForMsg(f.srv))
		case strings.Contains(a, "/"):
			return emergf(d, "server name \"%s\" has suspicious symbols", a)
		}
		f.srv.Names = append(f.srv.Names, sn)
	}
	return nil
}

func listenNameForMsg(s *Server) string {
	if len(s.Listens) > 0 {
		return s.Listens[0].Addr
	}
	return "0.0.0.0:80"
}

// buildListens groups servers by address and builds each group's name
// lookup.
func (c *compiler) buildListens() error {
	h := c.plan.HTTP
	byAddr := map[string]*ListenGroup{}
	for _, srv := range h.Servers {
		for _, l := range srv.Listens {
			key := l.Network + " " + l.Addr
			g := byAddr[key]
			if g == nil {
				g = &ListenGroup{Listen: l}
				byAddr[key] = g
				h.Listens = append(h.Listens, g)
			}
			if l.DefaultServer {
				if g.Default != nil {
					return &Error{Level: LevelEmerg, Msg: "a duplicate default server for " + l.Addr, File: l.File, Line: l.Line}
				}
				g.Default = srv
				g.Listen.DefaultServer = true
			}
			g.Listen.SSL = g.Listen.SSL || l.SSL
			g.Listen.HTTP2 = g.Listen.HTTP2 || l.HTTP2 || srv.HTTP2
			g.Listen.ProxyProtocol = g.Listen.ProxyProtocol || l.ProxyProtocol
			if l.Backlog != 0 {
				g.Listen.Backlog = l.Backlog
			}
			g.Listen.ReusePort = g.Listen.ReusePort || l.ReusePort
			g.Listen.Bind = g.Listen.Bind || l.Bind
			g.Servers = append(g.Servers, srv)
		}
	}
	for _, g := range h.Listens {
		if g.Default == nil {
			g.Default = g.Servers[0]
		}
		names, err := c.buildNames(g)
		if err != nil {
			return err
		}
		g.Names = names
	}
	return nil
}

func (c *compiler) buildNames(g *ListenGroup) (*ServerNames, error) {
	n := &ServerNames{Exact: map[string]*Server{}}
	seen := map[string]bool{}
	for _, srv := range g.Servers {
		for _, sn := range srv.Names {
			if sn.Kind != NameRegex {
				if seen[sn.Name] {
					c.plan.Warnings = append(c.plan.Warnings, &Error{Level: LevelWarn,
						Msg: "conflicting server name \"" + sn.Name + "\" on " + g.Listen.Addr + ", ignored"})
					continue
				}
				seen[sn.Name] = true
			}
			switch sn.Kind {
			case NameExact:
				n.Exact[sn.Name] = srv
			case NameWildPrefix:
				// "*.example.com" and ".example.com" both match subdomains;
				// the dot form also matches "example.com" itself.
				dot := strings.HasPrefix(sn.Name, ".")
				pat := strings.TrimPrefix(sn.Name, "*")
				n.WildPrefix = append(n.WildPrefix, WildName{Pattern: pat, Dot: dot, Server: srv})
			case NameWildSuffix:
				n.WildSuffix = append(n.WildSuffix, WildName{Pattern: strings.TrimSuffix(sn.Name, "*"), Server: srv})
			case NameRegex:
				n.Regex = append(n.Regex, RegexName{Regex: sn.Regex, Server: srv})
			}
		}
	}
	sort.SliceStable(n.WildPrefix, func(i, j int) bool { return len(n.WildPrefix[i].Pattern) > len(n.WildPrefix[j].Pattern) })
	sort.SliceStable(n.WildSuffix, func(i, j int) bool { return len(n.WildSuffix[i].Pattern) > len(n.WildSuffix[j].Pattern) })
	return n, nil
}

// Lookup finds the server for a host name (already lowercased, without
// port or trailing dot): the exact name, the longest wildcards, then the
// regex names in order, each tried with match, which binds the captures
// of the one that matches (nil: Regex.Match). It returns the group's
// default server when no name matches. An error from match ends the
// search and is returned with the default server (ngx_http_find_virtual_server
// fails; nginx then closes the connection).
func (g *ListenGroup) Lookup(host string, match func(*Regex) (bool, error)) (*Server, error) {
	n := g.Names
	if s, ok := n.Exact[host]; ok {
		return s, nil
	}
	for _, w := range n.WildPrefix {
		if strings.HasSuffix(host, w.Pattern) || (w.Dot && host == w.Pattern[1:]) {
			return w.Server, nil
		}
	}
	for _, w := range n.WildSuffix {
		if strings.HasPrefix(host, w.Pattern) {
			return w.Server, nil
		}
	}
	for _, r := range n.Regex {
		var ok bool
		var err error
		if match != nil {
			ok, err = match(r.Regex)
		} else {
			ok, err = r.Regex.Match(host)
		}
		if err != nil {
			return g.Default, err
		}
		if ok {
			return r.Server, nil
		}
	}
	return g.Default, nil
}

// markSSLAddrs notes the addresses some listen marks ssl: nginx makes
// the socket TLS, and with it every server on the address, whether or not
// its own listen says ssl (ngx_http_add_addresses merges the flag).
func (c *compiler) markSSLAddrs() {
	c.sslAddrs = map[string]bool{}
	for _, srv := range c.plan.HTTP.Servers {
		for _, l := range srv.Listens {
			if l.SSL {
				c.sslAddrs[l.Network+" "+l.Addr] = true
			}
		}
	}
}

// onSSL reports whether one of s's addresses is TLS (markSSLAddrs).
func (c *compiler) onSSL(s *Server) bool {
	for _, l := range s.Listens {
		if c.sslAddrs[l.Network+" "+l.Addr] {
			return true
		}
	}
	return false
}

// hasSSL reports whether one of s's own listen directives says ssl.
func hasSSL(s *Server) bool {
	for _, l := range s.Listens {
		if l.SSL {
			return true
		}
	}
	return false
}
