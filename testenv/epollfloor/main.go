//go:build linux

// Command epollfloor is the yardstick of the hello.php benchmark
// (testenv/fcgitest BenchmarkPHPHello) for an event loop of edge's own:
// one goroutine on one edge-triggered epoll instance, every socket call a
// raw system call (so the Go runtime never sees it: no netpoller, no
// goroutine parks, no entersyscall), no read that is known to find nothing
// (a read that returns less than asked empties the socket, as nginx's
// ready flag assumes). It forwards each GET to one PHP script over a few
// kept FastCGI connections, queueing what they cannot take, and answers
// with PHP's body under fixed headers.
//
// It does much less than edge or nginx: no config, no header parsing
// beyond the end of the head, a fixed set of CGI params, no request
// bodies, no pipelining, no timeouts, no logs. Its CPU per request is what
// the I/O pattern itself costs on this machine, so the difference between
// it and edge is what edge's goroutine-per-connection model and its
// pipeline add. It is a test tool, never shipped, and it exits on any
// upstream error.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"io"
	"log"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"syscall"
	"unsafe"
)

// FastCGI record types (FastCGI 1.0, section 8).
const (
	typeBeginRequest = 1
	typeEndRequest   = 3
	typeParams       = 4
	typeStdin        = 5
	typeStdout       = 6
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to serve HTTP on")
	network := flag.String("network", "unix", "php-fpm's network: unix or tcp")
	address := flag.String("address", "", "php-fpm's socket path or host:port")
	script := flag.String("script", "", "the PHP script every request runs")
	conns := flag.Int("conns", 3, "kept FastCGI connections")
	park := flag.String("park", "raw", "how the loop waits: raw (a blocking raw epoll_wait) or go (in Go's poller, on the epoll descriptor)")
	flag.Parse()
	if *address == "" || *script == "" {
		log.Fatal("epollfloor: -address and -script are required")
	}
	ap, err := netip.ParseAddrPort(*listen)
	if err != nil || !ap.Addr().Is4() {
		log.Fatalf("epollfloor: -listen %q: want an IPv4 address and port", *listen)
	}
	l := &loop{
		request: fastcgiRequest(*script, ap), buf: make([]byte, 64<<10),
		network: *network, address: *address, maxConns: *conns, parkInGo: *park == "go",
		upstreams: map[int]*upstream{}, clients: map[int]*client{},
	}
	if l.ep, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err != nil {
		log.Fatal(err)
	}
	l.listener = listenTCP(ap)
	l.add(l.listener, syscall.EPOLLIN)
	l.run()
}

// epollET is EPOLLET, which package syscall spells as a negative number.
const epollET = 1 << 31

// client is one HTTP connection; busy while its request is queued or at PHP.
type client struct {
	fd   int
	in   []byte
	busy bool
}

// upstream is one kept FastCGI connection and the client it serves.
type upstream struct {
	fd  int
	in  []byte
	cur *client
}

type loop struct {
	ep, listener int
	request      []byte // the FastCGI request, the same for every GET
	buf          []byte
	// php-fpm's address and the most connections kept to it; they are
	// dialed when needed, because php-fpm closes a connection that brings
	// no request within 5 s of its accept
	network, address string
	maxConns         int
	parkInGo         bool
	upstreams        map[int]*upstream
	free             []*upstream
	clients          map[int]*client
	queue            []*client
	out              []byte
}

func (l *loop) add(fd int, events uint32) {
	ev := syscall.EpollEvent{Events: events, Fd: int32(fd)}
	if err := syscall.EpollCtl(l.ep, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		log.Fatal(err)
	}
}

func (l *loop) run() {
	events := make([]syscall.EpollEvent, 256)
	wait := l.waiter(events)
	for {
		n, err := wait()
		if err == syscall.EINTR {
			continue // the runtime's preemption signal
		}
		if err != nil {
			log.Fatal(err)
		}
		for _, ev := range events[:n] {
			fd := int(ev.Fd)
			switch {
			case fd == l.listener:
				l.accept()
			case l.upstreams[fd] != nil:
				l.reply(l.upstreams[fd])
			case l.clients[fd] != nil:
				l.readClient(l.clients[fd])
			}
		}
	}
}

