// Package listen is edge's HTTP server as cmd/edge runs it: the Server
// with its listeners, the accept loops, the connection cap
// (worker_connections), the choice of protocol for a connection (TLS by
// the listen's ssl flag, then HTTP/2 by ALPN or the h2c preface, else
// HTTP/1.x), the PROXY protocol header (proxyproto.go), the memory given
// back after a burst (burst.go), and Apply, which starts or reloads a
// plan: the pipeline's site for it (package proxy) and the sockets.
// Listeners whose address is in both the old and the new plan are kept
// open across a reload, so no connection is refused while it happens.
// The connections themselves are served by the adapters, proxy/h1 and
// proxy/h2.
package listen

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"edge/conf"
	"edge/internal/rawio"
	"edge/proxy"
	"edge/proxy/h1"
	"edge/proxy/h2"
	"edge/proxy/logs"
	"edge/proxy/tlsterm"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// ErrorLog receives diagnostics before a plan's own error log is open;
	// nil means stderr at [error].
	ErrorLog *logs.ErrorLog
	// Now replaces the clock (tests); nil means time.Now.
	Now func() time.Time
	// Listeners are already-open sockets to reuse by address (for example
	// inherited at an upgrade); nil opens new ones.
	Listeners map[string]net.Listener
}

// Server serves plans.
type Server struct {
	opts   Options
	shared *proxy.Shared
	rt     atomic.Pointer[proxy.Site]

	mu        sync.Mutex
	listeners map[string]*listener // by network+" "+addr
	closing   atomic.Bool
	conns     sync.WaitGroup
	active    connSet // the open connections, for shutdown
	connSem   atomic.Pointer[chan struct{}]
	workers   workerPool
	h1        *h1.Adapter
	h2        *h2.Adapter
	burst     burstMemory // memory back to the system after a burst (burst.go)
	connID    atomic.Uint64
}

// NewServer makes a Server with no plan yet.
func NewServer(o Options) *Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ErrorLog == nil {
		o.ErrorLog = logs.StderrErrorLog(conf.LevelError)
	}
	s := &Server{opts: o, listeners: map[string]*listener{}}
	s.shared = proxy.NewShared(o.ErrorLog, o.Now, s.rt.Load)
	s.h1 = h1.NewAdapter(s.rt.Load, s.shared.ErrorLog(), s.workers.run, s.burst.note)
	s.h2 = h2.NewAdapter(s.rt.Load, s.shared.ErrorLog())
	return s
}

// listener is one bound address.
type listener struct {
	key     string
	ln      net.Listener
	network string // as listenNetwork words it, for errors
	// group is the current plan's ListenGroup for this address.
	group atomic.Pointer[conf.ListenGroup]
	// byLocal, on a wildcard address's socket, holds the groups of the
	// specific addresses on its port that it serves (sharedSockets).
	byLocal atomic.Pointer[map[netip.Addr]*conf.ListenGroup]
	done    chan struct{}
	// local is the latest local address of a connection and its texts,
	// which a connection shares with those before it to the same address
	// (issue 20: an idle connection's strings).
	local atomic.Pointer[localNames]
}

type localNames struct {
	addr       netip.AddrPort
	text, port string
}

// localNames returns a's text and its port's ($server_addr, $server_port).
func (l *listener) localNames(a netip.AddrPort) (text, port string) {
	if n := l.local.Load(); n != nil && n.addr == a {
		return n.text, n.port
	}
	n := &localNames{a, a.Addr().Unmap().String(), strconv.Itoa(int(a.Port()))}
	l.local.Store(n)
	return n.text, n.port
}

// connSet holds the open connections, for shutdown: each one's ConnInfo
// and the net.Conn to close, nil for a plain-TCP HTTP/1 one, which the
// HTTP/1 adapter closes (CloseParked): it may park, and its net.Conn then
// goes (proxy/h1's keptConn). A map under a lock costs an idle connection
// less than a sync.Map's entry (issue 20).
type connSet struct {
	mu sync.Mutex
	m  map[*proxy.ConnInfo]net.Conn
}

func (cs *connSet) store(info *proxy.ConnInfo, c net.Conn) {
	cs.mu.Lock()
	if cs.m == nil {
		cs.m = map[*proxy.ConnInfo]net.Conn{}
	}
	cs.m[info] = c
	cs.mu.Unlock()
}

func (cs *connSet) delete(info *proxy.ConnInfo) {
	cs.mu.Lock()
	delete(cs.m, info)
	cs.mu.Unlock()
}

