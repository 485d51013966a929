// Package realip is the engine of nginx's realip module
// (src/http/modules/ngx_http_realip_module.c) and of the PROXY protocol
// header reader behind `listen ... proxy_protocol`
// (src/core/ngx_proxy_protocol.c): pure address logic, no HTTP server and
// no configuration. The caller builds a Config from set_real_ip_from,
// real_ip_header and real_ip_recursive, hands it the connection's address
// and the header values, and gets back the address $remote_addr becomes
// (issue 15).
//
// This file holds the address rules: nginx's address parsers
// (ngx_inet_addr, ngx_parse_addr_port), the trusted list (ngx_cidr_match)
// and the right-to-left walk over X-Forwarded-For
// (ngx_http_get_forwarded_addr).
package realip

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Addr is a client address as nginx's connection holds it: an IP address
// and port, or a unix-domain socket (Unix, no IP).
type Addr struct {
	IP   netip.Addr
	Port uint16 // 0: none ($remote_port is empty)
	Unix bool
}

// String is $remote_addr for the address: nginx's text of the IP, or
// "unix:" for a unix-domain socket.
func (a Addr) String() string {
	if a.Unix {
		return "unix:"
	}
	return ntop(a.IP)
}

// ntop is ngx_sock_ntop's text of an address: Go's, except that nginx
// writes an IPv6 address whose first 96 bits are zero (IPv4-compatible,
// "::1.2.3.4") with its last 32 bits dotted, as it does the IPv4-mapped
// ones, unless only the last byte is set: "::", "::1" and "::5" stay as
// they are, "::0.0.1.5" is dotted (checked against nginx 1.22).
func ntop(ip netip.Addr) string {
	if ip.Is6() && !ip.Is4In6() {
		b := ip.As16()
		zero := true
		for _, c := range b[:12] {
			zero = zero && c == 0
		}
		v4 := netip.AddrFrom4([4]byte(b[12:]))
		if zero && b[12]|b[13]|b[14] != 0 {
			return "::" + v4.String()
		}
	}
	return ip.String()
}

// PortString is $remote_port: the port, or "" when there is none.
func (a Addr) PortString() string {
	if a.Port == 0 {
		return ""
	}
	return strconv.Itoa(int(a.Port))
}

// Trusted is a set_real_ip_from list. The zero value trusts nothing.
type Trusted struct {
	prefixes []netip.Prefix
	unix     bool
}

// ErrNotAddress is Add's error for a value that is neither an address, a
// CIDR nor "unix:": nginx then resolves it as a host name, which is the
// caller's to do (AddPrefix each address it resolves to).
var ErrNotAddress = errors.New("realip: not an address")

// Add adds one set_real_ip_from value: "unix:", an address, or
// address/bits. lowBits reports a CIDR with host bits set (nginx warns `low
// address bits of ... are meaningless` and clears them).
func (t *Trusted) Add(value string) (lowBits bool, err error) {
	if value == "unix:" {
		t.unix = true
		return false, nil
	}
	p, lowBits, err := ParseCIDR(value)
	if err != nil {
		return false, err
	}
	t.prefixes = append(t.prefixes, p)
	return lowBits, nil
}

// AddPrefix adds an address range, such as a resolved host's address.
func (t *Trusted) AddPrefix(p netip.Prefix) { t.prefixes = append(t.prefixes, p.Masked()) }

// Empty reports whether the list trusts nothing (realip is then off).
func (t *Trusted) Empty() bool { return t == nil || (len(t.prefixes) == 0 && !t.unix) }

// ParseCIDR is ngx_ptocidr: an IPv4 address in nginx's form (see
// ParseAddr) or an IPv6 one, optionally with /bits.
func ParseCIDR(s string) (p netip.Prefix, lowBits bool, err error) {
	addr, bitsText, hasBits := strings.Cut(s, "/")
	ip, ok := ParseAddr(addr)
	if !ok {
		return netip.Prefix{}, false, fmt.Errorf("%w: %q", ErrNotAddress, s)
	}
	bits := ip.BitLen()
	if hasBits {
		n, err := strconv.Atoi(bitsText)
		if err != nil || n < 0 || n > ip.BitLen() || bitsText[0] == '+' {
			return netip.Prefix{}, false, fmt.Errorf("realip: invalid CIDR %q", s)
		}
		bits = n
	}
	p = netip.PrefixFrom(ip, bits)
	m := p.Masked()
	return m, m.Addr() != ip, nil
}

