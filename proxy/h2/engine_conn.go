// This file holds the connection side of edge's own HTTP/2 engine
// (engine.go): the goroutine that reads and answers the client's frames
// (RFC 9113 sections 5 and 6), the connection's pending frames and the
// write that sends them, and flow control's send side.
package h2

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"edge/proxy"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Stream states (RFC 9113 5.1) as the engine keeps them; a stream that
// is closed leaves the connection's map.
const (
	stateOpen             = iota // both sides may send
	stateHalfClosedRemote        // the client ended its side
)

var (
	errStreamReset = errors.New("http2: stream reset")
	errConnClosed  = errors.New("http2: connection closed")
	errSendTimeout = errors.New("http2: flow-control window stalled past send_timeout")
)

// connError is a connection error (RFC 9113 5.4.1): GOAWAY with code.
type connError uint32

func (e connError) Error() string { return "http2: connection error " + http2.ErrCode(e).String() }

// ownConn is one connection served by the engine.
type ownConn struct {
	a     *Adapter
	nc    net.Conn
	info  *proxy.ConnInfo
	guard *h2Guard
	ctx   context.Context // the streams' parent; canceled when the connection ends
	stop  context.CancelFunc

	maxStreams  int           // SETTINGS_MAX_CONCURRENT_STREAMS announced
	idleTimeout time.Duration // keepalive_timeout
	sendTimeout time.Duration // send_timeout: how long a stream waits for window
	requests    atomic.Int64
	handlers    sync.WaitGroup

	// The reader goroutine's own.
	br            *bufio.Reader
	fr            *http2.Framer
	hdec          *hpack.Decoder // the request header blocks' (engine_headers.go)
	blk           headerBlock    // the block being decoded
	maxHeaderList uint32         // SETTINGS_MAX_HEADER_LIST_SIZE announced
	// maxID is the highest stream the client opened; the reader writes it
	// under mu (a GOAWAY written by a handler names it), and reads it
	// without.
	maxID uint32
	// recent are the streams the server reset lately: their frames are
	// ignored (RFC 9113 5.4.2), but for a stream it ended after its
	// response (st set) the rest of the request is still checked.
	recent     [16]recentReset
	resetNext  int
	recvUnsent int64 // connection window consumed and not yet given back
	readerOut  bool  // the reader queued frames it has not flushed (unlockReader)

	mu      sync.Mutex
	cond    sync.Cond // window, write and pending-room changes
	out     []byte    // frames not yet written
	spare   []byte
	writing bool  // a goroutine is writing out
	werr    error // the first write error, or errConnClosed
	streams map[uint32]*ownStream
	active  int // open streams, counted against maxStreams
	running int // handlers whose response is not complete yet
	// flushTimer sends what a complete response left pending when
	// another stream's handler takes long (endResponse).
	flushTimer *time.Timer
	flushArmed bool
	// Send side flow control (RFC 9113 6.9).
	sendWindow int64
	peerWindow int64 // SETTINGS_INITIAL_WINDOW_SIZE of the client
	peerFrame  int   // SETTINGS_MAX_FRAME_SIZE of the client
	goAway     bool  // a GOAWAY was sent: no stream past goAwayID starts
	goAwayID   uint32
	peerGone   bool // the client sent GOAWAY
	idle       *time.Timer
	closeTimer *time.Timer
	ended      bool
}

// goAwayGrace is how long a connection that sent a GOAWAY with NO_ERROR
// stays open once its last stream ended, for the client to read it and
// close first (x/net/http2's goAwayTimeout).
const goAwayGrace = time.Second

// guardReader reads the connection through the frame guard, as
// coalescedConn.Read does on the x/net path.
type guardReader struct{ c *ownConn }

func (g guardReader) Read(p []byte) (int, error) { return g.c.guard.read(g.c.nc, p) }

