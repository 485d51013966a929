// This file holds the Server: the listeners, the accept loops, the
// connection cap (worker_connections), and Apply, which starts or reloads
// a plan. Listeners whose address is in both the old and the new plan are
// kept open across a reload, so no connection is refused while it happens.
package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"edge/conf"
	"edge/internal/rawio"
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
	shared *shared
	rt     atomic.Pointer[site]

	mu        sync.Mutex
	listeners map[string]*listener // by network+" "+addr
	closing   atomic.Bool
	conns     sync.WaitGroup
	active    sync.Map // net.Conn -> *connInfo, for shutdown
	connSem   atomic.Pointer[chan struct{}]
	workers   workerPool
	parker    parker      // idle HTTP/1 connections (park_linux.go)
	burst     burstMemory // memory back to the system after a burst (burst.go)
	http2Log  *log.Logger
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
	s.parker.s = s
	s.shared = &shared{
		files:    newFileCache(time.Second, o.Now),
		logFiles: logs.NewFiles(o.Now),
		errLog:   o.ErrorLog,
		now:      o.Now,
		stats:    &Stats{},
	}
	s.shared.logFiles.Alert = func(msg string) { s.shared.errLog.Logf(conf.LevelAlert, "%s", msg) }
	s.shared.fpm = newFPMManager(s.shared, s.rt.Load)
	s.http2Log = log.New(infoWriter{s.shared.errLog}, "", 0)
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
	errLog, err := logs.NewErrorLog(plan.Main.ErrorLogs, s.shared.logFiles)
	if err != nil {
		return err
	}
	// The one ErrorLog everybody holds starts writing where the new plan
	// says; a failure below puts the old destinations back.
	old := s.shared.errLog.TakeOutputs(errLog)
	rt, err := newSite(plan, s.shared)
	if err != nil {
		s.shared.errLog.RestoreOutputs(old)
		return err
	}
	// The plan's php-fpm pools run before it serves (fpm.go); a pool
	// php-fpm refuses fails Apply and the old plan stays.
	undoPools, err := s.shared.fpm.apply(plan)
	if err != nil {
		s.shared.errLog.RestoreOutputs(old)
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
			s.shared.errLog.RestoreOutputs(old)
			return err
		}
		l := &listener{key: key, ln: ln, network: listenNetwork(g.Listen), done: make(chan struct{})}
		opened = append(opened, l)
	}
	// Commit: from here nothing fails.
	if prev := s.rt.Swap(rt); prev != nil {
		// nginx's old workers close their idle upstream connections.
		prev.proxies.close()
	}
	rt.tls.Commit(rt.errLog)
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
	s.shared.fpm.commit(plan)
	return nil
}

// workers is worker_processes resolved ("auto" = CPUs).
func workers(p *conf.Plan) int {
	if p.Main.WorkerProcesses > 0 {
		return p.Main.WorkerProcesses
	}
	return maxInt(1, numCPU())
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
			s.shared.errLog.Logf(conf.LevelCrit, "accept4() failed (%s)", logs.ErrnoText(err))
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
			s.shared.errLog.Logf(conf.LevelAlert, "%d worker_connections are not enough", cap(sem))
			c.Close()
			continue
		}
		s.shared.stats.accepted.Add(1)
		s.shared.stats.active.Add(1)
		s.conns.Add(1)
		s.burst.note()
		s.workers.run(func() {
			s.serveConn(l, c, func() {
				<-sem
				s.shared.stats.active.Add(-1)
				s.conns.Done()
			})
		})
	}
}

