// upstream.go is the client side of one upstream address: dialling
// (TCP, unix sockets, TLS), the connection's timeouts, the keep-alive
// pool, and Do, which sends a Request and returns the Response head.

package httpproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"edge/internal/cancel"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"edge/internal/rawio"
)

// Upstream sends requests to one address. Set its fields before the
// first Do and do not change them afterwards; it is safe for concurrent
// use.
type Upstream struct {
	// Network is "tcp" or "unix"; Address is host:port or the socket's
	// path (Target.Network and Target.Address).
	Network, Address string
	// TLS, when set, makes it an https:// upstream (see TLSConfig).
	TLS *TLSConfig
	// ConnectTimeout bounds the connect and the TLS handshake
	// (proxy_connect_timeout); SendTimeout each write of the request
	// (proxy_send_timeout), ReadTimeout each read of the response and of
	// a tunnel's upstream side (proxy_read_timeout): both between two
	// successive operations, not over the whole transfer. 0 means
	// nginx's 60s.
	ConnectTimeout, SendTimeout, ReadTimeout time.Duration
	// SocketKeepalive turns TCP keep-alive probes on for the connections
	// it opens (proxy_socket_keepalive; off, nginx's default, has none).
	SocketKeepalive bool
	// BufferSize is proxy_buffer_size, the most the status line and
	// headers may take; 0 means nginx's 4k.
	BufferSize int
	// Keepalive, when set, keeps idle connections for the next request
	// (the upstream block's `keepalive`); nil closes each connection
	// after its response, as nginx without `keepalive` does. Several
	// Upstreams (the servers of one upstream block) may share one.
	Keepalive *Keepalive
}

// Keepalive is an upstream block's cache of idle connections:
// `keepalive Max`, keepalive_requests, keepalive_timeout and
// keepalive_time. The most recently used connection is reused first
// (nginx's queue); when Max are idle, the oldest is closed.
type Keepalive struct {
	// Max is the number of idle connections kept; 0 keeps none.
	Max int
	// Requests is the most requests one connection serves; 0 means
	// nginx's 1000.
	Requests int
	// Timeout is how long a connection may stay idle; 0 means 60s.
	Timeout time.Duration
	// Time is how long a connection may live; 0 means 1h.
	Time time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu     sync.Mutex
	idle   []*conn // oldest first
	closed bool    // Close was called: nothing more is kept
}

const (
	defaultTimeout    = 60 * time.Second
	defaultBufferSize = 4096
	// inlineBody is how much of a request body is read before anything
	// is sent, so that a small body leaves in the same write as the
	// head, and stays for a resend on a stale kept-alive connection.
	inlineBody = 16 << 10
	// copyBufSize is the buffer a body moves through.
	copyBufSize = 16 << 10
)

var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

func orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return defaultTimeout
	}
	return d
}

// conn is one connection to the upstream.
type conn struct {
	nc net.Conn // the dialled connection
	// closeNC closes nc: what a canceled request does, bound once.
	closeNC func()
	raw     rawio.Conn    // raw reads and writes on nc, with their timeouts
	rw      io.ReadWriter // &raw, or the TLS connection over it
	tls     *tls.Conn
	br      *bufio.Reader
	wbuf    []byte
	hdr     []byte // the header block's scratch space
	// inline is the body that left with the head, when all of it did:
	// what a resend sends again.
	inline []byte
	addr   string
	tlsc   *TLSConfig // the pool hands c only to the same address and TLS settings

	requests int
	closed   bool
	born     time.Time
	idleFrom time.Time
}

// close closes the connection and gives its buffers back, for the next
// connection (without keep-alive every request has a new one).
func (c *conn) close() {
	if c.closed {
		return
	}
	c.closed = true
	c.nc.Close()
	if c.br != nil && c.br.Size() == defaultBufferSize {
		c.br.Reset(nil)
		readers.Put(c.br)
	}
	if cap(c.wbuf) > 0 && cap(c.wbuf) <= 2*inlineBody {
		b := c.wbuf[:0]
		writeBufs.Put(&b)
	}
	c.br, c.wbuf, c.inline = nil, nil, nil
}

var (
	readers   sync.Pool // *bufio.Reader of defaultBufferSize
	writeBufs sync.Pool // *[]byte
)

