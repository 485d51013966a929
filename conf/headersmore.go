// This file holds the headers-more module's directives (openresty's
// headers-more-nginx-module, which hosting panels build into nginx and
// Debian ships as libnginx-mod-http-headers-more-filter):
// more_set_headers, more_clear_headers, more_set_input_headers and
// more_clear_input_headers, with the module's own syntax and inheritance.
// What they do to a request is in proxy/headersmore.go.
package conf

import (
	"slices"
	"strconv"
	"strings"
)

// MoreCmd is one headers-more directive.
type MoreCmd struct {
	// Input marks more_set_input_headers / more_clear_input_headers: the
	// request's headers, changed at the end of the location's rewrite
	// phase. Otherwise the response's, in the header filter.
	Input bool
	// Statuses is -s: the response statuses it applies to (nil: any).
	Statuses []int
	// Types is -t: the Content-Types it applies to, compared as written
	// (case-sensitive) with the response's type without its charset, or
	// for input headers with the request's whole Content-Type (nil: any).
	Types []string
	// Replace is -r (input only): set a header only where it exists.
	Replace bool
	Headers []MoreHeader
}

// MoreHeader is one header argument: "Name: value", "Name:" or "Name".
type MoreHeader struct {
	// Name is the header's name as written, without the trailing "*" of
	// a wildcard.
	Name string
	// Wildcard: the name ended with "*", so it stands for every header
	// whose name starts with Name.
	Wildcard bool
	// Value is nil to clear (the more_clear_* directives, or no value).
	Value *Script
}

func init() {
	// The four directives keep one list, and a level's list extends its
	// parent's (the parent's commands run first): the module's
	// merge_loc_conf, unlike add_header's all-or-nothing inheritance.
	sl := (&slot[LocConf]{
		merge: func(dst, src *LocConf) {
			if len(src.HeadersMore) > 0 {
				dst.HeadersMore = append(slices.Clip(src.HeadersMore), dst.HeadersMore...)
			}
		},
		init: func(c *compiler, top *LocConf) {},
		show: func(l *LocConf) string { return showMore(l.HeadersMore) },
	})
	sl.extends = true
	for _, name := range []string{"more_set_headers", "more_clear_headers", "more_set_input_headers", "more_clear_input_headers"} {
		register((&spec{name: name, ctx: ctxHSLif, args: take1More, multi: true, set: setHeadersMore}).setSlot(sl))
	}
}

// setHeadersMore reads one directive as the module does
// (ngx_http_headers_more_parse_directive): options and headers in any
// order, empty words skipped, "-s"/"-t" lists that add up.
func setHeadersMore(c *compiler, f *frame, d *Directive) error {
	cmd := MoreCmd{Input: strings.Contains(d.Name, "_input_")}
	clear := strings.HasPrefix(d.Name, "more_clear_")
	var heads []string
	for i := 0; i < len(d.Args); i++ {
		a := d.Args[i]
		if a == "" {
			continue
		}
		if a[0] != '-' {
			heads = append(heads, a)
			continue
		}
		opt := ""
		if len(a) == 2 {
			opt = a[1:]
		}
		switch {
		case opt == "t" || (opt == "s" && !cmd.Input):
			if i == len(d.Args)-1 {
				return emergf(d, "%s: option -%s takes an argument.", d.Name, opt)
			}
			i++
			if opt == "t" {
				cmd.Types = append(cmd.Types, moreTypes(d.Args[i])...)
				continue
			}
			st, err := moreStatuses(d, d.Args[i])
			if err != nil {
				return err
			}
			cmd.Statuses = append(cmd.Statuses, st...)
		case opt == "r" && cmd.Input:
			cmd.Replace = true
		default:
			return emergf(d, "%s: invalid option name: \"%s\"", d.Name, a)
		}
	}
	for _, raw := range heads {
		h, err := c.moreHeader(d, raw, clear)
		if err != nil {
			return err
		}
		cmd.Headers = append(cmd.Headers, h)
	}
	f.loc.HeadersMore = append(f.loc.HeadersMore, cmd)
	return nil
}

// moreHeader splits "Name: value": the name runs to the first ':' or
// space after its first byte, the value starts at the first byte after
// it that is neither (ngx_http_headers_more_parse_header).
func (c *compiler) moreHeader(d *Directive, raw string, clear bool) (MoreHeader, error) {
	s := strings.TrimLeft(raw, " \t\r\n\v\f")
	if s == "" {
		return MoreHeader{}, emergf(d, "%s: no key found in the header argument: %s", d.Name, raw)
	}
	end := 1 + strings.IndexFunc(s[1:], func(r rune) bool { return r == ':' || isSpaceByte(r) })
	if end == 0 {
		end = len(s)
	}
	name, rest := s[:end], s[end:]
	value := strings.TrimLeftFunc(rest, func(r rune) bool { return r == ':' || isSpaceByte(r) })
	h := MoreHeader{Name: name}
	if strings.HasSuffix(name, "*") {
		if len(name) < 2 {
			return MoreHeader{}, emergf(d, "%s: wildcard key too short: %s", d.Name, raw)
		}
		h.Name, h.Wildcard = name[:len(name)-1], true
	}
	if clear || value == "" {
		return h, nil
	}
	v, err := c.compileScript(d, value)
	if err != nil {
		return MoreHeader{}, err
	}
	h.Value = v
	return h, nil
}

func isSpaceByte(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// moreTypes splits a -t list at spaces and ';', so that
// "text/html; charset=utf-8" names "text/html" (and "charset=utf-8",
// which no type equals).
func moreTypes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ';' || isSpaceByte(r) })
}

// moreStatuses reads a -s list of status codes separated by spaces.
func moreStatuses(d *Directive, s string) ([]int, error) {
	var out []int
	for _, w := range strings.FieldsFunc(s, isSpaceByte) {
		for i := 0; i < len(w); i++ {
			if w[i] < '0' || w[i] > '9' {
				return nil, emergf(d, "%s: invalid digit \"%c\" found in the status code list \"%s\"", d.Name, w[i], s)
			}
		}
		n, err := strconv.Atoi(w)
		if err != nil {
			return nil, emergf(d, "%s: invalid status code \"%s\"", d.Name, w)
		}
		out = append(out, n)
	}
	return out, nil
}

// showMore prints the commands for Dump: "out -s 404 -t text/html
// X-A:v X-B*" per command, input ones with "in" and "-r".
func showMore(cmds []MoreCmd) string {
	return showList(len(cmds), func(i int) string {
		c := cmds[i]
		var b strings.Builder
		if c.Input {
			b.WriteString("in")
		} else {
			b.WriteString("out")
		}
		if c.Replace {
			b.WriteString(" -r")
		}
		for _, s := range c.Statuses {
			b.WriteString(" -s " + strconv.Itoa(s))
		}
		for _, t := range c.Types {
			b.WriteString(" -t " + t)
		}
		for _, h := range c.Headers {
			b.WriteString(" " + h.Name)
			if h.Wildcard {
				b.WriteString("*")
			}
			if h.Value != nil {
				b.WriteString(":" + h.Value.Raw)
			}
		}
		return b.String()
	})
}
