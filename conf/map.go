// This file holds the map module: "map $source $dest { ... }" defines a
// variable computed lazily from another (so a map over
// $sent_http_content_type sees the response's type when it is read in a
// header filter). Precedence is nginx's: exact string (matched ignoring
// case), longest leading wildcard, longest trailing wildcard (with
// "hostnames"), first matching regex, default.
package conf

import (
	"sort"
	"strings"
)

func init() {
	register(&spec{name: "map", ctx: ctxHTTP, args: take2 | isBlock, multi: true, local: true, set: setMap})
}

// newVarName reads the variable a map or split_clients defines: "$name",
// returned lowercased without its "$", never a builtin's.
func newVarName(d *Directive, arg string) (string, error) {
	if !strings.HasPrefix(arg, "$") || len(arg) < 2 {
		return "", emergf(d, "invalid variable name \"%s\"", arg)
	}
	name := strings.ToLower(arg[1:])
	if _, builtin := builtinVars[name]; builtin {
		return "", emergf(d, "the duplicate \"%s\" variable", name)
	}
	return name, nil
}

// defineMapVar makes m the definition of its variable and returns the Map
// that holds it. The variables of map, split_clients and geo are
// changeable in nginx: a later block of any of the three defines the
// variable anew, for every use of it, earlier ones included, so the Map
// already bound to the slot takes the new definition in place.
func (c *compiler) defineMapVar(m *Map) *Map {
	if slot, ok := c.slots[m.Dest]; ok && c.slotMaps[slot] != nil {
		old := c.slotMaps[slot]
		m.Slot = slot
		*old = *m
		return old
	}
	m.Slot = c.declareSlot(m.Dest, m)
	return m
}

func setMap(c *compiler, f *frame, d *Directive) error {
	dest, err := newVarName(d, d.Args[1])
	if err != nil {
		return err
	}
	src, err := c.compileScript(d, d.Args[0])
	if err != nil {
		return err
	}
	m := c.defineMapVar(&Map{Source: src, Dest: dest, Exact: map[string]*Script{}})
	for _, e := range d.Block {
		if e.HasBlock {
			return emergf(e, "unexpected \"{\" in map")
		}
		switch {
		case e.Name == "hostnames" && len(e.Args) == 0:
			m.Hostnames = true
			continue
		case e.Name == "volatile" && len(e.Args) == 0:
			m.Volatile = true
			continue
		}
		if len(e.Args) != 1 {
			return emergf(e, "invalid number of the map parameters")
		}
		val, err := c.compileScript(e, e.Args[0])
		if err != nil {
			return err
		}
		key := e.Name
		if key == "default" {
			if m.Default != nil {
				return emergf(e, "duplicate default map parameter")
			}
			m.Default = val
			continue
		}
		key = strings.TrimPrefix(key, "\\")
		if strings.HasPrefix(key, "~") && e.Name[0] == '~' {
			ci := strings.HasPrefix(key, "~*")
			src := strings.TrimPrefix(strings.TrimPrefix(key, "~*"), "~")
			re, err := c.compileRegex(e, src, ci)
			if err != nil {
				return err
			}
			m.Regexes = append(m.Regexes, MapRegex{Regex: re, Value: val})
			continue
		}
		lk := strings.ToLower(key)
		if m.Hostnames {
			lk = strings.TrimSuffix(lk, ".")
			switch {
			case strings.HasPrefix(lk, "*.") || strings.HasPrefix(lk, "."):
				m.WildPrefix = append(m.WildPrefix, MapWild{Pattern: strings.TrimPrefix(lk, "*"), Dot: lk[0] == '.', Value: val})
				continue
			case strings.HasSuffix(lk, ".*"):
				m.WildSuffix = append(m.WildSuffix, MapWild{Pattern: strings.TrimSuffix(lk, "*"), Value: val})
				continue
			}
		}
		if _, dup := m.Exact[lk]; dup {
			c.warnf(e, "duplicate value \"%s\", value: \"%s\", old value: \"%s\"", key, e.Args[0], m.Exact[lk].Raw)
		}
		m.Exact[lk] = val
	}
	sort.SliceStable(m.WildPrefix, func(i, j int) bool { return len(m.WildPrefix[i].Pattern) > len(m.WildPrefix[j].Pattern) })
	sort.SliceStable(m.WildSuffix, func(i, j int) bool { return len(m.WildSuffix[i].Pattern) > len(m.WildSuffix[j].Pattern) })
	c.plan.HTTP.Maps = append(c.plan.HTTP.Maps, m)
	return nil
}

// Find returns the value script for a source value (nil means the empty
// string: no default given). Regex entries are tried in order with match,
// which binds the captures of the one that matches; an error from match
// gives the default, as nginx's ngx_http_map_find failing does.
func (m *Map) Find(v string, match func(*Regex) (bool, error)) *Script {
	if m.Split != nil {
		return m.split(v)
	}
	lv := strings.ToLower(v)
	if m.Hostnames {
		lv = strings.TrimSuffix(lv, ".")
	}
	if s, ok := m.Exact[lv]; ok {
		return s
	}
	for _, w := range m.WildPrefix {
		if strings.HasSuffix(lv, w.Pattern) || (w.Dot && lv == w.Pattern[1:]) {
			return w.Value
		}
	}
	for _, w := range m.WildSuffix {
		if strings.HasPrefix(lv, w.Pattern) {
			return w.Value
		}
	}
	for _, r := range m.Regexes {
		ok, err := match(r.Regex)
		if err != nil {
			break
		}
		if ok {
			return r.Value
		}
	}
	return m.Default
}
