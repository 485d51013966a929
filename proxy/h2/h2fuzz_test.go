// This file holds FuzzH2Frames: arbitrary HTTP/2 frame sequences sent to
// a real edge Server (h2c, prior knowledge, on loopback), through the
// frame guard, x/net/http2 and the pipeline. Nothing may panic, and no
// request nginx refuses (a :path with a space or a control character, or
// not starting with "/") may get a 200. The guard is also fed each
// sequence whole and in small pieces: the verdict must not depend on how
// the bytes arrive.
package h2_test

import (
	"bytes"
	"edge/proxy/h2"
	"edge/proxy/internal/plantest"
	"edge/proxy/internal/servetest"
	"encoding/binary"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

const h2FuzzConf = `error_log stderr emerg;
events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080 http2;
        location / { return 200 "ok\n"; }
    }
}
`

// h2FuzzInput turns fuzz bytes into a client's byte stream: the preface,
// then frames of four header bytes each (type, flags, stream, length)
// and their payload. A HEADERS frame whose flags have 0x80 set carries a
// well-formed GET whose :path is its payload, so that the fuzzer reaches
// the pipeline with odd paths. It returns the stream and the paths of the
// requests it encoded, by stream.
func h2FuzzInput(data []byte) ([]byte, map[uint32]string) {
	var out bytes.Buffer
	out.WriteString(http2.ClientPreface)
	out.Write([]byte{0, 0, 0, byte(http2.FrameSettings), 0, 0, 0, 0, 0})
	paths := map[uint32]string{}
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for len(data) >= 4 {
		typ, flags, stream, n := data[0]%10, data[1], uint32(data[2]), int(data[3])
		data = data[4:]
		n = min(n, len(data))
		payload := data[:n]
		data = data[n:]
		if typ == byte(http2.FrameHeaders) && flags&0x80 != 0 {
			stream |= 1
			hb.Reset()
			enc.WriteField(hpack.HeaderField{Name: ":method", Value: "GET"})
			enc.WriteField(hpack.HeaderField{Name: ":scheme", Value: "http"})
			enc.WriteField(hpack.HeaderField{Name: ":authority", Value: "x"})
			enc.WriteField(hpack.HeaderField{Name: ":path", Value: string(payload)})
			// A second HEADERS on a stream that the first ended is a
			// connection error (STREAM_CLOSED): only the first request of
			// a stream can be answered, so its path is the one to judge.
			if _, seen := paths[stream]; !seen {
				paths[stream] = string(payload)
			}
			payload = hb.Bytes()
			flags = byte(http2.FlagHeadersEndHeaders | http2.FlagHeadersEndStream)
		}
		var h [9]byte
		h[0], h[1], h[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
		h[3], h[4] = typ, flags
		binary.BigEndian.PutUint32(h[5:], stream)
		out.Write(h[:])
		out.Write(payload)
	}
	// A PING last: its ACK says the server read everything before it.
	out.Write([]byte{0, 0, 8, byte(http2.FramePing), 0, 0, 0, 0, 0, 'e', 'd', 'g', 'e', 'f', 'u', 'z', 'z'})
	return out.Bytes(), paths
}

func FuzzH2Frames(f *testing.F) {
	frame := func(typ, flags, stream byte, payload string) []byte {
		return append([]byte{typ, flags, stream, byte(len(payload))}, payload...)
	}
	cat := func(frames ...[]byte) []byte { return bytes.Join(frames, nil) }
	f.Add(cat(frame(byte(http2.FrameHeaders), 0x80, 1, "/")))
	f.Add(cat(frame(byte(http2.FrameHeaders), 0x80, 1, "/a b")))    // space: 400
	f.Add(cat(frame(byte(http2.FrameHeaders), 0x80, 3, "/a\x01b"))) // control: refused
	f.Add(cat(frame(byte(http2.FrameHeaders), 0x80, 5, "*")))       // not a path
	f.Add(cat(frame(byte(http2.FrameHeaders), 0x80, 1, "/x"), frame(byte(http2.FrameRSTStream), 0, 1, "\x00\x00\x00\x08")))
	f.Add(cat(frame(byte(http2.FrameHeaders), 0, 1, "\x82\x86\x84"), frame(byte(http2.FrameContinuation), 0, 1, ""), frame(byte(http2.FrameContinuation), 0, 1, "")))
	f.Add(cat(frame(byte(http2.FrameSettings), 0, 0, ""), frame(byte(http2.FrameSettings), 0, 0, ""), frame(byte(http2.FramePing), 0, 0, "12345678")))
	f.Add(cat(frame(byte(http2.FrameWindowUpdate), 0, 0, "\x00\x00\x00\x01"), frame(byte(http2.FramePriority), 0, 3, "\x00\x00\x00\x00\x0f")))
	f.Add(cat(frame(byte(http2.FrameData), 0, 1, ""), frame(byte(http2.FrameGoAway), 0, 0, "\x00\x00\x00\x00\x00\x00\x00\x00")))

	plan := plantest.Load(f, f.TempDir(), h2FuzzConf)
	_, addr := servetest.Start(f, plan)

	f.Fuzz(func(t *testing.T, data []byte) {
		stream, paths := h2FuzzInput(data)

		// The guard's verdict does not depend on how the bytes arrive.
		clock := time.Unix(1e9, 0)
		now := func() time.Time { return clock }
		whole, pieces := h2.NewGuard(32<<10, 1000, now), h2.NewGuard(32<<10, 1000, now)
		okWhole := whole.Scan(stream)
		okPieces := true
		for b := stream; len(b) > 0 && okPieces; b = b[min(5, len(b)):] {
			okPieces = pieces.Scan(b[:min(5, len(b))])
		}
		if okWhole != okPieces {
			t.Fatalf("guard: whole %v (%s), in pieces %v (%s)", okWhole, whole.Reason(), okPieces, pieces.Reason())
		}

		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Second))
		go c.Write(stream)
		fr := http2.NewFramer(nil, c)
		fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
		answered := map[uint32]bool{}
		pinged := false
		for !pinged || len(answered) < len(paths) {
			f, err := fr.ReadFrame()
			if err != nil {
				return // closed (a flood, a protocol error) or the deadline
			}
			switch f := f.(type) {
			case *http2.PingFrame:
				if f.IsAck() && string(f.Data[:]) == "edgefuzz" && !pinged {
					// Everything was read; the answers (to "return") follow
					// at once, unless flow control or the input holds them.
					pinged = true
					c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
				}
			case *http2.RSTStreamFrame:
				answered[f.StreamID] = true
			case *http2.MetaHeadersFrame:
				answered[f.StreamID] = true
				path, sent := paths[f.StreamID]
				if sent && f.PseudoValue("status") == "200" && (path == "" || path[0] != '/' || !h2.ValidPath(path)) {
					t.Fatalf("stream %d: :path %q got 200; nginx refuses it", f.StreamID, path)
				}
			case *http2.GoAwayFrame:
				return
			}
		}
	})
}
