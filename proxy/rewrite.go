// This file runs rewrite programs (rewrite, return, set, break, if) the
// way nginx's script engine does: operations run in order; an "if" whose
// condition holds makes its block's settings current and runs its body,
// then the enclosing program goes on (unless the body stopped it).
package proxy

import (
	"strings"

	"edge/conf"
)

type rwResult int

const (
	rwContinue rwResult = iota // the program ran to its end
	rwBreak                    // break, or rewrite ... break
	rwLast                     // rewrite ... last
	rwStatus                   // return or a redirect: answer now
)

// runOps runs a program; for rwStatus it returns the status to answer.
func (rt *Site) runOps(r *Request, ops []conf.Op) (rwResult, int) {
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case conf.OpBreak:
			return rwBreak, 0
		case conf.OpSet:
			v := rt.eval(r, op.Value)
			if op.Var.Kind == conf.VarSlot {
				r.setSlot(op.Var.N, v)
			} else if op.Var.ID == conf.VarArgs {
				r.args = v
			} else if op.Var.ID == conf.VarLimitRate {
				rt.setLimitRate(r, v)
			}
		case conf.OpReturn:
			return rwStatus, rt.doReturn(r, op)
		case conf.OpRewrite:
			if res, status := rt.doRewrite(r, op); res != rwContinue {
				return res, status
			}
		case conf.OpIf:
			ok, err := rt.cond(r, op.Cond)
			if err != nil {
				return rwStatus, 500
			}
			if ok {
				r.loc = op.Loc
				if res, status := rt.runOps(r, op.Body); res != rwContinue {
					return res, status
				}
			}
		}
	}
	return rwContinue, 0
}

// doReturn runs "return"; text for a 2xx (or any non-redirect code) is the
// body, for 301/302/303/307/308 it is the Location.
func (rt *Site) doReturn(r *Request, op *conf.Op) int {
	code := op.Code
	if op.Text == nil && code >= 400 {
		return code
	}
	// Below 400 a bare code is a response with empty text
	// (ngx_http_script_return_code): "return 301;" sends an empty
	// Location, "return 200;" an empty body.
	text := rt.eval(r, op.Text)
	switch code {
	case 301, 302, 303, 307, 308:
		r.resp.Header.Set("Location", text)
		return code
	}
	rt.textResponse(r, code, text)
	return 0
}

// textResponse answers with a status and a body (ngx_http_send_response):
// the type comes from the URI's extension or default_type.
func (rt *Site) textResponse(r *Request, code int, text string) {
	resp := r.resp
	resp.Status = code
	resp.Header.Set("Content-Type", rt.contentType(r))
	resp.Kind = BodyBytes
	resp.Bytes = []byte(text)
	resp.Length = int64(len(text))
	if code == 204 || code == 304 {
		resp.Kind = BodyNone
		resp.Length = 0
	}
}

// doRewrite runs one rewrite directive (ngx_http_script_regex_start_code
// and regex_end_code).
func (rt *Site) doRewrite(r *Request, op *conf.Op) (rwResult, int) {
	ok, err := matchRegex(r, op.Regex, r.uri)
	if err != nil {
		return rwStatus, 500 // ngx_http_script_regex_start_code
	}
	if !ok {
		return rwContinue, 0
	}
	repl, argsAt := rt.evalRewrite(r, op.Replace, r.quotedURI(), op.Redirect)
	addArgs := !op.DropArgs
	if op.Redirect {
		loc := unescapeRedirect(repl)
		if addArgs && r.args != "" {
			if argsAt >= 0 {
				loc += "&" + r.args
			} else {
				loc += "?" + r.args
			}
		}
		r.resp.Header.Set("Location", loc)
		if op.Flag == conf.FlagPermanent {
			return rwStatus, 301
		}
		return rwStatus, 302
	}
	path, newArgs, hasArgs := repl, "", argsAt >= 0
	if hasArgs {
		path, newArgs = repl[:argsAt], repl[argsAt+1:]
		if addArgs && r.args != "" {
			newArgs += "&" + r.args
		}
		r.args = newArgs
	} else if !addArgs {
		r.args = ""
	}
	if path == "" {
		rt.log.errorf(r, "the rewritten URI has a zero length")
		return rwStatus, 500
	}
	if r.loc.RewriteLog {
		rt.log.noticef(r, "rewritten data: \"%s\", args: \"%s\"", path, r.args)
	}
	r.uri = path
	r.exten = extension(path)
	r.internal = true
	switch op.Flag {
	case conf.FlagLast:
		return rwLast, 0
	case conf.FlagBreak:
		return rwBreak, 0
	}
	return rwContinue, 0
}

