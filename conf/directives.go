// This file holds the machinery of the directive tables: contexts, argument
// rules and the lookup that gives nginx's error categories (unknown
// directive, not allowed here, invalid number of arguments, is duplicate,
// not supported by edge). The tables themselves are in one file per nginx
// module (core.go, rewrite.go, headers.go, ...), the way nginx keeps a
// command array per module (ngx_http_fastcgi_commands and its siblings).
package conf

import "strings"

// ctx is a set of contexts where a directive may appear.
type ctx uint32

const (
	ctxMain ctx = 1 << iota
	ctxEvents
	ctxHTTP
	ctxServer
	ctxLocation
	ctxServerIf   // "if" inside server{}
	ctxLocationIf // "if" inside location{}
	ctxUpstream
	ctxLimitExcept
	ctxFPMPool
	ctxACMEIssuer
	ctxAny ctx = 1<<31 - 1

	// Shorthands for the usual sets.
	ctxHSL   = ctxHTTP | ctxServer | ctxLocation
	ctxHSLif = ctxHSL | ctxLocationIf
	ctxHS    = ctxHTTP | ctxServer
	ctxSL    = ctxServer | ctxLocation
	ctxRw    = ctxServer | ctxLocation | ctxServerIf | ctxLocationIf
)

// argRule is a set of accepted argument counts, as nginx's NGX_CONF_TAKE*.
type argRule uint32

const (
	take0 argRule = 1 << iota
	take1
	take2
	take3
	take4
	take5
	take6
	take7
	takeFlag  // exactly one argument, "on" or "off"
	take1More // one or more
	take2More // two or more
	takeAny   // any number
	isBlock   // must be followed by "{"

	take12   = take1 | take2
	take13   = take1 | take3
	take23   = take2 | take3
	take123  = take1 | take2 | take3
	take1234 = take1 | take2 | take3 | take4
)

// spec is one directive's table entry.
type spec struct {
	name string
	ctx  ctx
	args argRule
	set  func(c *compiler, f *frame, d *Directive) error
	// multi marks directives that may repeat at one level; the others are
	// "duplicate" the second time.
	multi bool
	// edgeOnly marks directives nginx does not have; "edge -T --nginx"
	// leaves them out.
	edgeOnly bool

	// The setting the directive stores and how it inherits (slots.go): at
	// most one of them, at the level it belongs to.
	loc *slot[LocConf]
	srv *slot[Server]
	tls *slot[ServerTLS]
	// local marks directives whose effect is not inherited by inner
	// levels: blocks, handlers, rewrite programs, plan-wide tables, and
	// settings that stay where they are written (try_files). Every other
	// directive of the http levels has a slot; register checks.
	local bool
}

// httpLevels are the contexts where settings inherit.
const httpLevels = ctxHTTP | ctxServer | ctxLocation | ctxServerIf | ctxLocationIf

// table is every directive edge implements, by name.
var table = map[string]*spec{}

// register adds a module's directives to the table.
func register(specs ...*spec) {
	for _, s := range specs {
		if _, dup := table[s.name]; dup {
			panic("conf: directive registered twice: " + s.name)
		}
		if s.ctx&httpLevels != 0 && s.loc == nil && s.srv == nil && s.tls == nil && !s.local {
			panic("conf: directive " + s.name + " says neither how it inherits (a slot) nor that it does not (local)")
		}
		table[s.name] = s
		addSlot(&locSlots, s.loc, s)
		addSlot(&srvSlots, s.srv, s)
		addSlot(&tlsSlots, s.tls, s)
	}
}

// checkArgs applies nginx's argument count rules (ngx_conf_handler).
func checkArgs(s *spec, n int) bool {
	r := s.args &^ isBlock
	switch {
	case r&takeAny != 0:
		return true
	case r&takeFlag != 0:
		return n == 1
	case r&take1More != 0:
		return n >= 1
	case r&take2More != 0:
		return n >= 2
	case n > 7:
		return false
	}
	return r&(1<<uint(n)) != 0
}

// lookup finds a directive for d in context cur, or says why not. A nil
// spec with a nil error means "ignore it" (a [warn] was recorded).
func (c *compiler) lookup(d *Directive, cur ctx) (*spec, error) {
	s := table[d.Name]
	if s == nil {
		if reason, ok := ignoredDirectives[d.Name]; ok {
			c.warnf(d, "the \"%s\" directive is ignored by edge: %s", d.Name, reason)
			return nil, nil
		}
		if reason, ok := unsupportedDirectives[d.Name]; ok {
			return nil, emergf(d, "the \"%s\" directive is not supported by edge: %s", d.Name, reason)
		}
		if nginxDirectives[d.Name] {
			return nil, emergf(d, "the \"%s\" directive is not supported by edge", d.Name)
		}
		return nil, emergf(d, "unknown directive \"%s\"", d.Name)
	}
	if s.ctx&cur == 0 {
		return nil, emergf(d, "\"%s\" directive is not allowed here", d.Name)
	}
	if s.args&isBlock != 0 && !d.HasBlock {
		return nil, emergf(d, "directive \"%s\" has no opening \"{\"", d.Name)
	}
	if s.args&isBlock == 0 && d.HasBlock {
		return nil, emergf(d, "directive \"%s\" is not terminated by \";\"", d.Name)
	}
	if !checkArgs(s, len(d.Args)) {
		return nil, emergf(d, "invalid number of arguments in \"%s\" directive", d.Name)
	}
	if s.args&takeFlag != 0 {
		a := strings.ToLower(d.Args[0])
		if a != "on" && a != "off" {
			return nil, emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be \"on\" or \"off\"", d.Args[0], d.Name)
		}
	}
	return s, nil
}

// IsEdgeOnly reports whether a directive exists only in edge (it is left
// out of "edge -T --nginx").
func IsEdgeOnly(name string) bool {
	s := table[name]
	return s != nil && s.edgeOnly
}

// flag reads an on/off argument already checked by lookup.
func flagOn(d *Directive) bool { return strings.EqualFold(d.Args[0], "on") }