// fail wraps err from an operation on c into an *Error, telling a timeout
// from a close; kind is what any other error is.
func (c *conn) fail(u *Upstream, op string, err error, kind Kind) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	switch {
	case isTimeout(err):
		kind = KindTimeout
	case errors.Is(err, net.ErrClosed):
		kind = KindCanceled
	case err == io.ErrUnexpectedEOF && kind == KindBody:
		err = errors.New("upstream prematurely closed connection")
	}
	return &Error{Kind: kind, Op: op, Addr: u.Address, Err: err}
}

// rawNetConn puts a rawio.Conn under crypto/tls, so that TLS records are
// read and written with the same raw calls and timeouts.
type rawNetConn struct {
	net.Conn
	raw *rawio.Conn
}

func (r rawNetConn) Read(p []byte) (int, error)  { return r.raw.Read(p) }
func (r rawNetConn) Write(p []byte) (int, error) { return r.raw.Write(p) }

// dial opens a new connection, TLS included.
func (u *Upstream) dial(ctx context.Context) (*conn, error) {
	timeout := orDefault(u.ConnectTimeout)
	d := rawio.Dialer(timeout, u.SocketKeepalive)
	network := u.Network
	if network == "" {
		network = "tcp"
	}
	nc, err := d.DialContext(ctx, network, u.Address)
	if err != nil {
		kind := KindConnect
		if isTimeout(err) || errors.Is(err, context.DeadlineExceeded) {
			kind = KindTimeout
		}
		if ctx.Err() != nil {
			kind = KindCanceled
		}
		return nil, &Error{Kind: kind, Op: "connect", Addr: u.Address, Err: err}
	}
	c := &conn{nc: nc, addr: u.Address, tlsc: u.TLS}
	c.closeNC = func() { nc.Close() }
	c.raw.Init(nc, "")
	c.rw = &c.raw
	if u.TLS != nil {
		tc := tls.Client(rawNetConn{nc, &c.raw}, u.TLS.config())
		// The handshake is bounded by proxy_connect_timeout, as nginx's.
		c.raw.SetReadTimeout(timeout)
		c.raw.SetWriteTimeout(timeout)
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			kind := KindConnect
			if isTimeout(err) {
				kind = KindTimeout
			}
			return nil, &Error{Kind: kind, Op: "SSL handshake", Addr: u.Address, Err: err}
		}
		c.tls, c.rw = tc, tc
	}
	size := u.BufferSize
	if size <= 0 {
		size = defaultBufferSize
	}
	if br, _ := readers.Get().(*bufio.Reader); br != nil && size == defaultBufferSize {
		br.Reset(c.rw)
		c.br = br
	} else {
		c.br = bufio.NewReaderSize(c.rw, size)
	}
	if b, _ := writeBufs.Get().(*[]byte); b != nil {
		c.wbuf = *b
	}
	c.raw.SetReadTimeout(orDefault(u.ReadTimeout))
	c.raw.SetWriteTimeout(orDefault(u.SendTimeout))
	c.born = u.now()
	return c, nil
}

func (u *Upstream) now() time.Time {
	if u.Keepalive != nil && u.Keepalive.Now != nil {
		return u.Keepalive.Now()
	}
	return time.Now()
}

// get returns an idle connection (reused true) or a new one; now is the
// time (time.Now's) it is asked at.
func (u *Upstream) get(ctx context.Context, now time.Time) (*conn, bool, error) {
	if k := u.Keepalive; k != nil && k.Max > 0 {
		if k.Now != nil {
			now = k.Now()
		}
		if c := k.take(u.Address, u.TLS, now); c != nil {
			return c, true, nil
		}
	}
	c, err := u.dial(ctx)
	return c, false, err
}

// take pops the most recent idle connection to addr (with TLS settings
// tlsc) that is still within keepalive_timeout, closing the expired ones
// it finds.
func (k *Keepalive) take(addr string, tlsc *TLSConfig, now time.Time) *conn {
	timeout := orDefault(k.Timeout)
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := len(k.idle) - 1; i >= 0; i-- {
		c := k.idle[i]
		if c.addr != addr || c.tlsc != tlsc {
			continue
		}
		k.idle = append(k.idle[:i], k.idle[i+1:]...)
		if now.Sub(c.idleFrom) >= timeout {
			c.close()
			continue
		}
		return c
	}
	return nil
}

