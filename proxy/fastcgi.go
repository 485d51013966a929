// This file connects the pipeline to FastCGI backends (fastcgi_pass): it
// buffers the request body (so a slow upload never holds a PHP worker),
// builds the CGI params from the location's fastcgi_param list and the
// request headers, picks a server (one address, an fpm_pool, or an
// upstream{} with weights, max_fails/fail_timeout, backup and
// fastcgi_next_upstream), and turns the backend's answer into a Response:
// buffered by default so the worker is released at once, streamed with a
// flush per write when fastcgi_buffering is off or the application sends
// "X-Accel-Buffering: no"; X-Accel-Redirect and a bare local Location
// (RFC 3875 6.2.2) become internal redirects, and fastcgi_intercept_errors
// hands error statuses to error_page.
package proxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"edge/conf"
	"edge/fastcgi"
	"edge/fastcgi/fpm"
)

// upstreamState is what a request learned from its backends, for the
// $upstream_* variables: every server tried, in order, as nginx lists
// them ("a, b" for fastcgi_next_upstream, "a : b" across an internal
// redirect to another location that passes to a backend), and the last
// response's header.
type upstreamState struct {
	tries  []upstreamTry
	buf    [2]upstreamTry // the first backing array of tries
	header ResponseHeader
}

// upstreamTry is one server tried. A time of -1 did not happen and shows
// as "-", as does a status of 0.
type upstreamTry struct {
	addr                                  string
	status                                int
	start                                 time.Time
	connectTime, headerTime, responseTime time.Duration
	bytes                                 int64
	pass                                  bool // the first try of a later pass: " : " before it
}

func (u *upstreamState) used() bool { return len(u.tries) > 0 }

// begin records a try of addr starting now.
func (u *upstreamState) begin(addr string, now time.Time, pass bool) *upstreamTry {
	if u.tries == nil {
		u.tries = u.buf[:0]
	}
	u.tries = append(u.tries, upstreamTry{addr: addr, start: now, connectTime: -1, headerTime: -1, responseTime: -1, pass: pass})
	return &u.tries[len(u.tries)-1]
}

// last is the latest try; only called once there is one.
func (u *upstreamState) last() *upstreamTry { return &u.tries[len(u.tries)-1] }

// finish ends the latest try's response: its time and length.
func (u *upstreamState) finish(now time.Time, bytes int64) {
	t := u.last()
	t.responseTime, t.bytes = now.Sub(t.start), bytes
}

// backends holds the FastCGI targets of one site.
type backends struct {
	byPass map[*conf.FastCGIPass]*backend
	plan   *conf.Plan
	sh     *shared
	// byTarget holds the backends by target and fastcgi_keep_conn
	// ("php|true"): those of every fastcgi_pass without variables, and
	// those that a fastcgi_pass with variables named, made on first use
	// (forTarget); dynamic counts the addresses among the latter.
	mu       sync.Mutex
	byTarget map[string]*backend
	dynamic  int
}

// maxDynamicTargets bounds the backends fastcgi_pass with variables keep
// for addresses (forTarget): each keeps clients and counters for the
// site's life, and a variable may come from the request. Past it, a
// new address is served by a backend made for the one request.
const maxDynamicTargets = 256

// targetError is why a fastcgi_pass with variables has no backend: the
// status to answer and the error log line, as nginx words them.
type targetError struct {
	status int
	msg    string
}

// forTarget returns the backend for target, what a fastcgi_pass with
// variables evaluated to, as nginx resolves it (ngx_http_fastcgi_eval,
// ngx_http_upstream_init_request): "unix:PATH" or an IP address with its
// port is used as it is; a name is an upstream{} (or an fpm_pool{}),
// and without one an error; a host name with a port would need a
// resolver, which edge does not have.
func (bs *backends) forTarget(target string, f *conf.FastCGI) (*backend, *targetError) {
	key := target + "|" + strconv.FormatBool(f.KeepConn)
	bs.mu.Lock()
	b, full := bs.byTarget[key], bs.dynamic >= maxDynamicTargets
	bs.mu.Unlock()
	if b != nil {
		return b, nil
	}
	if target == "" {
		return nil, &targetError{500, "no host in upstream \"\""}
	}
	network, address, err := conf.ParseFastCGITarget(target)
	if err != nil {
		return nil, &targetError{500, err.Error()}
	}
	if network == "unix" && address == "" {
		return nil, &targetError{500, "no path in the unix domain socket in upstream \"" + target + "\""}
	}
	p := &conf.FastCGIPass{Raw: target, Network: network, Address: address}
	named := false
	switch host, _, _ := net.SplitHostPort(address); {
	case network == "":
		// Only a name without a port is an upstream{}'s (whose port is
		// none), matched without case as nginx matches it.
		if p.Upstream = findUpstream(bs.plan.HTTP.Upstreams, target); p.Upstream == nil {
			p.Pool = conf.PoolNamed(bs.plan.HTTP.Pools, target)
		}
		if p.Upstream == nil && p.Pool == nil {
			return nil, &targetError{500, "no port in upstream \"" + target + "\""}
		}
		p.Address, named = "", true
	case network == "tcp" && net.ParseIP(host) == nil:
		return nil, &targetError{502, "no resolver defined to resolve " + host}
	}
	if !named && full {
		// A target only the request names: served, but not kept (the
		// variable may come from the client, and each kept target holds
		// clients and counters for the plan's life).
		return oneOffBackend(p, f), nil
	}
	// Made outside the lock: a pool's discovery reads /proc.
	b = makeBackend(p, f, bs.sh, idleBudgets{})
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if old := bs.byTarget[key]; old != nil {
		return old, nil
	}
	if !named {
		if bs.dynamic >= maxDynamicTargets {
			return b, nil // others filled the table meanwhile: not kept
		}
		bs.dynamic++
	}
	bs.byTarget[key] = b
	return b, nil
}

