// This file is the engine-neutral entry of a request: both adapters call
// serve() with a filled Request, then write out r.resp and call done().
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
func (rt *site) liveGroup(g *conf.ListenGroup) *conf.ListenGroup {
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

// serve runs one request. Every path leaves a complete r.resp.
func (rt *site) serve(r *Request) {
	r.rt = rt
	if rt.plan.HTTP == nil || r.conn.group == nil {
		r.resp.Status = 444
		r.resp.Drop = true
		return
	}
	g := rt.liveGroup(r.conn.group)
	def := g.Default
	r.srv = def
	r.loc = def.Loc
	t, err := parseTarget(r.RawTarget, def.MergeSlashes)
	if err != nil {
		rt.log.infof(r, "client sent invalid request")
		rt.badRequest(r, 400)
		return
	}
	host := t.host
	if host == "" {
		hh := r.HostHeader
		if hh == "" && r.Proto == "HTTP/1.1" {
			rt.log.infof(r, "client sent HTTP/1.1 request without \"Host\" header")
			rt.badRequest(r, 400)
			return
		}
		if hh == "" && r.hostEmpty {
			rt.log.infof(r, "client sent invalid host header")
			rt.badRequest(r, 400)
			return
		}
		h, ok := validateHost(hh)
		if !ok {
			rt.log.infof(r, "client sent invalid host header")
			rt.badRequest(r, 400)
			return
		}
		host = h
	}
	if host == "" && r.conn.tls != nil {
		host = r.conn.tls.ServerName
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
		rt.badRequest(r, 494)
		if r.Proto != "HTTP/2.0" {
			r.conn.linger = true
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
func (rt *site) acmeChallenge(r *Request) bool {
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
	if !r.conn.unix {
		req.RemoteAddr = net.JoinHostPort(r.conn.remote.Addr().String(), strconv.Itoa(int(r.conn.remote.Port())))
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

// badRequest answers before a server was chosen, with the default
// server's settings, and closes the connection like nginx.
func (rt *site) badRequest(r *Request, status int) {
	r.uri = "/"
	rt.specialResponse(r, status)
	r.resp.Close = true
	rt.headerFilter(r)
}

// done runs the log phase once the body is out (or failed).
func (rt *site) done(r *Request, sent int64) {
	r.bodySent = sent
	r.up.settle()
	rt.accessLog(r)
}

// Stats are the connection and request counters of stub_status.
type Stats struct {
	accepted atomic.Int64
	handled  atomic.Int64
	requests atomic.Int64
	active   atomic.Int64
	reading  atomic.Int64
}

func numCPU() int { return runtime.NumCPU() }
