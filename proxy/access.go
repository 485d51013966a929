// This file holds the access modules' phases: realip in nginx's post-read
// phase (and again, with the location's settings, in its preaccess phase,
// when the server level did not change the address), and auth_basic with
// allow/deny in the access phase under satisfy. The engines are
// proxy/realip and proxy/authbasic (docs/access.md); the order of the
// phases is pipeline.go's.
package proxy

import (
	"net/netip"
	"strconv"
	"strings"

	"edge/conf"
	"edge/proxy/authbasic"
	"edge/proxy/realip"
)

// accessState is what the access modules keep for one main request.
type accessState struct {
	// realipDone: realip changed the address; it runs no more for this
	// request, internal redirects included, as nginx finds its context.
	realipDone bool
	real       realip.Addr
	realText   string
	lim        limitState // limits.go
	rate       rateState  // limitrate.go
}

// connAddr is the connection's own address as realip sees it.
func (c *ConnInfo) connAddr() realip.Addr {
	if c.Unix {
		return realip.Addr{Unix: true}
	}
	return realip.Addr{IP: c.Remote.Addr(), Port: c.Remote.Port()}
}

// clientIP is the client's address after realip (invalid and unix true
// for a unix-domain socket), for allow/deny, geo and the limit keys.
func (r *Request) clientIP() (ip netip.Addr, unix bool) {
	if r.acc.realipDone {
		return r.acc.real.IP, r.acc.real.Unix
	}
	if r.Conn.Unix {
		return netip.Addr{}, true
	}
	return r.Conn.Remote.Addr(), false
}

// remoteAddr is $remote_addr.
func (r *Request) remoteAddr() string {
	if r.acc.realipDone {
		return r.acc.realText
	}
	if r.Conn.Unix {
		return "unix:"
	}
	return r.Conn.RemoteAddr()
}

// remotePort is $remote_port: empty for a unix-domain socket, or when
// realip took an address without a port.
func (r *Request) remotePort() string {
	if r.acc.realipDone {
		return r.acc.real.PortString()
	}
	if r.Conn.Unix {
		return ""
	}
	return strconv.Itoa(int(r.Conn.Remote.Port()))
}

// realIP is ngx_http_realip_handler with the settings of level l: from a
// trusted sender, the address in the configured header (or the PROXY
// protocol header) becomes the request's client address.
func (rt *Site) realIP(r *Request, l *conf.LocConf) {
	ri := &l.RealIP
	if r.acc.realipDone || ri.From.Empty() {
		return
	}
	cfg := ri.Config()
	conn := r.Conn.connAddr()
	var addr realip.Addr
	var ok bool
	switch ri.Source {
	case realip.ProxyProtocol:
		addr, ok = cfg.ResolveProxy(conn, r.Conn.Proxy)
	case realip.XForwardedFor:
		var all [16]HeaderKV
		var values []string
		for _, h := range r.Header.AppendAll(all[:0]) {
			if strings.EqualFold(h.Name, "X-Forwarded-For") {
				values = append(values, h.Value)
			}
		}
		addr, ok = cfg.Resolve(conn, values)
	default:
		name := "X-Real-IP"
		if ri.Source == realip.Field {
			name = ri.Header
		}
		if v := r.Header.Get(name); v != "" {
			addr, ok = cfg.Resolve(conn, []string{v})
		}
	}
	if !ok {
		return
	}
	r.acc.realipDone = true
	r.acc.real = addr
	r.acc.realText = addr.String()
}

// realIPRemoteAddr is $realip_remote_addr: the connection's own address.
func (r *Request) realIPRemoteAddr() string {
	if r.Conn.Unix {
		return "unix:"
	}
	return r.Conn.RemoteAddr()
}

// realIPRemotePort is $realip_remote_port.
func (r *Request) realIPRemotePort() string {
	if r.Conn.Unix {
		return ""
	}
	return strconv.Itoa(int(r.Conn.Remote.Port()))
}

// accessPhase is nginx's access phase: allow/deny, then auth_basic (in
// the order nginx's handlers run), combined by satisfy as
// ngx_http_core_access_phase does: under "all" the first refusal answers;
// under "any" the first handler that allows ends the phase, and a refusal
// waits for the others, a 401 winning over a 403. It gives the status to
// answer with, 0 to go on.
func (rt *Site) accessPhase(r *Request) int {
	l := r.loc
	if le := l.LimitExcept; le != nil && le.Applies(r.Method) {
		l = le.Loc // limit_except's settings (conf/limitexcept.go)
	}
	any := l.Satisfy == conf.SatisfyAny
	code := 0
	if matched, allow := accessMatch(l.Access, r); matched {
		switch {
		case allow && any:
			return 0
		case !allow && !any:
			rt.log.errorf(r, "access forbidden by rule")
			return 403
		case !allow:
			code = 403
		}
	}
	st, applied := rt.authBasic(r, &l.AuthBasic)
	switch {
	case !applied:
	case st == 0:
		if any {
			return 0
		}
	case st == 401 || st == 403:
		if !any {
			return st
		}
		if code != 401 {
			code = st
		}
	default:
		return st
	}
	if code == 403 {
		rt.log.errorf(r, "access forbidden by rule")
	}
	return code
}

// authBasic is ngx_http_auth_basic_handler: applied is false when it
// declines (no realm or user file, or the realm is "off"); the status is
// 0 when the password matched, else 401 with its challenge, 403 for a
// missing user file, or 500.
func (rt *Site) authBasic(r *Request, a *conf.AuthBasic) (status int, applied bool) {
	if a.Realm == nil || a.UserFile == nil {
		return 0, false
	}
	realm := rt.eval(r, a.Realm)
	if authbasic.Off(realm) {
		return 0, false
	}
	file := a.UserFilePath(rt.eval(r, a.UserFile))
	res := authbasic.Check(file, r.Header.Get("Authorization"))
	if res.Outcome == authbasic.Allowed {
		return 0, true
	}
	level, _ := conf.ParseLevel(res.Level)
	rt.log.logf(r, level, "%s", res.Message)
	if res.Status == 401 {
		r.resp.Header.Set("WWW-Authenticate", authbasic.Challenge(realm))
	}
	return res.Status, true
}

// accessMatch is the access module's rule walk: whether a rule matched
// and whether it allows.
func accessMatch(rules []conf.AccessRule, r *Request) (matched, allow bool) {
	ip, unix := r.clientIP()
	ip = ip.Unmap()
	for i := range rules {
		rule := &rules[i]
		switch {
		case rule.All:
			return true, rule.Allow
		case rule.Unix:
			if unix {
				return true, rule.Allow
			}
		default:
			if !unix && rule.Net.Contains(ip) {
				return true, rule.Allow
			}
		}
	}
	return false, false
}

// preaccessPhase is nginx's preaccess phase: realip with the location's
// settings (when the server level changed nothing), then the limits.
func (rt *Site) preaccessPhase(r *Request) int {
	rt.realIP(r, &r.loc.LocConf)
	return rt.limits(r)
}
