// This file holds how a directive's value is stored, defaulted and
// inherited: the counterpart of nginx's generic setters
// (ngx_conf_set_flag_slot, _num_slot, _size_slot, _msec_slot, _str_slot)
// and of the ngx_conf_merge_*_value lines of each module's merge_loc_conf.
//
// A table entry that stores a setting names its field once, with an
// accessor (func(*LocConf) *bool, the Go form of nginx's offsetof); the
// setter, nginx's default and the merge are all derived from it. Merging
// walks the table: a setting not given at a level takes its parent's
// value, and the top level takes the default. So adding a directive is one
// entry, and a directive cannot be added without saying how it inherits
// (register refuses an entry of the http levels that has neither a slot
// nor local set).
package conf

import (
	"crypto/tls"
	"fmt"
	"sort"
	"strings"
	"time"
)

// slot is how one setting inherits between two levels of type C: LocConf
// for location settings, Server for a server's own settings, ServerTLS
// for TLS settings.
type slot[C any] struct {
	// merge copies the setting from src (the parent level) into dst.
	merge func(dst, src *C)
	// init writes nginx's default into the top of inheritance.
	init func(c *compiler, top *C)
	// show prints the value for Dump.
	show func(x *C) string
	// extends makes merge run at a level that gives the directive too:
	// the level's own value extends its parent's instead of replacing it
	// (headers-more's list, headersmore.go).
	extends bool
}

// field is the slot of one field: it inherits as a whole.
func field[C, T any](get func(*C) *T, def T) *slot[C] {
	return fieldFunc(get, func(*compiler) T { return def })
}

// fieldFunc is field with a default that depends on the compilation (a
// path under the prefix, the "combined" log format).
func fieldFunc[C, T any](get func(*C) *T, def func(*compiler) T) *slot[C] {
	return &slot[C]{
		merge: func(dst, src *C) { *get(dst) = *get(src) },
		init:  func(c *compiler, top *C) { *get(top) = def(c) },
		show:  func(x *C) string { return showValue(*get(x)) },
	}
}

// fields joins the slots of the fields one directive sets together
// (keepalive_timeout's time and header, root's path and alias flag): they
// inherit together.
func fields[C any](parts ...*slot[C]) *slot[C] {
	return &slot[C]{
		merge: func(dst, src *C) {
			for _, p := range parts {
				p.merge(dst, src)
			}
		},
		init: func(c *compiler, top *C) {
			for _, p := range parts {
				p.init(c, top)
			}
		},
		show: func(x *C) string {
			var out []string
			for _, p := range parts {
				out = append(out, p.show(x))
			}
			return strings.Join(out, " ")
		},
	}
}

// slotUse is a slot with the directives that set it (root and alias share
// one, as do allow and deny): the slot inherits when none of them is
// given at the level.
type slotUse[C any] struct {
	name  string // the directives' names, for Dump
	slot  *slot[C]
	specs []*spec
}

// The slots of every registered directive, in registration order.
var (
	locSlots []*slotUse[LocConf]
	srvSlots []*slotUse[Server]
	tlsSlots []*slotUse[ServerTLS]
)

// addSlot records that s sets sl.
func addSlot[C any](uses *[]*slotUse[C], sl *slot[C], s *spec) {
	if sl == nil {
		return
	}
	for _, u := range *uses {
		if u.slot == sl {
			u.name += "/" + s.name
			u.specs = append(u.specs, s)
			return
		}
	}
	*uses = append(*uses, &slotUse[C]{name: s.name, slot: sl, specs: []*spec{s}})
}

// mergeSlots gives dst, the settings of the level at, every setting none
// of whose directives was given there from src, its parent's.
func mergeSlots[C any](c *compiler, uses []*slotUse[C], at *Location, dst, src *C) {
	for _, u := range uses {
		if u.slot.extends || !c.given(at, u.specs) {
			u.slot.merge(dst, src)
		}
	}
}

// initSlots writes every default into top.
func initSlots[C any](c *compiler, uses []*slotUse[C], top *C) {
	for _, u := range uses {
		u.slot.init(c, top)
	}
}

