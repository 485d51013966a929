// This file serves WebSockets over HTTP/2 (RFC 8441): a stream opened
// with an extended CONNECT (":method CONNECT", ":protocol websocket")
// goes through the pipeline as the HTTP/1.1 upgrade it stands for, a GET
// with "Upgrade: websocket" and "Connection: Upgrade", so that the
// configurations written for WebSockets over HTTP/1.1 (proxy_set_header
// Upgrade $http_upgrade, a map on it for Connection) proxy it unchanged
// to an HTTP/1.1 upstream. The upstream's 101 becomes the stream's 200,
// and the stream's DATA frames carry the tunnel both ways. nginx 1.22
// has no extended CONNECT; browsers then fall back to HTTP/1.1.
package h2

import (
	"crypto/rand"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"edge/proxy"
)

// h2Tunnel is an extended CONNECT's stream, kept beside its Request.
type h2Tunnel struct {
	w    http.ResponseWriter
	body io.ReadCloser
}

// extendedConnect makes r the HTTP/1.1 upgrade an extended CONNECT
// stands for, or returns nil for a protocol other than websocket (which
// the caller answers with 501, as RFC 8441 leaves it to the server).
// The request carries no body: the stream's DATA is the tunnel's.
func extendedConnect(r *proxy.Request, req *http.Request, w http.ResponseWriter) *h2Tunnel {
	h := req.Header
	if !strings.EqualFold(h.Get(":protocol"), "websocket") {
		return nil
	}
	h.Del(":protocol")
	r.Method = http.MethodGet
	h.Set("Upgrade", "websocket")
	h.Set("Connection", "Upgrade")
	// RFC 8441 drops the key (the 200 has no Sec-WebSocket-Accept); an
	// HTTP/1.1 upstream wants one (RFC 6455 4.1).
	if h.Get("Sec-WebSocket-Key") == "" {
		var key [16]byte
		rand.Read(key[:])
		h.Set("Sec-WebSocket-Key", base64.StdEncoding.EncodeToString(key[:]))
	}
	r.ContentLength = 0
	return &h2Tunnel{w: w, body: req.Body}
}

// serve answers the stream: a 101 (an upstream that upgraded) as 200 and
// then the tunnel until either side ends; anything else as it is, but
// with 502 for a 2xx, which would tell the client a tunnel is open. The
// log phase runs at the end, as for an HTTP/1.1 upgrade.
func (t *h2Tunnel) serve(rt *proxy.Site, r *proxy.Request) {
	resp := r.Response()
	if notUpgraded(rt, r) {
		writeHTTP2(rt, t.w, r, false)
		return
	}
	defer proxy.ReleaseRequest(r)
	addHeaders(t.w.Header(), resp, true)
	t.w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(t.w)
	rc.Flush()
	upgrade := resp.Upgrade
	resp.Release()
	if err := upgrade(newStreamConn(t, rc, r.Conn)); err != nil {
		rt.Infof(r, "%v while proxying upgraded connection", err)
	}
	rt.Done(r, 0)
}

// streamConn is a tunnel's stream as the net.Conn the upgrade copies
// through: reads are the client's DATA, writes go out as DATA at once;
// the deadlines are the stream's (x/net/http2's through rc).
type streamConn struct {
	body   io.ReadCloser
	w      http.ResponseWriter
	rc     *http.ResponseController
	remote tunnelAddr
}

func newStreamConn(t *h2Tunnel, rc *http.ResponseController, info *proxy.ConnInfo) *streamConn {
	c := &streamConn{body: t.body, w: t.w, rc: rc}
	if info != nil {
		c.remote.s = info.RemoteText
	}
	return c
}

func (c *streamConn) Read(p []byte) (int, error) { return c.body.Read(p) }

func (c *streamConn) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err == nil {
		err = c.rc.Flush()
	}
	return n, err
}

// Close ends the client's side: a read waiting for DATA returns at once;
// the stream itself ends when the handler returns.
func (c *streamConn) Close() error {
	c.rc.SetReadDeadline(time.Unix(1, 0))
	return c.body.Close()
}

func (c *streamConn) LocalAddr() net.Addr  { return tunnelAddr{} }
func (c *streamConn) RemoteAddr() net.Addr { return c.remote }

func (c *streamConn) SetDeadline(t time.Time) error {
	c.rc.SetReadDeadline(t)
	return c.rc.SetWriteDeadline(t)
}

func (c *streamConn) SetReadDeadline(t time.Time) error  { return c.rc.SetReadDeadline(t) }
func (c *streamConn) SetWriteDeadline(t time.Time) error { return c.rc.SetWriteDeadline(t) }

// tunnelAddr names the client of a tunnel's stream.
type tunnelAddr struct{ s string }

func (tunnelAddr) Network() string  { return "h2" }
func (a tunnelAddr) String() string { return a.s }

// notUpgraded reports whether the answer to an extended CONNECT opened
// no tunnel, for both engines: it is then sent as it is, but a 2xx,
// which would tell the client a tunnel is open, becomes 502.
func notUpgraded(rt *proxy.Site, r *proxy.Request) bool {
	resp := r.Response()
	if resp.Upgrade != nil {
		return false
	}
	if resp.Status >= 200 && resp.Status < 300 {
		rt.Infof(r, "the WebSocket over HTTP/2 was answered %d without an upgrade", resp.Status)
		resp.Status = http.StatusBadGateway
	}
	return true
}