type openConn struct {
	info *proxy.ConnInfo
	c    net.Conn
}

// all returns the connections open now; they are closed outside the
// lock, as closing one may end it (ConnInfo.Finish, which deletes it).
func (cs *connSet) all() []openConn {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	conns := make([]openConn, 0, len(cs.m))
	for info, c := range cs.m {
		conns = append(conns, openConn{info, c})
	}
	return conns
}

// sharedSockets finds the specific addresses that a wildcard address's
// socket serves, as nginx does (ngx_http_init_listening): on a port where
// a wildcard address (0.0.0.0, or [::] for IPv6) listens, a specific
// address without "bind" gets no socket of its own (binding it would
// fail), and a connection to it is told apart by its local address. It
// returns the groups by the wildcard's key, and the keys not to bind.
func sharedSockets(groups map[string]*conf.ListenGroup) (byWild map[string]map[netip.Addr]*conf.ListenGroup, served map[string]bool) {
	for key, g := range groups {
		if g.Listen.Network != "tcp" || g.Listen.Bind {
			continue
		}
		ap, err := netip.ParseAddrPort(g.Listen.Addr)
		if err != nil || ap.Addr().IsUnspecified() {
			continue
		}
		wild := netip.IPv4Unspecified()
		if ap.Addr().Is6() {
			wild = netip.IPv6Unspecified()
		}
		wkey := "tcp " + netip.AddrPortFrom(wild, ap.Port()).String()
		if groups[wkey] == nil {
			continue
		}
		if byWild == nil {
			byWild, served = map[string]map[netip.Addr]*conf.ListenGroup{}, map[string]bool{}
		}
		if byWild[wkey] == nil {
			byWild[wkey] = map[netip.Addr]*conf.ListenGroup{}
		}
		byWild[wkey][ap.Addr()] = g
		served[key] = true
	}
	return byWild, served
}

// Apply makes plan the current configuration: it opens its logs, binds
// new addresses, keeps existing ones and closes the ones no longer named.
// On error nothing changes and the previous plan keeps serving.
func (s *Server) Apply(plan *conf.Plan) error {
	errLog, err := logs.NewErrorLog(plan.Main.ErrorLogs, s.shared.Logs())
	if err != nil {
		return err
	}
	// The one ErrorLog everybody holds starts writing where the new plan
	// says; a failure below puts the old destinations back.
	old := s.shared.ErrorLog().TakeOutputs(errLog)
	rt, err := proxy.NewSite(plan, s.shared)
	if err != nil {
		s.shared.ErrorLog().RestoreOutputs(old)
		return err
	}
	// The plan's php-fpm pools run before it serves (fpm.go); a pool
	// php-fpm refuses fails Apply and the old plan stays.
	undoPools, err := s.shared.StartPools(plan)
	if err != nil {
		s.shared.ErrorLog().RestoreOutputs(old)
		return err
	}
	max := plan.Main.WorkerConnections * workers(plan)
	sem := make(chan struct{}, max)

	s.mu.Lock()
	defer s.mu.Unlock()
	want := map[string]*conf.ListenGroup{}
	if plan.HTTP != nil {
		for _, g := range plan.HTTP.Listens {
			want[g.Listen.Network+" "+g.Listen.Addr] = g
		}
	}
	byWild, served := sharedSockets(want)
	for key := range served {
		delete(want, key)
	}
	var opened []*listener
	for key, g := range want {
		if _, ok := s.listeners[key]; ok {
			continue
		}
		ln, err := s.bind(g.Listen)
		if err != nil {
			for _, l := range opened {
				l.ln.Close()
			}
			undoPools()
			s.shared.ErrorLog().RestoreOutputs(old)
			return err
		}
		l := &listener{key: key, ln: ln, network: listenNetwork(g.Listen), done: make(chan struct{})}
		opened = append(opened, l)
	}
	// Commit: from here nothing fails.
	if prev := s.rt.Swap(rt); prev != nil {
		// nginx's old workers close their idle upstream connections.
		prev.Retire()
	}
	rt.TLS().Commit(rt.ErrorLog())
	s.connSem.Store(&sem)
	for _, l := range opened {
		s.listeners[l.key] = l
	}
	for key, l := range s.listeners {
		g, ok := want[key]
		if !ok {
			l.ln.Close()
			delete(s.listeners, key)
			continue
		}
		l.group.Store(g)
		if m := byWild[key]; m != nil {
			l.byLocal.Store(&m)
		} else {
			l.byLocal.Store(nil)
		}
	}
	for _, l := range opened {
		go s.accept(l)
	}
	s.shared.CommitPools(plan)
	return nil
}

