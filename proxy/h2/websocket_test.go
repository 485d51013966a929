package h2_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"edge/proxy/internal/plantest"
	"edge/proxy/internal/servetest"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// wsUpstream is an HTTP/1.1 WebSocket server reduced to what a proxy
// sees: it answers an upgrade with 101 and then echoes bytes, or, for
// /ws-once, echoes one read and closes. heads gets each request's head;
// closed a value when a tunnel's upstream side ended.
type wsUpstream struct {
	addr   string
	heads  chan string
	closed chan struct{}
}

func startWSUpstream(t *testing.T) *wsUpstream {
	u := &wsUpstream{heads: make(chan string, 16), closed: make(chan struct{}, 16)}
	u.addr = plantest.Loopback(t, func(c net.Conn, _ int) { u.serve(c) })
	return u
}

func (u *wsUpstream) serve(c net.Conn) {
	defer func() { u.closed <- struct{}{} }()
	br := bufio.NewReader(c)
	head, err := plantest.ReadHead(br)
	if err != nil {
		return
	}
	u.heads <- head
	io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nX-Upstream: yes\r\n\r\n")
	buf := make([]byte, 4096)
	for {
		n, err := br.Read(buf)
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
			if strings.HasPrefix(head, "GET /ws-once ") {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// h2Client is a client speaking raw frames over h2c.
type h2Client struct {
	t   *testing.T
	c   net.Conn
	fr  *http2.Framer
	dec *hpack.Decoder
	mu  sync.Mutex // guards the framer's writes
	// xconnect: the server's SETTINGS carried ENABLE_CONNECT_PROTOCOL 1.
	xconnect bool
}

func dialH2(t *testing.T, addr string) *h2Client {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(c, http2.ClientPreface)
	cl := &h2Client{t: t, c: c, fr: http2.NewFramer(c, c), dec: hpack.NewDecoder(4096, nil)}
	cl.fr.WriteSettings()
	for {
		f, err := cl.fr.ReadFrame()
		if err != nil {
			t.Fatalf("reading the server's SETTINGS: %v", err)
		}
		if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
			v, ok := sf.Value(http2.SettingEnableConnectProtocol)
			cl.xconnect = ok && v == 1
			cl.fr.WriteSettingsAck()
			return cl
		}
	}
}

// connect opens stream id with an extended CONNECT for path.
func (cl *h2Client) connect(id uint32, protocol, path string) {
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "CONNECT"}, {":protocol", protocol}, {":scheme", "http"},
		{":path", path}, {":authority", "localhost"}, {"sec-websocket-version", "13"}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if err := cl.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndHeaders: true}); err != nil {
		cl.t.Fatal(err)
	}
}

func (cl *h2Client) data(id uint32, b []byte, end bool) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if err := cl.fr.WriteData(id, end, b); err != nil {
		cl.t.Fatal(err)
	}
}

// h2Event is what the client read of one stream.
type h2Event struct {
	status string // from a HEADERS frame
	data   []byte
	end    bool // END_STREAM
	reset  bool // RST_STREAM
}

// next reads frames until one about stream id, answering what needs it.
func (cl *h2Client) next(id uint32) h2Event {
	for {
		f, err := cl.fr.ReadFrame()
		if err != nil {
			cl.t.Fatalf("reading stream %d: %v", id, err)
		}
		switch f := f.(type) {
		case *http2.HeadersFrame:
			fields, err := cl.dec.DecodeFull(f.HeaderBlockFragment())
			if err != nil {
				cl.t.Fatal(err)
			}
			if f.StreamID != id {
				continue
			}
			ev := h2Event{end: f.StreamEnded()}
			for _, hf := range fields {
				if hf.Name == ":status" {
					ev.status = hf.Value
				}
			}
			return ev
		case *http2.DataFrame:
			if n := len(f.Data()); n > 0 {
				cl.mu.Lock()
				cl.fr.WriteWindowUpdate(0, uint32(n))
				cl.fr.WriteWindowUpdate(f.StreamID, uint32(n))
				cl.mu.Unlock()
			}
			if f.StreamID == id {
				return h2Event{data: append([]byte(nil), f.Data()...), end: f.StreamEnded()}
			}
		case *http2.RSTStreamFrame:
			if f.StreamID == id {
				return h2Event{reset: true}
			}
		case *http2.GoAwayFrame:
			cl.t.Fatalf("GOAWAY while reading stream %d: %v", id, f.ErrCode)
		}
	}
}