// waiter returns the loop's wait for events. With -park raw it blocks in
// a raw epoll_wait, holding the goroutine's P all the while; with -park go
// it takes what is ready without blocking and otherwise parks in Go's own
// poller on the epoll descriptor, which is readable while events wait, so
// other goroutines, timers and the GC run meanwhile.
func (l *loop) waiter(events []syscall.EpollEvent) func() (int, error) {
	if !l.parkInGo {
		return func() (int, error) { return epollWait(l.ep, events, -1) }
	}
	if err := syscall.SetNonblock(l.ep, true); err != nil {
		log.Fatal(err)
	}
	rc, err := os.NewFile(uintptr(l.ep), "epoll").SyscallConn()
	if err != nil {
		log.Fatal(err)
	}
	var n int
	var werr error
	ready := func(fd uintptr) bool {
		n, werr = epollWait(int(fd), events, 0)
		return n > 0 || werr != nil && werr != syscall.EINTR
	}
	return func() (int, error) {
		n, werr = epollWait(l.ep, events, 0)
		if n > 0 || werr != nil {
			return n, werr
		}
		if err := rc.Read(ready); err != nil {
			return 0, err
		}
		return n, werr
	}
}

func (l *loop) accept() {
	for {
		fd, _, err := syscall.Accept4(l.listener, syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
		if err != nil {
			return // EAGAIN: the backlog is empty
		}
		if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1); err != nil {
			log.Fatal(err)
		}
		c := &client{fd: fd}
		l.clients[fd] = c
		l.add(fd, syscall.EPOLLIN|syscall.EPOLLRDHUP|epollET)
		l.readClient(c)
	}
}

// drain appends what fd has to *in; an error means the peer closed (io.EOF)
// or failed.
func (l *loop) drain(fd int, in *[]byte) error {
	for {
		n, err := rawRead(fd, l.buf)
		if err == syscall.EAGAIN {
			return nil
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.EOF
		}
		*in = append(*in, l.buf[:n]...)
		if n < len(l.buf) {
			return nil // emptied: the next data brings a new edge
		}
	}
}

func (l *loop) readClient(c *client) {
	if l.drain(c.fd, &c.in) != nil {
		l.closeClient(c)
		return
	}
	l.parse(c)
}

// parse queues c's next complete request head, one at a time.
func (l *loop) parse(c *client) {
	if c.busy {
		return
	}
	end := bytes.Index(c.in, []byte("\r\n\r\n"))
	if end < 0 {
		return
	}
	c.in = c.in[:copy(c.in, c.in[end+4:])]
	c.busy = true
	l.queue = append(l.queue, c)
	l.dispatch()
}

func (l *loop) dispatch() {
	for len(l.queue) > 0 {
		if len(l.free) == 0 {
			if len(l.upstreams) == l.maxConns {
				return
			}
			u := &upstream{fd: dial(l.network, l.address)}
			l.upstreams[u.fd] = u
			l.free = append(l.free, u)
			l.add(u.fd, syscall.EPOLLIN|epollET)
		}
		c := l.queue[0]
		l.queue = l.queue[1:]
		if c.fd < 0 {
			continue // closed while queued
		}
		u := l.free[len(l.free)-1]
		l.free = l.free[:len(l.free)-1]
		u.cur = c
		if n, err := rawWrite(u.fd, l.request); err != nil || n != len(l.request) {
			log.Fatalf("epollfloor: write to php-fpm: %d of %d bytes, %v", n, len(l.request), err)
		}
	}
}

// reply reads PHP's records; at FCGI_END_REQUEST it answers the client.
func (l *loop) reply(u *upstream) {
	if err := l.drain(u.fd, &u.in); err != nil {
		if u.cur != nil || len(u.in) > 0 {
			log.Fatalf("epollfloor: reading a reply from php-fpm: %v", err)
		}
		// An idle connection php-fpm closed: the next dispatch dials.
		syscall.Close(u.fd)
		delete(l.upstreams, u.fd)
		l.free = slices.DeleteFunc(l.free, func(f *upstream) bool { return f == u })
		return
	}
	var body []byte
	p := u.in
	for {
		if len(p) < 8 {
			return // the reply is not complete yet
		}
		length := int(binary.BigEndian.Uint16(p[4:]))
		size := 8 + length + int(p[6])
		if len(p) < size {
			return
		}
		switch p[1] {
		case typeStdout:
			body = append(body, p[8:8+length]...)
		case typeEndRequest:
			u.in = u.in[:copy(u.in, p[size:])]
			l.answer(u, body)
			return
		}
		p = p[size:]
	}
}

