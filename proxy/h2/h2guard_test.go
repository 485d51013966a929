package h2

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// guardFrames is a client's byte stream: the preface, then what write
// adds with the framer.
func guardFrames(write func(fr *http2.Framer)) []byte {
	var b bytes.Buffer
	b.WriteString(http2.ClientPreface)
	fr := http2.NewFramer(&b, nil)
	fr.WriteSettings()
	write(fr)
	return b.Bytes()
}

// TestH2Guard feeds frame sequences to the guard, whole and a few bytes
// at a time, and checks which of them cross a limit (issue 20).
func TestH2Guard(t *testing.T) {
	block := []byte{0x82, 0x87, 0x84} // :method GET, :scheme https, :path /
	tests := []struct {
		name string
		// tick is how far the clock moves after each frame.
		tick  time.Duration
		write func(fr *http2.Framer)
		// dataSent is how many DATA payload bytes edge has written.
		dataSent int64
		// chunks are the sizes the stream is fed in; nil means whole and
		// 7 bytes at a time.
		chunks []int
		want   string // the trip reason; "" for none
	}{
		{name: "browsing", write: func(fr *http2.Framer) {
			fr.WriteWindowUpdate(0, 15<<20)
			for id := uint32(1); id < 400; id += 2 {
				fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndStream: true, EndHeaders: true})
			}
			fr.WritePing(false, [8]byte{})
			fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 20})
			fr.WriteSettingsAck()
		}},
		{name: "split_header_block", write: func(fr *http2.Framer) {
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: bytes.Repeat([]byte{1}, 16000), EndStream: true})
			fr.WriteContinuation(1, true, bytes.Repeat([]byte{1}, 16000))
		}},
		{name: "header_block_over_limit", want: "http2_max_header_size", write: func(fr *http2.Framer) {
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: bytes.Repeat([]byte{1}, 16000), EndStream: true})
			fr.WriteContinuation(1, false, bytes.Repeat([]byte{1}, 16000))
			fr.WriteContinuation(1, true, bytes.Repeat([]byte{1}, 1000))
		}},
		{name: "empty_continuations", want: "CONTINUATION", write: func(fr *http2.Framer) {
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block, EndStream: true})
			for i := 0; i < 40; i++ {
				fr.WriteContinuation(1, false, nil)
			}
		}},
		{name: "settings_flood", want: "SETTINGS", write: func(fr *http2.Framer) {
			for i := 0; i < 200; i++ {
				fr.WriteSettings()
			}
		}},
		{name: "settings_slowly", tick: 100 * time.Millisecond, chunks: []int{7}, write: func(fr *http2.Framer) {
			for i := 0; i < 500; i++ {
				fr.WriteSettings()
			}
		}},
		{name: "ping_flood", want: "PING", write: func(fr *http2.Framer) {
			for i := 0; i < 200; i++ {
				fr.WritePing(false, [8]byte{})
			}
		}},
		{name: "ping_acks", write: func(fr *http2.Framer) {
			for i := 0; i < 200; i++ {
				fr.WritePing(true, [8]byte{})
			}
		}},
		{name: "priority_flood", want: "PRIORITY", write: func(fr *http2.Framer) {
			for i := uint32(0); i < 2000; i++ {
				fr.WritePriority(2*i+1, http2.PriorityParam{Weight: 1})
			}
		}},
		{name: "window_update_flood", want: "WINDOW_UPDATE", write: func(fr *http2.Framer) {
			for i := 0; i < 2000; i++ {
				fr.WriteWindowUpdate(0, 1)
			}
		}},
		{name: "window_updates_for_data", dataSent: 1000 * 16384, write: func(fr *http2.Framer) {
			for i := 0; i < 2000; i++ {
				fr.WriteWindowUpdate(uint32(i%2), 16384)
			}
		}},
		{name: "empty_data_flood", want: "empty DATA", write: func(fr *http2.Framer) {
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block, EndHeaders: true})
			for i := 0; i < 200; i++ {
				fr.WriteData(1, false, nil)
			}
		}},
		{name: "cancel_every_open_stream", write: func(fr *http2.Framer) {
			for id := uint32(1); id < 2*h2MaxConcurrentStreams; id += 2 {
				fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndStream: true, EndHeaders: true})
			}
			for id := uint32(1); id < 2*h2MaxConcurrentStreams; id += 2 {
				fr.WriteRSTStream(id, http2.ErrCodeCancel)
			}
		}},
		{name: "rapid_reset", want: "RST_STREAM", write: func(fr *http2.Framer) {
			for id := uint32(1); id < 400; id += 2 {
				fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndStream: true, EndHeaders: true})
				fr.WriteRSTStream(id, http2.ErrCodeCancel)
			}
		}},
		{name: "streams_past_keepalive_requests", want: "too many streams", write: func(fr *http2.Framer) {
			for id := uint32(1); id < 2*(1000+h2StreamSlack)+10; id += 2 {
				fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndStream: true, EndHeaders: true})
			}
		}},
		{name: "traffic_without_payload", want: "flood", write: func(fr *http2.Framer) {
			// Unknown frame types carry no payload a server uses.
			for i := 0; i < 9000; i++ {
				fr.WriteRawFrame(0xfe, 0, 0, make([]byte, 1000))
			}
		}},
	}
	for _, tt := range tests {
		data := guardFrames(tt.write)
		chunks := tt.chunks
		if chunks == nil {
			chunks = []int{len(data), 7}
		}
		for _, chunk := range chunks {
			clock := time.Unix(1e9, 0)
			g := newH2Guard(32<<10, 1000, func() time.Time { return clock })
			g.dataSent.Store(tt.dataSent)
			ok := true
			for b := data; len(b) > 0 && ok; {
				n := min(chunk, len(b))
				ok = g.scan(b[:n])
				b = b[n:]
				clock = clock.Add(tt.tick)
			}
			switch {
			case tt.want == "" && !ok:
				t.Errorf("%s (chunks of %d): tripped: %s", tt.name, chunk, g.reason)
			case tt.want != "" && ok:
				t.Errorf("%s (chunks of %d): not tripped, want %q", tt.name, chunk, tt.want)
			case tt.want != "" && !strings.Contains(g.reason, tt.want):
				t.Errorf("%s (chunks of %d): tripped for %q, want %q", tt.name, chunk, g.reason, tt.want)
			}
		}
	}
}

