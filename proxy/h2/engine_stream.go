// This file holds the stream side of edge's own HTTP/2 engine
// (engine.go): a new stream's checks (RFC 9113 8.1 and 8.3), the
// request view the pipeline reads, the request body as the client's DATA
// arrives, and the response written as HEADERS and DATA frames into the
// connection's pending buffer.
package h2

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"edge/conf"
	"edge/proxy"

	"golang.org/x/net/http2/hpack"
)

// ownStream is one stream of an ownConn. The fields under "c.mu" are the
// connection's lock's; the rest are the handler goroutine's.
type ownStream struct {
	c   *ownConn
	id  uint32
	ctx context.Context
	// cancel ends ctx: a reset or the connection's end.
	cancel context.CancelFunc

	// c.mu
	state      int
	sendWindow int64
	recvWindow int64 // what the client may still send unread
	recvUnsent int64 // bytes read and not yet given back by WINDOW_UPDATE
	body       []byte
	bodyOff    int
	bodyErr    error // set with the client's END_STREAM (io.EOF) or a reset
	bodyCond   sync.Cond
	err        error // a reset (either side) or the connection's end
	readTimed  bool  // client_body_timeout fired
	counted    bool  // it counts among c.active
	declared   int64 // content-length, -1 when none
	got        int64 // DATA payload received
	hasBody    bool  // the client did not end the stream with its HEADERS
	running    bool  // its response is not yet complete (ownConn.running)

	// the handler's
	method, scheme, authority, path, protocol string
	fields                                    []hpack.HeaderField
	cookie                                    string // cookie fields joined, when there are several
	cookies                                   int
	expect100                                 bool
	hh                                        ownHeaders
	rbody                                     ownBody
	hbuf                                      []byte // the response's header block (hbufPool)
	wbuf                                      []byte
	readTimer                                 *time.Timer
}

// processHeaders handles a HEADERS block on the reader goroutine: a new
// stream, or a request's trailers.
func (c *ownConn) processHeaders(f *headerBlock) error {
	id := f.id
	if id%2 == 0 {
		return connError(errCodeProtocol) // client streams are odd (RFC 9113 5.1.1)
	}
	c.mu.Lock()
	if st := c.streams[id]; st != nil {
		defer c.unlockReader(len(c.out))
		switch {
		case st.state != stateOpen:
			c.resetLocked(id, errCodeStreamClosed)
		case !f.StreamEnded() || len(f.PseudoFields()) > 0:
			// Trailers end the stream and have no pseudo-fields (RFC 9113
			// 8.1).
			c.resetLocked(id, errCodeProtocol)
		case st.declared >= 0 && st.got != st.declared:
			c.resetLocked(id, errCodeProtocol)
		default:
			st.endRemoteLocked()
			st.bodyCond.Broadcast()
			return nil
		}
		st.resetLocked(errStreamReset)
		return nil
	}
	c.mu.Unlock()
	if id <= c.maxID {
		c.mu.Lock()
		r := c.recentReset(id)
		var code uint32
		switch {
		case r == nil:
		case r.peerReset:
			code = errCodeStreamClosed
		case !f.StreamEnded() || len(f.PseudoFields()) > 0:
			// A stream the server ended with RST_STREAM may still get the
			// client's trailers, which are checked as on an open one.
			code = errCodeProtocol
		}
		c.mu.Unlock()
		if r != nil {
			if code != 0 {
				c.resetStream(id, code)
			}
			return nil
		}
		return connError(errCodeStreamClosed) // closed stream (RFC 9113 5.1)
	}
	c.setMaxID(id)
	if f.selfDep {
		c.resetStream(id, errCodeProtocol) // RFC 9113 5.3.1
		return nil
	}
	st := &ownStream{c: c, id: id, declared: -1, state: stateOpen, hbuf: getHBuf()}
	if f.StreamEnded() {
		st.state = stateHalfClosedRemote
	}
	st.hasBody = !f.StreamEnded()
	if code := st.readRequest(f); code != 0 {
		c.resetStream(id, code)
		return nil
	}
	c.mu.Lock()
	defer c.unlockReader(len(c.out))
	if c.ended || c.goAway && id > c.goAwayID {
		return nil // past the GOAWAY: never started (RFC 9113 6.8)
	}
	if c.active >= c.maxStreams {
		c.resetLocked(id, errCodeRefusedStream)
		return nil
	}
	st.sendWindow = c.peerWindow
	st.recvWindow = defaultWindow
	st.bodyCond.L = &c.mu
	st.ctx, st.cancel = context.WithCancel(c.ctx)
	c.streams[id] = st
	c.active++
	st.counted = true
	if c.idle != nil {
		c.idle.Stop()
	}
	c.handlers.Add(1)
	c.running++
	st.running = true
	if f.truncated {
		go st.tooLarge()
	} else {
		go st.serve()
	}
	return nil
}