// oneOffBackend serves one request to an address without keeping
// anything: its client is not shared and keeps no connection, as nginx
// keeps none to a target outside an upstream{}.
func oneOffBackend(p *conf.FastCGIPass, f *conf.FastCGI) *backend {
	c := newClient(p.Network, p.Address, 0, 0, f, fastcgi.NewIdleConns(0))
	return &backend{name: p.Raw, servers: []*upServer{{addr: serverAddr(p.Network, p.Address), client: c,
		weight: 1, maxFails: 1, failTimeout: 10 * time.Second}}}
}

// serverAddr is a server's address as $upstream_addr shows it:
// "unix:/x.sock" or "127.0.0.1:9000".
func serverAddr(network, address string) string {
	if network == "unix" {
		return "unix:" + address
	}
	return address
}

// findUpstream returns the upstream{} named name, compared without case.
func findUpstream(ups map[string]*conf.Upstream, name string) *conf.Upstream {
	if u := ups[name]; u != nil {
		return u
	}
	for n, u := range ups {
		if strings.EqualFold(n, name) {
			return u
		}
	}
	return nil
}

// backend is the target of one fastcgi_pass: one or more servers.
type backend struct {
	name    string
	servers []*upServer
	mu      sync.Mutex // guards the weighted round robin
	// counters for the FPM report and metrics
	status502 atomic.Uint64
	status504 atomic.Uint64
	requests  atomic.Uint64
}

// upServer is one server of a backend with its health state.
type upServer struct {
	addr        string // as shown in $upstream_addr: "unix:/x.sock" or "127.0.0.1:9000"
	client      *fastcgi.Client
	weight      int
	current     int // smooth weighted round robin state (under backend.mu)
	maxFails    int
	failTimeout time.Duration
	backup      bool
	down        bool
	fails       atomic.Int32
	failedAt    atomic.Int64 // unix nano of the last failure
}

// bareAddressIdle is how many connections edge keeps to a fastcgi_pass
// address whose pool it does not know (see makeBackend).
const bareAddressIdle = 8

// defaultQueueLimit bounds requests waiting for a PHP worker per backend.
const defaultQueueLimit = 4096

// newBackends makes the clients of every fastcgi_pass in a plan, reusing
// the clients (and their kept connections) of the previous plan when the
// address and limits are the same.
func newBackends(plan *conf.Plan, sh *shared) (*backends, error) {
	b := &backends{byPass: map[*conf.FastCGIPass]*backend{}, plan: plan, sh: sh, byTarget: map[string]*backend{}}
	if plan.HTTP == nil {
		return b, nil
	}
	idle := idleBudgets{}
	// Locations that pass to the same target share one backend, as
	// nginx's locations share an upstream's round robin and failure
	// counts, unless fastcgi_keep_conn differs (the timeouts travel with
	// each request).
	same := b.byTarget
	var walk func(l *conf.Location)
	walk = func(l *conf.Location) {
		if p := l.Content.FastCGI; p != nil && p.Script == nil && b.byPass[p] == nil {
			f := &l.FastCGI
			key := p.Raw + "|" + strconv.FormatBool(f.KeepConn)
			if same[key] == nil {
				same[key] = makeBackend(p, f, sh, idle)
			}
			b.byPass[p] = same[key]
		}
		for _, op := range l.Rewrite {
			_ = walkOps(op, func(in *conf.Location) error { walk(in); return nil })
		}
		for _, c := range l.Prefixes {
			walk(c)
		}
		for _, c := range l.Regexes {
			walk(c)
		}
	}
	for _, srv := range plan.HTTP.Servers {
		walk(srv.Loc)
		for _, op := range srv.Rewrite {
			_ = walkOps(op, func(in *conf.Location) error { walk(in); return nil })
		}
		for _, n := range srv.Named {
			walk(n)
		}
	}
	for addr, limit := range idle {
		sh.idleConns(addr).SetLimit(limit)
	}
	return b, nil
}

// idleBudgets holds, per backend address ("unix|/x.sock"), the most idle
// connections all its clients together may keep: the smallest limit any
// fastcgi_pass to it that keeps connections asks for (an fpm_pool's
// max_children-1, an upstream's keepalive, 1 for a bare address), or 0
// when none does (which also closes what an earlier plan kept). Every
// pass to one php-fpm pool pins
// workers of the same pool, so the limit is the address's, not each
// client's: two locations passing to a pool of two workers with one kept
// connection each would otherwise pin both, and a third concurrent request
// would wait for a worker until fastcgi_read_timeout.
type idleBudgets map[string]int

