// This file computes variable values and evaluates scripts. Which names
// exist is decided in conf at load time; here each one gets its value from
// the request, the connection or the response.
package proxy

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"edge/conf"
	"edge/proxy/authbasic"
)

// NginxVersion is the nginx release whose directive set and behaviour edge
// follows; $nginx_version gives it, so PHP code that looks for "nginx" in
// SERVER_SOFTWARE keeps working.
const NginxVersion = "1.22.1"

// eval evaluates a script to a string.
func (rt *Site) eval(r *Request, s *conf.Script) string {
	if s == nil {
		return ""
	}
	if s.Static {
		return s.Raw
	}
	if len(s.Parts) == 1 {
		return rt.varValue(r, s.Parts[0].Var)
	}
	// A variable below may evaluate a script of its own (a map's value
	// names other variables): it must not write into the buffer this
	// evaluation is filling, so the buffer is taken out of the request
	// while it is in use and nested calls start their own.
	b := r.scratch[:0]
	r.scratch = nil
	for i := range s.Parts {
		p := &s.Parts[i]
		if p.Var == nil {
			b = append(b, p.Lit...)
		} else {
			b = append(b, rt.varValue(r, p.Var)...)
		}
	}
	r.scratch = b
	return string(b)
}

// evalRewrite evaluates a rewrite replacement and says where its args
// start: at the first "?" written in the replacement itself (-1 if none),
// never at one a capture or variable brings in, as nginx decides it when
// it compiles the replacement. When the request URI was percent-encoded
// or had a "+", captures copied into the args (or anywhere, for a
// redirect) are escaped, as nginx does.
func (rt *Site) evalRewrite(r *Request, s *conf.Script, quoted, redirect bool) (string, int) {
	if s.Static {
		return s.Raw, strings.IndexByte(s.Raw, '?')
	}
	var b strings.Builder
	argsAt := -1
	for i := range s.Parts {
		p := &s.Parts[i]
		if p.Var == nil {
			if j := strings.IndexByte(p.Lit, '?'); j >= 0 && argsAt < 0 {
				argsAt = b.Len() + j
			}
			b.WriteString(p.Lit)
			continue
		}
		v := rt.varValue(r, p.Var)
		if quoted && p.Var.Kind == conf.VarCapture {
			switch {
			case redirect:
				v = escapeWith(v, redirectEscape)
			case argsAt >= 0:
				v = escapeWith(v, argsEscape)
			}
		}
		b.WriteString(v)
	}
	return b.String(), argsAt
}

// varValue returns one variable's value.
func (rt *Site) varValue(r *Request, v *conf.VarRef) string {
	switch v.Kind {
	case conf.VarCapture:
		return r.capture(v.N)
	case conf.VarSlot:
		return rt.slotValue(r, v)
	case conf.VarHeader:
		return headerVar(r, v.Arg)
	case conf.VarSent:
		return sentHeaderVar(r, v.Arg)
	case conf.VarUpstream:
		return r.upstreamHeader(v.Arg)
	case conf.VarCookie:
		return cookieValue(r.Header.Get("Cookie"), v.Arg)
	case conf.VarArg:
		return argValue(r.args, v.Arg)
	}
	return rt.builtin(r, v.ID)
}

// headerVar is $http_NAME; several Cookie or X-Forwarded-For lines are
// joined like nginx does ("; " and ", ").
func headerVar(r *Request, name string) string {
	cookie := len(name) == len("cookie") && strings.EqualFold(name, "cookie")
	if cookie || len(name) == len("x-forwarded-for") && strings.EqualFold(name, "x-forwarded-for") {
		sep := ", "
		if cookie {
			sep = "; "
		}
		var vals []string
		var all [16]HeaderKV
		for _, h := range r.Header.AppendAll(all[:0]) {
			if strings.EqualFold(h.Name, name) {
				vals = append(vals, h.Value)
			}
		}
		return strings.Join(vals, sep)
	}
	return r.Header.Get(name)
}