// connectionHeaders are the fields HTTP/2 forbids in a request (RFC 9113
// 8.2.2): such a request is malformed.
func connectionHeader(name string) bool {
	switch name {
	case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
		return true
	}
	return false
}

// readRequest takes the request's fields from f; a non-zero result is
// the stream error that makes it malformed (RFC 9113 8.1.1, 8.3).
func (st *ownStream) readRequest(f *headerBlock) uint32 {
	for _, hf := range f.PseudoFields() {
		switch hf.Name {
		case ":method":
			st.method = hf.Value
		case ":scheme":
			st.scheme = hf.Value
		case ":authority":
			st.authority = hf.Value
		case ":path":
			st.path = hf.Value
		case ":protocol":
			st.protocol = hf.Value
		}
	}
	if st.method == "CONNECT" {
		if st.protocol == "" && (st.path != "" || st.scheme != "" || st.authority == "") {
			return errCodeProtocol
		}
	} else if st.protocol != "" || st.method == "" || st.path == "" || (st.scheme != "https" && st.scheme != "http") {
		return errCodeProtocol
	}
	st.fields = f.RegularFields()
	for _, hf := range st.fields {
		switch {
		case connectionHeader(hf.Name):
			return errCodeProtocol
		case hf.Name == "te":
			if hf.Value != "trailers" {
				return errCodeProtocol
			}
		case hf.Name == "content-length":
			n, err := strconv.ParseInt(hf.Value, 10, 64)
			if err != nil || n < 0 || (st.declared >= 0 && n != st.declared) {
				return errCodeProtocol
			}
			st.declared = n
		case hf.Name == "cookie":
			// Several cookie fields are one header (RFC 9113 8.2.3), as
			// nginx and x/net/http2 join them.
			if st.cookies++; st.cookies == 1 {
				st.cookie = hf.Value
			} else {
				st.cookie += "; " + hf.Value
			}
		case hf.Name == "host":
			if st.authority == "" {
				st.authority = hf.Value
			}
		case hf.Name == "expect":
			st.expect100 = strings.EqualFold(hf.Value, "100-continue")
		}
	}
	if st.state == stateHalfClosedRemote && st.declared > 0 {
		return errCodeProtocol // a length with no DATA to carry it
	}
	return 0
}

// ownHeaders is a stream's request headers as the pipeline reads them:
// the fields as they came, Host (:authority) first, the cookie fields
// joined.
type ownHeaders struct {
	st *ownStream
	r  *proxy.Request // for its server's ignore_invalid_headers
}

func (h *ownHeaders) Get(name string) string {
	st := h.st
	if strings.EqualFold(name, "Host") {
		return st.authority
	}
	if strings.EqualFold(name, "Cookie") {
		return st.cookie
	}
	for i := range st.fields {
		if strings.EqualFold(st.fields[i].Name, name) {
			return st.fields[i].Value
		}
	}
	return ""
}