// TestWebSocketOverHTTP2 opens WebSockets with RFC 8441's extended
// CONNECT over h2c and proxies them to an HTTP/1.1 upstream with the
// usual WebSocket configuration: the upstream gets an upgrade, the
// client a 200 and the tunnel, messages go both ways in order, and
// either side's close ends the other's.
func TestWebSocketOverHTTP2(t *testing.T) {
	up := startWSUpstream(t)
	root := t.TempDir()
	plan := plantest.Load(t, root, `error_log stderr emerg;
events {}
http {
    access_log off;
    map $http_upgrade $connection_upgrade {
        default upgrade;
        ''      close;
    }
    server {
        listen 127.0.0.1:8080 http2;
        location / { return 200 "plain\n"; }
        location /ws {
            proxy_pass http://`+up.addr+`;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
        }
    }
}
`)
	addr := servetest.Serve(t, plan)
	cl := dialH2(t, addr)
	if !cl.xconnect {
		t.Fatal("the server's SETTINGS did not announce SETTINGS_ENABLE_CONNECT_PROTOCOL")
	}

	// The client closes: END_STREAM on its side ends the upstream's.
	cl.connect(1, "websocket", "/ws/chat")
	if ev := cl.next(1); ev.status != "200" {
		t.Fatalf("extended CONNECT answered %+v, want :status 200", ev)
	}
	head := <-up.heads
	for _, want := range []string{"GET /ws/chat HTTP/1.1\r\n", "\r\nUpgrade: websocket\r\n",
		"\r\nConnection: upgrade\r\n", "\r\nSec-WebSocket-Version: 13\r\n", "\r\nSec-WebSocket-Key: "} {
		// Names as net/http spells them (Sec-Websocket-Key); they are
		// case-insensitive.
		if !strings.Contains(strings.ToLower(head), strings.ToLower(want)) {
			t.Errorf("the upstream's request lacks %q:\n%s", want, head)
		}
	}
	for i := range 200 {
		msg := fmt.Sprintf("message %d;", i)
		cl.data(1, []byte(msg), false)
		var got []byte
		for len(got) < len(msg) {
			ev := cl.next(1)
			if ev.end || ev.reset || ev.status != "" {
				t.Fatalf("message %d: the stream ended (%+v)", i, ev)
			}
			got = append(got, ev.data...)
		}
		if string(got) != msg {
			t.Fatalf("echo %d: got %q, want %q", i, got, msg)
		}
	}
	cl.data(1, nil, true)
	select {
	case <-up.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream's side stayed open after the client's END_STREAM")
	}
	for ev := cl.next(1); !ev.end && !ev.reset; ev = cl.next(1) {
		if len(ev.data) > 0 {
			t.Fatalf("data after the close: %q", ev.data)
		}
	}

	// The upstream closes (after one echo): the client's stream ends.
	cl.connect(3, "websocket", "/ws-once")
	if ev := cl.next(3); ev.status != "200" {
		t.Fatalf("extended CONNECT answered %+v, want :status 200", ev)
	}
	<-up.heads
	cl.data(3, []byte("once"), false)
	var got []byte
	for {
		ev := cl.next(3)
		got = append(got, ev.data...)
		if ev.end || ev.reset {
			break
		}
	}
	if string(got) != "once" {
		t.Errorf("before the upstream's close the client got %q, want \"once\"", got)
	}

	// Another protocol is not served; a location without an upgrade
	// answers 502, not a 2xx that would open a tunnel.
	cl.connect(5, "h3-datagram", "/ws")
	if ev := cl.next(5); ev.status != "501" {
		t.Errorf("extended CONNECT for another protocol answered %+v, want 501", ev)
	}
	cl.connect(7, "websocket", "/plain")
	if ev := cl.next(7); ev.status != "502" {
		t.Errorf("extended CONNECT to a location that does not upgrade answered %+v, want 502", ev)
	}
	// The connection still serves.
	cl.connect(9, "websocket", "/ws/again")
	if ev := cl.next(9); ev.status != "200" {
		t.Fatalf("a second WebSocket on the connection answered %+v", ev)
	}
	<-up.heads
}

// TestGODEBUGGivenBack: the http2xconnect=1 that internal/xconnect adds
// for x/net/http2's init is gone again, so the processes edge starts get
// the environment edge was given.
func TestGODEBUGGivenBack(t *testing.T) {
	if v := os.Getenv("GODEBUG"); strings.Contains(v, "http2xconnect") {
		t.Errorf("GODEBUG is %q after init", v)
	}
}