// put keeps c for the next request, or closes it when keepalive_requests
// or keepalive_time is reached or there is no pool.
func (u *Upstream) put(c *conn) {
	k := u.Keepalive
	if k == nil || k.Max <= 0 {
		c.close()
		return
	}
	requests := k.Requests
	if requests <= 0 {
		requests = 1000
	}
	life := k.Time
	if life <= 0 {
		life = time.Hour
	}
	now := u.now()
	if c.requests >= requests || now.Sub(c.born) >= life {
		c.close()
		return
	}
	c.idleFrom = now
	timeout := orDefault(k.Timeout)
	k.mu.Lock()
	if k.closed {
		// The configuration it belonged to was replaced.
		k.mu.Unlock()
		c.close()
		return
	}
	// Drop the expired ones from the front (they are the oldest), then
	// make room.
	for len(k.idle) > 0 && now.Sub(k.idle[0].idleFrom) >= timeout {
		k.idle[0].close()
		k.idle = k.idle[1:]
	}
	if len(k.idle) >= k.Max {
		k.idle[0].close()
		k.idle = k.idle[1:]
	}
	k.idle = append(k.idle, c)
	k.mu.Unlock()
}

// Idle returns the number of idle connections, for status pages and
// tests.
func (k *Keepalive) Idle() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.idle)
}

// CloseIdle closes every idle connection.
func (k *Keepalive) CloseIdle() { k.closeIdle(false) }

// Close closes every idle connection and keeps none from now on: a
// connection whose response ends later is closed then (on reload, as
// nginx's old workers close theirs).
func (k *Keepalive) Close() { k.closeIdle(true) }

func (k *Keepalive) closeIdle(forever bool) {
	k.mu.Lock()
	idle := k.idle
	k.idle = nil
	if forever {
		k.closed = true
	}
	k.mu.Unlock()
	for _, c := range idle {
		c.close()
	}
}

// Do sends req and reads the response's status line and headers. On
// success the caller reads the body from the Response and must Close
// it. Every error is an *Error. A request that finds a kept-alive
// connection closed by the upstream before any of the response arrived
// is sent again on another connection, as nginx does, unless req.NoRetry,
// or it is non-idempotent without req.NonIdempotent, or its body was
// streamed and cannot be sent again.
//
// ctx, when it can be canceled, stops the exchange: the connection is
// closed and the error is KindCanceled.
func (u *Upstream) Do(ctx context.Context, req *Request) (*Response, error) {
	var body []byte // a body read whole before sending, kept for a resend
	bodyLen := req.BodyLength
	if req.Body != nil && bodyLen < 0 && !req.HTTP11 {
		// HTTP/1.0 has no chunked encoding: nginx buffers the body.
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, &Error{Kind: KindClient, Op: "read request body", Addr: u.Address, Err: err}
		}
		body, bodyLen = b, int64(len(b))
	}
	// A body that can seek (a buffered body in a temp file, a
	// bytes.Reader) can be sent again from where it starts.
	seeker, _ := req.Body.(io.Seeker)
	start := int64(-1)
	if seeker != nil && body == nil {
		if pos, err := seeker.Seek(0, io.SeekCurrent); err == nil {
			start = pos
		}
	}
	for {
		t0 := time.Now()
		c, reused, err := u.get(ctx, t0)
		if err != nil {
			return nil, err
		}
		// A kept connection took no time to connect: nginx's
		// $upstream_connect_time says 0.000 for it too.
		var connectTime time.Duration
		if !reused {
			connectTime = time.Since(t0)
		}
		resp, resend, err := u.roundTrip(ctx, c, req, body, bodyLen)
		if err == nil {
			resp.ConnectTime = connectTime
			return resp, nil
		}
		var e *Error
		if errors.As(err, &e) {
			e.Connected, e.ConnectTime = true, connectTime
		}
		retry := reused && (resend || start >= 0) && errors.As(err, &e) && e.Kind == KindClosed &&
			!req.NoRetry && (req.NonIdempotent || Idempotent(req.Method))
		switch {
		case !retry:
		case start >= 0:
			if _, serr := seeker.Seek(start, io.SeekStart); serr != nil {
				retry = false
			}
		case body == nil && c.inline != nil:
			// The body that left with the head lives in the connection's
			// buffer, which close gives back: keep a copy.
			body = append([]byte(nil), c.inline...)
		}
		c.close()
		if !retry {
			return nil, err
		}
	}
}

