// This file prints configurations: the syntax tree back as nginx text
// ("edge -T --nginx" feeds it to nginx in the A/B harness, without the
// edge-only directives), and a compiled plan as a stable text used by the
// golden tests to show what inheritance and defaults produced.
package conf

import (
	"fmt"
	"sort"
	"strings"
)

// Format writes directives back as configuration text. With nginxOnly,
// edge-only directives and blocks are left out.
func Format(list []*Directive, nginxOnly bool) string {
	var b strings.Builder
	formatList(&b, list, 0, nginxOnly, nil)
	return b.String()
}

// NginxText is the configuration as nginx can read it ("edge -T
// --nginx"): edge-only directives are left out, a fastcgi_pass that
// names an fpm_pool points at the pool's socket instead, which is where
// the supervised php-fpm listens, and a resolver loses the ipv4= and
// status_zone= parameters of later nginx, which nginx 1.22 would take for
// host names to look up (so that nginx then asks for A records too).
func (p *Plan) NginxText() string {
	pools := map[string]string{}
	if p.HTTP != nil {
		for _, pool := range p.HTTP.Pools {
			addr := pool.Address
			if pool.Network == "unix" {
				addr = "unix:" + addr
			}
			pools[pool.Name] = addr
		}
	}
	fix := func(d *Directive) *Directive {
		if d.Name == "resolver" {
			c := *d
			c.Args = nil
			for _, a := range d.Args {
				if !strings.HasPrefix(a, "ipv4=") && !strings.HasPrefix(a, "status_zone=") {
					c.Args = append(c.Args, a)
				}
			}
			return &c
		}
		if d.Name != "fastcgi_pass" || len(d.Args) != 1 {
			return d
		}
		addr, ok := pools[d.Args[0]]
		if !ok {
			return d
		}
		c := *d
		c.Args = []string{addr}
		return &c
	}
	var b strings.Builder
	formatList(&b, p.Tree.Main, 0, true, fix)
	return b.String()
}

func formatList(b *strings.Builder, list []*Directive, depth int, nginxOnly bool, fix func(*Directive) *Directive) {
	for _, d := range list {
		if nginxOnly && IsEdgeOnly(d.Name) {
			continue
		}
		if fix != nil {
			d = fix(d)
		}
		b.WriteString(strings.Repeat("    ", depth))
		b.WriteString(quoteWord(d.Name))
		for _, a := range d.Args {
			b.WriteByte(' ')
			b.WriteString(quoteWord(a))
		}
		if d.HasBlock {
			b.WriteString(" {\n")
			formatList(b, d.Block, depth+1, nginxOnly, fix)
			b.WriteString(strings.Repeat("    ", depth))
			b.WriteString("}\n")
			continue
		}
		b.WriteString(";\n")
	}
}