// Contains is ngx_cidr_match: an IPv4-mapped IPv6 address matches as its
// IPv4 address; a unix-domain socket matches "unix:".
func (t *Trusted) Contains(a Addr) bool {
	if t == nil {
		return false
	}
	if a.Unix {
		return t.unix
	}
	ip := a.IP.Unmap()
	for _, p := range t.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseAddr is ngx_parse_addr: IPv4 as ngx_inet_addr reads it (four
// decimal fields of at most 255, leading zeros and empty fields allowed, so
// "010.1..2" is 10.1.0.2; 255.255.255.255 is refused, being INADDR_NONE),
// else an IPv6 address without a zone.
func ParseAddr(s string) (netip.Addr, bool) {
	if v4, ok := inetAddr(s); ok {
		return v4, true
	}
	if !strings.Contains(s, ":") || strings.ContainsAny(s, "%[]") {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(s)
	if err != nil || !ip.Is6() {
		return netip.Addr{}, false
	}
	return ip, true
}

func inetAddr(s string) (netip.Addr, bool) {
	var addr uint32
	var octet uint32
	dots := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			octet = octet*10 + uint32(c-'0')
			if octet > 255 {
				return netip.Addr{}, false
			}
		case c == '.':
			addr = addr<<8 + octet
			octet = 0
			dots++
		default:
			return netip.Addr{}, false
		}
	}
	if dots != 3 {
		return netip.Addr{}, false
	}
	addr = addr<<8 + octet
	if addr == 0xffffffff {
		return netip.Addr{}, false
	}
	return netip.AddrFrom4([4]byte{byte(addr >> 24), byte(addr >> 16), byte(addr >> 8), byte(addr)}), true
}

// ParseAddrPort is ngx_parse_addr_port: an address, or "a.b.c.d:port",
// or "[v6]:port" (a bracketed address needs a port), the port 1-65535.
func ParseAddrPort(s string) (Addr, bool) {
	if ip, ok := ParseAddr(s); ok {
		return Addr{IP: ip}, true
	}
	host := ""
	var portText string
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 || end == len(s)-1 || s[end+1] != ':' {
			return Addr{}, false
		}
		host, portText = s[1:end], s[end+2:]
	} else {
		i := strings.IndexByte(s, ':')
		if i < 0 {
			return Addr{}, false
		}
		host, portText = s[:i], s[i+1:]
	}
	port, ok := atoiPort(portText)
	if !ok || port < 1 {
		return Addr{}, false
	}
	ip, ok := ParseAddr(host)
	if !ok {
		return Addr{}, false
	}
	return Addr{IP: ip, Port: port}, true
}

// atoiPort is ngx_atoi limited to 0-65535.
func atoiPort(s string) (uint16, bool) {
	if s == "" || len(s) > 5 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	if n > 65535 {
		return 0, false
	}
	return uint16(n), true
}

// Source is real_ip_header.
type Source int

const (
	XRealIP       Source = iota // real_ip_header X-Real-IP (the default)
	XForwardedFor               // X-Forwarded-For, every such header
	ProxyProtocol               // the PROXY protocol header's source
	Field                       // any other header: its first occurrence
)

// Config is one level's realip configuration.
type Config struct {
	From      *Trusted
	Source    Source
	Header    string // the field name for Source Field
	Recursive bool   // real_ip_recursive
}

// walkResult is ngx_http_get_forwarded_addr_internal's return code.
type walkResult int

const (
	declined walkResult = iota // nothing taken
	done                       // some address taken, then stopped
	whole                      // the value read to its first entry (NGX_OK)
)

// walk is ngx_http_get_forwarded_addr_internal over one header value: from
// the address so far, while it is trusted, take the last address of the
// list; with recursion, go on leftwards.
func (c *Config) walk(addr *Addr, xff string) walkResult {
	found := false
	stop := func() walkResult {
		if found {
			return done
		}
		return declined
	}
	for {
		if !c.From.Contains(*addr) {
			return stop()
		}
		end := len(xff)
		p := end - 1
		for ; p > 0; p, end = p-1, end-1 {
			if xff[p] != ' ' && xff[p] != ',' {
				break
			}
		}
		for ; p > 0; p-- {
			if xff[p] == ' ' || xff[p] == ',' {
				p++
				break
			}
		}
		if p < 0 { // an empty value
			return stop()
		}
		a, good := ParseAddrPort(xff[p:end])
		if !good {
			return stop()
		}
		*addr, found = a, true
		if !c.Recursive || p == 0 {
			return whole
		}
		xff = xff[:p-1]
	}
}

// Resolve is the realip handler: conn is the connection's address and
// values the values of the configured header in the order the request sent
// them (every X-Forwarded-For line for XForwardedFor; the first X-Real-IP or
// field only for the others, which nginx reads once). It returns the real
// address and true when the address changes, conn and false otherwise
// (untrusted sender, no header, nothing parseable). For ProxyProtocol use
// ResolveProxy.
//
// The port comes from the header when it carries one, else it is 0
// ($remote_port empty), as nginx copies the parsed sockaddr whole.
func (c *Config) Resolve(conn Addr, values []string) (Addr, bool) {
	if c.From.Empty() || len(values) == 0 {
		return conn, false
	}
	addr := conn
	if c.Source != XForwardedFor {
		if c.walk(&addr, values[0]) != declined {
			return addr, true
		}
		return conn, false
	}
	// ngx_http_get_forwarded_addr: the last header first; without
	// recursion only it counts; with recursion an earlier header goes on
	// from where a later one was read whole.
	rc, found := declined, false
	for i := len(values) - 1; i >= 0; i-- {
		rc = c.walk(&addr, values[i])
		if !c.Recursive {
			break
		}
		if rc == declined && found {
			rc = done
			break
		}
		if rc != whole {
			break
		}
		found = true
	}
	if rc == declined {
		return conn, false
	}
	return addr, true
}

// ResolveProxy is Resolve for real_ip_header proxy_protocol: a trusted
// connection that sent a PROXY header with addresses takes its source
// address and port.
func (c *Config) ResolveProxy(conn Addr, h *Header) (Addr, bool) {
	if h == nil || c.From.Empty() {
		return conn, false
	}
	addr := conn
	if c.walk(&addr, h.SrcAddr) == declined {
		return conn, false
	}
	addr.Port = h.SrcPort
	return addr, true
}