func (h *ownHeaders) AppendAll(dst []proxy.HeaderKV) []proxy.HeaderKV {
	st := h.st
	if st.authority != "" {
		dst = append(dst, proxy.HeaderKV{Name: "Host", Value: st.authority})
	}
	// nginx's HTTP/2 module drops the names HTTP/1 drops
	// (ngx_http_v2_validate_header).
	drop := h.r != nil && h.r.Server() != nil && h.r.Server().IgnoreInvalidHeaders
	cookie := false
	for _, f := range st.fields {
		switch f.Name {
		case "host":
			continue
		case "cookie":
			if cookie {
				continue
			}
			cookie = true
			f.Value = st.cookie
		}
		if drop && proxy.InvalidHeaderName(f.Name, h.r.Server().UnderscoresInHeaders) {
			continue
		}
		dst = append(dst, proxy.HeaderKV{Name: f.Name, Value: f.Value})
	}
	return dst
}

// AppendArrived is AppendAll: the fields are kept as they came.
func (h *ownHeaders) AppendArrived(dst []proxy.HeaderKV) []proxy.HeaderKV { return h.AppendAll(dst) }

// TooManyHeaders applies max_headers as h2Headers does.
func (h *ownHeaders) TooManyHeaders(_, srv *conf.Server, _ bool) bool {
	st := h.st
	n := len(st.fields)
	if st.cookies > 1 {
		n -= st.cookies - 1
	}
	if n <= srv.MaxHeaders || !srv.IgnoreInvalidHeaders {
		return n > srv.MaxHeaders
	}
	for _, f := range st.fields {
		if proxy.InvalidHeaderName(f.Name, srv.UnderscoresInHeaders) {
			n--
		}
	}
	return n > srv.MaxHeaders
}

// endRemoteLocked notes the client's END_STREAM; c.mu is held.
func (st *ownStream) endRemoteLocked() {
	st.state = stateHalfClosedRemote
	if st.bodyErr == nil {
		st.bodyErr = io.EOF
	}
}

// resetLocked closes the stream with err (a reset or the connection's
// end): its handler's context is canceled and its reads and writes
// fail; c.mu is held.
func (st *ownStream) resetLocked(err error) {
	c := st.c
	if st.err == nil {
		st.err = err
	}
	if st.bodyErr == nil || st.bodyErr == io.EOF && st.bodyOff < len(st.body) {
		st.bodyErr = err
	}
	if c.streams[st.id] == st {
		delete(c.streams, st.id)
	}
	if st.cancel != nil {
		st.cancel()
	}
	if st.counted {
		st.counted = false
		c.streamDoneLocked()
	}
	st.bodyCond.Broadcast()
	c.cond.Broadcast()
}

// finish ends the stream once its handler is done: a client still
// sending is told to stop (RST_STREAM NO_ERROR, RFC 9113 8.1).
func (st *ownStream) finish() {
	c := st.c
	c.mu.Lock()
	if st.err == nil {
		if st.state == stateOpen {
			c.resetLocked(st.id, errCodeNo)
			c.recent[(c.resetNext+len(c.recent)-1)%len(c.recent)].st = st
		}
		st.resetLocked(errStreamReset)
	}
	// The stream may stay in c.recent a while: it keeps its counters
	// only.
	st.body, st.fields = nil, nil
	c.mu.Unlock()
	// What the stream queued goes out with its response (endResponse).
	c.endResponse(st)
	if st.readTimer != nil {
		st.readTimer.Stop()
	}
	st.cancel()
	if st.wbuf != nil {
		putBuf(st.wbuf)
		st.wbuf = nil
	}
	if st.hbuf != nil {
		putHBuf(st.hbuf)
		st.hbuf = nil
	}
	c.handlers.Done()
}

