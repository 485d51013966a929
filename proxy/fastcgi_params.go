// This file builds the CGI params a FastCGI request carries: cgiParams is
// a pure function of the location's fastcgi_param list, the server's
// header rules, the request's headers and an evaluator for variables;
// splitPathInfo gives $fastcgi_script_name and $fastcgi_path_info.
package proxy

import (
	"edge/conf"
	"strings"
)

// cgiParams appends to dst the CGI params of a request passed with the
// location settings f in server srv: the fastcgi_param list in order
// (values from eval, if_not_empty honoured), then one HTTP_* param per
// request header unless a fastcgi_param already set that name. Headers
// with "_" are dropped when the server ignores invalid headers and
// underscores_in_headers is off, as nginx ignores them (the HTTP/1 header
// view has already left out every invalid name; HTTP/2's relies on
// this), and "Proxy" is never passed (httpoxy, CVE-2016-5385). Repeated
// headers are joined with ", " (Cookie with "; "), so PHP sees every
// value. It reads nothing else and changes nothing: the request comes in
// as its headers and eval.
func cgiParams(dst []HeaderKV, f *conf.FastCGI, srv *conf.Server, headers []HeaderKV, eval func(*conf.Script) string) []HeaderKV {
	start := len(dst)
	for i := range f.Params {
		fp := &f.Params[i]
		v := eval(fp.Value)
		if fp.IfNotEmpty && v == "" {
			continue
		}
		dst = append(dst, HeaderKV{fp.Name, v})
	}
	if !f.PassRequestHeaders {
		return dst
	}
	set := dst[start:len(dst):len(dst)] // the fastcgi_param names
	first := len(dst)                   // the first header param
next:
	for _, h := range headers {
		if strings.IndexByte(h.Name, '_') >= 0 && !srv.UnderscoresInHeaders && srv.IgnoreInvalidHeaders {
			continue
		}
		if strings.EqualFold(h.Name, "Proxy") {
			continue
		}
		key := cgiHeaderName(h.Name)
		for _, s := range set {
			if s.Name == key {
				continue next
			}
		}
		for i := first; i < len(dst); i++ {
			if dst[i].Name == key {
				sep := ", "
				if key == "HTTP_COOKIE" {
					sep = "; "
				}
				dst[i].Value += sep + h.Value
				continue next
			}
		}
		dst = append(dst, HeaderKV{key, h.Value})
	}
	return dst
}

// commonCGINames holds cgiHeaderName's answers for the request headers
// browsers send, so that they cost no allocation per request.
var commonCGINames = func() map[string]string {
	m := map[string]string{}
	for _, h := range []string{"Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language",
		"Accept-Charset", "Cookie", "Connection", "Referer", "Origin", "Content-Type", "Content-Length",
		"Cache-Control", "Pragma", "If-Modified-Since", "If-None-Match", "Range", "Authorization",
		"Upgrade-Insecure-Requests", "Dnt", "Te", "X-Requested-With", "X-Forwarded-For",
		"X-Forwarded-Proto", "X-Real-Ip", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-User",
		"Sec-Fetch-Dest", "Sec-Ch-Ua", "Sec-Ch-Ua-Mobile", "Sec-Ch-Ua-Platform", "Priority"} {
		m[h] = makeCGIHeaderName(h)
		m[strings.ToLower(h)] = m[h] // HTTP/2's spelling
	}
	return m
}()

// cgiHeaderName turns "User-Agent" into "HTTP_USER_AGENT".
func cgiHeaderName(name string) string {
	if cgi, ok := commonCGINames[name]; ok {
		return cgi
	}
	return makeCGIHeaderName(name)
}

func makeCGIHeaderName(name string) string {
	b := make([]byte, 5+len(name))
	copy(b, "HTTP_")
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case c == '-':
			c = '_'
		}
		b[5+i] = c
	}
	return b2s(b)
}

// splitPathInfo gives $fastcgi_script_name and $fastcgi_path_info
// (ngx_http_fastcgi_split): fastcgi_split_path_info's two captures when it
// matches, else the whole URI; fastcgi_index is appended to a script name
// that ends with "/".
func (rt *Site) splitPathInfo(r *Request) (script, pathInfo string) {
	f := &r.loc.FastCGI
	script = r.uri
	if f.SplitPathInfo != nil {
		var buf [6]int
		m, ok, err := f.SplitPathInfo.Exec(r.uri, buf[:0])
		switch {
		case err != nil:
			// Both variables fail, which their users read as empty
			// (ngx_http_fastcgi_split returns NULL).
			logMatchLimit(r, f.SplitPathInfo, r.uri)
			return "", ""
		case ok:
			// An unset group is empty, as nginx takes its -1 offsets.
			if m[2] >= 0 {
				script = r.uri[m[2]:m[3]]
			}
			if m[4] >= 0 {
				pathInfo = r.uri[m[4]:m[5]]
			}
		}
	}
	if f.Index != "" && (script == "" || script[len(script)-1] == '/') {
		script += f.Index
	}
	return script, pathInfo
}
