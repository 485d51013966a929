// This file chooses the FastCGI server a request goes to and keeps its
// health: the backends of a plan (one per fastcgi_pass, and those a
// fastcgi_pass with variables resolves to), smooth weighted round robin
// over an upstream's servers, max_fails/fail_timeout, fastcgi_next_upstream
// retries, the $upstream_* variables and the counters of each backend.
package proxy

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"edge/conf"
	"edge/fastcgi"
	"edge/fastcgi/fpm"
	"edge/proxy/httpproxy"
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
	// unsettled: the response was read (finish) but the upstream part of
	// the request is not over for nginx, which sets the response time
	// when it finalizes the upstream, after the header filters: until
	// settle, $upstream_response_time shows "-" for this try
	// (nginx-tests proxy.t 19).
	unsettled bool
}

func (u *upstreamState) used() bool { return len(u.tries) > 0 }

// begin records a try of addr starting now.
func (u *upstreamState) begin(addr string, now time.Time, pass bool) *upstreamTry {
	if u.tries == nil {
		u.tries = u.buf[:0]
	}
	u.settle() // a try before this one is over
	u.tries = append(u.tries, upstreamTry{addr: addr, start: now, connectTime: -1, headerTime: -1, responseTime: -1, pass: pass})
	return &u.tries[len(u.tries)-1]
}

// last is the latest try; only called once there is one.
func (u *upstreamState) last() *upstreamTry { return &u.tries[len(u.tries)-1] }

// finish ends the latest try's response: its time and length. The time
// shows once the request settles.
func (u *upstreamState) finish(now time.Time, bytes int64) {
	t := u.last()
	t.responseTime, t.bytes, t.unsettled = now.Sub(t.start), bytes, true
}

// settle is where nginx finalizes the upstream: an internal redirect
// (error_page, X-Accel-Redirect), an error answer, the log phase. From
// then on the latest try's response time shows.
func (u *upstreamState) settle() {
	if len(u.tries) > 0 {
		u.last().unsettled = false
	}
}