func (ib idleBudgets) note(network, address string, maxIdle int) {
	key := network + "|" + address
	old, ok := ib[key]
	if !ok || (maxIdle > 0 && (old == 0 || maxIdle < old)) {
		ib[key] = max(maxIdle, 0)
	}
}

// idleConns returns the set of idle connections to an address that every
// client of it shares, kept across reloads like the clients. It lives in
// sh.pools beside the clients, under an "idle|" key no client key can
// take (those start with the network).
func (sh *shared) idleConns(addr string) *fastcgi.IdleConns {
	key := "idle|" + addr
	if s, ok := sh.pools.Load(key); ok {
		return s.(*fastcgi.IdleConns)
	}
	s, _ := sh.pools.LoadOrStore(key, fastcgi.NewIdleConns(0))
	return s.(*fastcgi.IdleConns)
}

// makeBackend builds the servers of one fastcgi_pass. Connection reuse:
// for an fpm_pool edge knows pm.max_children, so it keeps a connection to
// every worker of a pool it runs (one fewer for a pool it only attached
// to) and queues requests beyond max_children; for an upstream, "keepalive N" sets the idle connections;
// for a bare address edge looks for the php-fpm master serving it
// (fpm.DiscoverPool) and treats it like a pool of that size; when
// there is none to read, it keeps up to bareAddressIdle, safe because the
// client never keeps a connection while a new one waits for a worker (a
// kept connection pins its php-fpm worker). fastcgi_keep_conn off keeps
// none.
func makeBackend(p *conf.FastCGIPass, f *conf.FastCGI, sh *shared, idle idleBudgets) *backend {
	b := &backend{name: p.Raw}
	add := func(network, address string, maxConns, maxIdle, weight, maxFails int, failTimeout time.Duration, backup, down bool) {
		if !f.KeepConn {
			maxIdle = 0
		}
		idle.note(network, address, maxIdle)
		c := sh.client(network, address, maxConns, maxIdle, f)
		b.servers = append(b.servers, &upServer{addr: serverAddr(network, address), client: c, weight: max(weight, 1),
			maxFails: maxFails, failTimeout: failTimeout, backup: backup, down: down})
	}
	switch {
	case p.Pool != nil:
		n := p.Pool.MaxChildren
		idle := n
		if p.Pool.External {
			// Others may use a pool edge only attached to: leave them a
			// worker that is never pinned by a kept connection.
			idle = max(n-1, 1)
		}
		add(p.Pool.Network, p.Pool.Address, n, idle, 1, 0, 0, false, false)
	case p.Upstream != nil:
		u := p.Upstream
		for _, s := range u.Servers {
			maxConns := s.MaxConns
			if maxConns == 0 && !s.Down {
				// Without max_conns a server whose php-fpm master is on
				// this machine is bounded by its pool: requests beyond
				// pm.max_children wait in edge, counted, instead of in
				// the kernel's listen queue, and a finished connection
				// goes straight to the next of them.
				if pool, ok := fpm.DiscoverPool(s.Network, s.Address); ok {
					maxConns = pool.MaxChildren
					sh.errLog.Logf(conf.LevelInfo, "upstream %s server %s: php-fpm pool \"%s\" (%s) has pm.max_children %d", u.Name, s.Address, pool.Name, pool.ConfigFile, maxConns)
				}
			}
			add(s.Network, s.Address, maxConns, u.Keepalive, s.Weight, s.MaxFails, s.FailTimeout, s.Backup, s.Down)
		}
	default:
		// The pool's size is unknown: keep a few connections. The client
		// closes a finished kept connection instead of keeping it while a
		// new connection to the address waits for a worker, so kept ones
		// never starve the pool (fastcgi.IdleConns).
		if pool, ok := fpm.DiscoverPool(p.Network, p.Address); ok {
			// A php-fpm master on this machine says how many workers the
			// pool has: use them all but one (the pool may serve other
			// clients too) and queue the excess in edge.
			n := pool.MaxChildren
			sh.errLog.Logf(conf.LevelInfo, "fastcgi_pass %s: php-fpm pool \"%s\" (%s) has pm.max_children %d", p.Raw, pool.Name, pool.ConfigFile, n)
			add(p.Network, p.Address, n, max(n-1, 1), 1, 1, 10*time.Second, false, false)
			break
		}
		add(p.Network, p.Address, 0, bareAddressIdle, 1, 1, 10*time.Second, false, false)
	}
	return b
}

// client returns the shared FastCGI client for an address and limits.
func (sh *shared) client(network, address string, maxConns, maxIdle int, f *conf.FastCGI) *fastcgi.Client {
	// One Client per address, bound and keeping or not: locations whose
	// timeouts or keepalive counts differ share it and its bound on the
	// requests in flight. Their timeouts go with each request, and the
	// kept connections are counted in the address's shared set, whose
	// limit is the smallest any of them asks for (idleBudgets).
	key := network + "|" + address + "|" + strconv.Itoa(maxConns) + "|" + strconv.FormatBool(maxIdle > 0)
	if c, ok := sh.pools.Load(key); ok {
		return c.(*fastcgi.Client)
	}
	c := newClient(network, address, maxConns, maxIdle, f, sh.idleConns(network+"|"+address))
	actual, _ := sh.pools.LoadOrStore(key, c)
	return actual.(*fastcgi.Client)
}