// workerPool runs connections on goroutines that outlive them. A new
// goroutine per connection starts with a small stack and grows it (a copy)
// for every connection, which was 7% of edge's CPU with a new connection
// per request; a kept goroutine has its stack grown already. Idle workers
// exit after workerIdle, and at once past maxIdleWorkers: connections
// that park (park_linux.go) leave their workers idle by the thousand,
// each holding its grown stack.
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
// flag, then HTTP/2 by ALPN or the h2c preface, else HTTP/1.x. done ends
// the connection's accounting; it runs when the connection ends, here or,
// for one that parked (park_linux.go), when the parker or a resumed
// serve ends it.
func (s *Server) serveConn(l *listener, c net.Conn, done func()) {
	g := l.group.Load()
	if m := l.byLocal.Load(); m != nil {
		if tc, ok := c.(*net.TCPConn); ok {
			if sg := (*m)[addrPort(tc.LocalAddr()).Addr().Unmap()]; sg != nil {
				g = sg
			}
		}
	}
	info := &connInfo{id: s.connID.Add(1), start: s.shared.now(), group: g, conn: c,
		sendTimeout: g.Default.Loc.SendTimeout, bodyTimeout: g.Default.Loc.ClientBodyTimeout}
	s.shared.stats.handled.Add(1)
	if tc, ok := c.(*net.TCPConn); ok {
		info.remote = addrPort(tc.RemoteAddr())
		info.local = addrPort(tc.LocalAddr())
		info.port = strconv.Itoa(int(info.local.Port()))
		info.remoteText = info.remote.Addr().Unmap().String()
		info.localText = info.local.Addr().Unmap().String()
	} else {
		info.unix = true
	}
	s.active.Store(c, info)
	info.finish = func() {
		s.active.Delete(c)
		done()
	}
	parked := false
	defer func() {
		if !parked {
			info.finish()
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
		ec := &tcpEdgeConn{TCPConn: tc, info: info, parker: &s.parker}
		ec.raw.init(tc, l.network)
		info.useRaw(&ec.raw.raw)
		parked = s.serveHTTP1(ec)
		return
	}
	rc := &rawNetConn{}
	rc.init(c, l.network)
	info.useRaw(&rc.raw)
	var conn net.Conn = rc
	if len(rest) > 0 {
		conn = &replayConn{Conn: rc, rest: rest}
	}
	if g.Listen.SSL {
		tc, first, err := rt.tls.Handshake(conn, info.group, info.remote.Addr(), rt.errLog)
		if errors.Is(err, tlsterm.ErrPlainHTTP) {
			// nginx serves a plain HTTP request sent to a TLS port far
			// enough to answer it with its 497 (handle), which error_page
			// 497 often turns into a redirect to https.
			info.plainHTTP = true
			br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(first[:]), conn), 4096)
			s.serveHTTP1(&peekedConn{otherEdgeConn{Conn: conn, info: info}, br})
			return
		}
		if err != nil {
			c.Close()
			return
		}
		cs := tc.ConnectionState()
		info.tls = &cs
		if cs.NegotiatedProtocol == "h2" {
			s.serveHTTP2(tc, info)
			return
		}
		s.serveHTTP1(&tlsEdgeConn{otherEdgeConn{Conn: tc, info: info}, tc})
		return
	}
	if g.Listen.HTTP2 {
		br := bufio.NewReaderSize(conn, 4096)
		pre, err := br.Peek(len(h2Preface))
		if err == nil && string(pre) == h2Preface {
			s.serveHTTP2(&peekedConn{otherEdgeConn{Conn: conn, info: info}, br}, info)
			return
		}
		s.serveHTTP1(&peekedConn{otherEdgeConn{Conn: conn, info: info}, br})
		return
	}
	s.serveHTTP1(&otherEdgeConn{Conn: conn, info: info})
}

const h2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// The connection wrappers carry connInfo to the HTTP/1 engine. The TCP one
// embeds *net.TCPConn so ReadFrom (sendfile) is still found by the engine.
type (
	tcpEdgeConn struct {
		*net.TCPConn
		info   *connInfo
		raw    rawNetConn // the same connection, for reads and plain writes
		parker *parker    // where it waits when idle long enough (park_linux.go)
	}
	// otherEdgeConn is any other connection; the TLS and peeked ones
	// build on it.
	otherEdgeConn struct {
		net.Conn
		info *connInfo
	}
	// tlsEdgeConn's Conn is tc; the engine finds TLS by its methods.
	tlsEdgeConn struct {
		otherEdgeConn
		tc *tls.Conn
	}
	// peekedConn replays bytes read while looking for the h2c preface.
	peekedConn struct {
		otherEdgeConn
		r *bufio.Reader
	}
)