// workers is worker_processes resolved ("auto" = CPUs).
func workers(p *conf.Plan) int {
	if p.Main.WorkerProcesses > 0 {
		return p.Main.WorkerProcesses
	}
	return maxInt(1, runtime.NumCPU())
}

// listenNetwork is the network bind listens on for l.
func listenNetwork(l conf.Listen) string {
	switch {
	case l.Network == "unix":
		return "unix"
	case l.IPv6Only:
		return "tcp6"
	}
	if ap, err := netip.ParseAddrPort(l.Addr); err == nil && ap.Addr().Is4() {
		return "tcp4"
	}
	return "tcp"
}

// bind opens a listening socket with the listen options.
func (s *Server) bind(l conf.Listen) (net.Listener, error) {
	key := l.Network + " " + l.Addr
	if ln, ok := s.opts.Listeners[key]; ok {
		delete(s.opts.Listeners, key)
		return ln, nil
	}
	network := listenNetwork(l)
	if network == "unix" {
		_ = os.Remove(l.Addr)
	}
	// KeepAlive -1: no TCP keepalive probes on accepted connections, as in
	// nginx without so_keepalive; Go's default costs setsockopt calls on
	// every accepted connection.
	lc := net.ListenConfig{KeepAlive: -1, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			if l.ReusePort {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, 0xf /* SO_REUSEPORT */, 1)
			}
		})
		if err != nil {
			return err
		}
		return serr
	}}
	ln, err := lc.Listen(context.Background(), network, l.Addr)
	if err != nil {
		var se *os.SyscallError
		reason := err.Error()
		if errors.As(err, &se) {
			reason = fmt.Sprintf("%d: %s", errnoOf(se.Err), strerror(se.Err))
		}
		return nil, fmt.Errorf("bind() to %s failed (%s)", l.Addr, reason)
	}
	if l.Network == "unix" {
		_ = os.Chmod(l.Addr, 0o666)
	}
	return ln, nil
}

// strerror words an errno like C's strerror, which nginx prints
// ("Address already in use"); Go's text is lowercase.
func strerror(err error) string {
	msg := err.Error()
	if msg != "" && msg[0] >= 'a' && msg[0] <= 'z' {
		msg = string(msg[0]-'a'+'A') + msg[1:]
	}
	return msg
}

func errnoOf(err error) int {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return int(errno)
	}
	return 0
}

// listenerLog is where l's own lines go: its default server's error_log,
// as nginx's listening socket logs there (ls->logp), else the main one.
func (s *Server) listenerLog(l *listener) *logs.ErrorLog {
	if rt := s.rt.Load(); rt != nil {
		return rt.ConnErrorLog(l.group.Load())
	}
	return s.shared.ErrorLog()
}

// accept serves one listener until it is closed.
func (s *Server) accept(l *listener) {
	defer close(l.done)
	var delay time.Duration
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// EMFILE and friends: back off like net/http does.
			if delay == 0 {
				delay = 5 * time.Millisecond
			} else if delay *= 2; delay > time.Second {
				delay = time.Second
			}
			// nginx's words: "accept4() failed (24: Too many open files)".
			s.listenerLog(l).Logf(conf.LevelCrit, "accept4() failed (%s)", logs.ErrnoText(err))
			time.Sleep(delay)
			continue
		}
		delay = 0
		sem := *s.connSem.Load()
		select {
		case sem <- struct{}{}:
		default:
			// worker_connections reached: nginx logs this and drops the
			// connection.
			s.listenerLog(l).Logf(conf.LevelAlert, "%d worker_connections are not enough", cap(sem))
			c.Close()
			continue
		}
		s.shared.Stats().Accepted.Add(1)
		s.shared.Stats().Active.Add(1)
		s.conns.Add(1)
		s.burst.note()
		s.workers.run(func() { s.serveConn(l, c, sem) })
	}
}

// workerPool runs connections on goroutines that outlive them. A new
// goroutine per connection starts with a small stack and grows it (a copy)
// for every connection, which was 7% of edge's CPU with a new connection
// per request; a kept goroutine has its stack grown already. Idle workers
// exit after workerIdle, and at once past maxIdleWorkers: connections
// that park (proxy/h1's park_linux.go) leave their workers idle by the
// thousand, each holding its grown stack.
type workerPool struct {
	mu    sync.Mutex
	ready []chan func() // idle workers, most recently used last
}