// tooLarge answers a header list past the budget with 431, as x/net/http2
// does.
func (st *ownStream) tooLarge() {
	defer st.finish()
	st.hbuf = appendStatus(st.hbuf[:0], http.StatusRequestHeaderFieldsTooLarge)
	st.sendHeaders(st.hbuf, true, false)
}

// serve runs the stream's handler: the pipeline, then the response.
func (st *ownStream) serve() {
	defer st.finish()
	c := st.c
	rt := c.a.site()
	r := proxy.AcquireRequest()
	r.Conn = c.info
	r.Ctx = st.ctx
	r.ConnRequests = int(c.requests.Add(1))
	r.Start = rt.Now()
	r.Method = st.method
	r.RawTarget = st.path
	if st.method == "CONNECT" && st.protocol == "" {
		r.RawTarget = st.authority
	}
	r.Proto = "HTTP/2.0"
	r.HostHeader = st.authority
	st.hh = ownHeaders{st: st, r: r}
	r.Header = &st.hh
	tunnel := false
	switch {
	case st.method == http.MethodConnect && st.protocol != "":
		if !strings.EqualFold(st.protocol, "websocket") {
			proxy.ReleaseRequest(r)
			st.hbuf = appendStatus(st.hbuf[:0], http.StatusNotImplemented)
			st.hbuf = appendField(st.hbuf, "date", httpDate())
			st.sendHeaders(st.hbuf, true, false)
			return
		}
		st.websocket(r)
		tunnel = true
	case st.hasBody && st.declared != 0:
		r.ContentLength = st.declared
		st.rbody = ownBody{st: st, r: r}
		r.Body = &st.rbody
	default:
		r.ContentLength = 0
	}
	// nginx parses :path as a URI that starts with "/"
	// (ngx_http_parse_uri): "*" and the absolute form get 400 too.
	if !validH2Path(r.RawTarget) || st.method != http.MethodConnect && !strings.HasPrefix(r.RawTarget, "/") {
		rt.AtDefault(r, c.info.Group.Default)
		rt.Infof(r, "client sent invalid :path header")
		rt.BadRequest(r, 400)
	} else {
		rt.Serve(r)
	}
	if tunnel {
		st.serveTunnel(rt, r)
		return
	}
	st.writeResponse(rt, r, c.guard.lastRequest())
}

// websocket makes r the HTTP/1.1 upgrade an extended CONNECT stands for
// (websocket.go): a GET with Upgrade and Connection, a key if the client
// sent none, and no body (the stream's DATA is the tunnel's).
func (st *ownStream) websocket(r *proxy.Request) {
	r.Method = http.MethodGet
	st.fields = append(st.fields, hpack.HeaderField{Name: "upgrade", Value: "websocket"},
		hpack.HeaderField{Name: "connection", Value: "Upgrade"})
	if st.hh.Get("Sec-WebSocket-Key") == "" {
		var key [16]byte
		rand.Read(key[:])
		st.fields = append(st.fields, hpack.HeaderField{Name: "sec-websocket-key",
			Value: base64.StdEncoding.EncodeToString(key[:])})
	}
	r.ContentLength = 0
}

// serveTunnel answers an extended CONNECT as h2Tunnel.serve does.
func (st *ownStream) serveTunnel(rt *proxy.Site, r *proxy.Request) {
	resp := r.Response()
	if notUpgraded(rt, r) {
		st.writeResponse(rt, r, false)
		return
	}
	defer proxy.ReleaseRequest(r)
	st.hbuf = st.encodeHeaders(st.hbuf[:0], resp, http.StatusOK, true, false)
	err := st.sendHeaders(st.hbuf, false, true)
	// The tunnel may last: the connection's other responses do not wait
	// for it (endResponse).
	st.c.endResponse(st)
	upgrade := resp.Upgrade
	resp.Release()
	if err == nil {
		err = upgrade(&ownTunnelConn{st: st, remote: tunnelAddr{r.Conn.RemoteText}})
	}
	if err != nil {
		rt.Infof(r, "%v while proxying upgraded connection", err)
	}
	st.sendData(nil, true, false)
	st.c.endResponse(st)
	rt.Done(r, 0)
}

