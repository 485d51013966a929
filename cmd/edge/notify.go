// This file tells systemd about the server's state when it runs under
// Type=notify (sd_notify(3)): READY=1 once the listeners are bound,
// RELOADING=1 and READY=1 around a reload, STOPPING=1 on the way out.
// The protocol is one datagram to the unix socket named by
// $NOTIFY_SOCKET ("@" for the abstract namespace); without the variable
// nothing is sent.
package main

import (
	"net"
	"os"
)

func sdNotify(state string) {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return
	}
	if path[0] == '@' {
		path = "\x00" + path[1:]
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return
	}
	defer c.Close()
	_, _ = c.Write([]byte(state))
}
