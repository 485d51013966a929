// This file holds the HTTP/2 frame guard: nginx's abuse limits, applied
// to the bytes an HTTP/2 client sends before x/net/http2 reads them.
//
// x/net/http2's own defences do not hold for edge (issue 20,
// ../shared/research/h2-engines.md section 2): empty CONTINUATION frames
// never exceed its header budget, a peer that reads the SETTINGS and PING
// acknowledgements is never cut off, WINDOW_UPDATE, PRIORITY and empty
// DATA frames are not counted, and nothing caps the streams one
// connection opens. The guard reads only the 9-byte frame headers (and
// skips payloads), so it costs a few instructions per frame, and it
// counts what nginx counts:
//
//   - traffic against payload (nginx 1.17.4, af0e284b9): every byte read
//     counts, and only DATA payload, header blocks and the HEADERS and DATA
//     payload sent back count as payload; past total/8 > payload + 1 MiB
//     the connection is a flood, whatever its frames are;
//   - one header block (HEADERS and its CONTINUATIONs) may not exceed the
//     header buffers (large_client_header_buffers, nginx's header_limit),
//     nor run to more than maxContinuations frames;
//   - SETTINGS, PING, PRIORITY, WINDOW_UPDATE, RST_STREAM and empty DATA
//     frames each have a budget that refills with time (and, for
//     WINDOW_UPDATE, with the DATA frames sent, which a client
//     acknowledges that way);
//   - streams: keepalive_requests of them per connection, as nginx has
//     since 1.19.7; then the next response carries a GOAWAY, and a client
//     that goes on opening streams past the slack is cut off.
//
// Crossing a limit ends the connection: the read fails, x/net/http2 closes
// it, and the close writes a GOAWAY with ENHANCE_YOUR_CALM first, when the
// bytes already sent end on a frame boundary.
package h2

import (
	"encoding/binary"
	"errors"
	"net"
	"sync/atomic"
	"time"
)

// HTTP/2 frame types (RFC 9113 section 6).
const (
	h2FrameData         = 0x0
	h2FrameHeaders      = 0x1
	h2FramePriority     = 0x2
	h2FrameRSTStream    = 0x3
	h2FrameSettings     = 0x4
	h2FramePushPromise  = 0x5
	h2FramePing         = 0x6
	h2FrameGoAway       = 0x7
	h2FrameWindowUpdate = 0x8
	h2FrameContinuation = 0x9
)

// Frame flags.
const (
	h2FlagEndStream  = 0x1
	h2FlagAck        = 0x1
	h2FlagEndHeaders = 0x4
)

const (
	h2FrameHeaderLen = 9
	// h2ClientPreface is the length of "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".
	h2ClientPreface = 24
	// h2FloodSlack is the traffic nginx forgives before it compares: a
	// connection is a flood once total/8 > payload + h2FloodSlack.
	h2FloodSlack = 1 << 20
	// maxContinuations bounds the CONTINUATION frames of one header block
	// beyond those its size needs (one per 16 KiB of the header buffers):
	// a block that fits the buffers needs a few at most.
	maxContinuations = 32
	// h2StreamSlack is how many streams past keepalive_requests a client
	// may open before it has seen the GOAWAY: twice the streams it may have
	// open at once (nginx refuses more than that per read, 1.25.3).
	h2StreamSlack = 2 * h2MaxConcurrentStreams
	// windowUpdateBytes is how much DATA sent earns the client one
	// WINDOW_UPDATE frame past its budget.
	windowUpdateBytes = 256
	// h2MaxConcurrentStreams is SETTINGS_MAX_CONCURRENT_STREAMS when the
	// configuration says nothing: nginx's http2_max_concurrent_streams
	// default.
	h2MaxConcurrentStreams = 128
)

// errH2Flood is the read error that ends a connection over a limit.
var errH2Flood = errors.New("http2 flood detected")

// frameBudget is a token bucket: burst frames at once, refilled at rate
// frames per second.
type frameBudget struct {
	tokens float64
	last   time.Time
}

// budgetKind names the frames that have a budget.
type budgetKind int

const (
	budgetSettings budgetKind = iota
	budgetPing
	budgetPriority
	budgetWindowUpdate
	budgetEmptyData
	budgetReset
	numBudgets
)

// budgetLimits are each kind's burst and rate, and the word the error log
// uses for it. Browsers send a handful of SETTINGS, PING and PRIORITY
// frames on a connection; WINDOW_UPDATE follows the DATA a client reads.
var budgetLimits = [numBudgets]struct {
	burst, rate float64
	what        string
}{
	budgetSettings:     {100, 10, "SETTINGS"},
	budgetPing:         {100, 10, "PING"},
	budgetPriority:     {1000, 100, "PRIORITY"},
	budgetWindowUpdate: {1000, 100, "WINDOW_UPDATE"},
	budgetEmptyData:    {100, 10, "empty DATA"},
	// At most MaxConcurrentStreams at once, so a client may cancel every
	// stream it has open, and no more: a reset frees its stream's slot
	// while the handler still runs, and past that many running handlers
	// x/net/http2 queues the next ones, which (measured, issue 20) kept
	// dead connections reachable: four clients resetting 1,000 streams a
	// connection grew RSS linearly at a burst of 256, and not at 127.
	budgetReset: {h2MaxConcurrentStreams, 100, "RST_STREAM"},
}