// newClient makes a FastCGI client for an address with a location's
// timeouts; idle is the set its kept connections are counted in.
func newClient(network, address string, maxConns, maxIdle int, f *conf.FastCGI, idle *fastcgi.IdleConns) *fastcgi.Client {
	return &fastcgi.Client{
		Network:        network,
		Address:        address,
		MaxConns:       maxConns,
		MaxIdle:        maxIdle,
		QueueLimit:     defaultQueueLimit,
		QueueTimeout:   f.ConnectTimeout,
		ConnectTimeout: f.ConnectTimeout,
		SendTimeout:    f.SendTimeout,
		ReadTimeout:    f.ReadTimeout,
		Idle:           idle,
	}
}

// pick chooses a live server with nginx's smooth weighted round robin,
// skipping servers marked failed; backups are used when no primary is
// live. tried excludes servers already tried for this request.
func (b *backend) pick(now time.Time, tried []*upServer) *upServer {
	// nginx never takes the only server of a backend out of rotation
	// (peers->single in ngx_http_upstream_get_round_robin_peer): with
	// nowhere else to go, one timeout must not turn the requests of the
	// next fail_timeout into 502s.
	if len(b.servers) == 1 {
		if s := b.servers[0]; !s.down && !contains(tried, s) {
			return s
		}
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, backup := range []bool{false, true} {
		var best *upServer
		total := 0
		for _, s := range b.servers {
			if s.backup != backup || s.down || contains(tried, s) || !s.live(now) {
				continue
			}
			s.current += s.weight
			total += s.weight
			if best == nil || s.current > best.current {
				best = s
			}
		}
		if best != nil {
			best.current -= total
			return best
		}
	}
	return nil
}

func contains(list []*upServer, s *upServer) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// live applies max_fails/fail_timeout: a server that failed max_fails
// times is skipped until fail_timeout has passed since the last failure.
func (s *upServer) live(now time.Time) bool {
	if s.maxFails == 0 || int(s.fails.Load()) < s.maxFails {
		return true
	}
	if now.UnixNano()-s.failedAt.Load() >= int64(s.failTimeout) {
		s.fails.Store(0)
		return true
	}
	return false
}

func (s *upServer) fail(now time.Time) {
	s.failedAt.Store(now.UnixNano())
	s.fails.Add(1)
}

// fcgiCall is a pooled FastCGI request (with its params buffer) and the
// request it carries, so that its Stderr callback is bound once.
type fcgiCall struct {
	req fastcgi.Request
	rt  *site
	r   *Request
	// inBody is set once the response header is in: stderr is then
	// logged "while reading upstream", as nginx words it.
	inBody bool
}

var fcgiCalls = sync.Pool{New: func() any {
	c := new(fcgiCall)
	c.req.Stderr = c.stderr
	return c
}}

// stderr logs what PHP wrote to FCGI_STDERR as nginx does.
func (c *fcgiCall) stderr(msg []byte) {
	while := "reading response header from upstream"
	if c.inBody {
		while = "reading upstream"
	}
	c.rt.log.errorf(c.r, "FastCGI sent in stderr: \"%s\" while %s, upstream: \"fastcgi://%s\"", msg, while, c.r.up.last().addr)
}

// fastcgi forwards the request to the location's backend.
func (rt *site) fastcgi(r *Request) (step, int) {
	l := r.loc
	b := rt.backends.byPass[l.Content.FastCGI]
	if p := l.Content.FastCGI; p.Script != nil {
		var terr *targetError
		if b, terr = rt.backends.forTarget(rt.eval(r, p.Script), &l.FastCGI); terr != nil {
			rt.log.errorf(r, "%s", terr.msg)
			return stepDone, terr.status
		}
	}
	if b == nil {
		rt.log.errorf(r, "no FastCGI backend for \"%s\"", l.Content.FastCGI.Raw)
		return stepDone, 500
	}
	// CVE-2019-11043: a line break in the path made php-fpm's PATH_INFO
	// handling underflow a buffer. No script name or path info with a
	// line break is ever handed to PHP.
	if strings.ContainsAny(r.uri, "\r\n") {
		rt.log.errorf(r, "refusing to pass a URI with a line break to FastCGI")
		return stepDone, 404
	}
	body, bodyLen, status := rt.readBody(r)
	if status != 0 {
		return stepDone, status
	}
	if body != nil {
		if f, ok := body.(*os.File); ok {
			defer f.Close()
		}
	}
	r.bodyLength = bodyLen
	call := fcgiCalls.Get().(*fcgiCall)
	call.rt, call.r = rt, r
	req := &call.req
	defer func() {
		if r.resp.Kind == BodyStream {
			// The response is read after this returns and PHP may still
			// write to stderr: the call stays with it, unpooled.
			return
		}
		req.Params.Reset()
		req.Body = nil
		call.rt, call.r, call.inBody = nil, nil, false
		fcgiCalls.Put(call)
	}()
	rt.buildParams(r, &req.Params)
	req.NonIdempotent = nonIdempotent(r.Method) && !slices.Contains(l.FastCGI.NextUpstream, "non_idempotent")
	req.ConnectTimeout, req.SendTimeout, req.ReadTimeout = l.FastCGI.ConnectTimeout, l.FastCGI.SendTimeout, l.FastCGI.ReadTimeout
	req.QueueTimeout = l.FastCGI.ConnectTimeout
	req.CatchStderr = l.FastCGI.CatchStderr
	if l.FastCGI.PassRequestBody && body != nil {
		req.Body = body
	}
	b.requests.Add(1)
	resp, srv, status := rt.roundTrip(r, b, req, body)
	if status != 0 {
		return stepDone, status
	}
	call.inBody = true
	return rt.fastcgiResponse(r, b, srv, resp)
}

// roundTrip sends the request to a server, trying the next one on the
// failures fastcgi_next_upstream names (the body is buffered, so it can be
// sent again).
func (rt *site) roundTrip(r *Request, b *backend, req *fastcgi.Request, body io.Reader) (*fastcgi.Response, *upServer, int) {
	f := &r.loc.FastCGI
	var tried []*upServer
	tries := f.NextUpstreamTries
	if tries == 0 {
		tries = len(b.servers)
	}
	pass := r.up.used() // an earlier location passed this request on
	for {
		now := rt.now()
		srv := b.pick(now, tried)
		if srv == nil {
			rt.log.errorf(r, "no live upstreams while connecting to upstream, upstream: \"fastcgi://%s\"", b.name)
			b.status502.Add(1)
			// nginx shows the group's name and 502 for it.
			t := r.up.begin(b.name, now, pass && len(tried) == 0)
			t.status, t.responseTime = 502, 0
			return nil, nil, 502
		}
		tried = append(tried, srv)
		t := r.up.begin(srv.addr, now, pass && len(tried) == 1)
		if seeker, ok := body.(io.Seeker); ok && len(tried) > 1 {
			_, _ = seeker.Seek(0, io.SeekStart)
		}
		resp, err := srv.client.Do(r.context(), req)
		end := rt.now()
		if err == nil {
			if srv.fails.Load() > 0 {
				srv.fails.Store(0)
			}
			t.connectTime, t.headerTime = resp.ConnectTime, end.Sub(t.start)
			return resp, srv, 0
		}
		status, what := fastcgiErrorStatus(err)
		t.status, t.responseTime = status, end.Sub(t.start)
		if !errors.Is(err, fastcgi.ErrStderrCaught) {
			// nginx logs nothing more than the stderr line it caught.
			rt.log.errorf(r, "%s (%v) while %s, upstream: \"fastcgi://%s\"", what, err, "reading response header from upstream", srv.addr)
		}
		srv.fail(now)
		// Like nginx, a POST, LOCK or PATCH that may have reached a
		// server goes to no other unless "non_idempotent" says so.
		sent := !errors.Is(err, fastcgi.ErrNotSent)
		if len(tried) < tries && nextUpstreamAllows(f.NextUpstream, err) && !(req.NonIdempotent && sent) {
			continue
		}
		if status == 504 {
			b.status504.Add(1)
		} else {
			b.status502.Add(1)
		}
		return nil, nil, status
	}
}

// nonIdempotent reports nginx's non-idempotent methods: a request with one
// is never sent twice unless fastcgi_next_upstream has non_idempotent.
func nonIdempotent(method string) bool {
	return method == "POST" || method == "LOCK" || method == "PATCH"
}

// fastcgiErrorStatus maps a client error to nginx's status and words.
func fastcgiErrorStatus(err error) (int, string) {
	switch {
	case errors.Is(err, fastcgi.ErrTimeout):
		return 504, "upstream timed out"
	case errors.Is(err, fastcgi.ErrConnect):
		return 502, "connect() failed"
	case errors.Is(err, fastcgi.ErrInvalidHeader):
		return 502, "upstream sent invalid header"
	case errors.Is(err, fastcgi.ErrQueueFull), errors.Is(err, fastcgi.ErrQueueTimeout):
		return 502, "no PHP worker became free"
	}
	return 502, "upstream prematurely closed connection"
}

// nextUpstreamAllows applies fastcgi_next_upstream to an error.
func nextUpstreamAllows(list []string, err error) bool {
	for _, v := range list {
		switch v {
		case "off":
			return false
		case "error":
			if errors.Is(err, fastcgi.ErrConnect) || errors.Is(err, fastcgi.ErrProtocol) {
				return true
			}
		case "timeout":
			if errors.Is(err, fastcgi.ErrTimeout) {
				return true
			}
		case "invalid_header":
			if errors.Is(err, fastcgi.ErrInvalidHeader) {
				return true
			}
		}
	}
	return false
}

// fastcgiHidden are the backend headers nginx never passes on
// (ngx_http_fastcgi_hide_headers) plus hop-by-hop ones.
var fastcgiHidden = map[string]bool{
	"status": true, "x-accel-expires": true, "x-accel-redirect": true, "x-accel-limit-rate": true,
	"x-accel-buffering": true, "x-accel-charset": true,
	"connection": true, "keep-alive": true, "transfer-encoding": true, "proxy-connection": true,
	"te": true, "trailer": true, "upgrade": true,
}

// redirectKept are the headers an X-Accel-Redirect keeps from the
// backend's response.
var redirectKept = map[string]bool{"set-cookie": true, "content-disposition": true, "cache-control": true, "expires": true}

// fastcgiResponse turns the backend's response into r.resp.
func (rt *site) fastcgiResponse(r *Request, b *backend, srv *upServer, resp *fastcgi.Response) (step, int) {
	f := &r.loc.FastCGI
	out := r.resp
	r.up.last().status = resp.Status
	var accelRedirect, accelBuffering, location string
	for _, h := range resp.Header {
		name, lname := headerName(h.Name)
		value := string(h.Value)
		r.up.header.Add(name, value)
		switch lname {
		case "x-accel-redirect":
			if !ignored(f, lname) {
				accelRedirect = value
			}
		case "x-accel-buffering":
			if !ignored(f, lname) {
				accelBuffering = value
			}
		case "location":
			location = value
		}
		if (fastcgiHidden[lname] || hiddenByConf(f, lname)) && !passedByConf(f, lname) {
			continue
		}
		out.Header.Add(name, value)
	}
	status := resp.Status
	// X-Accel-Redirect: serve another (internal) location instead.
	if accelRedirect != "" {
		resp.Close()
		kept := out.Header.list
		out.Header.list = out.Header.list[:0]
		for _, h := range kept {
			if redirectKept[strings.ToLower(h.name)] {
				out.Header.list = append(out.Header.list, h)
			}
		}
		if r.Method != "HEAD" {
			r.Method = "GET"
		}
		r.ContentLength = 0
		if strings.HasPrefix(accelRedirect, "@") {
			return rt.namedRedirect(r, accelRedirect)
		}
		return rt.internalRedirect(r, accelRedirect)
	}
	// RFC 3875 6.2.2: a Location with a local path and no Status is a
	// local redirect: the server serves that URI instead.
	if resp.StatusImplied && strings.HasPrefix(location, "/") {
		resp.Close()
		out.Header.reset()
		r.Method = "GET"
		r.ContentLength = 0
		return rt.internalRedirect(r, location)
	}
	if f.InterceptErrors && status >= 300 && r.loc.ErrorPages[status] != nil {
		resp.Close()
		out.Header.reset()
		return stepDone, status
	}
	out.Status = status
	if len(resp.Reason) > 0 {
		out.Reason, out.ReasonFor = string(resp.Reason), status
	}
	if !out.Header.Has("Content-Type") {
		out.Header.Set("Content-Type", r.loc.DefaultType)
	}
	buffering := f.Buffering
	if accelBuffering != "" {
		buffering = !strings.EqualFold(accelBuffering, "no")
	}
	if r.Method == "HEAD" {
		resp.Close()
		out.Kind = BodyNone
		out.Length = -1
		return stepDone, 0
	}
	if buffering {
		return stepDone, rt.bufferResponse(r, b, resp)
	}
	rt.streamResponse(r, resp)
	return stepDone, 0
}

// commonHeaderNames are the names PHP sends most, as PHP spells them,
// each with its lower-case form.
var commonHeaderNames = func() map[string][2]string {
	m := map[string][2]string{}
	for _, n := range []string{"Content-Type", "Content-type", "Set-Cookie", "Location", "Cache-Control",
		"Expires", "Pragma", "X-Powered-By", "Content-Length", "Last-Modified", "ETag", "Vary", "Link",
		"X-Accel-Buffering", "X-Accel-Redirect", "Status", "Content-Disposition", "X-Frame-Options"} {
		m[n] = [2]string{n, strings.ToLower(n)}
	}
	return m
}()

// headerName returns a response header name as a string of its own, and
// its lower-case form: the bytes belong to the fastcgi.Response, which is
// recycled (and its buffer reused by another request) at Close, while
// the name lives on in the response headers until they are written.
// Common names cost no allocation.
func headerName(b []byte) (name, lower string) {
	if n, ok := commonHeaderNames[string(b)]; ok {
		return n[0], n[1]
	}
	name = string(b)
	return name, strings.ToLower(name)
}

func ignored(f *conf.FastCGI, lname string) bool {
	for _, h := range f.IgnoreHeaders {
		if h == lname {
			return true
		}
	}
	return false
}

func hiddenByConf(f *conf.FastCGI, lname string) bool {
	for _, h := range f.HideHeaders {
		if h == lname {
			return true
		}
	}
	return false
}

func passedByConf(f *conf.FastCGI, lname string) bool {
	for _, h := range f.PassHeaders {
		if h == lname {
			return true
		}
	}
	return false
}

// readUpTo reads r into buf until EOF or until buf holds limit bytes (like
// io.Copy from an io.LimitReader, without allocating one).
func readUpTo(buf *bytes.Buffer, r io.Reader, limit int) error {
	for buf.Len() < limit {
		buf.Grow(min(32<<10, limit-buf.Len()))
		free := buf.AvailableBuffer()
		free = free[:min(cap(free), limit-buf.Len())]
		n, err := r.Read(free)
		buf.Write(free[:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// memResponseLimit is the largest response kept in memory; beyond it the
// rest goes to a temp file (nginx's fastcgi_buffers + fastcgi_temp_path).
const memResponseLimit = 1 << 20

var respBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// bufferResponse reads the whole response so the PHP worker is free before
// the client has read a byte.
func (rt *site) bufferResponse(r *Request, b *backend, resp *fastcgi.Response) int {
	out := r.resp
	buf := respBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	err := readUpTo(buf, resp.Body, memResponseLimit)
	var spill *os.File
	if err == nil && buf.Len() == memResponseLimit {
		spill, err = rt.spillResponse(r, buf, resp.Body)
	}
	resp.Close()
	if err != nil {
		r.up.finish(rt.now(), int64(buf.Len()))
		respBuffers.Put(buf)
		if spill != nil {
			spill.Close()
		}
		status, what := fastcgiErrorStatus(err)
		rt.log.errorf(r, "%s (%v) while reading upstream, upstream: \"fastcgi://%s\"", what, err, r.up.last().addr)
		if status == 504 {
			b.status504.Add(1)
		} else {
			b.status502.Add(1)
		}
		out.Header.reset()
		return status
	}
	if spill != nil {
		respBuffers.Put(buf)
		st, _ := spill.Stat()
		out.Kind, out.File, out.CloseFile, out.Offset, out.Length = BodyFile, spill, true, 0, st.Size()
		r.up.finish(rt.now(), out.Length)
		return 0
	}
	out.Kind = BodyBytes
	out.Bytes = buf.Bytes()
	out.Length = int64(buf.Len())
	out.pooled = buf
	r.up.finish(rt.now(), out.Length)
	return 0
}

// spillResponse moves a large response into an unlinked temp file.
func (rt *site) spillResponse(r *Request, head *bytes.Buffer, rest io.Reader) (*os.File, error) {
	dir := r.loc.ClientBodyTempPath
	if dir != "" {
		_ = os.MkdirAll(dir, 0o700)
	}
	f, err := os.CreateTemp(dir, "fastcgi-")
	if err != nil {
		f, err = os.CreateTemp("", "edge-fastcgi-")
		if err != nil {
			return nil, err
		}
	}
	os.Remove(f.Name())
	if _, err := f.Write(head.Bytes()); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := io.Copy(f, rest); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// streamResponse sends the body as PHP writes it, flushing each chunk
// (server-sent events, long polls, progress output).
func (rt *site) streamResponse(r *Request, resp *fastcgi.Response) {
	out := r.resp
	out.Kind = BodyStream
	out.Length = -1
	out.Stream = func(w io.Writer, flush func() error) error {
		var read int64
		defer func() {
			resp.Close()
			r.up.finish(rt.now(), read)
		}()
		buf := make([]byte, 16<<10)
		for {
			n, err := resp.Body.Read(buf)
			read += int64(n)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return werr
				}
				if ferr := flush(); ferr != nil {
					return ferr
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
}

// readBody buffers the request body (fastcgi_request_buffering, and always
// for a body of unknown length, which FastCGI cannot carry): in memory up
// to client_body_buffer_size, then in a temp file under
// client_body_temp_path. It enforces client_max_body_size on the bytes
// actually read (413) and client_body_timeout between reads (408).
func (rt *site) readBody(r *Request) (io.Reader, int64, int) {
	if r.Body == nil || r.ContentLength == 0 {
		return nil, 0, 0
	}
	l := r.loc
	limit := l.ClientMaxBodySize
	if !l.FastCGI.RequestBuffering && r.ContentLength > 0 {
		return io.LimitReader(r.Body, r.ContentLength), r.ContentLength, 0
	}
	memMax := l.ClientBodyBufferSize
	if memMax <= 0 {
		memMax = 16 << 10
	}
	var mem bytes.Buffer
	if r.ContentLength > 0 && r.ContentLength <= memMax {
		mem.Grow(int(r.ContentLength))
	}
	n, err := io.Copy(&mem, io.LimitReader(r.Body, memMax+1))
	if err != nil {
		return nil, 0, rt.bodyReadError(r, err)
	}
	if limit > 0 && n > limit {
		rt.log.errorf(r, "client intended to send too large chunked body: %d+ bytes", n)
		return nil, 0, 413
	}
	if n <= memMax {
		return bytes.NewReader(mem.Bytes()), n, 0
	}
	dir := l.ClientBodyTempPath
	_ = os.MkdirAll(dir, 0o700)
	f, err := os.CreateTemp(dir, "body-")
	if err != nil {
		rt.log.critf(r, "could not create a temp file for the request body in \"%s\" (%v)", dir, err)
		return nil, 0, 500
	}
	os.Remove(f.Name())
	if _, err := f.Write(mem.Bytes()); err != nil {
		f.Close()
		return nil, 0, 500
	}
	var src io.Reader = r.Body
	if limit > 0 {
		src = io.LimitReader(r.Body, limit-n+1)
	}
	m, err := io.Copy(f, src)
	if err != nil {
		f.Close()
		return nil, 0, rt.bodyReadError(r, err)
	}
	total := n + m
	if limit > 0 && total > limit {
		f.Close()
		rt.log.errorf(r, "client intended to send too large body: %d+ bytes", total)
		return nil, 0, 413
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, 0, 500
	}
	return f, total, 0
}

// bodyReadError logs a failed read of the request body as nginx does and
// returns its status: 408 when client_body_timeout passed between two
// reads, 400 when the client went away.
func (rt *site) bodyReadError(r *Request, err error) int {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		rt.log.infof(r, "client timed out (110: Connection timed out) while reading client request body")
		return 408
	}
	rt.log.infof(r, "client prematurely closed connection while reading client request body (%v)", err)
	return 400
}

// buildParams makes the CGI params: the location's fastcgi_param list in
// order (values evaluated for this request, if_not_empty honoured), then
// one HTTP_* param per request header unless a fastcgi_param already set
// that name. Headers with "_" are dropped when the server ignores invalid
// headers and underscores_in_headers is off, as nginx ignores them (the
// HTTP/1 header view has already left out every invalid name; HTTP/2's
// relies on this), and "Proxy" is never passed
// (httpoxy, CVE-2016-5385). Repeated headers are joined with ", " (Cookie
// with "; "), so PHP sees every value.
func (rt *site) buildParams(r *Request, p *fastcgi.Params) {
	l := r.loc
	var set [16]string
	setNames := set[:0]
	for i := range l.FastCGI.Params {
		fp := &l.FastCGI.Params[i]
		v := rt.eval(r, fp.Value)
		if fp.IfNotEmpty && v == "" {
			continue
		}
		p.Add(fp.Name, v)
		if strings.HasPrefix(fp.Name, "HTTP_") {
			setNames = append(setNames, fp.Name)
		}
	}
	if !l.FastCGI.PassRequestHeaders {
		return
	}
	var store [32]headerKV
	list := store[:0]
	r.headers = r.Header.appendAll(r.headers[:0])
next:
	for _, h := range r.headers {
		if strings.IndexByte(h.name, '_') >= 0 && !r.srv.UnderscoresInHeaders && r.srv.IgnoreInvalidHeaders {
			continue
		}
		if strings.EqualFold(h.name, "Proxy") {
			continue
		}
		key := cgiHeaderName(h.name)
		for _, s := range setNames {
			if s == key {
				continue next
			}
		}
		for i := range list {
			if list[i].name == key {
				sep := ", "
				if key == "HTTP_COOKIE" {
					sep = "; "
				}
				list[i].value += sep + h.value
				continue next
			}
		}
		list = append(list, headerKV{key, h.value})
	}
	for _, h := range list {
		p.Add(h.name, h.value)
	}
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
func (rt *site) splitPathInfo(r *Request) (script, pathInfo string) {
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

func (r *Request) upstreamHeader(name string) string {
	if !r.up.used() {
		return ""
	}
	return r.up.header.Get(name)
}

// upstreamVar gives the $upstream_* variables: one value per server
// tried, separated as nginx separates them.
func (r *Request) upstreamVar(id conf.VarID) string {
	tries := r.up.tries
	if len(tries) == 1 {
		return tries[0].field(id)
	}
	var b strings.Builder
	for i := range tries {
		t := &tries[i]
		if t.pass {
			b.WriteString(" : ")
		} else if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.field(id))
	}
	return b.String()
}

// field is one try's value of an $upstream_* variable.
func (t *upstreamTry) field(id conf.VarID) string {
	switch id {
	case conf.VarUpstreamAddr:
		return t.addr
	case conf.VarUpstreamStatus:
		if t.status == 0 {
			return "-"
		}
		return strconv.Itoa(t.status)
	case conf.VarUpstreamHeaderTime:
		return upstreamSeconds(t.headerTime)
	case conf.VarUpstreamConnectTime:
		// 0.000 for a kept connection, as nginx prints it.
		return upstreamSeconds(t.connectTime)
	case conf.VarUpstreamResponseTime:
		if t.responseTime < 0 { // closed before its body was read
			return upstreamSeconds(t.headerTime)
		}
		return upstreamSeconds(t.responseTime)
	case conf.VarUpstreamResponseLength, conf.VarUpstreamBytesReceived:
		return strconv.FormatInt(t.bytes, 10)
	}
	return ""
}

func upstreamSeconds(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return formatSeconds(d)
}

// fastcgiStats returns the clients' counters by backend name, with the
// 502/504 counts edge answered, for the FPM report and metrics.
func (rt *site) fastcgiStats() map[string]BackendStats {
	out := map[string]BackendStats{}
	if rt.backends == nil {
		return out
	}
	// Locations may share a backend, and backends a client: count each
	// once per name.
	type named struct {
		name   string
		client *fastcgi.Client
	}
	seenBackend, seenClient := map[*backend]bool{}, map[named]bool{}
	rt.backends.mu.Lock()
	defer rt.backends.mu.Unlock()
	for _, b := range rt.backends.byTarget {
		if seenBackend[b] {
			continue
		}
		seenBackend[b] = true
		bs := out[b.name]
		bs.Requests += b.requests.Load()
		bs.Status502 += b.status502.Load()
		bs.Status504 += b.status504.Load()
		for _, s := range b.servers {
			if k := (named{b.name, s.client}); !seenClient[k] {
				seenClient[k] = true
				bs.Clients = append(bs.Clients, s.client.Stats())
			}
		}
		out[b.name] = bs
	}
	return out
}

// BackendStats is what edge saw of one FastCGI backend.
type BackendStats struct {
	Requests  uint64
	Status502 uint64
	Status504 uint64
	Clients   []fastcgi.Stats
}

func (rt *site) statusHandler(r *Request) int { return rt.fpmContent(r) }
