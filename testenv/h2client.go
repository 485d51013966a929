// This file is a raw HTTP/2 client for abuse tests: it speaks frames
// through golang.org/x/net/http2's Framer, so that a test can send what no
// well-behaved client would (streams reset as soon as they open, empty
// CONTINUATION frames, SETTINGS floods) and watch how the server answers.
// Issue 20 lists the attacks; the tests run each against edge and nginx.

package testenv

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// H2Client is one HTTP/2 connection over TLS (ALPN h2). Frames are
// buffered and leave on Flush, or when the buffer fills; a goroutine
// reads the server's frames until the connection ends.
type H2Client struct {
	conn net.Conn
	bw   *bufio.Writer
	fr   *http2.Framer
	enc  *hpack.Encoder
	hbuf bytes.Buffer

	done      chan struct{} // closed when the reader stops
	mu        sync.Mutex
	goAway    http2.ErrCode // the GOAWAY's code, once one came
	sawGoAway bool
	statuses  map[uint32]int // :status of each stream's response
	resets    map[uint32]http2.ErrCode
	bodies    map[uint32][]byte          // DATA received on each stream
	ended     map[uint32]bool            // streams whose response ended
	settings  map[http2.SettingID]uint32 // the server's SETTINGS values
	settled   bool                       // its first SETTINGS came
}

// DialH2 opens an HTTP/2 connection to addr over TLS (any certificate)
// and sends the client preface and an empty SETTINGS frame.
func DialH2(addr string) (*H2Client, error) {
	raw, err := net.DialTimeout("tcp", addr, rawTimeout)
	if err != nil {
		return nil, fmt.Errorf("testenv: h2: %w", err)
	}
	tc := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}, ServerName: "localhost"})
	tc.SetDeadline(time.Now().Add(rawTimeout))
	if err := tc.Handshake(); err != nil {
		raw.Close()
		return nil, fmt.Errorf("testenv: h2: handshake: %w", err)
	}
	tc.SetDeadline(time.Time{})
	if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
		raw.Close()
		return nil, fmt.Errorf("testenv: h2: ALPN chose %q", p)
	}
	c := &H2Client{conn: tc, bw: bufio.NewWriterSize(tc, 64<<10), done: make(chan struct{}),
		statuses: map[uint32]int{}, resets: map[uint32]http2.ErrCode{},
		bodies: map[uint32][]byte{}, ended: map[uint32]bool{}, settings: map[http2.SettingID]uint32{}}
	c.fr = http2.NewFramer(c.bw, tc)
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.fr.MaxHeaderListSize = 1 << 20
	c.enc = hpack.NewEncoder(&c.hbuf)
	if _, err := c.bw.WriteString(http2.ClientPreface); err != nil {
		tc.Close()
		return nil, err
	}
	if err := c.fr.WriteSettings(); err != nil {
		tc.Close()
		return nil, err
	}
	if err := c.Flush(); err != nil {
		tc.Close()
		return nil, err
	}
	go c.readLoop()
	return c, nil
}

// readLoop reads the server's frames: it acknowledges SETTINGS, notes
// GOAWAY, RST_STREAM and response statuses, and stops at the first error.
func (c *H2Client) readLoop() {
	defer close(c.done)
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			return
		}
		c.mu.Lock()
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				f.ForeachSetting(func(st http2.Setting) error { c.settings[st.ID] = st.Val; return nil })
				c.settled = true
			}
		case *http2.GoAwayFrame:
			c.sawGoAway, c.goAway = true, f.ErrCode
		case *http2.RSTStreamFrame:
			c.resets[f.StreamID] = f.ErrCode
		case *http2.MetaHeadersFrame:
			if s, err := strconv.Atoi(f.PseudoValue("status")); err == nil {
				c.statuses[f.StreamID] = s
			}
			if f.StreamEnded() {
				c.ended[f.StreamID] = true
			}
		case *http2.DataFrame:
			// Far below any window: nothing needs a WINDOW_UPDATE here.
			if len(c.bodies[f.StreamID]) < 1<<16 {
				c.bodies[f.StreamID] = append(c.bodies[f.StreamID], f.Data()...)
			}
			if f.StreamEnded() {
				c.ended[f.StreamID] = true
			}
		}
		c.mu.Unlock()
	}
}