// h2Guard watches one HTTP/2 connection. Its read side runs on x/net's
// frame-reading goroutine only; sent and dataSent are added to by the
// writing side.
type h2Guard struct {
	headerLimit int // bytes one header block may have
	maxStreams  int // keepalive_requests; 0: no limit
	// resetBurst is RST_STREAM's burst: http2_max_concurrent_streams, so a
	// client may cancel every stream it may have open (budgetLimits).
	resetBurst float64
	now        func() time.Time

	preface int // client preface bytes still to skip
	in      frameCursor
	total   int64 // bytes read
	payload int64 // payload read (DATA, header blocks)

	inBlock     bool // a header block is open (HEADERS without END_HEADERS)
	blockBytes  int
	blockFrames int
	streams     atomic.Int64 // streams the client opened
	// lastStream is the highest stream ID the client opened in the bytes
	// handed to x/net/http2 (seen: in those scanned so far), for the
	// GOAWAY: it must not name a stream the server never read.
	lastStream   atomic.Uint32
	seen         uint32
	budgets      [numBudgets]frameBudget
	windowCredit int64 // dataSent already turned into WINDOW_UPDATE tokens

	sent     atomic.Int64 // HEADERS and DATA payload written to the client
	dataSent atomic.Int64 // DATA payload bytes written to the client

	tripped atomic.Bool
	reason  string // what tripped it, for the error log
}

func newH2Guard(headerLimit, maxStreams int, now func() time.Time) *h2Guard {
	g := &h2Guard{headerLimit: headerLimit, maxStreams: maxStreams, now: now, preface: h2ClientPreface,
		resetBurst: h2MaxConcurrentStreams}
	t := now()
	for k := range g.budgets {
		g.budgets[k] = frameBudget{tokens: budgetLimits[k].burst, last: t}
	}
	return g
}

// setConcurrentStreams sizes the RST_STREAM budget for a connection that
// announces n as SETTINGS_MAX_CONCURRENT_STREAMS; it is called before
// the first frame is read.
func (g *h2Guard) setConcurrentStreams(n int) {
	g.resetBurst = float64(n)
	g.budgets[budgetReset].tokens = g.resetBurst
}

// burst is kind's burst on this connection.
func (g *h2Guard) burst(kind budgetKind) float64 {
	if kind == budgetReset {
		return g.resetBurst
	}
	return budgetLimits[kind].burst
}

// read reads from c into p and checks the frames it carries. Over a limit
// it returns errH2Flood (and none of the bytes) from then on.
func (g *h2Guard) read(c net.Conn, p []byte) (int, error) {
	if g.tripped.Load() {
		return 0, errH2Flood
	}
	n, err := c.Read(p)
	if n > 0 && !g.scan(p[:n]) {
		g.tripped.Store(true)
		return 0, errH2Flood
	}
	return n, err
}

// scan walks the frame headers in b; false means a limit was crossed.
func (g *h2Guard) scan(b []byte) bool {
	g.total += int64(len(b))
	if g.preface > 0 {
		k := min(g.preface, len(b))
		g.preface -= k
		b = b[k:]
	}
	for {
		var ok bool
		if b, ok = g.in.next(b); !ok {
			break
		}
		h := &g.in.hdr
		if !g.frame(h[3], h[4], binary.BigEndian.Uint32(h[5:])&0x7fffffff, g.in.remaining) {
			return false
		}
	}
	if g.total/8 > g.payload+g.sent.Load()+h2FloodSlack {
		return g.trip("http2 flood detected")
	}
	g.lastStream.Store(g.seen)
	return true
}

// frame checks one frame header.
func (g *h2Guard) frame(typ, flags byte, stream uint32, length int) bool {
	if g.inBlock && typ != h2FrameContinuation {
		// x/net/http2 refuses this itself (PROTOCOL_ERROR).
		g.inBlock = false
	}
	switch typ {
	case h2FrameData:
		g.payload += int64(length)
		if length == 0 && flags&h2FlagEndStream == 0 {
			return g.spend(budgetEmptyData)
		}
	case h2FrameHeaders:
		if stream > g.seen {
			g.seen = stream
			if n := g.streams.Add(1); g.maxStreams > 0 && n > int64(g.maxStreams+h2StreamSlack) {
				return g.trip("client sent too many streams")
			}
		}
		g.payload += int64(length)
		g.inBlock = flags&h2FlagEndHeaders == 0
		g.blockBytes, g.blockFrames = length, 1
		return g.checkBlock()
	case h2FrameContinuation:
		g.payload += int64(length)
		g.blockBytes += length
		g.blockFrames++
		if flags&h2FlagEndHeaders != 0 {
			g.inBlock = false
		}
		return g.checkBlock()
	case h2FramePriority:
		return g.spend(budgetPriority)
	case h2FrameRSTStream:
		return g.spend(budgetReset)
	case h2FrameSettings:
		if flags&h2FlagAck == 0 {
			return g.spend(budgetSettings)
		}
	case h2FramePing:
		if flags&h2FlagAck == 0 {
			return g.spend(budgetPing)
		}
	case h2FrameWindowUpdate:
		// A client acknowledges the DATA it reads with WINDOW_UPDATE, on
		// the stream and on the connection, as often as it reads: Go's
		// client, reading slowly, sent more than one per DATA frame. Each
		// windowUpdateBytes of DATA sent earns one.
		if d := g.dataSent.Load(); d > g.windowCredit {
			b := &g.budgets[budgetWindowUpdate]
			b.tokens += float64(d-g.windowCredit) / windowUpdateBytes
			g.windowCredit = d
		}
		return g.spend(budgetWindowUpdate)
	}
	return true
}