// showSlots describes, one per line, the settings of x that differ from
// def (the defaults): what a level set or inherited.
func showSlots[C any](b *strings.Builder, ind string, uses []*slotUse[C], x, def *C) {
	for _, u := range uses {
		if v := u.slot.show(x); v != u.slot.show(def) {
			fmt.Fprintf(b, "%s= %s %s\n", ind, u.name, v)
		}
	}
}

// The levels a slot's setter writes to (nginx's NGX_HTTP_LOC_CONF_OFFSET
// and NGX_HTTP_SRV_CONF_OFFSET).
func atLoc(f *frame) *LocConf   { return &f.loc.LocConf }
func atSrv(f *frame) *Server    { return f.srv }
func atTLS(f *frame) *ServerTLS { return tlsOf(f.srv) }

// argParser reads a directive's arguments into a value.
type argParser[T any] func(c *compiler, d *Directive) (T, error)

// value makes the table entry of a directive that sets one field: parse
// reads the arguments, the result goes to get's field at the level at
// picks, and the field inherits as a whole with def at the top.
func value[C, T any](name string, cx ctx, args argRule, at func(*frame) *C, get func(*C) *T, def T, parse argParser[T]) *spec {
	s := &spec{name: name, ctx: cx, args: args, set: func(c *compiler, f *frame, d *Directive) error {
		v, err := parse(c, d)
		if err != nil {
			return err
		}
		*get(at(f)) = v
		return nil
	}}
	s.setSlot(field(get, def))
	return s
}

// setSlot attaches sl to s, at the level its type names.
func (s *spec) setSlot(sl any) *spec {
	switch sl := sl.(type) {
	case *slot[LocConf]:
		s.loc = sl
	case *slot[Server]:
		s.srv = sl
	case *slot[ServerTLS]:
		s.tls = sl
	default:
		panic("conf: bad slot type for " + s.name)
	}
	return s
}

// The generic entries, named after nginx's setters.

func flagSlot[C any](name string, cx ctx, at func(*frame) *C, get func(*C) *bool, def bool) *spec {
	return value(name, cx, takeFlag, at, get, def, flagArg)
}

func msecSlot[C any](name string, cx ctx, at func(*frame) *C, get func(*C) *time.Duration, def time.Duration) *spec {
	return value(name, cx, take1, at, get, def, timeArg)
}

func sizeSlot[C any](name string, cx ctx, at func(*frame) *C, get func(*C) *int64, def int64) *spec {
	return value(name, cx, take1, at, get, def, sizeArg)
}

func numSlot[C any](name string, cx ctx, at func(*frame) *C, get func(*C) *int, def int) *spec {
	return value(name, cx, take1, at, get, def, numArg)
}

func strSlot[C any](name string, cx ctx, at func(*frame) *C, get func(*C) *string, def string) *spec {
	return value(name, cx, take1, at, get, def, strArg)
}

// pathSlot is strSlot with the argument resolved against the prefix.
func pathSlot[C any](name string, cx ctx, at func(*frame) *C, get func(*C) *string, def string) *spec {
	return value(name, cx, take1, at, get, def, pathArg)
}

// confPathSlot is pathSlot against the conf prefix (the files TLS reads).
func confPathSlot[C any](name string, cx ctx, at func(*frame) *C, get func(*C) *string, def string) *spec {
	return value(name, cx, take1, at, get, def, confPathArg)
}

// enumSlot takes one of values, with nginx's "it must be" message.
func enumSlot[C any](name string, cx ctx, at func(*frame) *C, get func(*C) *string, def string, values ...string) *spec {
	return value(name, cx, take1, at, get, def, enumArg(values...))
}

func flagArg(c *compiler, d *Directive) (bool, error)          { return flagOn(d), nil }
func timeArg(c *compiler, d *Directive) (time.Duration, error) { return parseTime(d, d.Args[0]) }
func sizeArg(c *compiler, d *Directive) (int64, error)         { return parseSize(d, d.Args[0]) }
func numArg(c *compiler, d *Directive) (int, error)            { return parseInt(d, d.Args[0]) }
func strArg(c *compiler, d *Directive) (string, error)         { return d.Args[0], nil }
func pathArg(c *compiler, d *Directive) (string, error)        { return c.path(d.Args[0]), nil }
func confPathArg(c *compiler, d *Directive) (string, error)    { return c.confPath(d.Args[0]), nil }

