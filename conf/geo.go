// This file holds the geo module: "geo [$address] $var { ... }" gives $var
// the value of the network the client address falls in, as nginx 1.22's
// ngx_http_geo_module does. Two modes:
//
//   - CIDR (the default): IPv4 and IPv6 networks, the longest prefix wins;
//     "default" is 0.0.0.0/0 and ::/0.
//   - "ranges": IPv4 ranges "a.b.c.d-e.f.g.h", kept as nginx keeps them, in
//     lists per /16 that a later range may split, shrink or replace, and
//     refused where it overlaps a range it cannot split.
//
// The address is the connection's, or the value of the given variable (an
// invalid one is looked up as 255.255.255.255); from a trusted "proxy" the
// address is taken from X-Forwarded-For. Values are plain strings: "$x" in a
// geo value is not a variable in nginx either. The variable is a Map whose
// Geo field holds the table; proxy/vars.go asks Geo.Value.
package conf

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
)

func init() {
	register(&spec{name: "geo", ctx: ctxHTTP, args: take1 | take2 | isBlock, multi: true, local: true, set: setGeo})
}

// Geo is a compiled geo block. The zero value is a CIDR table without
// entries, whose every lookup gives "".
type Geo struct {
	Ranges bool
	// CIDR mode: networks of each family, by prefix.
	v4, v6 cidrTable
	// Ranges mode: the ranges of each /16, in address order, and the
	// default value.
	high         map[uint16][]geoRange
	rangeDefault string
	defaultSeen  bool // for nginx's duplicate default warning
	// Proxies are the "proxy" networks: from one of them, the address is
	// taken from X-Forwarded-For; with ProxyRecursive, the last address
	// in it that is not a proxy's.
	Proxies        []netip.Prefix
	ProxyRecursive bool
}

// geoRange is a range of the low 16 bits of addresses within one /16.
type geoRange struct {
	start, end uint16
	value      string
}

// cidrTable maps networks to values; lookups find the longest prefix.
type cidrTable struct {
	nets  map[netip.Prefix]string
	count [129]int // entries of each prefix length
	lens  []int    // the lengths with entries, longest first (see freeze)
}

func (t *cidrTable) insert(p netip.Prefix, v string) (old string, dup bool) {
	if t.nets == nil {
		t.nets = map[netip.Prefix]string{}
	}
	if _, dup = t.nets[p]; dup {
		// nginx reports the value its radix tree finds for the network's
		// address: that of a longer prefix inside it, if there is one.
		old, _ = t.find(p.Addr())
	} else {
		t.count[p.Bits()]++
	}
	t.nets[p] = v
	return old, dup
}

func (t *cidrTable) delete(p netip.Prefix) bool {
	if _, ok := t.nets[p]; !ok {
		return false
	}
	delete(t.nets, p)
	t.count[p.Bits()]--
	return true
}

// hasLonger tells whether a network longer than p lies inside it.
func (t *cidrTable) hasLonger(p netip.Prefix) bool {
	for q := range t.nets {
		if q.Bits() > p.Bits() && p.Contains(q.Addr()) {
			return true
		}
	}
	return false
}

// find is the longest-prefix lookup, usable while the table is built.
func (t *cidrTable) find(a netip.Addr) (string, bool) {
	for l := a.BitLen(); l >= 0; l-- {
		if t.count[l] == 0 {
			continue
		}
		p, _ := a.Prefix(l)
		if v, ok := t.nets[p]; ok {
			return v, true
		}
	}
	return "", false
}

func (t *cidrTable) freeze(bits int) {
	t.lens = t.lens[:0]
	for l := bits; l >= 0; l-- {
		if t.count[l] > 0 {
			t.lens = append(t.lens, l)
		}
	}
}

func (t *cidrTable) lookup(a netip.Addr) string {
	for _, l := range t.lens {
		p, _ := a.Prefix(l)
		if v, ok := t.nets[p]; ok {
			return v
		}
	}
	return ""
}

// noAddr is INADDR_NONE, what nginx looks up for an address it cannot
// parse (or a Unix socket's).
var noAddr = netip.AddrFrom4([4]byte{255, 255, 255, 255})

