// tunnel.go joins the client's connection and the upstream's after a
// 101 (WebSocket and other upgrades), as nginx's
// ngx_http_upstream_process_upgraded does.

package httpproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Tunnel copies bytes both ways between client, the client's hijacked
// connection (after the caller sent the 101 response to it), and the
// upstream, until either side ends; then it closes both, as nginx does
// (no half-close). The upstream's reads are bounded by ReadTimeout and
// its writes by SendTimeout, each between two successive operations;
// clientSendTimeout (nginx's send_timeout, 0 for none) bounds each write
// to the client. Reads from the client have no bound, as in nginx: an
// idle tunnel ends when proxy_read_timeout passes without data from the
// upstream.
//
// Bytes the upstream sent after its 101 header are passed first. The
// error is nil when a side closed; an upstream timeout is a KindTimeout
// *Error. Tunnel closes the Response.
func (r *Response) Tunnel(client net.Conn, clientSendTimeout time.Duration) error {
	if !r.Upgrade || r.c == nil {
		return errors.New("httpproxy: Tunnel without an upgrade")
	}
	c := r.c
	u := r.u
	defer func() {
		r.done, r.keep = false, false
		r.Close()
		client.Close()
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		// client -> upstream, on its own goroutine: the one a tunnel
		// needs.
		defer wg.Done()
		bp := copyBufs.Get().(*[]byte)
		defer copyBufs.Put(bp)
		for {
			n, err := client.Read(*bp)
			if n > 0 {
				if _, werr := c.rw.Write((*bp)[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		// Either side's end ends both.
		c.nc.Close()
		client.Close()
	}()
	var result error
	bp := copyBufs.Get().(*[]byte)
	for {
		// c.br first hands out what it holds past the 101 header.
		n, err := c.br.Read(*bp)
		if n > 0 {
			if clientSendTimeout > 0 {
				client.SetWriteDeadline(time.Now().Add(clientSendTimeout))
			}
			if _, werr := client.Write((*bp)[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			if err != io.EOF && isTimeout(err) {
				result = &Error{Kind: KindTimeout, Op: "read upgraded", Addr: u.Address, Err: err}
			}
			break
		}
	}
	copyBufs.Put(bp)
	c.nc.Close()
	client.Close()
	// The engine's Close of a hijacked connection may wait for the
	// handler to return (fasthttp closes it then): end the read of the
	// client's side now, so an upstream that closed closes the client's
	// connection at once, as nginx does.
	_ = client.SetReadDeadline(time.Unix(1, 0))
	wg.Wait()
	return result
}