// quoteWord quotes a word when the lexer would otherwise split or change it.
func quoteWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\r\n;{}\"'#\\") {
		return w
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(w); i++ {
		switch c := w[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			// A backslash before a letter is kept as written by the lexer,
			// so only escape it where it would be read as an escape: before
			// a letter of an escape, before a byte written below as an
			// escape, and at the end (it would escape the closing quote).
			if i+1 == len(w) || strings.IndexByte(`"'\ntr`+"\n\r\t", w[i+1]) >= 0 {
				b.WriteString(`\\`)
			} else {
				b.WriteByte('\\')
			}
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Dump describes a compiled plan, one setting per line, for golden tests
// and for people reading what edge made of their configuration.
func (p *Plan) Dump() string {
	var b strings.Builder
	m := p.Main
	fmt.Fprintf(&b, "main worker_processes=%d worker_connections=%d daemon=%v\n", m.WorkerProcesses, m.WorkerConnections, m.Daemon)
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "%s %s\n", w.Level, w.Msg)
	}
	if p.HTTP == nil {
		return b.String()
	}
	dumpPools(&b, p.HTTP.Pools)
	for _, g := range p.HTTP.Listens {
		fmt.Fprintf(&b, "listen %s %s default=%s ssl=%v http2=%v\n", g.Listen.Network, g.Listen.Addr, serverLabel(g.Default), g.Listen.SSL, g.Listen.HTTP2)
	}
	for i, s := range p.HTTP.Servers {
		fmt.Fprintf(&b, "server #%d names=%s\n", i, serverLabel(s))
		showSlots(&b, "  ", srvSlots, s, p.defaults.srv)
		dumpTLS(&b, s.TLS)
		if s.TLS != nil {
			showSlots(&b, "  tls ", tlsSlots, s.TLS, p.defaults.srv.TLS)
		}
		def := &p.defaults.loc.LocConf
		dumpOps(&b, s.Rewrite, 1, def)
		dumpLoc(&b, s.Loc, 1, def)
		var named []string
		for n := range s.Named {
			named = append(named, n)
		}
		sort.Strings(named)
		for _, n := range named {
			dumpLoc(&b, s.Named[n], 1, def)
		}
	}
	return b.String()
}

func serverLabel(s *Server) string {
	var names []string
	for _, n := range s.Names {
		names = append(names, n.Name)
	}
	return strings.Join(names, ",")
}

// dumpLoc describes a location and the locations under it: every
// setting that differs from nginx's default (def), whether the location
// set it or inherited it, as "= directive value".
func dumpLoc(b *strings.Builder, l *Location, depth int, def *LocConf) {
	ind := strings.Repeat("  ", depth)
	label := "location " + l.describe()
	if l.Kind == LocServer {
		label = "server-level"
	}
	fmt.Fprintf(b, "%s%s\n", ind, label)
	ind += "  "
	if l.Regex != nil {
		fmt.Fprintf(b, "%sregex engine=%s\n", ind, l.Regex.Engine())
	}
	if len(l.TryFiles) > 0 {
		var parts []string
		for _, t := range l.TryFiles {
			switch {
			case t.Code != 0:
				parts = append(parts, fmt.Sprintf("=%d", t.Code))
			case t.Named != "":
				parts = append(parts, t.Named)
			default:
				s := t.Path.Raw
				if t.Dir {
					s += "/"
				}
				parts = append(parts, s)
			}
		}
		fmt.Fprintf(b, "%stry_files %s\n", ind, strings.Join(parts, " "))
	}
	if l.Content.Kind == ContentFastCGI {
		vars := ""
		if l.Content.FastCGI.Script != nil {
			vars = " per-request"
		}
		fmt.Fprintf(b, "%sfastcgi_pass %s%s\n", ind, l.Content.FastCGI.Raw, vars)
	}
	showSlots(b, ind, locSlots, &l.LocConf, def)
	dumpOps(b, l.Rewrite, depth+1, def)
	for _, c := range l.Prefixes {
		dumpLoc(b, c, depth+1, def)
	}
	for _, c := range l.Regexes {
		dumpLoc(b, c, depth+1, def)
	}
}

// dumpOps describes a rewrite program; an if block shows its settings
// (what it set or inherited) before its body.
func dumpOps(b *strings.Builder, ops []Op, depth int, def *LocConf) {
	ind := strings.Repeat("  ", depth)
	for _, op := range ops {
		switch op.Kind {
		case OpRewrite:
			fmt.Fprintf(b, "%srewrite %s %s flag=%d redirect=%v\n", ind, op.Regex.Source, op.Replace.Raw, op.Flag, op.Redirect)
		case OpReturn:
			text := ""
			if op.Text != nil {
				text = " " + op.Text.Raw
			}
			fmt.Fprintf(b, "%sreturn %d%s\n", ind, op.Code, text)
		case OpSet:
			fmt.Fprintf(b, "%sset $%s %s\n", ind, op.Var.Name, op.Value.Raw)
		case OpBreak:
			fmt.Fprintf(b, "%sbreak\n", ind)
		case OpIf:
			fmt.Fprintf(b, "%sif kind=%d negate=%v\n", ind, op.Cond.Kind, op.Cond.Negate)
			showSlots(b, ind+"  ", locSlots, &op.Loc.LocConf, def)
			dumpOps(b, op.Body, depth+1, def)
		}
	}
}