const (
	workerIdle     = 10 * time.Second
	maxIdleWorkers = 128
)

func (p *workerPool) run(job func()) {
	p.mu.Lock()
	if n := len(p.ready); n > 0 {
		ch := p.ready[n-1]
		p.ready[n-1] = nil
		p.ready = p.ready[:n-1]
		p.mu.Unlock()
		ch <- job
		return
	}
	p.mu.Unlock()
	ch := make(chan func(), 1)
	ch <- job
	go p.work(ch)
}

func (p *workerPool) work(ch chan func()) {
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		job := <-ch
		job()
		p.mu.Lock()
		if len(p.ready) >= maxIdleWorkers {
			p.mu.Unlock()
			return
		}
		p.ready = append(p.ready, ch)
		p.mu.Unlock()
		t.Reset(workerIdle)
		select {
		case job := <-ch:
			// Handed a job while becoming idle: run it next.
			ch <- job
		case <-t.C:
			if p.retire(ch) {
				return
			}
		}
	}
}

// retire removes an idle worker; false when a job was handed to it in the
// meantime (it must then run it).
func (p *workerPool) retire(ch chan func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range p.ready {
		if c == ch {
			p.ready = append(p.ready[:i], p.ready[i+1:]...)
			return true
		}
	}
	return false
}

// serveConn picks the protocol for a connection: TLS by the group's ssl
// flag, then HTTP/2 by ALPN or the h2c preface, else HTTP/1.x, and hands
// it to that adapter. The connection's accounting (its place in sem, the
// connection cap) ends with it (ConnInfo.Finish), here or, for one that
// parked (proxy/h1's park_linux.go), when the parker or a resumed serve
// ends it, and for an HTTP/2 one, on the goroutine that serves it.
func (s *Server) serveConn(l *listener, c net.Conn, sem chan struct{}) {
	g := l.group.Load()
	if m := l.byLocal.Load(); m != nil {
		if tc, ok := c.(*net.TCPConn); ok {
			if sg := (*m)[addrPort(tc.LocalAddr()).Addr().Unmap()]; sg != nil {
				g = sg
			}
		}
	}
	info := &proxy.ConnInfo{ID: s.connID.Add(1), Start: s.opts.Now(), Group: g, Conn: c,
		SendTimeout: g.Default.Loc.SendTimeout, BodyTimeout: g.Default.Loc.ClientBodyTimeout}
	s.shared.Stats().Handled.Add(1)
	if tc, ok := c.(*net.TCPConn); ok {
		info.Remote = addrPort(tc.RemoteAddr())
		info.Local = addrPort(tc.LocalAddr())
		info.LocalText, info.Port = l.localNames(info.Local)
		info.RemoteText = info.Remote.Addr().Unmap().String()
	} else {
		info.Unix = true
	}
	s.active.store(info, c)
	info.Finish = func() {
		s.active.delete(info)
		<-sem
		s.shared.Stats().Active.Add(-1)
		s.conns.Done()
	}
	// handedOff: the connection's end is another goroutine's to account
	// (the parker's, a resumed serve's, an HTTP/2 connection's own).
	handedOff := false
	defer func() {
		if !handedOff {
			info.Finish()
		}
	}()
	rt := s.rt.Load()
	var rest []byte // what came with a PROXY header (proxyproto.go)
	if g.Listen.ProxyProtocol {
		var ok bool
		if rest, ok = s.readProxyHeader(rt, c, info, g); !ok {
			c.Close()
			return
		}
	}
	if tc, ok := c.(*net.TCPConn); ok && !g.Listen.SSL && !g.Listen.HTTP2 && len(rest) == 0 {
		s.active.store(info, nil)
		handedOff = s.h1.ServeTCP(tc, info, l.network)
		return
	}
	rc := &rawio.NetConn{}
	rc.Init(c, l.network)
	info.UseRaw(&rc.Raw)
	var conn net.Conn = rc
	if len(rest) > 0 {
		conn = &replayConn{Conn: rc, rest: rest}
	}
	if g.Listen.SSL {
		tc, first, err := rt.TLS().Handshake(conn, info.Group, info.Remote.Addr(), rt.ConnErrorLog(info.Group))
		if errors.Is(err, tlsterm.ErrPlainHTTP) {
			// nginx serves a plain HTTP request sent to a TLS port far
			// enough to answer it with its 497 (handle), which error_page
			// 497 often turns into a redirect to https.
			info.PlainHTTP = true
			br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(first[:]), conn), 4096)
			s.h1.ServePeeked(conn, br, info)
			return
		}
		if err != nil {
			c.Close()
			return
		}
		cs := tc.ConnectionState()
		info.TLS = &cs
		if cs.NegotiatedProtocol == "h2" {
			// A goroutine of its own, which the connection ends: this
			// worker's stack grew for the handshake, and an HTTP/2
			// connection spends its idle life in x/net/http2's serve
			// loop, deeper than the collector lets a 16 KiB stack shrink
			// below (a quarter of it in use). On a fresh goroutine the
			// loop waits on 8 KiB (issue 20).
			handedOff = true
			go func() {
				defer info.Finish()
				s.h2.Serve(tc, info)
			}()
			return
		}
		s.h1.ServeTLS(tc, info)
		return
	}
	if g.Listen.HTTP2 {
		br := bufio.NewReaderSize(conn, 4096)
		pre, err := br.Peek(len(h2Preface))
		if err == nil && string(pre) == h2Preface {
			// What the peek read is replayed and the 4 KiB reader goes:
			// kept, it was that much of every idle h2c connection
			// (issue 20). The connection gets a goroutine of its own,
			// as over TLS.
			rest, _ := br.Peek(br.Buffered())
			h2c := &replayConn{Conn: conn, rest: bytes.Clone(rest)}
			handedOff = true
			go func() {
				defer info.Finish()
				s.h2.Serve(h2c, info)
			}()
			return
		}
		s.h1.ServePeeked(conn, br, info)
		return
	}
	s.h1.ServeConn(conn, info)
}

