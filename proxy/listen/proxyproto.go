// This file holds the PROXY protocol on "listen ... proxy_protocol": the
// header is read when the connection is accepted, before TLS and before
// the first request, as ngx_http_wait_request_handler does, under the
// default server's client_header_timeout; a header nginx refuses closes
// the connection. The parser is proxy/realip's (docs/access.md).
package listen

import (
	"errors"
	"net"
	"os"
	"time"

	"edge/conf"
	"edge/proxy"
	"edge/proxy/realip"
)

// readProxyHeader reads the PROXY header of a new connection into info
// and returns the bytes the client sent past it; false when the
// connection is to be closed.
func (s *Server) readProxyHeader(rt *proxy.Site, c net.Conn, info *proxy.ConnInfo, g *conf.ListenGroup) ([]byte, bool) {
	// nginx parses what its first read holds: client_header_buffer_size
	// (1k) on a plain listener, NGX_PROXY_PROTOCOL_MAX_HEADER on a TLS one.
	max := 1024
	if g.Listen.SSL {
		max = realip.DefaultV2Max
	}
	timeout := g.Default.ClientHeaderTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	_ = c.SetReadDeadline(time.Now().Add(timeout))
	h, rest, err := realip.Read(c, max)
	_ = c.SetReadDeadline(time.Time{})
	if err == nil {
		info.Proxy = h
		return rest, true
	}
	ctx := ", client: " + info.RemoteAddr() + ", server: " + info.LocalAddr() + ":" + info.Port
	var he *realip.HeaderError
	switch {
	case errors.As(err, &he):
		if he.Msg != "" {
			rt.ConnErrorLog(info.Group).Write(conf.LevelError, info.ID, he.Msg+" while reading PROXY protocol"+ctx)
		}
	case errors.Is(err, os.ErrDeadlineExceeded):
		rt.ConnErrorLog(info.Group).Write(conf.LevelInfo, info.ID, "client timed out (110: Connection timed out) while reading PROXY protocol"+ctx)
	}
	return nil, false
}

// replayConn gives the bytes read with the PROXY header before the
// connection's own.
type replayConn struct {
	net.Conn
	rest []byte
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		if c.rest = c.rest[n:]; len(c.rest) == 0 {
			c.rest = nil // the connection keeps no copy once replayed
		}
		return n, nil
	}
	return c.Conn.Read(p)
}
