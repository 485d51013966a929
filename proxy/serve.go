// This file is the engine-neutral entry of a request: both adapters call
// Serve with a filled Request, then write out r.Response() and call Done.
// It validates the Host and the request target, picks the server{} and
// runs the pipeline.
package proxy

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"edge/conf"
	"edge/proxy/tlsterm"
)

// liveGroup returns this site's listen group for the address of g: a
// keep-alive connection accepted before a reload holds the old plan's
// group, whose locations (and fastcgi_pass targets) the new site does
// not know.
func (rt *Site) liveGroup(g *conf.ListenGroup) *conf.ListenGroup {
	var same *conf.ListenGroup
	for _, lg := range rt.plan.HTTP.Listens {
		if lg == g {
			return g
		}
		if lg.Listen.Network == g.Listen.Network && lg.Listen.Addr == g.Listen.Addr {
			same = lg
		}
	}
	if same != nil {
		return same
	}
	return g
}

// Serve runs one request. Every path leaves a complete r.resp.
func (rt *Site) Serve(r *Request) {
	r.rt = rt
	if rt.plan.HTTP == nil || r.Conn.Group == nil {
		r.resp.Status = 444
		r.resp.Drop = true
		return
	}
	g := rt.liveGroup(r.Conn.Group)
	def := g.Default
	r.srv = def
	r.loc = def.Loc
	t, err := parseTarget(r.RawTarget, def.MergeSlashes)
	if err != nil {
		rt.log.infof(r, "client sent invalid request")
		rt.BadRequest(r, 400)
		return
	}
	host := t.host
	if host == "" {
		hh := r.HostHeader
		if hh == "" && r.Proto == "HTTP/1.1" {
			rt.log.infof(r, "client sent HTTP/1.1 request without \"Host\" header")
			rt.BadRequest(r, 400)
			return
		}
		if hh == "" && r.HostEmpty {
			rt.log.infof(r, "client sent invalid host header")
			rt.BadRequest(r, 400)
			return
		}
		h, ok := validateHost(hh)
		if !ok {
			rt.log.infof(r, "client sent invalid host header")
			rt.BadRequest(r, 400)
			return
		}
		host = h
	}
	if host == "" && r.Conn.TLS != nil {
		host = r.Conn.TLS.ServerName
	}
	r.host = host
	srv, err := g.Lookup(host, func(re *conf.Regex) (bool, error) { return matchRegex(r, re, host) })
	r.srv = srv
	r.loc = srv.Loc
	if err != nil {
		// ngx_http_set_virtual_server closes the request without an
		// answer when a regex server name fails.
		r.resp.Status = 500
		r.resp.Drop = true
		r.resp.Close = true
		return
	}
	if r.tooManyHeaders(def, t.host != "") {
		rt.log.infof(r, "client sent too many header lines")
		rt.BadRequest(r, 494)
		if r.Proto != "HTTP/2.0" {
			r.Conn.Linger = true
		}
		return
	}
	// The URI was parsed with the default server's merge_slashes, before
	// the server was known: nginx does the same.
	r.uri, r.args, r.exten = t.path, t.args, t.exten
	rt.stats.requests.Add(1)
	if rt.acmeChallenge(r) {
		return
	}
	rt.handle(r)
}

// acmeChallenge answers an ACME http-01 challenge request, and reports
// whether it did. It runs after server selection and before the rewrite
// phase (ngx_http_acme_module answers at the same point).
func (rt *Site) acmeChallenge(r *Request) bool {
	if !rt.tls.AnswersChallenges() || !strings.HasPrefix(r.uri, tlsterm.ChallengePrefix) || r.Method != http.MethodGet {
		return false
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://"+r.host+r.uri, nil)
	if err != nil {
		return false
	}
	req.Host = r.HostHeader
	if req.Host == "" {
		req.Host = r.host
	}
	if !r.Conn.Unix {
		req.RemoteAddr = net.JoinHostPort(r.Conn.Remote.Addr().String(), strconv.Itoa(int(r.Conn.Remote.Port())))
	}
	status, body, ok := rt.tls.Challenge(req)
	if !ok {
		return false
	}
	resp := r.resp
	resp.Status = status
	resp.Header.Set("Content-Type", "text/plain")
	resp.Kind, resp.Bytes, resp.Length = BodyBytes, body, int64(len(body))
	rt.headerFilter(r)
	return true
}

// headerCounter is a header view that applies max_headers itself: the
// engines count header lines in their own ways (proxy/h1's http1head.go,
// proxy/h2's http2.go).
type headerCounter interface {
	// TooManyHeaders reports whether the request has more header lines than
	// max_headers allows, srv being its server and def the default one;
	// absolute says the request line named the host.
	TooManyHeaders(def, srv *conf.Server, absolute bool) bool
}

// tooManyHeaders applies max_headers (nginx 1.29.8, and Debian's 1.22.1
// since deb12u11) once the request's server r.srv is known.
func (r *Request) tooManyHeaders(def *conf.Server, absolute bool) bool {
	c, ok := r.Header.(headerCounter)
	return ok && c.TooManyHeaders(def, r.srv, absolute)
}

// BadRequest answers before a server was chosen, with the default
// server's settings, and closes the connection like nginx.
func (rt *Site) BadRequest(r *Request, status int) {
	r.uri = "/"
	rt.specialResponse(r, status)
	r.resp.Close = true
	rt.headerFilter(r)
}

// Done runs the log phase once the body is out (or failed).
func (rt *Site) Done(r *Request, sent int64) {
	r.bodySent, r.ended = sent, true
	r.up.settle()
	rt.accessLog(r)
}

// Stats are the connection and request counters of stub_status.
type Stats struct {
	Accepted atomic.Int64
	Handled  atomic.Int64
	requests atomic.Int64
	Active   atomic.Int64
	reading  atomic.Int64
}

func numCPU() int { return runtime.NumCPU() }