// TestH2GuardLastRequest: the response to the keepalive_requests-th
// stream asks for a GOAWAY.
func TestH2GuardLastRequest(t *testing.T) {
	g := newH2Guard(32<<10, 3, time.Now)
	block := []byte{0x82, 0x87, 0x84}
	for id := uint32(1); id <= 5; id += 2 {
		if g.lastRequest() {
			t.Fatalf("lastRequest before stream %d", id)
		}
		data := guardFrames(func(fr *http2.Framer) {
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndStream: true, EndHeaders: true})
		})
		if id > 1 {
			data = data[len(http2.ClientPreface)+9:] // the preface and SETTINGS once
		}
		if !g.scan(data) {
			t.Fatalf("tripped: %s", g.reason)
		}
	}
	if !g.lastRequest() {
		t.Fatal("lastRequest false after keepalive_requests streams")
	}
}

// TestOutFramesAligned follows a written byte stream frame by frame.
func TestOutFramesAligned(t *testing.T) {
	var b bytes.Buffer
	fr := http2.NewFramer(&b, nil)
	fr.WriteData(1, false, make([]byte, 100))
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: make([]byte, 10), EndHeaders: true})
	data := b.Bytes()
	g := newH2Guard(0, 0, time.Now)
	var o outFrames
	for i := 0; i < len(data); i++ {
		o.scan(data[i:i+1], g)
		boundary := i+1 == 109 || i+1 == len(data)
		if o.aligned() != boundary {
			t.Fatalf("after %d bytes: aligned %v, want %v", i+1, o.aligned(), boundary)
		}
	}
	if g.sent.Load() != 110 || g.dataSent.Load() != 100 {
		t.Errorf("credited %d bytes, %d of them DATA, want 110 and 100", g.sent.Load(), g.dataSent.Load())
	}
}

// TestH2GuardLastStream: the GOAWAY names only streams whose bytes went
// to x/net/http2, not one in the read that crossed a limit.
func TestH2GuardLastStream(t *testing.T) {
	g := newH2Guard(32<<10, 1000, time.Now)
	block := []byte{0x82, 0x87, 0x84}
	if !g.scan(guardFrames(func(fr *http2.Framer) {
		fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 5, BlockFragment: block, EndStream: true, EndHeaders: true})
	})) {
		t.Fatalf("tripped: %s", g.reason)
	}
	var b bytes.Buffer
	fr := http2.NewFramer(&b, nil)
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 7, BlockFragment: block, EndStream: true, EndHeaders: true})
	for i := 0; i < 200; i++ {
		fr.WriteSettings()
	}
	if g.scan(b.Bytes()) {
		t.Fatal("a SETTINGS flood was not cut")
	}
	if got := g.lastStream.Load(); got != 5 {
		t.Errorf("GOAWAY's last stream %d, want 5 (7 came in the withheld read)", got)
	}
}