// radixPrealloc is the prefix length down to which nginx's radix tree
// (ngx_radix_tree_create with preallocate -1 on amd64, 4 KiB pages) holds
// nodes from the start: deleting such a node that has no value and nothing
// below it succeeds, so "delete" of that network gives no warning.
const radixPrealloc = 6

func setGeo(c *compiler, f *frame, d *Directive) error {
	for _, a := range d.Args {
		if !strings.HasPrefix(a, "$") {
			return emergf(d, "invalid variable name \"%s\"", a)
		}
	}
	dest, err := newVarName(d, d.Args[len(d.Args)-1])
	if err != nil {
		return err
	}
	g := &Geo{}
	m := &Map{Dest: dest, Exact: map[string]*Script{}, Geo: g}
	if len(d.Args) == 2 {
		if m.Source, err = c.compileScript(d, d.Args[0]); err != nil {
			return err
		}
	}
	m = c.defineMapVar(m)
	var cidrSeen bool
	for _, e := range d.Block {
		if e.HasBlock {
			return emergf(e, "unexpected \"{\"")
		}
		if len(e.Args) == 0 {
			switch e.Name {
			case "ranges":
				if cidrSeen {
					return emergf(e, "the \"ranges\" directive must be the first directive inside \"geo\" block")
				}
				g.Ranges = true
				continue
			case "proxy_recursive":
				g.ProxyRecursive = true
				continue
			case "volatile":
				m.Volatile = true
				continue
			}
		}
		if len(e.Args) != 1 {
			return emergf(e, "invalid number of the geo parameters")
		}
		if e.Name == "proxy" {
			p, err := c.geoCIDR(e, e.Args[0])
			if err != nil {
				return err
			}
			g.Proxies = append(g.Proxies, p)
			continue
		}
		if g.Ranges {
			err = c.geoRangeEntry(g, e)
		} else {
			cidrSeen = true
			err = c.geoCIDREntry(g, e)
		}
		if err != nil {
			return err
		}
	}
	if g.Ranges {
		for h, rs := range g.high {
			if len(rs) == 0 {
				delete(g.high, h)
			}
		}
		return nil
	}
	// Without a default, nginx inserts 0/0 with the empty value.
	if _, ok := g.v4.nets[netip.PrefixFrom(netip.IPv4Unspecified(), 0)]; !ok {
		g.v4.insert(netip.PrefixFrom(netip.IPv4Unspecified(), 0), "")
	}
	if _, ok := g.v6.nets[netip.PrefixFrom(netip.IPv6Unspecified(), 0)]; !ok {
		g.v6.insert(netip.PrefixFrom(netip.IPv6Unspecified(), 0), "")
	}
	g.v4.freeze(32)
	g.v6.freeze(128)
	return nil
}

// geoCIDREntry reads one line of a CIDR-mode block: "NET value",
// "default value" or "delete NET".
func (c *compiler) geoCIDREntry(g *Geo, e *Directive) error {
	val := e.Args[0]
	if e.Name == "default" {
		c.geoAdd(g, e, netip.PrefixFrom(netip.IPv4Unspecified(), 0), val, e.Name)
		c.geoAdd(g, e, netip.PrefixFrom(netip.IPv6Unspecified(), 0), val, e.Name)
		return nil
	}
	del := e.Name == "delete"
	net := e.Name
	if del {
		net = e.Args[0]
	}
	p, err := c.geoCIDR(e, net)
	if err != nil {
		return err
	}
	if !del {
		c.geoAdd(g, e, p, val, net)
		return nil
	}
	t := &g.v4
	if p.Addr().Is6() {
		t = &g.v6
	}
	if !t.delete(p) && !(p.Bits() == radixPrealloc && !t.hasLonger(p)) {
		c.warnf(e, "no network \"%s\" to delete", net)
	}
	return nil
}

func (c *compiler) geoAdd(g *Geo, e *Directive, p netip.Prefix, val, net string) {
	t := &g.v4
	if p.Addr().Is6() {
		t = &g.v6
	}
	if old, dup := t.insert(p, val); dup {
		c.warnf(e, "duplicate network \"%s\", value: \"%s\", old value: \"%s\"", net, val, old)
	}
}

