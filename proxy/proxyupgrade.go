// This file turns a 101 from an HTTP upstream into a tunnel: when the
// client asked to upgrade (WebSocket's "Upgrade: websocket" with a
// Connection set through proxy_set_header, over HTTP/1.1), the 101 goes
// to the client with the upstream's headers and "Connection: upgrade",
// the HTTP/1 engine hands over the client's connection, and bytes are
// copied both ways until either side closes (httpproxy.Response.Tunnel),
// as nginx's ngx_http_upstream_upgrade does.
package proxy

import (
	"net"

	"edge/proxy/httpproxy"
)

// proxyUpgrade answers the client with the upstream's 101 and leaves the
// tunnel for the engine to run once the header is out.
func (rt *Site) proxyUpgrade(r *Request, resp *httpproxy.Response) (step, int) {
	out := r.resp
	out.Header.Set("Connection", "upgrade")
	out.Kind, out.HeadOnly, out.Length = BodyNone, true, -1
	send := r.loc.SendTimeout
	out.Upgrade = func(c net.Conn) error {
		err := resp.Tunnel(c, send)
		r.up.finish(rt.now(), 0)
		return err
	}
	return stepDone, 0
}