// sentHeaderVar is $sent_http_NAME: the response header as it stands,
// and, as nginx has them, the fields the HTTP/1 engine writes itself:
// Connection, and the Content-Length or chunked framing of a response
// that has none of its own. $sent_http_connection is "close" once the
// log phase has begun, as nginx's is (ngx_http_set_keepalive clears
// r->keepalive before it logs the request), and over HTTP/2.
func sentHeaderVar(r *Request, name string) string {
	if r.resp == nil {
		return ""
	}
	if v := r.resp.Header.Get(name); v != "" {
		return v
	}
	switch {
	case strings.EqualFold(name, "Connection"):
		if f := r.connectionField(); f == "upgrade" || !r.ended && r.Proto != "HTTP/2.0" {
			return f
		}
		return "close"
	case strings.EqualFold(name, "Content-Length"):
		if r.resp.Length >= 0 && r.resp.Status != 304 && r.resp.Status != 204 {
			return strconv.FormatInt(r.resp.Length, 10)
		}
	case strings.EqualFold(name, "Transfer-Encoding"):
		if r.resp.Length < 0 && r.Proto == "HTTP/1.1" && r.resp.Upgrade == nil {
			return "chunked"
		}
	}
	return ""
}

// cookieValue finds one cookie in a Cookie header.
func cookieValue(h, name string) string {
	for h != "" {
		var part string
		part, h, _ = strings.Cut(h, ";")
		part = strings.TrimLeft(part, " \t")
		k, v, ok := strings.Cut(part, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// argValue finds one argument in a query string; like nginx the value is
// returned as sent (not decoded) and the name matches ignoring case.
func argValue(args, name string) string {
	for args != "" {
		var part string
		part, args, _ = strings.Cut(args, "&")
		k, v, _ := strings.Cut(part, "=")
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// slotValue returns a set/map/named-capture variable, computing a map on
// first use (and caching it for the request unless the map is volatile).
func (rt *Site) slotValue(r *Request, v *conf.VarRef) string {
	if v.N < len(r.slots) && r.slots[v.N].valid && (v.Map == nil || !v.Map.Volatile) {
		return r.slots[v.N].val
	}
	if v.Map == nil {
		return ""
	}
	m := v.Map
	if m.Geo != nil {
		out := rt.geoValue(r, m)
		r.setSlot(v.N, out)
		return out
	}
	src := rt.eval(r, m.Source)
	val := m.Find(src, func(re *conf.Regex) (bool, error) { return matchRegex(r, re, src) })
	out := rt.eval(r, val)
	r.setSlot(v.N, out)
	return out
}

// geoValue looks the client address up in a geo block: the value of the
// block's address variable, or the connection's address (none for a Unix
// socket); from a trusted proxy, X-Forwarded-For is read.
func (rt *Site) geoValue(r *Request, m *conf.Map) string {
	var src string
	var conn netip.Addr
	if m.Source != nil {
		src = rt.eval(r, m.Source)
	} else if ip, unix := r.clientIP(); !unix {
		conn = ip
	}
	return m.Geo.Value(src, m.Source != nil, conn, func() []string {
		var lines []string
		var all [16]HeaderKV
		for _, h := range r.Header.AppendAll(all[:0]) {
			if strings.EqualFold(h.Name, "X-Forwarded-For") {
				lines = append(lines, h.Value)
			}
		}
		return lines
	})
}

func (r *Request) setSlot(n int, v string) {
	for len(r.slots) <= n {
		r.slots = append(r.slots, slotValue{})
	}
	r.slots[n] = slotValue{val: v, valid: true}
}

// builtin computes a builtin variable.
func (rt *Site) builtin(r *Request, id conf.VarID) string {
	switch id {
	case conf.VarURI, conf.VarDocumentURI:
		return r.uri
	case conf.VarRequestURI:
		return requestURI(r.RawTarget)
	case conf.VarDateLocal, conf.VarDateGMT:
		return rt.ssiDate(r, id == conf.VarDateGMT)
	case conf.VarArgs, conf.VarQueryString:
		return r.args
	case conf.VarIsArgs:
		if r.args != "" {
			return "?"
		}
		return ""
	case conf.VarRequestFilename:
		p, _ := rt.mapURIToPath(r, r.uri)
		return p
	case conf.VarDocumentRoot:
		return rt.documentRoot(r)
	case conf.VarRealpathRoot:
		root := rt.documentRoot(r)
		if real, err := filepath.EvalSymlinks(root); err == nil {
			return real
		}
		return root
	case conf.VarHost:
		if r.host != "" {
			return r.host
		}
		return rt.serverName(r)
	case conf.VarHostname:
		return rt.hostname
	case conf.VarRemoteAddr:
		return r.remoteAddr()
	case conf.VarBinaryRemoteAddr:
		ip, unix := r.clientIP()
		if unix {
			return ""
		}
		// The address's 4 or 16 bytes, as nginx's; one allocation.
		if ip = ip.Unmap(); ip.Is4() {
			a := ip.As4()
			return string(a[:])
		}
		a := ip.As16()
		return string(a[:])
	case conf.VarRemotePort:
		return r.remotePort()
	case conf.VarRemoteUser:
		user, _, _ := authbasic.ParseAuthorization(r.Header.Get("Authorization"))
		return user
	case conf.VarServerAddr:
		if r.Conn.Unix {
			return "unix:"
		}
		return r.Conn.LocalAddr()
	case conf.VarServerPort:
		return r.Conn.Port
	case conf.VarServerName:
		return rt.serverName(r)
	case conf.VarServerProtocol:
		return r.Proto
	case conf.VarScheme:
		if r.Conn.TLS != nil {
			return "https"
		}
		return "http"
	case conf.VarHTTPS:
		if r.Conn.TLS != nil {
			return "on"
		}
		return ""
	case conf.VarRequestMethod:
		// The main request's, in a subrequest too (nginx reads
		// r->main->method_name), as is the request line.
		return r.mainRequest().Method
	case conf.VarRequest:
		m := r.mainRequest()
		if m.Method == "" {
			return "" // no request line was read (nginx logs "")
		}
		return m.Method + " " + m.RawTarget + " " + m.Proto
	case conf.VarStatus:
		if r.resp == nil || r.resp.Status == 0 {
			return "000"
		}
		return strconv.Itoa(r.resp.Status)
	case conf.VarBodyBytesSent:
		return strconv.FormatInt(r.bodySent, 10)
	case conf.VarBytesSent:
		return strconv.FormatInt(r.bodySent+r.headerBytes(), 10)
	case conf.VarRequestTime:
		return formatSeconds(rt.now().Sub(r.Start))
	case conf.VarRequestLength:
		return strconv.FormatInt(r.RequestLength, 10)
	case conf.VarRequestID:
		if r.requestID == "" {
			var b [16]byte
			_, _ = rand.Read(b[:])
			r.requestID = hex.EncodeToString(b[:])
		}
		return r.requestID
	case conf.VarContentType:
		return r.Header.Get("Content-Type")
	case conf.VarContentLength:
		if v := r.Header.Get("Content-Length"); v != "" {
			return v
		}
		if r.bodyLength > 0 {
			// a chunked body, buffered: its length is now known
			return strconv.FormatInt(r.bodyLength, 10)
		}
		return ""
	case conf.VarTimeLocal:
		return rt.clock().local
	case conf.VarTimeISO8601:
		return rt.clock().iso
	case conf.VarMsec:
		t := rt.now()
		return strconv.FormatInt(t.Unix(), 10) + "." + pad3(t.Nanosecond()/1e6)
	case conf.VarConnection:
		return strconv.FormatUint(r.Conn.ID, 10)
	case conf.VarConnectionRequests:
		return strconv.Itoa(r.ConnRequests)
	case conf.VarConnectionTime:
		return formatSeconds(rt.now().Sub(r.Conn.Start))
	case conf.VarNginxVersion:
		return NginxVersion
	case conf.VarPid:
		return strconv.Itoa(os.Getpid())
	case conf.VarLimitRate:
		return r.limitRateVar()
	case conf.VarRequestBody:
		return string(r.bodyMem)
	case conf.VarPipe:
		return "."
	case conf.VarHTTP2:
		if r.Proto == "HTTP/2.0" {
			if r.Conn.TLS != nil {
				return "h2"
			}
			return "h2c"
		}
		return ""
	case conf.VarGzipRatio:
		return r.gzipRatio
	case conf.VarBrotliRatio:
		return r.brotliRatio
	case conf.VarFastCGIScriptName:
		name, _ := rt.splitPathInfo(r)
		return name
	case conf.VarFastCGIPathInfo:
		_, info := rt.splitPathInfo(r)
		return info
	case conf.VarSSLProtocol, conf.VarSSLCipher, conf.VarSSLSessionReused, conf.VarSSLServerName, conf.VarSSLSessionID, conf.VarSSLEarlyData, conf.VarSSLClientVerify:
		return tlsVar(r.Conn.TLS, id)
	case conf.VarUpstreamAddr, conf.VarUpstreamStatus, conf.VarUpstreamResponseTime, conf.VarUpstreamConnectTime,
		conf.VarUpstreamHeaderTime, conf.VarUpstreamResponseLength, conf.VarUpstreamBytesReceived:
		return r.upstreamVar(id)
	case conf.VarProxyHost, conf.VarProxyPort, conf.VarProxyAddXForwardedFor:
		return r.proxyVar(id)
	case conf.VarUpstreamCacheStatus:
		return r.cache.status.String()
	case conf.VarRealIPRemoteAddr:
		return r.realIPRemoteAddr()
	case conf.VarRealIPRemotePort:
		return r.realIPRemotePort()
	case conf.VarLimitReqStatus:
		return r.acc.lim.reqStatus.String()
	case conf.VarLimitConnStatus:
		return r.acc.lim.connStatus.String()
	case conf.VarProxyProtocolAddr, conf.VarProxyProtocolPort, conf.VarProxyProtocolServerAddr, conf.VarProxyProtocolServerPort:
		return r.proxyProtocolVar(id)
	}
	return ""
}

// requestURI is $request_uri: the target as sent, without the scheme and
// host of an absolute-form target ("http://h/p?a" gives "/p?a"), as nginx
// keeps it from uri_start on.
func requestURI(raw string) string {
	if raw == "" || raw[0] == '/' {
		return raw
	}
	i := strings.Index(raw, "://")
	if i <= 0 {
		return raw
	}
	rest := raw[i+3:]
	if j := strings.IndexAny(rest, "/?"); j >= 0 {
		if rest[j] == '?' {
			return "/" + rest[j:]
		}
		return rest[j:]
	}
	return "/"
}

// tlsVar gives the $ssl_* variables.
func tlsVar(cs *tls.ConnectionState, id conf.VarID) string {
	if cs == nil {
		return ""
	}
	switch id {
	case conf.VarSSLProtocol:
		switch cs.Version {
		case tls.VersionTLS13:
			return "TLSv1.3"
		case tls.VersionTLS12:
			return "TLSv1.2"
		}
		return ""
	case conf.VarSSLCipher:
		return openSSLCipherName(cs.CipherSuite)
	case conf.VarSSLSessionReused:
		if cs.DidResume {
			return "r"
		}
		return "."
	case conf.VarSSLServerName:
		return cs.ServerName
	case conf.VarSSLEarlyData:
		return ""
	case conf.VarSSLClientVerify:
		return "NONE"
	}
	return ""
}

// openSSLCipherName gives OpenSSL's name for a suite, which is what nginx
// logs in $ssl_cipher.
func openSSLCipherName(id uint16) string {
	switch id {
	case tls.TLS_AES_128_GCM_SHA256:
		return "TLS_AES_128_GCM_SHA256"
	case tls.TLS_AES_256_GCM_SHA384:
		return "TLS_AES_256_GCM_SHA384"
	case tls.TLS_CHACHA20_POLY1305_SHA256:
		return "TLS_CHACHA20_POLY1305_SHA256"
	case tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256:
		return "ECDHE-ECDSA-AES128-GCM-SHA256"
	case tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384:
		return "ECDHE-ECDSA-AES256-GCM-SHA384"
	case tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256:
		return "ECDHE-RSA-AES128-GCM-SHA256"
	case tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384:
		return "ECDHE-RSA-AES256-GCM-SHA384"
	case tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256:
		return "ECDHE-ECDSA-CHACHA20-POLY1305"
	case tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256:
		return "ECDHE-RSA-CHACHA20-POLY1305"
	}
	return tls.CipherSuiteName(id)
}

// serverName is $server_name: the first name of the server.
func (rt *Site) serverName(r *Request) string {
	if len(r.srv.Names) == 0 {
		return ""
	}
	// nginx's $server_name is the first name, a regexp with its "~", and
	// ".example.com" without its dot (ngx_http_core_merge_srv_conf).
	n := r.srv.Names[0]
	if n.Kind == conf.NameRegex {
		return n.Name
	}
	return strings.TrimPrefix(n.Name, ".")
}

// documentRoot is $document_root: root or alias, variables evaluated.
func (rt *Site) documentRoot(r *Request) string {
	return rt.eval(r, r.loc.Root)
}

// mapURIToPath maps a URI to a file path (ngx_http_map_uri_to_path). It
// also returns the length of the root part. An alias replaces the first
// AliasStrip bytes of the URI (the name of the location it was written
// in); in a regex location it is the whole path, unless try_files found
// a file there (addURIToAlias).
func (rt *Site) mapURIToPath(r *Request, uri string) (string, int) {
	l := r.loc
	root := rt.eval(r, l.Root)
	if l.Alias {
		switch {
		case l.AliasStrip < 0 && !r.addURIToAlias:
			return root, len(root)
		case l.AliasStrip > 0 && len(uri) >= l.AliasStrip:
			uri = uri[l.AliasStrip:]
		}
	}
	return root + uri, len(root)
}

// clockText is the current second formatted for the log variables.
type clockText struct {
	sec        int64
	local, iso string
}

// lastClock caches clockText: every access log line needs $time_local, and
// formatting a time costs more than the rest of the line.
var lastClock atomic.Pointer[clockText]

func (rt *Site) clock() *clockText {
	now := rt.now()
	sec := now.Unix()
	if c := lastClock.Load(); c != nil && c.sec == sec {
		return c
	}
	c := &clockText{sec: sec, local: now.Format("02/Jan/2006:15:04:05 -0700"), iso: now.Format("2006-01-02T15:04:05-07:00")}
	lastClock.Store(c)
	return c
}

// pad3 formats milliseconds with three digits.
func pad3(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

// formatSeconds prints a duration like nginx: seconds with milliseconds.
func formatSeconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	ms := d.Milliseconds()
	return strconv.FormatInt(ms/1000, 10) + "." + pad3(int(ms%1000))
}

// proxyProtocolVar gives the $proxy_protocol_* variables: empty without a
// header or for one without addresses.
func (r *Request) proxyProtocolVar(id conf.VarID) string {
	h := r.Conn.Proxy
	if h == nil {
		return ""
	}
	port := func(p uint16) string {
		if h.SrcAddr == "" && h.DstAddr == "" {
			return ""
		}
		return strconv.Itoa(int(p))
	}
	switch id {
	case conf.VarProxyProtocolAddr:
		return h.SrcAddr
	case conf.VarProxyProtocolPort:
		return port(h.SrcPort)
	case conf.VarProxyProtocolServerAddr:
		return h.DstAddr
	case conf.VarProxyProtocolServerPort:
		return port(h.DstPort)
	}
	return ""
}