// geoCIDR reads a network as ngx_http_geo_cidr_value does: "255.255.255.255"
// is that address (ngx_inet_addr cannot return it), anything else goes
// through ngx_ptocidr, which warns about host bits set and clears them.
func (c *compiler) geoCIDR(e *Directive, s string) (netip.Prefix, error) {
	if s == "255.255.255.255" {
		return netip.PrefixFrom(noAddr, 32), nil
	}
	p, exact, ok := parseNgxCIDR(s)
	if !ok {
		return p, emergf(e, "invalid network \"%s\"", s)
	}
	if !exact {
		c.warnf(e, "low address bits of %s are meaningless", s)
	}
	return p, nil
}

// geoRangeEntry reads one line of a ranges-mode block.
func (c *compiler) geoRangeEntry(g *Geo, e *Directive) error {
	if e.Name == "default" {
		if g.defaultSeen {
			c.warnf(e, "duplicate default geo range value: \"%s\", old value: \"%s\"", e.Args[0], g.rangeDefault)
		}
		g.rangeDefault, g.defaultSeen = e.Args[0], true
		return nil
	}
	if g.high == nil {
		g.high = map[uint16][]geoRange{}
	}
	del := e.Name == "delete"
	net := e.Name
	if del {
		net = e.Args[0]
	}
	from, to, ok := strings.Cut(net, "-")
	var start, end uint32
	if ok {
		var ok1, ok2 bool
		start, ok1 = ngxInetAddr(from)
		end, ok2 = ngxInetAddr(to)
		ok = ok1 && ok2 && start <= end
	}
	if !ok {
		return emergf(e, "invalid range \"%s\"", net)
	}
	if del {
		if g.deleteRange(start, end) {
			c.warnf(e, "no address range \"%s\" to delete", net)
		}
		return nil
	}
	if err := g.addRange(start, end, e.Args[0], func(format string, args ...any) {
		c.warnf(e, format, append([]any{net}, args...)...)
	}); err != "" {
		return emergf(e, "range \"%s\" overlaps \"%s\"", net, err)
	}
	return nil
}

// chunks calls fn for each /16 that start..end touches, with the low
// 16 bits of the part of the range inside it, as nginx walks a range.
func chunks(start, end uint32, fn func(h, s, e uint16)) {
	for n := uint64(start); n <= uint64(end); n = (n + 0x10000) &^ 0xffff {
		s, e := uint16(0), uint16(0xffff)
		if n == uint64(start) {
			s = uint16(n)
		}
		if n|0xffff > uint64(end) {
			e = uint16(end)
		}
		fn(uint16(n>>16), s, e)
	}
}

// addRange inserts a range as ngx_http_geo_add_range does. Within each
// /16 it compares the new part with the existing ranges from the last
// one down: it goes after the first that ends before it; an equal range
// gets the new value (with a warning); a range that holds it is split or
// shrunk around it; any other overlap is an error, whose text (the
// overlapped range) addRange returns.
func (g *Geo) addRange(start, end uint32, val string, warnf func(format string, args ...any)) string {
	overlap := ""
	chunks(start, end, func(h, s, e uint16) {
		if overlap != "" {
			return
		}
		rs := g.high[h]
		for i := len(rs) - 1; i >= 0; i-- {
			r := rs[i]
			switch {
			case e < r.start:
				continue
			case s > r.end:
				rs = insertRanges(rs, i+1, geoRange{s, e, val})
			case s == r.start && e == r.end:
				warnf("duplicate range \"%s\", value: \"%s\", old value: \"%s\"", val, r.value)
				rs[i].value = val
			case s > r.start && e < r.end:
				rs[i].end = s - 1
				rs = insertRanges(rs, i+1, geoRange{s, e, val}, geoRange{e + 1, r.end, r.value})
			case s == r.start && e < r.end:
				rs[i].start = e + 1
				rs = insertRanges(rs, i, geoRange{s, e, val})
			case s > r.start && e == r.end:
				rs[i].end = s - 1
				rs = insertRanges(rs, i+1, geoRange{s, e, val})
			default:
				overlap = fmt.Sprintf("%d.%d.%d.%d-%d.%d.%d.%d", h>>8, h&0xff, r.start>>8, r.start&0xff, h>>8, h&0xff, r.end>>8, r.end&0xff)
				return
			}
			g.high[h] = rs
			return
		}
		g.high[h] = insertRanges(rs, 0, geoRange{s, e, val})
	})
	return overlap
}