// encodeHeaders appends the response's header block: :status, the
// response's fields but those HTTP/2 frames itself or forbids (as
// addHeaders leaves them out), Content-Length and Date as x/net/http2
// adds them.
func (st *ownStream) encodeHeaders(b []byte, resp *proxy.Response, status int, tunnel, length bool) []byte {
	b = appendStatus(b, status)
	hasDate := false
	for i := range resp.Header.Len() {
		name, value := resp.Header.At(i)
		if !validName(name) || !validFieldValue(value) {
			continue // x/net/http2 leaves them out too
		}
		switch {
		case framedByH2(name, tunnel), strings.EqualFold(name, "Proxy-Connection"):
			continue
		case strings.EqualFold(name, "Date"):
			hasDate = true
		}
		b = appendLowerField(b, name, value)
	}
	if length {
		var n [20]byte
		b = appendField(b, "content-length", string(strconv.AppendInt(n[:0], resp.Length, 10)))
	}
	if !hasDate {
		b = appendField(b, "date", httpDate())
	}
	return b
}

// writeResponse writes r.Response() and runs the log phase. last says
// the client has opened keepalive_requests streams: a GOAWAY follows.
func (st *ownStream) writeResponse(rt *proxy.Site, r *proxy.Request, last bool) {
	resp := r.Response()
	defer proxy.ReleaseRequest(r)
	if resp.Drop {
		rt.Done(r, 0)
		st.c.resetStream(st.id, errCodeInternal)
		return
	}
	empty := resp.HeadOnly || resp.Kind == proxy.BodyNone ||
		resp.Kind == proxy.BodyBytes && len(resp.Bytes) == 0 ||
		resp.Kind == proxy.BodyFile && resp.Length == 0
	length := resp.Length >= 0 && !resp.Unsized && resp.Status != 304 && resp.Status != 204
	st.hbuf = st.encodeHeaders(st.hbuf[:0], resp, resp.Status, false, length)
	err := st.sendHeaders(st.hbuf, empty, false)
	if last {
		st.c.sendGoAway(errCodeNo)
	}
	var sent int64
	ended := false // the last DATA frame went out with END_STREAM
	if err == nil && !empty {
		var w io.Writer = ownWriter{st}
		flush := func() error { return nil }
		var pw *proxy.PacedWriter
		if pace := rt.Pacer(r); pace != nil { // limit_rate (limitrate.go)
			pw = proxy.NewPacedWriter(w, flush, pace)
			w = pw
		}
		switch resp.Kind {
		case proxy.BodyBytes:
			if pw == nil {
				err = st.sendData(resp.Bytes, true, false)
				if err == nil {
					sent = int64(len(resp.Bytes))
				}
			} else {
				var n int
				n, err = w.Write(resp.Bytes)
				sent = int64(n)
			}
		case proxy.BodyFile:
			sent, err = st.sendFile(w, pw != nil, resp)
			if err == nil && pw == nil {
				ended = true
			}
		case proxy.BodyStream:
			sw := &streamWriter{st: st, buf: getBuf()}
			var dst io.Writer = sw
			if pw != nil {
				pw = proxy.NewPacedWriter(sw, sw.flush, rt.Pacer(r))
				dst = pw
			}
			cw := &proxy.CountWriter{W: dst}
			err = resp.Stream(cw, func() error {
				if pw != nil {
					return pw.Flush()
				}
				return sw.flush()
			})
			sent = cw.N
			if err == nil {
				err = sw.close()
			} else {
				// What was written goes out before the reset below.
				_ = sw.flush()
			}
			putBuf(sw.buf)
		}
		if err == nil && !ended && resp.Kind != proxy.BodyStream && pw != nil {
			err = st.sendData(nil, true, false)
		}
	}
	if err != nil && !clientGone(err) {
		// The body failed on the server's side (an upstream gone
		// mid-body, an SSI include that closed): the stream is reset, as
		// nginx resets it, so that the client can tell it was cut.
		st.c.resetStream(st.id, errCodeInternal)
	}
	st.c.endResponse(st)
	if resp.Kind == proxy.BodyFile && resp.File != nil {
		resp.File.Close()
	}
	resp.Release()
	if err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, errStreamReset) && !errors.Is(err, errConnClosed) {
		rt.Infof(r, "writing the response failed (%v)", err)
	}
	rt.Done(r, sent)
}

