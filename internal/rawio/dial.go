package rawio

import (
	"net"
	"time"
)

// Dialer is how edge opens a connection to an upstream, as nginx's
// *_socket_keepalive asks: without keepalive, no TCP keep-alive probes
// (nginx's default, where Go's dialer would turn them on with its own
// 15-second timers); with it, SO_KEEPALIVE and the system's timers
// (net.ipv4.tcp_keepalive_*), as nginx sets only SO_KEEPALIVE. timeout
// bounds the connect.
func Dialer(timeout time.Duration, keepalive bool) net.Dialer {
	d := net.Dialer{Timeout: timeout, KeepAlive: -1}
	if keepalive {
		d.KeepAliveConfig = net.KeepAliveConfig{Enable: true, Idle: -1, Interval: -1, Count: -1}
	}
	return d
}