func insertRanges(rs []geoRange, i int, add ...geoRange) []geoRange {
	out := make([]geoRange, 0, len(rs)+len(add))
	out = append(out, rs[:i]...)
	out = append(out, add...)
	return append(out, rs[i:]...)
}

// deleteRange removes, in each /16 the range touches, the range equal to
// its part there, as ngx_http_geo_delete_range does; it reports whether
// some /16 had no such range (nginx then warns).
func (g *Geo) deleteRange(start, end uint32) (missing bool) {
	chunks(start, end, func(h, s, e uint16) {
		rs := g.high[h]
		for i, r := range rs {
			if r.start == s && r.end == e {
				g.high[h] = append(rs[:i:i], rs[i+1:]...)
				return
			}
		}
		missing = true
	})
	return missing
}

// Value is the variable's value for an address. src is the value of the
// block's address variable (valid false when the block has none, and
// conn is the connection's address then); xff returns the
// X-Forwarded-For lines, in order, and is called only when the address
// is a proxy's.
func (g *Geo) Value(src string, hasSrc bool, conn netip.Addr, xff func() []string) string {
	a, ok := conn, conn.IsValid()
	if hasSrc {
		a, ok = parseNgxAddr(src)
	}
	if ok && len(g.Proxies) > 0 {
		if lines := xff(); len(lines) > 0 {
			a = g.forwardedAddr(a, lines)
		}
	}
	if !ok {
		a = noAddr
	}
	if a.Is4In6() {
		a = a.Unmap()
	}
	if g.Ranges {
		if !a.Is4() {
			a = noAddr
		}
		b := a.As4()
		n := binary.BigEndian.Uint32(b[:])
		for _, r := range g.high[uint16(n>>16)] {
			if low := uint16(n); low >= r.start && low <= r.end {
				return r.value
			}
		}
		return g.rangeDefault
	}
	if a.Is4() {
		return g.v4.lookup(a)
	}
	return g.v6.lookup(a)
}

// trusted is ngx_cidr_match against the proxies: a v4-mapped address
// counts as IPv4.
func (g *Geo) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range g.Proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedAddr is ngx_http_get_forwarded_addr: from a trusted address,
// the last address of the last X-Forwarded-For line; recursively, walking
// leftwards (and to earlier lines) while the address found is trusted too.
func (g *Geo) forwardedAddr(a netip.Addr, lines []string) netip.Addr {
	for i := len(lines) - 1; i >= 0; i-- {
		var whole bool
		a, whole = g.forwardedInLine(a, lines[i])
		if !g.ProxyRecursive || !whole {
			break
		}
	}
	return a
}

// forwardedInLine walks one line from the right, replacing a by the
// address it finds while a is trusted. whole is true when the walk ended
// for want of more addresses in the line, or after one address when not
// recursive (nginx's NGX_OK): only then does a recursive walk go on to the
// previous line.
func (g *Geo) forwardedInLine(a netip.Addr, xff string) (addr netip.Addr, whole bool) {
	n := len(xff)
	for {
		if !g.trusted(a) {
			return a, false
		}
		// Trailing separators are dropped, then the address starts after
		// the last separator; nginx never looks at the first byte.
		p := n - 1
		for ; p > 0; p-- {
			if xff[p] != ' ' && xff[p] != ',' {
				break
			}
			n--
		}
		for ; p > 0; p-- {
			if xff[p] == ' ' || xff[p] == ',' {
				p++
				break
			}
		}
		if p < 0 {
			p = 0
		}
		next, valid := parseNgxAddrPort(xff[p:n])
		if !valid {
			return a, false
		}
		a, n = next, p-1
		if !g.ProxyRecursive || p <= 0 {
			return a, true
		}
	}
}

// ngxInetAddr is ngx_inet_addr: a dotted quad in which an empty part is
// 0; 255.255.255.255 is refused, being INADDR_NONE.
func ngxInetAddr(s string) (uint32, bool) {
	var addr, octet uint32
	dots := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			octet = octet*10 + uint32(c-'0')
			if octet > 255 {
				return 0, false
			}
		case c == '.':
			addr = addr<<8 + octet
			octet = 0
			dots++
		default:
			return 0, false
		}
	}
	if dots != 3 {
		return 0, false
	}
	addr = addr<<8 + octet
	return addr, addr != 0xffffffff
}