// clientGone reports whether a response's write failed on the client's
// side: its stream reset, its connection ended or stalled past
// send_timeout (the stream is reset already).
func clientGone(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, errStreamReset) || errors.Is(err, errConnClosed) || errors.Is(err, errSendTimeout)
}

// sendFile sends a file's range: read into the stream's buffer, a frame's
// worth at a time; unpaced, its last frame ends the stream.
func (st *ownStream) sendFile(w io.Writer, paced bool, resp *proxy.Response) (int64, error) {
	if st.wbuf == nil {
		st.wbuf = getBuf()
	}
	var sent int64
	off, left := resp.Offset, resp.Length
	for left > 0 {
		n, err := resp.File.ReadAt(st.wbuf[:min(int64(len(st.wbuf)), left)], off)
		if n > 0 {
			var werr error
			if paced {
				_, werr = w.Write(st.wbuf[:n])
			} else {
				werr = st.sendData(st.wbuf[:n], int64(n) == left, false)
			}
			if werr != nil {
				return sent, werr
			}
			sent += int64(n)
			off += int64(n)
			left -= int64(n)
		}
		if err != nil {
			if err == io.EOF && left > 0 {
				err = io.ErrUnexpectedEOF
			}
			if left > 0 {
				return sent, err
			}
		}
	}
	return sent, nil
}

// sendHeaders queues a header block, written at once when flush is set
// (otherwise with the DATA that follows, or by endResponse).
func (st *ownStream) sendHeaders(block []byte, end, flush bool) error {
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := st.writeErrLocked(); err != nil {
		return err
	}
	c.out = appendHeaderBlock(c.out, st.id, block, end, c.peerFrame)
	c.guard.sent.Add(int64(len(block)))
	if flush || len(c.out) >= coalesceLimit {
		c.flushLocked()
	}
	return c.werr
}

// writeErrLocked is why the stream can no longer be written to.
func (st *ownStream) writeErrLocked() error {
	if st.c.werr != nil {
		return st.c.werr
	}
	return st.err
}

// sendData queues p as DATA frames, within the flow-control windows
// (waiting for them at most send_timeout), end ending the stream; flush
// writes them at once (otherwise endResponse does, or the next write).
func (st *ownStream) sendData(p []byte, end, flush bool) error {
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	var timer *time.Timer
	timedOut := false
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if err := st.writeErrLocked(); err != nil {
			return err
		}
		if len(p) == 0 {
			if end {
				c.out = appendFrameHeader(c.out, 0, h2FrameData, h2FlagEndStream, st.id)
			}
			break
		}
		avail := min(c.sendWindow, st.sendWindow, int64(c.peerFrame))
		if avail <= 0 {
			if timedOut {
				// nginx's send_timeout holds for a stalled window too:
				// "client timed out".
				c.resetLocked(st.id, errCodeInternal)
				st.resetLocked(errSendTimeout)
				c.flushLocked()
				return errSendTimeout
			}
			if timer == nil && c.sendTimeout > 0 {
				timer = time.AfterFunc(c.sendTimeout, func() {
					c.mu.Lock()
					timedOut = true
					c.cond.Broadcast()
					c.mu.Unlock()
				})
			}
			if len(c.out) > 0 && !c.writing {
				// What waits goes out first; the window may move
				// meanwhile, so it is looked at again.
				c.flushLocked()
				continue
			}
			c.cond.Wait()
			continue
		}
		n := int(min(int64(len(p)), avail))
		var flags byte
		if end && n == len(p) {
			flags = h2FlagEndStream
		}
		c.out = appendFrameHeader(c.out, n, h2FrameData, flags, st.id)
		c.out = append(c.out, p[:n]...)
		c.sendWindow -= int64(n)
		st.sendWindow -= int64(n)
		c.guard.sent.Add(int64(n))
		c.guard.dataSent.Add(int64(n))
		p = p[n:]
		if len(p) == 0 {
			break
		}
		if len(c.out) >= coalesceLimit {
			c.flushLocked()
			c.waitRoomLocked()
		}
	}
	if flush || len(c.out) >= coalesceLimit {
		c.flushLocked()
	}
	c.waitRoomLocked()
	return c.werr
}