// Flush sends the buffered frames.
func (c *H2Client) Flush() error {
	c.conn.SetWriteDeadline(time.Now().Add(rawTimeout))
	return c.bw.Flush()
}

// Framer is the connection's framer, for frames the helpers below do not
// write; its writes are buffered until Flush.
func (c *H2Client) Framer() *http2.Framer { return c.fr }

// HeaderBlock HPACK-encodes a GET for path with extra fields (name,
// value pairs) and returns the block; it is valid until the next call.
func (c *H2Client) HeaderBlock(method, path string, extra ...string) []byte {
	c.hbuf.Reset()
	c.enc.WriteField(hpack.HeaderField{Name: ":method", Value: method})
	c.enc.WriteField(hpack.HeaderField{Name: ":scheme", Value: "https"})
	c.enc.WriteField(hpack.HeaderField{Name: ":authority", Value: "localhost"})
	c.enc.WriteField(hpack.HeaderField{Name: ":path", Value: path})
	for i := 0; i+1 < len(extra); i += 2 {
		c.enc.WriteField(hpack.HeaderField{Name: extra[i], Value: extra[i+1]})
	}
	return c.hbuf.Bytes()
}

// Request writes a complete request (HEADERS with END_HEADERS and
// END_STREAM) for path on stream id.
func (c *H2Client) Request(id uint32, method, path string, extra ...string) error {
	return c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.HeaderBlock(method, path, extra...),
		EndStream: true, EndHeaders: true})
}

// Closed reports whether the server ended the connection (the reader
// stopped).
func (c *H2Client) Closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// WaitClosed waits up to d for the server to end the connection.
func (c *H2Client) WaitClosed(d time.Duration) bool {
	select {
	case <-c.done:
		return true
	case <-time.After(d):
		return false
	}
}

// GoAway returns the code of the GOAWAY the server sent, if it sent one.
func (c *H2Client) GoAway() (http2.ErrCode, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.goAway, c.sawGoAway
}

// WaitStatus waits up to d for stream id's response status or reset.
func (c *H2Client) WaitStatus(id uint32, d time.Duration) (status int, reset bool) {
	status, _, reset = c.wait(id, d, false)
	return status, reset
}

// Response waits up to d for stream id's whole response and returns its
// status and (up to 64 KiB of) body.
func (c *H2Client) Response(id uint32, d time.Duration) (int, string) {
	status, body, _ := c.wait(id, d, true)
	return status, body
}

// wait polls stream id until it has a status (whole: its end), it was
// reset, the connection ended or d passed.
func (c *H2Client) wait(id uint32, d time.Duration, whole bool) (status int, body string, reset bool) {
	deadline := time.Now().Add(d)
	for {
		c.mu.Lock()
		var ended bool
		status, body, ended = c.statuses[id], string(c.bodies[id]), c.ended[id]
		_, reset = c.resets[id]
		c.mu.Unlock()
		if (whole && ended || !whole && status != 0) || reset || c.Closed() || time.Now().After(deadline) {
			return status, body, reset
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Setting waits (at most d) for the server's first SETTINGS frame and
// returns the value it gave id, and whether it gave one.
func (c *H2Client) Setting(id http2.SettingID, d time.Duration) (uint32, bool) {
	deadline := time.Now().Add(d)
	for {
		c.mu.Lock()
		v, ok := c.settings[id]
		settled := c.settled
		c.mu.Unlock()
		if settled || time.Now().After(deadline) {
			return v, ok
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Close closes the connection.
func (c *H2Client) Close() error { return c.conn.Close() }

// Flood writes frames from next (which writes one frame on the framer and
// returns false when it has none left) until the server ends the
// connection, a write fails, limit frames were written or d passed. It
// returns how many frames it wrote; the server stopping them is the
// connection's end (Closed).
func (c *H2Client) Flood(limit int, d time.Duration, next func(fr *http2.Framer) bool) int {
	deadline := time.Now().Add(d)
	n := 0
	for n < limit && !c.Closed() && time.Now().Before(deadline) {
		if !next(c.fr) {
			break
		}
		n++
		if c.bw.Buffered() > 48<<10 {
			if err := c.Flush(); err != nil {
				break
			}
		}
	}
	c.Flush()
	return n
}

// RSS returns a process's resident set size in bytes, from
// /proc/PID/status (VmRSS).
func RSS(pid int) (int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("testenv: no VmRSS for pid %d", pid)
}