// serveOwn serves c with edge's engine until the connection ends.
func (s *Adapter) serveOwn(c net.Conn, info *proxy.ConnInfo, guard *h2Guard) {
	def := info.Group.Default
	ctx, stop := context.WithCancel(context.Background())
	oc := &ownConn{
		a: s, nc: c, info: info, guard: guard, ctx: ctx, stop: stop,
		maxStreams:  def.HTTP2MaxConcurrentStreams,
		idleTimeout: def.Loc.KeepaliveTimeout,
		sendTimeout: def.Loc.SendTimeout,
		streams:     make(map[uint32]*ownStream),
		sendWindow:  defaultWindow,
		peerWindow:  defaultWindow,
		peerFrame:   defaultMaxFrame,
	}
	if oc.maxStreams <= 0 {
		oc.maxStreams = h2MaxConcurrentStreams
	}
	oc.cond.L = &oc.mu
	oc.br = bufio.NewReaderSize(guardReader{oc}, 8<<10)
	oc.fr = http2.NewFramer(io.Discard, oc.br)
	oc.fr.SetMaxReadFrameSize(defaultMaxFrame)
	oc.maxHeaderList = uint32(h2HeaderBudget(def))
	oc.hdec = hpack.NewDecoder(4096, oc.emit)
	oc.hdec.SetMaxStringLength(int(oc.maxHeaderList))
	oc.fr.SetReuseFrames()
	s.live.Store(info, oc)
	defer s.live.Delete(info)
	oc.run()
}

// drain is Adapter.Drain's: a GOAWAY now, and the close once no stream
// is open (streamDoneLocked), after the grace a client has to read it.
func (c *ownConn) drain() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended || c.goAway {
		return
	}
	c.goAwayLocked(errCodeNo)
	if c.active == 0 && c.closeTimer == nil {
		c.closeTimer = time.AfterFunc(goAwayGrace, func() { c.nc.Close() })
	}
}

// run reads the preface and then the frames until the connection ends.
func (c *ownConn) run() {
	defer c.end()
	c.mu.Lock()
	// nginx's settings: the streams it takes at once, the frame size it
	// reads, the header list it decodes, and RFC 8441's extended CONNECT
	// (websocket.go); the connection's receive window opens all the way
	// (the stream windows bound what a client may send unread).
	b := appendFrameHeader(c.out, 4*6, h2FrameSettings, 0, 0)
	b = appendSetting(b, settingMaxConcurrent, uint32(c.maxStreams))
	b = appendSetting(b, settingMaxFrameSize, defaultMaxFrame)
	b = appendSetting(b, settingMaxHeaderListSize, c.maxHeaderList)
	b = appendSetting(b, settingEnableConnectProto, 1)
	c.out = appendWindowUpdate(b, 0, maxWindow-defaultWindow)
	c.flushLocked()
	c.armIdleLocked()
	c.mu.Unlock()

	var preface [h2ClientPreface]byte
	if _, err := io.ReadFull(c.br, preface[:]); err != nil || string(preface[:]) != http2.ClientPreface {
		return
	}
	for {
		if c.readerOut && c.br.Buffered() == 0 {
			// What the reader queued (acknowledgements, resets, window
			// updates) goes out before it waits for the client.
			c.readerOut = false
			c.mu.Lock()
			c.flushLocked()
			c.mu.Unlock()
		}
		f, err := c.fr.ReadFrame()
		if err != nil {
			if !c.readError(err) {
				return
			}
			continue
		}
		if err := c.process(f); err != nil {
			var ce connError
			if errors.As(err, &ce) {
				c.sendGoAway(uint32(ce))
			}
			return
		}
	}
}

// readError answers a failed ReadFrame; false ends the connection.
func (c *ownConn) readError(err error) bool {
	var se http2.StreamError
	var ce http2.ConnectionError
	switch {
	case errors.As(err, &se):
		c.resetStream(se.StreamID, uint32(se.Code))
		return true
	case errors.As(err, &ce):
		c.sendGoAway(uint32(ce))
	case errors.Is(err, http2.ErrFrameTooLarge):
		c.sendGoAway(errCodeFrameSize)
	case errors.Is(err, errH2Flood):
		c.sendGoAway(errCodeEnhanceYourCalm)
	}
	return false
}