func (c *peekedConn) Read(p []byte) (int, error) { return c.info.read(c.r, p) }

func (c *tlsEdgeConn) Handshake() error                     { return c.tc.Handshake() }
func (c *tlsEdgeConn) ConnectionState() tls.ConnectionState { return c.tc.ConnectionState() }

// The wrappers' writes are bounded by send_timeout as nginx's are: the
// connection's rawio.Conn cuts a write only when send_timeout passes
// without a byte going out, so a large download on a slow link is not
// cut while it moves (connInfo.useRaw). ReadFrom sends files with
// sendfile under the same rule.
func (c *tcpEdgeConn) Write(p []byte) (int, error) {
	if more := c.info.more; more != moreNone {
		c.info.more = moreNone
		if more == moreFirst || len(p) == http1WriteBuffer {
			if writeHook != nil {
				writeHook(c.TCPConn, true)
			}
			return c.raw.raw.WriteMore(p)
		}
	}
	if writeHook != nil {
		writeHook(c.TCPConn, false)
	}
	return c.raw.Write(p)
}

// rawNetConn is a client's connection read and written with raw system
// calls (package rawio says why); the rest of net.Conn is the
// connection's own.
type rawNetConn struct {
	net.Conn
	raw rawio.Conn
}

func (r *rawNetConn) init(c net.Conn, network string) {
	r.Conn = c
	r.raw.Init(c, network)
}

func (r *rawNetConn) Read(p []byte) (int, error)  { return r.raw.Read(p) }
func (r *rawNetConn) Write(p []byte) (int, error) { return r.raw.Write(p) }

// CloseWrite half-closes the connection when it can be (lingeringClose).
func (r *rawNetConn) CloseWrite() error {
	if cw, ok := r.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Read shows what the client sent to the head watch (connInfo.read).
// The engine's wait for the next request on a kept connection ends after
// parkAfter, as if the client had closed, for the connection to park
// (park_linux.go) rather than hold a goroutine and the engine's buffers.
func (c *tcpEdgeConn) Read(p []byte) (int, error) {
	info := c.info
	if info.resumed {
		// The first read after a park: the client sent or closed. An error
		// is a close, as in the engine's wait it would have been, not a
		// bad first request.
		info.resumed = false
		n, err := info.read(&c.raw, p)
		if n == 0 && err != nil {
			return 0, io.EOF
		}
		return n, err
	}
	if !info.parkWait || !info.idle.Load() {
		return info.read(&c.raw, p)
	}
	n, err := info.read(&c.raw, p)
	if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		info.parking = true
		return 0, io.EOF
	}
	return n, err
}

// Close lingers after an error response (connInfo.linger). The response
// is out, so a graceful stop may close the connection as an idle one. A
// connection about to park stays open.
func (c *tcpEdgeConn) Close() error {
	if c.info.parking {
		return nil
	}
	if c.info.linger {
		c.info.idle.Store(true)
		return lingeringClose(c.TCPConn)
	}
	return c.TCPConn.Close()
}

func (c *tcpEdgeConn) ReadFrom(r io.Reader) (int64, error) {
	if writeHook != nil {
		writeHook(c.TCPConn, false)
	}
	if f, n, ok := fileToSend(r); ok {
		if sent, err, done := sendFile(&c.raw.raw, f, n, r); done {
			return sent, err
		}
	}
	// Not a file (or no sendfile): copied through Write, under the same
	// send_timeout.
	return io.Copy(writerOnly{c}, r)
}

// writerOnly hides a writer's ReadFrom, so that io.Copy does not call it
// back.
type writerOnly struct{ io.Writer }

// fileToSend returns the file a reader reads (alone or under an
// io.LimitedReader) and how much of it is to go (-1: to its end).
func fileToSend(r io.Reader) (*os.File, int64, bool) {
	n := int64(-1)
	if lr, ok := r.(*io.LimitedReader); ok {
		r, n = lr.R, lr.N
	}
	f, ok := r.(*os.File)
	return f, n, ok
}

