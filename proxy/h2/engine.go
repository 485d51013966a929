// This file holds edge's own HTTP/2 engine's wire pieces: which engine a
// process runs, the frames it writes, and its stateless HPACK encoder.
// The engine (engine_conn.go, engine_stream.go) is nginx-shaped (issue
// 19; ../shared/research/h2-engines.md sections 4 and 5): one goroutine
// per connection reads the frames, each stream's handler runs on a
// goroutine of its own and writes its frames into the connection's
// pending buffer, and the last of a burst's handlers to complete (or
// the reader, before it waits for the client) writes what is pending,
// so that the frames of concurrent streams leave in one TLS write
// (ownConn.endResponse). There are no channels: the hand-offs of
// x/net/http2 (one per frame read, per handler write and per handler
// exit) were most of its cost.
package h2

import (
	"encoding/binary"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// ownEngine says which engine serves HTTP/2, fixed for the process:
// edge's own unless EDGE_H2_ENGINE=xnet asks for golang.org/x/net/http2,
// which stays as the fallback and as the other side of A/B benchmarks
// (docs/performance.md).
var ownEngine = os.Getenv("EDGE_H2_ENGINE") != "xnet"

// Error codes (RFC 9113 section 7).
const (
	errCodeNo              = 0x0
	errCodeProtocol        = 0x1
	errCodeInternal        = 0x2
	errCodeFlowControl     = 0x3
	errCodeStreamClosed    = 0x5
	errCodeFrameSize       = 0x6
	errCodeRefusedStream   = 0x7
	errCodeCompression     = 0x9
	errCodeEnhanceYourCalm = 0xb
)

// Flow control and frame sizes (RFC 9113 6.5.2, 6.9).
const (
	maxWindow       = 1<<31 - 1
	defaultWindow   = 65535 // a window's size before any SETTINGS
	defaultMaxFrame = 16384 // SETTINGS_MAX_FRAME_SIZE's initial value, and edge's
)

// The settings edge announces (RFC 9113 6.5.2, RFC 8441 3).
const (
	settingMaxConcurrent      = 0x3
	settingMaxFrameSize       = 0x5
	settingMaxHeaderListSize  = 0x6
	settingEnableConnectProto = 0x8
)

// appendFrameHeader appends a frame's 9-byte header.
func appendFrameHeader(b []byte, length int, typ, flags byte, stream uint32) []byte {
	return append(b, byte(length>>16), byte(length>>8), byte(length), typ, flags,
		byte(stream>>24)&0x7f, byte(stream>>16), byte(stream>>8), byte(stream))
}

// appendRSTStream appends an RST_STREAM frame.
func appendRSTStream(b []byte, stream uint32, code uint32) []byte {
	b = appendFrameHeader(b, 4, h2FrameRSTStream, 0, stream)
	return binary.BigEndian.AppendUint32(b, code)
}

// appendGoAway appends a GOAWAY frame.
func appendGoAway(b []byte, last uint32, code uint32) []byte {
	b = appendFrameHeader(b, 8, h2FrameGoAway, 0, 0)
	b = binary.BigEndian.AppendUint32(b, last&0x7fffffff)
	return binary.BigEndian.AppendUint32(b, code)
}

// appendWindowUpdate appends a WINDOW_UPDATE frame.
func appendWindowUpdate(b []byte, stream uint32, incr uint32) []byte {
	b = appendFrameHeader(b, 4, h2FrameWindowUpdate, 0, stream)
	return binary.BigEndian.AppendUint32(b, incr)
}

// appendSetting appends one SETTINGS parameter.
func appendSetting(b []byte, id uint16, v uint32) []byte {
	b = binary.BigEndian.AppendUint16(b, id)
	return binary.BigEndian.AppendUint32(b, v)
}

// appendHeaderBlock appends block as a HEADERS frame and as many
// CONTINUATION frames as maxFrame needs.
func appendHeaderBlock(b []byte, stream uint32, block []byte, endStream bool, maxFrame int) []byte {
	first := true
	for {
		n := min(len(block), maxFrame)
		var typ, flags byte = h2FrameContinuation, 0
		if first {
			typ = h2FrameHeaders
			if endStream {
				flags |= h2FlagEndStream
			}
		}
		if n == len(block) {
			flags |= h2FlagEndHeaders
		}
		b = appendFrameHeader(b, n, typ, flags, stream)
		b = append(b, block[:n]...)
		block = block[n:]
		first = false
		if len(block) == 0 {
			return b
		}
	}
}

// The response encoder is stateless, as nginx's is
// (ngx_http_v2_filter_module.c): common statuses are one static-table
// byte, every other field a literal that is never indexed, with the
// name from the static table where it is there (RFC 7541 6.2.2). It
// keeps no dynamic table, so it needs no lookup and no per-connection
// state.

// staticStatus is the static-table index of the statuses it has.
func staticStatus(code int) byte {
	switch code {
	case 200:
		return 8
	case 204:
		return 9
	case 206:
		return 10
	case 304:
		return 11
	case 400:
		return 12
	case 404:
		return 13
	case 500:
		return 14
	}
	return 0
}

// staticNames are the static-table indexes (RFC 7541 appendix A) of the
// response header names edge sends most.
var staticNames = map[string]uint64{
	"accept-ranges": 18, "age": 21, "cache-control": 24, "content-disposition": 25,
	"content-encoding": 26, "content-language": 27, "content-length": 28, "content-location": 29,
	"content-range": 30, "content-type": 31, "date": 33, "etag": 34, "expires": 36,
	"last-modified": 44, "link": 45, "location": 46, "refresh": 52, "retry-after": 53,
	"server": 54, "set-cookie": 55, "strict-transport-security": 56, "transfer-encoding": 57,
	"vary": 59, "www-authenticate": 61,
}

// appendHpackInt appends an HPACK integer with an n-bit prefix whose
// high bits are first (RFC 7541 5.1).
func appendHpackInt(b []byte, first byte, n uint, v uint64) []byte {
	max := uint64(1)<<n - 1
	if v < max {
		return append(b, first|byte(v))
	}
	b = append(b, first|byte(max))
	v -= max
	for v >= 128 {
		b = append(b, byte(v&0x7f|0x80))
		v >>= 7
	}
	return append(b, byte(v))
}

// appendHpackString appends a string literal without Huffman coding.
func appendHpackString(b []byte, s string) []byte {
	b = appendHpackInt(b, 0, 7, uint64(len(s)))
	return append(b, s...)
}

// appendStatus appends the :status field.
func appendStatus(b []byte, code int) []byte {
	if i := staticStatus(code); i != 0 {
		return append(b, 0x80|i)
	}
	b = append(b, 0x08) // literal without indexing, name :status (8)
	var s [3]byte
	return appendHpackString(b, string(strconv.AppendInt(s[:0], int64(code), 10)))
}

// appendField appends a literal field; name is lower case.
func appendField(b []byte, name, value string) []byte {
	if i, ok := staticNames[name]; ok {
		b = appendHpackInt(b, 0, 4, i)
	} else {
		b = append(b, 0)
		b = appendHpackString(b, name)
	}
	return appendHpackString(b, value)
}

// appendLowerField appends a literal field with name in lower case
// (RFC 9113 8.2.1), lowered on the stack for the common short names.
func appendLowerField(b []byte, name, value string) []byte {
	var tmp [64]byte
	var low []byte
	if len(name) <= len(tmp) {
		low = tmp[:len(name)]
	} else {
		low = make([]byte, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	if i, ok := staticNames[string(low)]; ok {
		b = appendHpackInt(b, 0, 4, i)
	} else {
		b = append(b, 0)
		b = appendHpackInt(b, 0, 7, uint64(len(low)))
		b = append(b, low...)
	}
	return appendHpackString(b, value)
}

// validName reports whether name is a token (RFC 9110 5.6.2), which a
// field name must be; x/net/http2 leaves out those that are not.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !tokenChar(name[i]) {
			return false
		}
	}
	return true
}

func tokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// validFieldValue is httpguts.ValidHeaderFieldValue: no control
// characters but tab.
func validFieldValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// dateCache is the Date header, formatted at most once a second (x/net
// formats it per response; Go 1.27's std engine caches it the same way).
type cachedDate struct {
	sec int64
	s   string
}

var dateCache atomic.Pointer[cachedDate]

func httpDate() string {
	now := time.Now()
	sec := now.Unix()
	if d := dateCache.Load(); d != nil && d.sec == sec {
		return d.s
	}
	d := &cachedDate{sec: sec, s: now.UTC().Format(http.TimeFormat)}
	dateCache.Store(d)
	return d.s
}
