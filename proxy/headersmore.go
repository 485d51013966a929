// This file holds what headers-more's directives do to a request
// (conf/headersmore.go reads them), as openresty's
// headers-more-nginx-module does it:
//
//   - more_set_headers / more_clear_headers change the response's headers
//     in the header filter, after the not-modified filter and before
//     add_header, expires, charset and gzip (the module's place in
//     nginx's filter chain), when the status is in -s and the type in -t;
//   - more_set_input_headers / more_clear_input_headers change the
//     request's headers at the end of the location's rewrite phase, so
//     that $http_*, $host, the access phase, FastCGI's HTTP_* params and
//     proxy_pass see the new values.
//
// Commands run in order, the inherited ones first.
package proxy

import (
	"slices"
	"strings"

	"edge/conf"
)

// moreOutput runs the output commands of the request's location.
func (rt *Site) moreOutput(r *Request) {
	cmds := r.loc.HeadersMore
	if len(cmds) == 0 {
		return
	}
	resp := r.resp
	for i := range cmds {
		c := &cmds[i]
		if c.Input {
			continue
		}
		if c.Statuses != nil && !slices.Contains(c.Statuses, resp.Status) {
			continue
		}
		if c.Types != nil && !slices.Contains(c.Types, moreContentType(resp.Header.Get("Content-Type"))) {
			continue
		}
		for j := range c.Headers {
			h := &c.Headers[j]
			moreSetOutput(r, h, rt.eval(r, h.Value))
		}
	}
}

// moreContentType is the part of a response's Content-Type that -t is
// compared with: nginx's content_type_len, the type without a
// "; charset=..." parameter (ngx_http_upstream_copy_content_type), or
// the whole value when it has none.
func moreContentType(ct string) string {
	for i := 0; i < len(ct); i++ {
		if ct[i] != ';' {
			continue
		}
		rest := strings.TrimLeft(ct[i+1:], " ")
		if len(rest) >= 8 && strings.EqualFold(rest[:8], "charset=") {
			return ct[:i]
		}
	}
	return ct
}

// moreSetOutput sets (value != "") or clears one response header: the
// first header the name matches takes the value, the others go; with no
// match a value is added. Server is the header filter's own, which
// leaves it alone once headers-more has set or cleared it.
func moreSetOutput(r *Request, h *conf.MoreHeader, value string) {
	resp := r.resp
	if !h.Wildcard && strings.EqualFold(h.Name, "Server") {
		resp.Header.Del("Server")
		if value != "" {
			resp.Header.Add(h.Name, value)
		}
		resp.moreServer = true
		return
	}
	list := resp.Header.list
	out := list[:0]
	matched := false
	for _, f := range list {
		if !moreMatch(h, f.name) || h.Wildcard && notListed(r, f.name) {
			out = append(out, f)
			continue
		}
		if value == "" || matched {
			continue // cleared
		}
		f.value = value
		out = append(out, f)
		matched = true
	}
	clear(list[len(out):])
	resp.Header.list = out
	if !matched && value != "" {
		name := h.Name
		if h.Wildcard {
			// The module adds the name as written, its "*" included.
			name += "*"
		}
		resp.Header.Add(name, value)
	}
}

// notListed reports whether nginx holds a header apart from its list
// of headers when the module runs, where a wildcard cannot see it: the
// type and length always, and for a response nginx makes itself (not a
// backend's) the Last-Modified and Accept-Ranges its header and range
// filters add later. Their own names still reach them.
func notListed(r *Request, name string) bool {
	switch {
	case strings.EqualFold(name, "Content-Type"), strings.EqualFold(name, "Content-Length"):
		return true
	case strings.EqualFold(name, "Last-Modified"), strings.EqualFold(name, "Accept-Ranges"):
		return !fromUpstream(r)
	}
	return false
}

// moreMatch reports whether a header's name is the command's, or starts
// with it for a wildcard; names compare in any case.
func moreMatch(h *conf.MoreHeader, name string) bool {
	if h.Wildcard {
		return len(name) >= len(h.Name) && strings.EqualFold(name[:len(h.Name)], h.Name)
	}
	return strings.EqualFold(name, h.Name)
}

// moreHeaders is the request's header lines once an input command has
// changed them: a copy of the engine's, which the request reads from
// then on (Request.Header), through internal redirects too.
type moreHeaders struct{ list []HeaderKV }

func (m *moreHeaders) Get(name string) string {
	for _, h := range m.list {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

func (m *moreHeaders) AppendAll(dst []HeaderKV) []HeaderKV { return append(dst, m.list...) }

// moreInput runs the input commands of the request's location; a
// status other than 0 ends the request (a Host nginx would refuse).
func (rt *Site) moreInput(r *Request) int {
	cmds := r.loc.HeadersMore
	for i := range cmds {
		c := &cmds[i]
		if !c.Input {
			continue
		}
		if c.Types != nil {
			// The request's whole Content-Type, as sent.
			ct := r.Header.Get("Content-Type")
			if ct == "" || !slices.Contains(c.Types, ct) {
				continue
			}
		}
		m, ok := r.Header.(*moreHeaders)
		if !ok {
			m = &r.mh
			m.list = appendArrived(r.Header, m.list[:0])
			r.Header = m
		}
		for j := range c.Headers {
			h := &c.Headers[j]
			value := rt.eval(r, h.Value)
			if !h.Wildcard && strings.EqualFold(h.Name, "Host") {
				// $host follows the new Host, validated and lowercased
				// as a request's own (ngx_http_headers_more_validate_host).
				host, valid := validateHost(value)
				if !valid {
					rt.log.errorf(r, "invalid Host \"%s\" from more_set_input_headers", value)
					return 500
				}
				r.host = host
			}
			m.set(h, value, c.Replace)
		}
	}
	return 0
}

// set is the module's input helper: the first line the name matches
// takes the value and the other matching lines go (all of them when
// clearing); a wildcard matches only to clear. With no match a value is
// added, unless -r asked to replace only.
func (m *moreHeaders) set(h *conf.MoreHeader, value string, replace bool) {
	out := m.list[:0]
	matched := false
	for _, kv := range m.list {
		hit := !h.Wildcard && strings.EqualFold(kv.Name, h.Name) ||
			h.Wildcard && value == "" && moreMatch(h, kv.Name)
		if !hit {
			out = append(out, kv)
			continue
		}
		if value == "" || matched {
			continue
		}
		kv.Value = value
		out = append(out, kv)
		matched = true
	}
	clear(m.list[len(out):])
	m.list = out
	if !matched && value != "" && !replace {
		name := h.Name
		if h.Wildcard {
			name += "*"
		}
		m.list = append(m.list, HeaderKV{name, value})
	}
}