func enumArg(values ...string) argParser[string] {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = `"` + v + `"`
	}
	must := strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	return func(c *compiler, d *Directive) (string, error) {
		for _, v := range values {
			if d.Args[0] == v {
				return v, nil
			}
		}
		return "", emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be %s", d.Args[0], d.Name, must)
	}
}

// showValue prints one setting for Dump.
func showValue(v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "on"
		}
		return "off"
	case string:
		if v == "" {
			return `""`
		}
		return v
	case *Script:
		if v == nil {
			return "-"
		}
		return v.Raw
	case *Regex:
		if v == nil {
			return "-"
		}
		return v.Source
	case []string:
		return showList(len(v), func(i int) string { return v[i] })
	case []*Script:
		return showList(len(v), func(i int) string { return v[i].Raw })
	case []*Regex:
		return showList(len(v), func(i int) string { return v[i].Source })
	case map[string]bool:
		return showKeys(v)
	case map[string]string:
		return fmt.Sprintf("(%d)", len(v))
	}
	return showPlanValue(v)
}

// showPlanValue prints the settings of the plan's own types.
func showPlanValue(v any) string {
	switch v := v.(type) {
	case map[int]*ErrorPage:
		codes := make([]int, 0, len(v))
		for code := range v {
			codes = append(codes, code)
		}
		sort.Ints(codes)
		return showList(len(codes), func(i int) string { return fmt.Sprintf("%d>%s", codes[i], v[codes[i]].show()) })
	case []HeaderAdd:
		return showList(len(v), func(i int) string {
			if v[i].Always {
				return v[i].Name + ":" + v[i].Value.Raw + " always"
			}
			return v[i].Name + ":" + v[i].Value.Raw
		})
	case []*AccessLog:
		if len(v) == 0 {
			return "off"
		}
		return showList(len(v), func(i int) string { return v[i].Path.Raw + " " + v[i].Format.Name })
	case []ErrorLog:
		if v == nil {
			return "main"
		}
		return showList(len(v), func(i int) string { return v[i].Path + " " + v[i].Level.String() })
	case []AccessRule:
		return showList(len(v), func(i int) string { return v[i].show() })
	case []FastCGIParam:
		return showList(len(v), func(i int) string { return v[i].Name })
	case Expires:
		if v.Var != nil {
			return fmt.Sprintf("mode=%d var=%s", v.Mode, v.Var.Raw)
		}
		return fmt.Sprintf("mode=%d time=%s", v.Mode, v.Time)
	case LogFileCache:
		return fmt.Sprintf("max=%d inactive=%s valid=%s", v.Max, v.Inactive, v.Valid)
	case []CertPair:
		return showList(len(v), func(i int) string { return v[i].Cert })
	case []certKey:
		return showList(len(v), func(i int) string { return v[i].path })
	case []uint16:
		return showList(len(v), func(i int) string { return tls.CipherSuiteName(v[i]) })
	case []tls.CurveID:
		return showList(len(v), func(i int) string { return v[i].String() })
	case [][32]byte:
		return fmt.Sprintf("(%d)", len(v))
	}
	return fmt.Sprint(v)
}

func showList(n int, item func(int) string) string {
	if n == 0 {
		return "-"
	}
	out := make([]string, n)
	for i := range out {
		out[i] = item(i)
	}
	return strings.Join(out, ",")
}

func showKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return showList(len(keys), func(i int) string { return keys[i] })
}

func (e *ErrorPage) show() string {
	target := e.Named
	if e.URI != nil {
		target = e.URI.Raw
	}
	if e.Override != 0 {
		return fmt.Sprintf("=%d:%s", e.Override, target)
	}
	return target
}

func (r AccessRule) show() string {
	verb := "deny "
	if r.Allow {
		verb = "allow "
	}
	switch {
	case r.All:
		return verb + "all"
	case r.Unix:
		return verb + "unix:"
	}
	return verb + r.Net.String()
}
