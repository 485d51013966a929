// This file terminates TLS on listeners with "ssl".
package proxy

import (
	"crypto/tls"
	"errors"
	"net"
)

// tlsHandshake runs the server side of a TLS handshake.
func (rt *runtime) tlsHandshake(c net.Conn, info *connInfo) (*tls.Conn, error) {
	return nil, errors.New("proxy: TLS is not configured")
}