const h2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

func addrPort(a net.Addr) netip.AddrPort {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.AddrPort()
	}
	return netip.AddrPort{}
}

// Shutdown stops accepting, lets requests in flight finish (closing idle
// keep-alive connections), and returns when all are done or ctx ends, then
// closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	s.mu.Lock()
	for key, l := range s.listeners {
		l.ln.Close()
		<-l.done
		delete(s.listeners, key)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.conns.Wait()
		close(done)
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		s.closeIdle()
		select {
		case <-done:
			s.h1.StopParking()
			s.closeUpstreams()
			s.shared.Stop(true)
			s.shared.Logs().Close()
			return nil
		case <-ctx.Done():
			s.Close()
			<-done
			s.shared.Logs().Close()
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// closeIdle closes connections that wait for their next request.
func (s *Server) closeIdle() {
	for _, o := range s.active.all() {
		if s.h2.Drain(o.info) {
			continue
		}
		if o.info.Idle.Load() && !s.h1.CloseParked(o.info) && o.c != nil {
			o.c.Close()
		}
	}
}

// Close stops everything at once.
func (s *Server) Close() {
	s.closing.Store(true)
	s.mu.Lock()
	for key, l := range s.listeners {
		l.ln.Close()
		delete(s.listeners, key)
	}
	s.mu.Unlock()
	for _, o := range s.active.all() {
		if !s.h1.CloseParked(o.info) && o.c != nil {
			o.c.Close()
		}
	}
	s.h1.StopParking()
	s.closeUpstreams()
	s.shared.Stop(false)
}

// closeUpstreams closes the current plan's idle proxy_pass connections
// (at exit, as nginx's exiting workers close theirs).
func (s *Server) closeUpstreams() {
	if rt := s.rt.Load(); rt != nil {
		rt.Retire()
	}
}

// ReopenLogs reopens every log file (USR1).
func (s *Server) ReopenLogs() error { return s.shared.Logs().Reopen() }

// FlushLogs writes out buffered access log lines.
func (s *Server) FlushLogs() { s.shared.Logs().Flush() }

// Addrs returns the bound addresses (for tests and the startup message).
func (s *Server) Addrs() []net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []net.Addr
	for _, l := range s.listeners {
		out = append(out, l.ln.Addr())
	}
	return out
}

// LocalCAHint tells how to trust edge's local development CA when the
// current configuration uses it (a localhost server without a
// certificate), or returns "".
func (s *Server) LocalCAHint() string {
	rt := s.rt.Load()
	if rt == nil {
		return ""
	}
	return rt.TLS().LocalCAHint()
}

// Stats are the server's stub_status counters.
func (s *Server) Stats() *proxy.Stats { return s.shared.Stats() }

// HTTP1 is the server's HTTP/1 adapter (its parked connections, for
// tests).
func (s *Server) HTTP1() *h1.Adapter { return s.h1 }

// ErrorLog returns the current error log.
func (s *Server) ErrorLog() *logs.ErrorLog { return s.shared.ErrorLog() }

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