// ngxInet6Addr is ngx_inet6_addr: up to eight groups of up to four hex
// digits, one "::", a dotted quad in place of the last two groups. Like
// nginx it skips one leading ":".
func ngxInet6Addr(s string) ([16]byte, bool) {
	var out [16]byte
	if s == "" {
		return out, false
	}
	s = strings.TrimPrefix(s, ":")
	var words []uint16
	zero := -1 // index in words where "::" stands
	nibbles, word := 0, uint32(0)
	groupStart, sawColon := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			sawColon = true
			if nibbles > 0 {
				words = append(words, uint16(word))
				if len(words) == 8 {
					return out, false
				}
				nibbles, word = 0, 0
				groupStart = i + 1
				continue
			}
			if zero >= 0 {
				return out, false
			}
			zero = len(words)
			groupStart = i + 1
			continue
		}
		if c == '.' && nibbles > 0 {
			if len(words) > 6 || !sawColon {
				return out, false
			}
			v4, ok := ngxInetAddr(s[groupStart:])
			if !ok {
				return out, false
			}
			words = append(words, uint16(v4>>16))
			word, nibbles = v4&0xffff, 1
			break
		}
		nibbles++
		if nibbles > 4 {
			return out, false
		}
		switch {
		case c >= '0' && c <= '9':
			word = word*16 + uint32(c-'0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			word = word*16 + uint32(c|0x20-'a') + 10
		default:
			return out, false
		}
	}
	if nibbles == 0 && zero < 0 {
		return out, false
	}
	words = append(words, uint16(word))
	switch {
	case len(words) == 8 && zero < 0:
	case len(words) < 8 && zero >= 0:
		fill := make([]uint16, 8-len(words))
		words = append(words[:zero], append(fill, words[zero:]...)...)
	default:
		return out, false
	}
	for i, w := range words {
		binary.BigEndian.PutUint16(out[2*i:], w)
	}
	return out, true
}

// parseNgxAddr is ngx_parse_addr: an IPv4 address, else an IPv6 one.
func parseNgxAddr(s string) (netip.Addr, bool) {
	if v4, ok := ngxInetAddr(s); ok {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], v4)
		return netip.AddrFrom4(b), true
	}
	if v6, ok := ngxInet6Addr(s); ok {
		return netip.AddrFrom16(v6), true
	}
	return netip.Addr{}, false
}

// parseNgxAddrPort is ngx_parse_addr_port: an address, "[v6]:port" or
// "v4:port", the port from 1 to 65535 and otherwise dropped.
func parseNgxAddrPort(s string) (netip.Addr, bool) {
	if a, ok := parseNgxAddr(s); ok {
		return a, true
	}
	host := s
	var port string
	if strings.HasPrefix(s, "[") {
		i := strings.IndexByte(s, ']')
		if i < 0 || i == len(s)-1 || s[i+1] != ':' {
			return netip.Addr{}, false
		}
		host, port = s[1:i], s[i+2:]
	} else {
		i := strings.IndexByte(s, ':')
		if i < 0 {
			return netip.Addr{}, false
		}
		host, port = s[:i], s[i+1:]
	}
	if n, ok := ngxAtoi(port); !ok || n < 1 || n > 65535 {
		return netip.Addr{}, false
	}
	return parseNgxAddr(host)
}

// ngxAtoi is ngx_atoi: one or more decimal digits.
func ngxAtoi(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' || n > 1<<31/10 {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// parseNgxCIDR is ngx_ptocidr: "addr" (a host network) or "addr/bits".
// exact is false when the address had bits set below the mask (nginx
// clears them and warns).
func parseNgxCIDR(s string) (p netip.Prefix, exact, ok bool) {
	host, bitsText, masked := strings.Cut(s, "/")
	a, ok := parseNgxAddr(host)
	if !ok {
		return p, false, false
	}
	if !masked {
		return netip.PrefixFrom(a, a.BitLen()), true, true
	}
	bits, ok := ngxAtoi(bitsText)
	if !ok || bits > a.BitLen() {
		return p, false, false
	}
	p = netip.PrefixFrom(a, bits)
	m := p.Masked()
	return m, m.Addr() == a, true
}