// ownWriter writes a body straight into DATA frames (the paced paths).
type ownWriter struct{ st *ownStream }

func (w ownWriter) Write(p []byte) (int, error) {
	if err := w.st.sendData(p, false, true); err != nil {
		return 0, err
	}
	return len(p), nil
}

// streamWriter gathers a streamed body's writes into frames of up to a
// buffer, sent when it fills or the pipeline flushes.
type streamWriter struct {
	st      *ownStream
	buf     []byte
	n       int
	flushed bool
}

func (w *streamWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		if w.n == len(w.buf) {
			if err := w.flush(); err != nil {
				return total - len(p), err
			}
		}
		k := copy(w.buf[w.n:], p)
		w.n += k
		p = p[k:]
	}
	return total, nil
}

func (w *streamWriter) flush() error {
	if w.n == 0 {
		return nil
	}
	err := w.st.sendData(w.buf[:w.n], false, true)
	w.n = 0
	if !w.flushed {
		// A flushed stream may last (server-sent events, a long poll):
		// the connection's other responses do not wait for it.
		w.flushed = true
		w.st.c.endResponse(w.st)
	}
	return err
}

func (w *streamWriter) close() error {
	err := w.st.sendData(w.buf[:w.n], true, false)
	w.n = 0
	return err
}

// hbufPool holds header-block buffers, as *[]byte so that a Put does not
// allocate (held in hbufs).
var hbufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getHBuf() []byte { return (*hbufPool.Get().(*[]byte))[:0] }

func putHBuf(b []byte) {
	if cap(b) <= 4096 {
		hbufPool.Put(&b)
	}
}

// bufPool holds the frame-sized buffers that file and streamed bodies
// are read into.
var bufPool = sync.Pool{New: func() any { b := make([]byte, defaultMaxFrame); return &b }}

func getBuf() []byte { return *(bufPool.Get().(*[]byte)) }

func putBuf(b []byte) {
	if cap(b) == defaultMaxFrame {
		b = b[:defaultMaxFrame]
		bufPool.Put(&b)
	}
}

// ownBody is a stream's request body under client_body_timeout, as h2Body
// has it: the longest wait between two successive reads, after which a
// Read fails with os.ErrDeadlineExceeded (answered with 408).
type ownBody struct {
	st *ownStream
	r  *proxy.Request
}

func (b *ownBody) Read(p []byte) (int, error) {
	return b.st.read(p, b.r.BodyTimeout())
}

// Buffered is how much of the body has come and not been read: what a
// Read returns without waiting (an unbuffered proxy_pass sends it with
// the head).
func (b *ownBody) Buffered() int64 {
	c := b.st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(len(b.st.body) - b.st.bodyOff)
}