// backends holds the FastCGI targets of one site.
type backends struct {
	byPass map[*conf.FastCGIPass]*backend
	plan   *conf.Plan
	sh     *Shared
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
// and without one an error; a host name with a port is resolved by
// resolve (nil: no resolver), for the one request.
func (bs *backends) forTarget(target string, f *conf.FastCGI, resolve func(host string) ([]netip.Addr, *targetError)) (*backend, *targetError) {
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
	case network == "tcp" && net.ParseIP(host) == nil && !bs.plan.HTTP.NamedPasses[strings.ToLower(address)]:
		// A name no fastcgi_pass or proxy_pass without variables names
		// with this port (those are dialled by name, as the static one).
		if resolve == nil {
			return nil, &targetError{502, "no resolver defined to resolve " + host}
		}
		addrs, terr := resolve(host)
		if terr != nil {
			return nil, terr
		}
		_, port, _ := net.SplitHostPort(address)
		return resolvedFastCGIBackend(target, port, addrs, func(address string) *fastcgi.Client {
			return newClient("tcp", address, 0, 0, f, fastcgi.NewIdleConns(0))
		}), nil
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
	return conf.FormatAddress(network, address)
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
	http        *httpproxy.Upstream // proxy_pass: the address and keep-alive; timeouts are set per request
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
func newBackends(plan *conf.Plan, sh *Shared) (*backends, error) {
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
	_ = plan.EachLocation(func(l *conf.Location) error {
		if p := l.Content.FastCGI; p != nil && p.Script == nil && b.byPass[p] == nil {
			f := &l.FastCGI
			key := p.Raw + "|" + strconv.FormatBool(f.KeepConn)
			if same[key] == nil {
				same[key] = makeBackend(p, f, sh, idle)
			}
			b.byPass[p] = same[key]
		}
		return nil
	})
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
func (sh *Shared) idleConns(addr string) *fastcgi.IdleConns {
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
func makeBackend(p *conf.FastCGIPass, f *conf.FastCGI, sh *Shared, idle idleBudgets) *backend {
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
func (sh *Shared) client(network, address string, maxConns, maxIdle int, f *conf.FastCGI) *fastcgi.Client {
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

// roundTrip sends the request to a server, trying the next one on the
// failures fastcgi_next_upstream names (the body is buffered, so it can be
// sent again).
func (rt *Site) roundTrip(r *Request, b *backend, req *fastcgi.Request, body io.Reader) (*fastcgi.Response, *upServer, int) {
	f := &r.loc.FastCGI
	var resp *fastcgi.Response
	ctx, stop := rt.upstreamContext(r, f.IgnoreClientAbort)
	defer stop()
	srv, status := rt.tryServers(r, b, f.NextUpstreamTries, "fastcgi", func(srv *upServer, t *upstreamTry, again, _ bool) (int, bool) {
		if seeker, ok := body.(io.Seeker); ok && again {
			_, _ = seeker.Seek(0, io.SeekStart)
		}
		var err error
		resp, err = srv.client.Do(ctx, req)
		end := rt.now()
		if err == nil {
			t.connectTime, t.headerTime = resp.ConnectTime, end.Sub(t.start)
			return 0, false
		}
		if rt.clientClosed(r, ctx) {
			t.status, t.responseTime = 499, end.Sub(t.start)
			return 499, false
		}
		status, what := fastcgiErrorStatus(err)
		t.status, t.responseTime = status, end.Sub(t.start)
		if ce := (*fastcgi.ConnectedError)(nil); errors.As(err, &ce) {
			t.connectTime = ce.ConnectTime
		}
		if !errors.Is(err, fastcgi.ErrStderrCaught) {
			// nginx logs nothing more than the stderr line it caught.
			rt.log.errorf(r, "%s (%v) while %s, upstream: \"fastcgi://%s\"", what, err, "reading response header from upstream", srv.addr)
		}
		// Like nginx, a POST, LOCK or PATCH that may have reached a
		// server goes to no other unless "non_idempotent" says so.
		sent := !errors.Is(err, fastcgi.ErrNotSent)
		return status, nextUpstreamAllows(f.NextUpstream, err) && !(req.NonIdempotent && sent)
	})
	return resp, srv, status
}

// tryServers is the next_upstream loop fastcgi_pass and proxy_pass share:
// it picks a server (weights, max_fails/fail_timeout, backup), records
// the try for $upstream_*, and calls try, which returns 0 when the server
// answered, or the status nginx answers and whether next_upstream lets
// another server be tried; a failed server is counted against max_fails.
// again is true from the second try on; more says that another try is
// possible (a response next_upstream names by its status is passed on
// when there is none). tries is next_upstream_tries (0: every server).
func (rt *Site) tryServers(r *Request, b *backend, tries int, scheme string, try func(srv *upServer, t *upstreamTry, again, more bool) (int, bool)) (*upServer, int) {
	var tried []*upServer
	if tries == 0 {
		tries = len(b.servers)
	}
	pass := r.up.used() // an earlier location passed this request on
	for {
		now := rt.now()
		srv := b.pick(now, tried)
		if srv == nil {
			rt.log.errorf(r, "no live upstreams while connecting to upstream, upstream: \"%s://%s\"", scheme, b.name)
			b.status502.Add(1)
			// nginx shows the group's name and 502 for it.
			t := r.up.begin(b.name, now, pass && len(tried) == 0)
			t.status, t.responseTime = 502, 0
			return nil, 502
		}
		tried = append(tried, srv)
		t := r.up.begin(srv.addr, now, pass && len(tried) == 1)
		more := len(tried) < tries && len(tried) < len(b.servers)
		status, next := try(srv, t, len(tried) > 1, more)
		if status == 0 {
			// As nginx (ngx_http_upstream_free_round_robin_peer), a
			// success forgets earlier failures only once fail_timeout has
			// passed since the last one: a server that fails every third
			// request still reaches max_fails.
			if srv.fails.Load() > 0 && now.UnixNano()-srv.failedAt.Load() >= int64(srv.failTimeout) {
				srv.fails.Store(0)
			}
			return srv, 0
		}
		if status != 499 && status != 400 {
			// Not the server's failure: the client went away or sent a
			// broken body.
			srv.fail(now)
		}
		if len(tried) < tries && next {
			continue
		}
		switch status {
		case 504:
			b.status504.Add(1)
		case 499, 400:
			// The client's doing, as above: no gateway error.
		default:
			b.status502.Add(1)
		}
		return nil, status
	}
}

// fastcgiConnLimits gives req a location's fastcgi_*_timeout (the
// connect timeout bounds the wait for a slot too) and
// fastcgi_socket_keepalive.
func fastcgiConnLimits(req *fastcgi.Request, f *conf.FastCGI) {
	req.ConnectTimeout, req.SendTimeout, req.ReadTimeout = f.ConnectTimeout, f.SendTimeout, f.ReadTimeout
	req.QueueTimeout = f.ConnectTimeout
	req.SocketKeepalive = f.SocketKeepalive
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
		if t.unsettled {
			return "-"
		}
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
func (rt *Site) fastcgiStats() map[string]BackendStats {
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
				cs := s.client.Stats()
				bs.Clients = append(bs.Clients, cs)
				if bs.Servers == nil {
					bs.Servers = map[string][]fastcgi.Stats{}
				}
				bs.Servers[s.addr] = append(bs.Servers[s.addr], cs)
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
	// Servers are the same clients by server address ("unix:/x.sock",
	// "127.0.0.1:9000"), for the pools of an upstream{} of several.
	Servers map[string][]fastcgi.Stats
}