// quotedURI reports whether the request's path was percent-encoded or had
// a "+", which is when nginx escapes captures copied into a rewrite.
func (r *Request) quotedURI() bool {
	path, _, _ := strings.Cut(r.RawTarget, "?")
	return strings.ContainsAny(path, "%+")
}

// cond evaluates an if condition; the error is a regex out of its match
// budget.
func (rt *Site) cond(r *Request, c *conf.Cond) (bool, error) {
	switch c.Kind {
	case conf.CondVar:
		v := rt.eval(r, c.Left)
		return v != "" && v != "0", nil
	case conf.CondEq:
		return rt.eval(r, c.Left) == rt.eval(r, c.Right), nil
	case conf.CondNe:
		return rt.eval(r, c.Left) != rt.eval(r, c.Right), nil
	case conf.CondMatch, conf.CondNotMatch:
		// Either way a match sets the captures, as in nginx; a match
		// out of budget answers 500 (ngx_http_script_regex_start_code).
		ok, err := matchRegex(r, c.Regex, rt.eval(r, c.Left))
		return ok == (c.Kind == conf.CondMatch), err
	}
	fi := rt.files.statAt(rt.eval(r, c.Left), r.Start)
	var ok bool
	switch c.Kind {
	case conf.CondFile:
		ok = fi.exists && !fi.isDir
	case conf.CondDir:
		ok = fi.exists && fi.isDir
	case conf.CondExists:
		ok = fi.exists
	case conf.CondExec:
		ok = fi.exists && fi.mode&0o111 != 0
	}
	return ok != c.Negate, nil
}

// argsEscape marks the bytes nginx 1.22's NGX_ESCAPE_ARGS escapes in a
// capture copied into the query part of a rewrite: controls, space, '"',
// '#', '%', '&', '+', ';', '<', '>', '?', '\\', '^', '`', '{', '|', '}' and
// bytes >= 0x7f.
func argsEscape(c byte) bool {
	switch c {
	case '"', '#', '%', '&', '+', ';', '<', '>', '?', '\\', '^', '`', '{', '|', '}':
		return true
	}
	return c <= ' ' || c >= 0x7f
}

// redirectEscape marks the bytes left escaped in a capture copied into a
// redirecting rewrite's Location: nginx escapes the capture for args,
// then unescapes the Location (NGX_UNESCAPE_REDIRECT), which gives back
// '&', '+', ';', '<', '>' and '?' (as measured against nginx 1.22.1).
func redirectEscape(c byte) bool {
	switch c {
	case '"', '#', '%', '\\', '^', '`', '{', '|', '}':
		return true
	}
	return c <= ' ' || c >= 0x7f
}

// unescapeRedirect is what nginx does to a redirecting rewrite's
// Location before it appends the request's arguments (ngx_unescape_uri
// with NGX_UNESCAPE_REDIRECT in ngx_http_script_regex_end_code): it
// decodes each %XX that gives a byte above '%' and below DEL, keeps the
// others (%20, %0D, %25, %80) as written, drops an invalid or cut-off
// escape ("%z" keeps the z, "%4z" loses all three), and stops at the
// first '?',
// written or decoded, copying the rest as it is. So
// "rewrite ^ $arg_r? redirect" with r=http%3A%2F%2Fexample.com%2F%3Ffrom
// redirects to http://example.com/?from (nginx-tests
// rewrite_unescape.t), and "%0D%0A" stays escaped.
func unescapeRedirect(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	if q := strings.IndexByte(s[:i], '?'); q >= 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '?':
			return string(append(b, s[i:]...))
		case c != '%':
			b = append(b, c)
		case i+1 < len(s) && !isHex(s[i+1]):
			i++
			b = append(b, s[i])
		case i+2 < len(s) && !isHex(s[i+2]):
			i += 2 // the '%', the digit and the byte after it all go
		case i+2 < len(s):
			ch := unhex(s[i+1])<<4 | unhex(s[i+2])
			switch {
			case ch == '?':
				return string(append(append(b, '?'), s[i+3:]...))
			case ch > '%' && ch < 0x7f:
				b = append(b, ch)
			default:
				b = append(b, s[i:i+3]...)
			}
			i += 2
		default:
			return string(b) // an escape cut off at the end
		}
	}
	return string(b)
}

// escapeWith percent-encodes the bytes marked by escape.
func escapeWith(s string, escape func(byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if escape(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if escape(c) {
			b = append(b, '%', hex[c>>4], hex[c&15])
			continue
		}
		b = append(b, c)
	}
	return string(b)
}
