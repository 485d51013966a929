// This file holds the split_clients module: "split_clients $key $var
// { 51.2% a; 10% b; * c; }" gives $var the value of the part that the
// MurmurHash2 of the key falls in, for A/B testing, as nginx computes it
// (ngx_http_split_clients_module.c), so that a client lands in the same
// part on edge as on nginx. The variable is a map without entries, whose
// parts Map.Find reads.
package conf

import (
	"strconv"
	"strings"
)

func init() {
	register(&spec{name: "split_clients", ctx: ctxHTTP, args: take2 | isBlock, multi: true, local: true, set: setSplitClients})
}

// SplitPart is one line of a split_clients block: clients whose key
// hashes below Below get Value; Below is 0 for "*", which takes the rest.
type SplitPart struct {
	Below uint32
	Value *Script
}

func setSplitClients(c *compiler, f *frame, d *Directive) error {
	dest, err := newVarName(d, d.Args[1])
	if err != nil {
		return err
	}
	key, err := c.compileScript(d, d.Args[0])
	if err != nil {
		return err
	}
	m := c.defineMapVar(&Map{Source: key, Dest: dest, Exact: map[string]*Script{}, Split: []SplitPart{}})
	var percents []uint32 // in hundredths of a percent, 0 for "*"
	for _, e := range d.Block {
		// nginx takes the first value and ignores any more.
		if e.HasBlock || len(e.Args) == 0 {
			return emergf(e, "invalid number of arguments in split_clients")
		}
		var p uint32
		if e.Name != "*" {
			n, ok := parsePercent(e.Name)
			if !ok {
				return emergf(e, "invalid percent value \"%s\"", e.Name)
			}
			p = n
		}
		percents = append(percents, p)
		// The value is a plain string in nginx, "$x" included.
		m.Split = append(m.Split, SplitPart{Value: &Script{Raw: e.Args[0], Static: true, Parts: []Part{{Lit: e.Args[0]}}}})
	}
	var sum, last uint32
	for i, p := range percents {
		if p == 0 {
			sum = 10000
		} else {
			sum += p
		}
		if sum > 10000 {
			// nginx checks once the block is read, and names its "}" line.
			return &Error{Level: LevelEmerg, Msg: "percent total is greater than 100%", File: d.File, Line: d.EndLine}
		}
		if p != 0 {
			last += uint32(uint64(p) * 0xffffffff / 10000)
			m.Split[i].Below = last
		}
	}
	return nil
}

// parsePercent reads "51.2%" as 5120 hundredths, as ngx_atofp(..., 2):
// digits with at most two after the point; zero is invalid.
func parsePercent(s string) (uint32, bool) {
	num, ok := strings.CutSuffix(s, "%")
	if !ok || num == "" {
		return 0, false
	}
	whole, frac, dotted := strings.Cut(num, ".")
	if len(frac) > 2 || dotted && frac == "" && whole == "" {
		return 0, false
	}
	frac += strings.Repeat("0", 2-len(frac))
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(whole+frac, 10, 32)
	if err != nil || n == 0 {
		return 0, false
	}
	return uint32(n), true
}

// split returns the value of the part key falls in, nil for none.
func (m *Map) split(key string) *Script {
	h := murmurHash2(key)
	for _, p := range m.Split {
		if h < p.Below || p.Below == 0 {
			return p.Value
		}
	}
	return nil
}

// murmurHash2 is nginx's ngx_murmur_hash2: Austin Appleby's MurmurHash2
// seeded with the length, words read little-endian.
func murmurHash2(s string) uint32 {
	const m = 0x5bd1e995
	h := uint32(len(s))
	for ; len(s) >= 4; s = s[4:] {
		k := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
		k *= m
		k ^= k >> 24
		k *= m
		h *= m
		h ^= k
	}
	switch len(s) {
	case 3:
		h ^= uint32(s[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(s[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(s[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