// sendFile sends n bytes (-1: the rest) of f from its offset with
// sendfile(2), under send_timeout between two calls that move data, and
// moves f's offset (and r's N, when r is an io.LimitedReader) past what
// went out, as TCPConn.ReadFrom does. done is false when sendfile cannot
// be used: nothing went, and the caller copies instead.
func sendFile(raw *rawio.Conn, f *os.File, n int64, r io.Reader) (sent int64, err error, done bool) {
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, nil, false
	}
	if n < 0 {
		st, err := f.Stat()
		if err != nil {
			return 0, nil, false
		}
		n = st.Size() - off
	}
	if n <= 0 {
		return 0, nil, true
	}
	sent, err = raw.SendFile(f, off, n)
	if errors.Is(err, rawio.ErrNoSendFile) {
		return 0, nil, false
	}
	if _, serr := f.Seek(off+sent, io.SeekStart); serr != nil && err == nil {
		err = serr
	}
	if lr, ok := r.(*io.LimitedReader); ok {
		lr.N -= sent
	}
	return sent, err, true
}

// writeHook, set by tests before a server starts, sees every write of a
// TCP connection and whether it carries MSG_MORE.
var writeHook func(c *net.TCPConn, more bool)

// Every wrapper bounds the wait between two requests by the last
// request's keepalive_timeout (connInfo.readDeadline).
// The wait for the next request ends after parkAfter instead, for the
// connection to park (Read).
func (c *tcpEdgeConn) SetReadDeadline(t time.Time) error {
	info := c.info
	t = info.readDeadline(t)
	info.idleDeadline = t
	info.parkWait = false
	if parkAfter > 0 && !t.IsZero() && info.idle.Load() {
		if p := time.Now().Add(parkAfter); p.Before(t) {
			info.parkWait = true
			return c.TCPConn.SetReadDeadline(p)
		}
	}
	return c.TCPConn.SetReadDeadline(t)
}

// The connection's rawio.Conn bounds every write by send_timeout
// (connInfo.raw); over TLS it writes the records.
func (c *otherEdgeConn) Write(p []byte) (int, error) { return c.Conn.Write(p) }

func (c *otherEdgeConn) Read(p []byte) (int, error) { return c.info.read(c.Conn, p) }

// read reads from the client into the engine's buffer p, with a head's
// bare LFs made CRLF (headWatch.crlf), and shows the bytes to the head
// watch (received).
func (info *connInfo) read(r io.Reader, p []byte) (int, error) {
	if err := info.head.failed(); err != nil {
		return 0, err
	}
	heads := info.head.heads
	if n := info.head.pending(p); n > 0 {
		return n, info.received(p[:n], nil, false)
	}
	if len(info.head.held) > 0 {
		n := info.head.fromHeld(p)
		return n, info.received(p[:n], nil, info.head.heads != heads)
	}
	n, err := r.Read(info.head.readSpace(p))
	n = info.head.crlf(p, n)
	return n, info.received(p[:n], err, info.head.heads != heads)
}

// Close lingers after an error response, as tcpEdgeConn's does; a TLS
// connection sends its close_notify and drains what the client sends.
func (c *otherEdgeConn) Close() error {
	if c.info.linger {
		c.info.idle.Store(true)
		return lingeringClose(c.Conn)
	}
	return c.Conn.Close()
}

// received counts p, bytes just read from the client, and shows them to
// the head watch, whose error (a bare CR) comes with them. headDone says
// that the watch saw a head end in them.
func (info *connInfo) received(p []byte, err error, headDone bool) error {
	if err != nil && info.head.total == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		// The engine reads a connection's first byte with
		// ReduceMemoryUsage's one-byte read and takes any error for EOF:
		// note the timeout for serveHTTP1's log line.
		info.waitTimedOut = true
	}
	werr := info.head.saw(p)
	if headDone && info.head.inBody() && info.bodyTimeout > 0 && info.raw != nil {
		// The head is in. What the engine reads next, before the handler
		// runs, is the start of the body (fasthttp reads up to 8 KiB of
		// it first): under client_body_timeout between two reads, as in
		// nginx, not under the head's client_header_timeout.
		info.raw.SetReadTimeout(info.bodyTimeout)
		info.bodyPreRead = true
	}
	if werr != nil && err == nil {
		return werr
	}
	return err
}