// process handles one frame on the reader goroutine.
func (c *ownConn) process(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.HeadersFrame:
		return c.startBlock(f)
	case *http2.ContinuationFrame:
		// The framer lets CONTINUATION through only right after its
		// HEADERS (RFC 9113 6.10).
		return c.blockFragment(f.HeaderBlockFragment(), f.HeadersEnded())
	case *http2.DataFrame:
		return c.processData(f)
	case *http2.SettingsFrame:
		return c.processSettings(f)
	case *http2.WindowUpdateFrame:
		return c.processWindowUpdate(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			c.mu.Lock()
			c.out = appendFrameHeader(c.out, 8, h2FramePing, h2FlagAck, 0)
			c.out = append(c.out, f.Data[:]...)
			c.readerOut = true
			c.mu.Unlock()
		}
	case *http2.RSTStreamFrame:
		if f.StreamID > c.maxID {
			return connError(errCodeProtocol) // idle (RFC 9113 5.1)
		}
		c.mu.Lock()
		if st := c.streams[f.StreamID]; st != nil {
			st.resetLocked(errStreamReset)
		} else {
			for i := range c.recent {
				if c.recent[i].id == f.StreamID {
					c.recent[i].peerReset = true
				}
			}
		}
		c.mu.Unlock()
	case *http2.PriorityFrame:
		// Accepted and ignored, as nginx does in practice; a stream
		// depending on itself is malformed (RFC 9113 5.3.1).
		if f.StreamDep == f.StreamID {
			c.resetStream(f.StreamID, errCodeProtocol)
		}
	case *http2.GoAwayFrame:
		c.mu.Lock()
		c.peerGone = true
		done := c.active == 0
		c.mu.Unlock()
		if done {
			return io.EOF
		}
	case *http2.PushPromiseFrame:
		return connError(errCodeProtocol) // a client never pushes (RFC 9113 8.4)
	}
	return nil
}

