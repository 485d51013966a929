// This file connects the pipeline to FastCGI backends (fastcgi_pass).
package proxy

import (
	"edge/conf"
)

// upstreamState is what a request learned from its backend, for the
// $upstream_* variables.
type upstreamState struct {
	addr   string
	status int
	header ResponseHeader
}

// backends holds the FastCGI clients of a runtime.
type backends struct{}

func newBackends(plan *conf.Plan, sh *shared) (*backends, error) { return &backends{}, nil }

// fastcgi forwards the request to the location's FastCGI backend.
func (rt *runtime) fastcgi(r *Request) int { return 502 }

// splitPathInfo gives $fastcgi_script_name and $fastcgi_path_info
// (ngx_http_fastcgi_split): fastcgi_split_path_info's two captures when it
// matches, else the whole URI; fastcgi_index is appended to a script name
// that ends with "/".
func (rt *runtime) splitPathInfo(r *Request) (script, pathInfo string) {
	f := &r.loc.FastCGI
	script = r.uri
	if f.SplitPathInfo != nil {
		if m := f.SplitPathInfo.Re.FindStringSubmatchIndex(r.uri); m != nil {
			script = r.uri[m[2]:m[3]]
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

func (r *Request) upstreamHeader(name string) string {
	if r.up == nil {
		return ""
	}
	return r.up.header.Get(name)
}

func (r *Request) upstreamVar(id conf.VarID) string {
	if r.up == nil {
		return ""
	}
	switch id {
	case conf.VarUpstreamAddr:
		return r.up.addr
	}
	return ""
}

func (rt *runtime) statusHandler(r *Request) int { return 404 }