// handlerStarts ends the body's pre-read timeout (received): the handler
// reads the rest under its location's (deadlineReader).
func (info *connInfo) handlerStarts() {
	if info.bodyPreRead {
		info.bodyPreRead = false
		info.raw.SetReadTimeout(0)
	}
}

func (c *tlsEdgeConn) Write(p []byte) (int, error) { return c.tc.Write(p) }

func (c *otherEdgeConn) SetReadDeadline(t time.Time) error {
	return c.Conn.SetReadDeadline(c.info.readDeadline(t))
}

// readDeadline is the read deadline the HTTP/1 engine asks for, except
// that the wait for the next request on a kept connection (the engine
// marks the connection idle just before) ends after the last request's
// keepalive_timeout, as nginx takes it from that request's location,
// rather than after the default server's.
func (info *connInfo) readDeadline(t time.Time) time.Time {
	if info.keepalive > 0 && !t.IsZero() && info.idle.Load() {
		return time.Now().Add(info.keepalive)
	}
	return t
}

// useLocation applies the timeouts of the location that answered an
// HTTP/1 request to its connection: send_timeout for the rest of the
// response, keepalive_timeout for the wait that follows. (HTTP/2 streams
// share their connection and keep the default server's.)
func (info *connInfo) useLocation(l *conf.Location) {
	info.keepalive = l.KeepaliveTimeout
	if info.sendTimeout == l.SendTimeout {
		return
	}
	info.sendTimeout = l.SendTimeout
	if info.raw != nil {
		info.raw.SetWriteTimeout(l.SendTimeout)
	}
}

// useRaw makes raw the connection's reader and writer, which bounds its
// writes by send_timeout.
func (info *connInfo) useRaw(raw *rawio.Conn) {
	info.raw = raw
	raw.SetWriteTimeout(info.sendTimeout)
}

type edgeConn interface{ connInfo() *connInfo }

func (c *tcpEdgeConn) connInfo() *connInfo   { return c.info }
func (c *otherEdgeConn) connInfo() *connInfo { return c.info }

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
			s.parker.stop()
			s.closeUpstreams()
			s.shared.fpm.shutdown(true)
			s.shared.caches.closeAll()
			s.shared.logFiles.Close()
			return nil
		case <-ctx.Done():
			s.Close()
			<-done
			s.shared.logFiles.Close()
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// closeIdle closes connections that wait for their next request.
func (s *Server) closeIdle() {
	s.active.Range(func(k, v any) bool {
		info := v.(*connInfo)
		if info.idle.Load() && !s.parker.closeParked(info) {
			k.(net.Conn).Close()
		}
		return true
	})
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
	s.active.Range(func(k, v any) bool {
		if !s.parker.closeParked(v.(*connInfo)) {
			k.(net.Conn).Close()
		}
		return true
	})
	s.parker.stop()
	s.closeUpstreams()
	s.shared.fpm.shutdown(false)
	s.shared.caches.closeAll()
}

// closeUpstreams closes the current plan's idle proxy_pass connections
// (at exit, as nginx's exiting workers close theirs).
func (s *Server) closeUpstreams() {
	if rt := s.rt.Load(); rt != nil {
		rt.proxies.close()
	}
}

// ReopenLogs reopens every log file (USR1).
func (s *Server) ReopenLogs() error { return s.shared.logFiles.Reopen() }

// FlushLogs writes out buffered access log lines.
func (s *Server) FlushLogs() { s.shared.logFiles.Flush() }

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
	return rt.tls.LocalCAHint()
}

// ErrorLog returns the current error log.
func (s *Server) ErrorLog() *logs.ErrorLog { return s.shared.errLog }

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