func (c *ownConn) processSettings(f *http2.SettingsFrame) error {
	if f.IsAck() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	err := f.ForeachSetting(func(s http2.Setting) error {
		if err := s.Valid(); err != nil {
			var ce http2.ConnectionError
			if errors.As(err, &ce) {
				return connError(ce)
			}
			return connError(errCodeProtocol)
		}
		switch s.ID {
		case http2.SettingInitialWindowSize:
			// A change applies to every open stream's window (RFC 9113
			// 6.9.2); one pushed past 2^31-1 is FLOW_CONTROL_ERROR.
			delta := int64(s.Val) - c.peerWindow
			c.peerWindow = int64(s.Val)
			for _, st := range c.streams {
				st.sendWindow += delta
				if st.sendWindow > maxWindow {
					return connError(errCodeFlowControl)
				}
			}
		case http2.SettingMaxFrameSize:
			c.peerFrame = int(s.Val)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.out = appendFrameHeader(c.out, 0, h2FrameSettings, h2FlagAck, 0)
	c.readerOut = true
	c.cond.Broadcast()
	return nil
}

func (c *ownConn) processWindowUpdate(f *http2.WindowUpdateFrame) error {
	c.mu.Lock()
	defer c.unlockReader(len(c.out))
	if f.StreamID == 0 {
		c.sendWindow += int64(f.Increment)
		if c.sendWindow > maxWindow {
			return connError(errCodeFlowControl)
		}
		c.cond.Broadcast()
		return nil
	}
	if f.StreamID > c.maxID {
		return connError(errCodeProtocol)
	}
	st := c.streams[f.StreamID]
	if st == nil {
		// Closed: WINDOW_UPDATE may still come (RFC 9113 5.1), and one
		// past 2^31-1 on a stream ended after its response is still an
		// error.
		if _, done := c.wasReset(f.StreamID); done != nil && done.sendWindow <= maxWindow {
			if done.sendWindow += int64(f.Increment); done.sendWindow > maxWindow {
				c.resetLocked(f.StreamID, errCodeFlowControl)
			}
		}
		return nil
	}
	st.sendWindow += int64(f.Increment)
	if st.sendWindow > maxWindow {
		c.resetLocked(st.id, errCodeFlowControl)
		st.resetLocked(errStreamReset)
		return nil
	}
	c.cond.Broadcast()
	return nil
}

func (c *ownConn) processData(f *http2.DataFrame) error {
	id, n := f.StreamID, int64(f.Length)
	if id > c.maxID {
		return connError(errCodeProtocol) // idle
	}
	// The connection's window: what came is given back at once; the
	// stream windows bound what is held.
	c.recvUnsent += n
	c.mu.Lock()
	defer c.unlockReader(len(c.out))
	if c.recvUnsent >= maxWindow/2 {
		c.out = appendWindowUpdate(c.out, 0, uint32(c.recvUnsent))
		c.recvUnsent = 0
	}
	st := c.streams[id]
	if st == nil || st.state != stateOpen {
		if r := c.recentReset(id); st == nil && r != nil {
			if r.peerReset {
				c.resetLocked(id, errCodeStreamClosed)
				return nil
			}
			done := r.st
			// After the response the body may still come; it has to
			// agree with its content-length all the same (RFC 9113
			// 8.1.1).
			if done != nil && done.declared >= 0 {
				done.got += int64(len(f.Data()))
				if done.got > done.declared || f.StreamEnded() && done.got != done.declared {
					done.declared = -1
					c.resetLocked(id, errCodeProtocol)
				}
			}
			return nil
		}
		c.resetLocked(id, errCodeStreamClosed)
		if st != nil {
			st.resetLocked(errStreamReset)
		}
		return nil
	}
	st.recvWindow -= n
	if st.recvWindow < 0 {
		c.resetLocked(id, errCodeFlowControl)
		st.resetLocked(errStreamReset)
		return nil
	}
	data := f.Data()
	if pad := n - int64(len(data)); pad > 0 {
		// Padding is flow-controlled but never read: it goes back now.
		st.recvWindow += pad
		c.out = appendWindowUpdate(c.out, id, uint32(pad))
	}
	st.got += int64(len(data))
	if st.declared >= 0 && st.got > st.declared {
		c.resetLocked(id, errCodeProtocol)
		st.resetLocked(errStreamReset)
		return nil
	}
	st.body = append(st.body, data...)
	if f.StreamEnded() {
		if st.declared >= 0 && st.got != st.declared {
			// Content-Length disagrees with the DATA (RFC 9113 8.1.1).
			c.resetLocked(id, errCodeProtocol)
			st.resetLocked(errStreamReset)
			return nil
		}
		st.endRemoteLocked()
	}
	st.bodyCond.Broadcast()
	return nil
}

// recentReset is a stream the server reset lately.
type recentReset struct {
	id uint32
	st *ownStream // the stream, when it was ended after its response
	// peerReset: the client reset it too, and may send nothing more on it
	// (RFC 9113 5.1).
	peerReset bool
}

// setMaxID notes the client's newest stream. A stream at most the
// GOAWAY's last one is served, however close the two came.
func (c *ownConn) setMaxID(id uint32) {
	c.mu.Lock()
	c.maxID = id
	c.mu.Unlock()
}

// wasReset reports whether the server reset stream id lately, and the
// stream when it ended after its response.
func (c *ownConn) wasReset(id uint32) (bool, *ownStream) {
	r := c.recentReset(id)
	return r != nil, r.stream()
}

func (c *ownConn) recentReset(id uint32) *recentReset {
	for i := range c.recent {
		if c.recent[i].id == id {
			return &c.recent[i]
		}
	}
	return nil
}

func (r *recentReset) stream() *ownStream {
	if r == nil {
		return nil
	}
	return r.st
}

// resetStream sends RST_STREAM for id and closes its stream.
func (c *ownConn) resetStream(id uint32, code uint32) {
	c.mu.Lock()
	c.resetLocked(id, code)
	if st := c.streams[id]; st != nil {
		st.resetLocked(errStreamReset)
	}
	c.flushLocked()
	c.mu.Unlock()
}

// resetLocked queues RST_STREAM for id; c.mu is held, and the caller
// flushes (flushLocked lets go of it meanwhile).
func (c *ownConn) resetLocked(id uint32, code uint32) {
	c.recent[c.resetNext] = recentReset{id: id}
	c.resetNext = (c.resetNext + 1) % len(c.recent)
	c.out = appendRSTStream(c.out, id, code)
}

// sendGoAway queues a GOAWAY naming the last stream the client opened.
func (c *ownConn) sendGoAway(code uint32) {
	c.mu.Lock()
	c.goAwayLocked(code)
	c.mu.Unlock()
}

func (c *ownConn) goAwayLocked(code uint32) {
	if c.goAway && code == errCodeNo {
		return
	}
	// A second GOAWAY may not name a later stream (RFC 9113 6.8).
	if !c.goAway {
		c.goAway, c.goAwayID = true, c.maxID
	}
	c.out = appendGoAway(c.out, c.goAwayID, code)
	c.flushLocked()
}

// unlockReader lets go of c.mu on the reader goroutine, noting whether
// it queued frames since it took it (the length of c.out then is n0):
// those go out before it next waits for the client (run), not at once,
// so that the frames of the handlers it started are not sent ahead of
// the rest of their burst.
func (c *ownConn) unlockReader(n0 int) {
	if len(c.out) != n0 {
		c.readerOut = true
	}
	c.mu.Unlock()
}

// flushLocked writes what is pending unless a write is in flight, whose
// goroutine then writes it too; c.mu is held and released meanwhile.
func (c *ownConn) flushLocked() {
	if c.writing {
		return
	}
	c.writing = true
	for len(c.out) > 0 && c.werr == nil {
		data := c.out
		c.out = c.spare[:0]
		c.spare = nil
		c.mu.Unlock()
		_, err := c.nc.Write(data) // bounded by send_timeout (ConnInfo.Raw)
		c.mu.Lock()
		if cap(data) <= 2*coalesceLimit {
			c.spare = data[:0]
		}
		if err != nil && c.werr == nil {
			c.werr = err
		}
	}
	c.writing = false
	c.cond.Broadcast()
}

// endResponse sends what is pending once st's response is complete.
// While other streams of the connection are still being answered, the
// last of them to complete sends it all, so that their frames leave in
// one write, as nginx sends what one event-loop iteration made in one
// go; a lone response goes out at once. A handler that blocks (on an
// upstream, on a window) holds the others back at most flushDelay.
// (runtime.Gosched in its place, to let the others run first, coalesced
// as well with a server alone on its CPU but cost 7x the time per
// request when the handlers shared the processors with other work:
// BenchmarkStatic1K/h2.)
func (c *ownConn) endResponse(st *ownStream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.running {
		st.running = false
		c.running--
	}
	if len(c.out) == 0 || c.writing {
		return
	}
	if c.running > 0 {
		if !c.flushArmed {
			c.flushArmed = true
			if c.flushTimer == nil {
				c.flushTimer = time.AfterFunc(flushDelay, c.onFlushTimer)
			} else {
				c.flushTimer.Reset(flushDelay)
			}
		}
		return
	}
	if c.flushArmed {
		c.flushArmed = false
		c.flushTimer.Stop()
	}
	c.flushLocked()
}

// flushDelay bounds how long a complete response waits for the
// connection's other streams (endResponse).
const flushDelay = time.Millisecond

func (c *ownConn) onFlushTimer() {
	c.mu.Lock()
	c.flushArmed = false
	c.flushLocked()
	c.mu.Unlock()
}

// waitRoomLocked holds a writer back while coalesceLimit bytes wait for a
// write in flight (backpressure).
func (c *ownConn) waitRoomLocked() {
	for c.werr == nil && c.writing && len(c.out) >= coalesceLimit {
		c.cond.Wait()
	}
}

// armIdleLocked starts keepalive_timeout for a connection without
// streams; c.mu is held.
func (c *ownConn) armIdleLocked() {
	if !c.writing && cap(c.spare) > 16<<10 {
		// A connection without streams keeps a small write buffer at
		// most (issue 20).
		c.spare = nil
	}
	if c.idleTimeout <= 0 || c.ended {
		return
	}
	if c.idle == nil {
		c.idle = time.AfterFunc(c.idleTimeout, c.onIdle)
	} else {
		c.idle.Reset(c.idleTimeout)
	}
}

// onIdle ends a connection that had no stream for keepalive_timeout,
// with a GOAWAY first (NO_ERROR), as x/net/http2 does.
func (c *ownConn) onIdle() {
	c.mu.Lock()
	if c.active > 0 || c.ended {
		c.mu.Unlock()
		return
	}
	c.goAwayLocked(errCodeNo)
	c.mu.Unlock()
	c.nc.Close()
}

// streamDoneLocked notes that an open stream closed; c.mu is held.
func (c *ownConn) streamDoneLocked() {
	c.active--
	if c.active > 0 {
		return
	}
	switch {
	case c.peerGone:
		c.nc.Close()
	case c.goAway:
		if c.closeTimer == nil && !c.ended {
			c.closeTimer = time.AfterFunc(goAwayGrace, func() { c.nc.Close() })
		}
	default:
		c.armIdleLocked()
	}
}

// end runs when the reader stops: the streams are canceled, what is
// pending goes out, and the connection closes once no handler runs.
func (c *ownConn) end() {
	c.stop()
	c.mu.Lock()
	c.ended = true
	if c.idle != nil {
		c.idle.Stop()
	}
	if c.closeTimer != nil {
		c.closeTimer.Stop()
	}
	if c.flushTimer != nil {
		c.flushTimer.Stop()
	}
	for _, st := range c.streams {
		st.resetLocked(errConnClosed)
	}
	if c.guard.tripped.Load() && c.info.Raw != nil {
		// nginx closes a flooding connection at once: what is left goes
		// out within a second or not at all.
		c.info.Raw.SetWriteTimeout(time.Second)
	}
	for c.writing {
		c.cond.Wait()
	}
	c.flushLocked()
	if c.werr == nil {
		c.werr = errConnClosed
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	c.nc.Close()
	c.handlers.Wait()
}