// roundTrip sends the request on c and reads the response head. resend
// reports whether the request can be sent again (the body, if any, was
// read whole).
func (u *Upstream) roundTrip(ctx context.Context, c *conn, req *Request, body []byte, bodyLen int64) (resp *Response, resend bool, err error) {
	stop := cancel.AfterFunc(ctx, c.closeNC)
	if stop != nil {
		defer func() {
			if err != nil {
				stop()
			}
		}()
	}
	c.requests++
	c.inline = nil
	chunked := req.Body != nil && bodyLen < 0
	b := appendHead(c.wbuf[:0], req, bodyLen, chunked)
	resend = true
	sent := false
	// The first part of the body (all of it when short) leaves with the
	// head.
	var rd io.Reader
	left := int64(0)
	switch {
	case body != nil:
		b = append(b, body...)
	case req.Body != nil && bodyLen > 0:
		n := bodyLen
		if n > inlineBody {
			n = inlineBody
			resend = false
		}
		if req.Streamed && req.BodyReady < n {
			n = max(0, req.BodyReady)
			resend = false
		}
		start := len(b)
		b = grow(b, int(n))
		if _, rerr := io.ReadFull(req.Body, b[start:]); rerr != nil {
			c.wbuf = b[:0]
			return nil, false, &Error{Kind: KindClient, Op: "read request body", Addr: u.Address, Err: rerr}
		}
		if resend {
			c.inline = b[start:]
		}
		rd, left = req.Body, bodyLen-n
	case chunked:
		resend = false
		rd, left = req.Body, -1
	}
	if _, werr := c.rw.Write(b); werr != nil {
		c.wbuf = b[:0]
		return nil, resend, c.sendErr(u, ctx, werr, false)
	}
	c.wbuf = b[:0]
	sent = true
	if rd != nil {
		if err := u.sendBody(ctx, c, rd, left); err != nil {
			return nil, false, err
		}
	}
	resp = &Response{c: c, u: u, stopCtx: stop}
	c.hdr, err = resp.readHead(c.br, u.bufferSize(), req.Method == "HEAD", c.hdr)
	if err != nil {
		kind := KindClosed
		op := "read response header"
		switch {
		case err == invalidHeader || err == errTooBig:
			kind = KindInvalidHeader
		case err == io.EOF:
			err = errors.New("upstream prematurely closed connection")
		}
		if ctx.Err() != nil {
			kind = KindCanceled
		}
		e := c.fail(u, op, err, kind).(*Error)
		e.Sent = sent
		return nil, resend, e
	}
	if resp.Status == 101 && req.clientUpgrade() {
		resp.Upgrade = true
	}
	return resp, resend, nil
}

func (u *Upstream) bufferSize() int {
	if u.BufferSize <= 0 {
		return defaultBufferSize
	}
	return u.BufferSize
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// sendErr makes a write error an *Error.
func (c *conn) sendErr(u *Upstream, ctx context.Context, err error, sent bool) error {
	kind := KindClosed
	if ctx.Err() != nil {
		kind = KindCanceled
	}
	e := c.fail(u, "send request", err, kind).(*Error)
	e.Sent = sent
	return e
}

// sendBody sends the rest of a body: left bytes, or up to EOF in chunks
// when left is -1.
func (u *Upstream) sendBody(ctx context.Context, c *conn, rd io.Reader, left int64) error {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	const chunkHead = 18 // hex size and CRLF
	for left != 0 {
		p := buf
		if left < 0 {
			p = buf[chunkHead : len(buf)-2]
		} else if int64(len(p)) > left {
			p = p[:left]
		}
		n, rerr := rd.Read(p)
		if n > 0 {
			out := p[:n]
			if left < 0 {
				out = appendChunk(buf, n)
			} else {
				left -= int64(n)
			}
			if _, werr := c.rw.Write(out); werr != nil {
				return c.sendErr(u, ctx, werr, true)
			}
		}
		if rerr == io.EOF {
			if left > 0 {
				return &Error{Kind: KindClient, Op: "read request body", Addr: u.Address, Sent: true, Err: io.ErrUnexpectedEOF}
			}
			break
		}
		if rerr != nil {
			return &Error{Kind: KindClient, Op: "read request body", Addr: u.Address, Sent: true, Err: rerr}
		}
	}
	if left < 0 {
		if _, werr := c.rw.Write([]byte("0\r\n\r\n")); werr != nil {
			return c.sendErr(u, ctx, werr, true)
		}
	}
	return nil
}

// appendChunk frames the n bytes at buf[18:18+n] as a chunk in place
// (the size line just before them, CRLF just after) and returns it.
func appendChunk(buf []byte, n int) []byte {
	const hex = "0123456789abcdef"
	end := 18 + n
	buf[end], buf[end+1] = '\r', '\n'
	i := 18
	i--
	buf[i] = '\n'
	i--
	buf[i] = '\r'
	for v := n; ; v >>= 4 {
		i--
		buf[i] = hex[v&15]
		if v < 16 {
			break
		}
	}
	return buf[i : end+2]
}