func (l *loop) answer(u *upstream, stdout []byte) {
	c := u.cur
	u.cur = nil
	l.free = append(l.free, u)
	l.dispatch()
	if c.fd < 0 {
		return
	}
	body := stdout
	if i := bytes.Index(stdout, []byte("\r\n\r\n")); i >= 0 {
		body = stdout[i+4:]
	}
	l.out = append(l.out[:0], "HTTP/1.1 200 OK\r\nServer: epollfloor\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Length: "...)
	l.out = strconv.AppendInt(l.out, int64(len(body)), 10)
	l.out = append(l.out, "\r\n\r\n"...)
	l.out = append(l.out, body...)
	if n, err := rawWrite(c.fd, l.out); err != nil || n != len(l.out) {
		l.closeClient(c) // a small answer that does not fit: give up on it
		return
	}
	c.busy = false
	l.parse(c)
}

func (l *loop) closeClient(c *client) {
	syscall.Close(c.fd)
	delete(l.clients, c.fd)
	c.fd = -1
}

// fastcgiRequest encodes BEGIN_REQUEST (keep the connection), the params
// and the empty PARAMS and STDIN records that end them.
func fastcgiRequest(script string, ap netip.AddrPort) []byte {
	var params []byte
	for _, kv := range [][2]string{
		{"SCRIPT_FILENAME", script}, {"REQUEST_METHOD", "GET"}, {"QUERY_STRING", ""},
		{"REQUEST_URI", "/hello.php"}, {"SCRIPT_NAME", "/hello.php"}, {"SERVER_PROTOCOL", "HTTP/1.1"},
		{"GATEWAY_INTERFACE", "CGI/1.1"}, {"REMOTE_ADDR", "127.0.0.1"}, {"SERVER_NAME", "localhost"},
		{"SERVER_PORT", strconv.Itoa(int(ap.Port()))}, {"HTTP_HOST", ap.String()},
	} {
		params = append(params, byte(len(kv[0])), byte(len(kv[1])))
		params = append(append(params, kv[0]...), kv[1]...)
	}
	var req []byte
	req = record(req, typeBeginRequest, []byte{0, 1, 1, 0, 0, 0, 0, 0}) // responder, keep conn
	req = record(req, typeParams, params)
	req = record(req, typeParams, nil)
	return record(req, typeStdin, nil)
}

// record appends one FastCGI record of request ID 1, padded to 8 bytes.
func record(b []byte, typ byte, content []byte) []byte {
	pad := -len(content) & 7
	b = append(b, 1, typ, 0, 1, byte(len(content)>>8), byte(len(content)), byte(pad), 0)
	b = append(b, content...)
	return append(b, make([]byte, pad)...)
}

func dial(network, address string) int {
	var fd int
	var sa syscall.Sockaddr
	var err error
	switch network {
	case "unix":
		fd, err = syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		sa = &syscall.SockaddrUnix{Name: address}
	case "tcp":
		ap, perr := netip.ParseAddrPort(address)
		if perr != nil || !ap.Addr().Is4() {
			log.Fatalf("epollfloor: -address %q: want an IPv4 address and port", address)
		}
		fd, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		sa = &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	default:
		log.Fatalf("epollfloor: -network %q: want unix or tcp", network)
	}
	if err != nil {
		log.Fatal(err)
	}
	if err := syscall.Connect(fd, sa); err != nil {
		log.Fatalf("epollfloor: connect %s: %v", address, err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		log.Fatal(err)
	}
	return fd
}

func listenTCP(ap netip.AddrPort) int {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		log.Fatal(err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		log.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}); err != nil {
		log.Fatalf("epollfloor: bind %s: %v", ap, err)
	}
	if err := syscall.Listen(fd, 511); err != nil {
		log.Fatal(err)
	}
	return fd
}

// The raw calls: the loop never blocks anywhere but in epoll_wait, and
// there the runtime's preemption signal ends the wait with EINTR.

func rawRead(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawWrite(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func epollWait(ep int, events []syscall.EpollEvent, timeout int) (int, error) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(timeout), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
