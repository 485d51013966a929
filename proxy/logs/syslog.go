// This file holds the "syslog:" destinations of access_log and error_log
// (nginx's ngx_syslog.c): each line is one RFC 3164 datagram,
// "<PRI>Mmm dd hh:mm:ss hostname tag: message" (PRI = facility x 8 +
// severity, the time local, no hostname with nohostname), sent over UDP
// or a unix datagram socket (unix:/dev/log). As in nginx a send never
// waits: a full socket drops the line, and a socket that failed is opened
// again for the next one.
package logs

import (
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"edge/conf"
)

// Peer is one syslog destination, shared by every log naming it.
type Peer struct {
	target   *conf.SyslogTarget
	hostname string // lowercased, as nginx's cycle->hostname
	now      func() time.Time

	mu   sync.Mutex
	conn net.Conn // nil until the first send, and after a failed one
	buf  []byte
}

func newPeer(t *conf.SyslogTarget, hostname string, now func() time.Time) *Peer {
	return &Peer{target: t, hostname: strings.ToLower(hostname), now: now}
}

// Send sends msg (one line, no line feed) at severity; severity < 0 takes
// the target's own (access logs).
func (p *Peer) Send(severity int, msg []byte) error {
	t := p.target
	if severity < 0 {
		severity = t.Severity
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	b := append(p.buf[:0], '<')
	b = strconv.AppendInt(b, int64(t.Facility*8+severity), 10)
	b = append(b, '>')
	b = p.now().AppendFormat(b, "Jan _2 15:04:05")
	b = append(b, ' ')
	if !t.NoHostname {
		b = append(append(b, p.hostname...), ' ')
	}
	b = append(append(append(b, t.Tag...), ": "...), msg...)
	p.buf = b
	if p.conn == nil {
		c, err := net.Dial(t.Network, t.Addr)
		if err != nil {
			return err
		}
		p.conn = c
	}
	if err := sendNoWait(p.conn, b); err != nil {
		p.conn.Close()
		p.conn = nil
		return err
	}
	return nil
}

// sendNoWait sends one datagram without waiting for room in the socket
// (nginx's syslog sockets are non-blocking): EAGAIN is an error.
func sendNoWait(c net.Conn, b []byte) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		_, err := c.Write(b)
		return err
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var sendErr error
	if err := raw.Write(func(fd uintptr) bool {
		sendErr = syscall.Sendto(int(fd), b, syscall.MSG_DONTWAIT, nil)
		return true
	}); err != nil {
		return err
	}
	return sendErr
}

// Syslog returns the peer for a target, one per target text, kept open
// across reloads and closed with the log files.
func (fs *Files) Syslog(t *conf.SyslogTarget) *Peer {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if p := fs.syslogs[t.Raw]; p != nil {
		return p
	}
	host, _ := os.Hostname()
	p := newPeer(t, host, fs.now)
	if fs.syslogs == nil {
		fs.syslogs = map[string]*Peer{}
	}
	fs.syslogs[t.Raw] = p
	return p
}

// close closes the socket; a later send opens it again.
func (p *Peer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
}