// checkBlock applies the header-block limits.
func (g *h2Guard) checkBlock() bool {
	if g.headerLimit > 0 && g.blockBytes > g.headerLimit {
		return g.trip("client exceeded http2_max_header_size limit")
	}
	if g.blockFrames > g.headerLimit/(16<<10)+maxContinuations+1 {
		return g.trip("client sent too many CONTINUATION frames")
	}
	return true
}

// spend takes one frame from kind's budget.
func (g *h2Guard) spend(kind budgetKind) bool {
	b, l, burst := &g.budgets[kind], budgetLimits[kind], g.burst(kind)
	now := g.now()
	if d := now.Sub(b.last); d > 0 {
		// Time refills up to the burst; credit (WINDOW_UPDATE's) may
		// stand above it.
		if b.tokens < burst {
			b.tokens = min(b.tokens+d.Seconds()*l.rate, burst)
		}
		b.last = now
	}
	if b.tokens < 1 {
		return g.trip("client sent too many " + l.what + " frames")
	}
	b.tokens--
	return true
}

func (g *h2Guard) trip(reason string) bool {
	g.reason = reason
	return false
}

// lastRequest reports whether the client has opened keepalive_requests
// streams: the response being written should end the connection.
func (g *h2Guard) lastRequest() bool {
	return g.maxStreams > 0 && g.streams.Load() >= int64(g.maxStreams)
}

// outFrames follows the frames edge writes, so that the guard can credit
// their payload and a GOAWAY can be put on a frame boundary.
type outFrames struct {
	frameCursor
	goAway bool // x/net/http2 has sent a GOAWAY (keepalive_requests)
}

// scan walks the frame headers in b, crediting g with the HEADERS and
// DATA payload sent.
func (o *outFrames) scan(b []byte, g *h2Guard) {
	var sent, data int64
	for {
		var ok bool
		if b, ok = o.next(b); !ok {
			break
		}
		switch o.hdr[3] {
		case h2FrameGoAway:
			o.goAway = true
		case h2FrameData:
			data += int64(o.remaining)
			sent += int64(o.remaining)
		case h2FrameHeaders, h2FrameContinuation:
			sent += int64(o.remaining)
		}
	}
	if sent > 0 {
		g.sent.Add(sent)
	}
	if data > 0 {
		g.dataSent.Add(data)
	}
}

// frameCursor follows frame boundaries in a byte stream that comes in
// pieces: a frame's 9-byte header may span two of them, its payload many.
type frameCursor struct {
	hdr       [h2FrameHeaderLen]byte
	hdrN      int // bytes of hdr filled
	remaining int // payload bytes of the current frame still to skip
}

// next skips payload in b up to the next frame header; when b holds the
// rest of one, hdr is that header, remaining its payload's length, and
// rest what follows it in b. ok is false when b ends first.
func (f *frameCursor) next(b []byte) (rest []byte, ok bool) {
	for len(b) > 0 {
		if f.remaining > 0 {
			k := min(f.remaining, len(b))
			f.remaining -= k
			b = b[k:]
			continue
		}
		k := copy(f.hdr[f.hdrN:], b)
		f.hdrN += k
		if f.hdrN < h2FrameHeaderLen {
			return nil, false
		}
		f.hdrN = 0
		f.remaining = int(f.hdr[0])<<16 | int(f.hdr[1])<<8 | int(f.hdr[2])
		return b[k:], true
	}
	return nil, false
}

// aligned reports whether the bytes followed so far end on a frame
// boundary.
func (f *frameCursor) aligned() bool { return f.hdrN == 0 && f.remaining == 0 }

// goAwayFrame is a GOAWAY with ENHANCE_YOUR_CALM naming lastStream.
func goAwayFrame(lastStream uint32) []byte {
	f := make([]byte, h2FrameHeaderLen+8)
	f[2] = 8
	f[3] = h2FrameGoAway
	binary.BigEndian.PutUint32(f[9:], lastStream)
	binary.BigEndian.PutUint32(f[13:], 0xb) // ENHANCE_YOUR_CALM
	return f
}