// read reads the client's DATA, waiting at most timeout (0: no bound),
// and gives the window back as the pipeline consumes it.
func (st *ownStream) read(p []byte, timeout time.Duration) (int, error) {
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.expect100 {
		// The client waits for a 100 before it sends the body (RFC 9110
		// 10.1.1); it gets one when the body is first read.
		st.expect100 = false
		if st.err == nil && st.bodyOff == len(st.body) && st.bodyErr == nil {
			c.out = appendHeaderBlock(c.out, st.id, appendStatus(nil, 100), false, c.peerFrame)
			c.flushLocked()
		}
	}
	armed := false
	for st.bodyOff == len(st.body) && st.bodyErr == nil {
		if st.readTimed {
			st.readTimed = false
			return 0, os.ErrDeadlineExceeded
		}
		if timeout > 0 && !armed {
			armed = true
			if st.readTimer == nil {
				st.readTimer = time.AfterFunc(timeout, st.onReadTimeout)
			} else {
				st.readTimer.Reset(timeout)
			}
		}
		st.bodyCond.Wait()
	}
	if armed {
		st.readTimer.Stop()
		st.readTimed = false
	}
	if st.bodyOff == len(st.body) {
		return 0, st.bodyErr
	}
	n := copy(p, st.body[st.bodyOff:])
	st.bodyOff += n
	if st.bodyOff == len(st.body) {
		st.body, st.bodyOff = st.body[:0], 0
	}
	if st.state == stateOpen && st.err == nil {
		st.recvUnsent += int64(n)
		if st.recvUnsent >= defaultWindow/4 || len(st.body) == 0 {
			st.recvWindow += st.recvUnsent
			c.out = appendWindowUpdate(c.out, st.id, uint32(st.recvUnsent))
			st.recvUnsent = 0
			c.flushLocked()
		}
	}
	return n, nil
}

func (st *ownStream) onReadTimeout() {
	c := st.c
	c.mu.Lock()
	st.readTimed = true
	st.bodyCond.Broadcast()
	c.mu.Unlock()
}

// ownTunnelConn is a tunnel's stream as the net.Conn the upgrade copies
// through (streamConn's counterpart): reads are the client's DATA,
// writes go out as DATA at once.
type ownTunnelConn struct {
	st     *ownStream
	remote tunnelAddr
	mu     sync.Mutex
	rdl    time.Time
	closed bool
}

func (t *ownTunnelConn) Read(p []byte) (int, error) {
	t.mu.Lock()
	dl, closed := t.rdl, t.closed
	t.mu.Unlock()
	if closed {
		return 0, net.ErrClosed
	}
	var timeout time.Duration
	if !dl.IsZero() {
		if timeout = time.Until(dl); timeout <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
	}
	n, err := t.st.read(p, timeout)
	if err == errStreamReset || err == errConnClosed {
		err = io.EOF
	}
	return n, err
}

func (t *ownTunnelConn) Write(p []byte) (int, error) {
	if err := t.st.sendData(p, false, true); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close ends the client's side: a read waiting for DATA returns at once;
// the stream itself ends when the handler returns.
func (t *ownTunnelConn) Close() error {
	c := t.st.c
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	c.mu.Lock()
	if t.st.bodyErr == nil {
		t.st.bodyErr = net.ErrClosed
	}
	t.st.bodyCond.Broadcast()
	c.mu.Unlock()
	return nil
}

func (t *ownTunnelConn) LocalAddr() net.Addr  { return tunnelAddr{} }
func (t *ownTunnelConn) RemoteAddr() net.Addr { return t.remote }

func (t *ownTunnelConn) SetDeadline(d time.Time) error { return t.SetReadDeadline(d) }

func (t *ownTunnelConn) SetReadDeadline(d time.Time) error {
	t.mu.Lock()
	t.rdl = d
	t.mu.Unlock()
	c := t.st.c
	c.mu.Lock()
	t.st.readTimed = false
	t.st.bodyCond.Broadcast()
	c.mu.Unlock()
	return nil
}

// SetWriteDeadline is a no-op: send_timeout bounds a stalled window.
func (t *ownTunnelConn) SetWriteDeadline(time.Time) error { return nil }
