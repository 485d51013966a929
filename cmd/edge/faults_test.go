// This file holds issue 20's fault tests, each bounded in requests and
// connections: an access log on a full disk (requests are served, the
// failure is logged once, as by nginx), php-fpm's master killed under load
// (fast 502s, no stuck connection, 200s again once php-fpm is back), and
// file descriptors exhausted (accept errors logged as nginx words them,
// service back once the load drops).
package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"edge/testenv"
)

// get1 makes one request on a new connection and returns its status, 0
// when the connection failed.
func get1(addr, path string) int {
	c, err := net.DialTimeout("tcp", addr, waitTimeout)
	if err != nil {
		return 0
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(waitTimeout))
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"); err != nil {
		return 0
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestAccessLogDiskFull: with the access log on a full disk (/dev/full
// answers every write with ENOSPC), every request is still served, and
// the failure is logged once or twice, not once per request, as by
// nginx.
func TestAccessLogDiskFull(t *testing.T) {
	const http = `
    access_log /dev/full;
    server {
        listen 127.0.0.1:%d;
        location / { return 200 "served\n"; }
    }
`
	const want = `write() to "/dev/full" failed (28: No space left on device) while logging request`
	port := testenv.FreePort(t)
	ng := testenv.StartNginx(t, testenv.NginxMain(1)+"error_log logs/error.log info;\nhttp {\n"+testenv.NginxHTTPTemps("")+fmt.Sprintf(http, port)+"}\n", port)
	ngAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	s := newSite(t, "")
	s.writeConf("daemon off;\nerror_log logs/error.log info;\nevents {}\nhttp {\n" + fmt.Sprintf(http, s.port) + "}\n")
	s.start()
	for _, srv := range []struct{ name, addr, errorLog string }{
		{"nginx", ngAddr, ng.ErrorLog()}, {"edge", s.addr, s.errorLog()},
	} {
		for i := 0; i < 200; i++ {
			if st := get1(srv.addr, "/"); st != 200 {
				t.Fatalf("%s: request %d with the access log's disk full: status %d, want 200", srv.name, i, st)
			}
		}
		waitFor(t, srv.name+"'s [alert] for the full disk", func() bool { return countInFile(srv.errorLog, want) > 0 })
		// nginx 1.22 logs it twice here (measured): once a minute, give
		// or take the write that set the minute's mark.
		if n := countInFile(srv.errorLog, "[alert]"); n < 1 || n > 2 {
			t.Errorf("%s logged %d [alert] lines for 200 requests, want the full disk once (nginx: twice at most)", srv.name, n)
		}
	}
}

// TestFPMKilledUnderLoad: php-fpm's master (and its pool) killed while
// eight clients keep asking for PHP: every request gets an answer (200
// before, 502 while php-fpm is gone, nothing hangs), and once php-fpm is
// back on the same address every request gets 200 again.
func TestFPMKilledUnderLoad(t *testing.T) {
	port := testenv.FreePort(t)
	listen := "127.0.0.1:" + strconv.Itoa(port)
	fpm := testenv.StartFPM(t, testenv.FPMOptions{Listen: listen})
	s := newSite(t, "")
	writeFile(t, s.path("html/hello.php"), "<?php echo 'hello from php';")
	s.writeConf(fmt.Sprintf(`daemon off;
error_log logs/error.log info;
events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:{{PORT}};
        root html;
        location ~ \.php$ {
            fastcgi_pass %s;
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        }
    }
}
`, listen))
	s.start()
	if st := get1(s.addr, "/hello.php"); st != 200 {
		t.Fatalf("before: status %d", st)
	}
	var mu sync.Mutex
	counts := map[int]int{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				st := get1(s.addr, "/hello.php")
				mu.Lock()
				counts[st]++
				mu.Unlock()
			}
		}()
	}
	waitFor(t, "some 200s under load", func() bool { mu.Lock(); defer mu.Unlock(); return counts[200] > 100 })
	fpm.Proc.Stop() // SIGTERM, then SIGKILL, to the whole process group
	waitFor(t, "502s once php-fpm is gone", func() bool { mu.Lock(); defer mu.Unlock(); return counts[502] > 100 })
	fpm = testenv.StartFPM(t, testenv.FPMOptions{Listen: listen})
	mu.Lock()
	ok200 := counts[200]
	mu.Unlock()
	waitFor(t, "200s again once php-fpm is back", func() bool { mu.Lock(); defer mu.Unlock(); return counts[200] > ok200+100 })
	close(stop)
	wg.Wait()
	t.Logf("statuses: %v", counts)
	for st, n := range counts {
		if st != 200 && st != 502 {
			t.Errorf("%d requests got status %d (0: no answer), want only 200 and 502", n, st)
		}
	}
	for i := 0; i < 20; i++ {
		if st := get1(s.addr, "/hello.php"); st != 200 {
			t.Errorf("after php-fpm is back, request %d: status %d", i, st)
		}
	}
	// No connection is stuck: stub_status's view, through edge's own count.
	waitFor(t, "edge's connections to drain", func() bool { return openSockets(t, s.readPid()) < 20 })
}

// openSockets counts a process's open sockets.
func openSockets(t *testing.T, pid int) int {
	fds, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	n := 0
	for _, fd := range fds {
		if dst, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name())); err == nil && strings.HasPrefix(dst, "socket:") {
			n++
		}
	}
	return n
}

// setNofile sets a running process's soft RLIMIT_NOFILE (prlimit(2));
// the hard limit stays, so that it can be raised again.
func setNofile(t *testing.T, pid int, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_NOFILE,
		0, uintptr(unsafe.Pointer(&lim)), 0, 0); errno != 0 {
		t.Fatalf("prlimit: %v", errno)
	}
	lim.Cur = min(n, lim.Max)
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_NOFILE,
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0); errno != 0 {
		t.Fatalf("prlimit: %v", errno)
	}
}

// TestFDExhaustion: more connections than edge has file descriptors for
// (its RLIMIT_NOFILE lowered while it runs) are refused or wait, accept's
// failure is logged as nginx logs it, and once the connections close edge
// serves again; the same with worker_connections lower than the load.
func TestFDExhaustion(t *testing.T) {
	s := newSite(t, `daemon off;
error_log logs/error.log info;
events { worker_connections 40; }
http {
    access_log off;
    server {
        listen 127.0.0.1:{{PORT}};
        location / { return 200 "ok\n"; }
    }
}
`)
	s.start()
	pid := s.readPid()
	fds, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	hold := func(n int) []net.Conn {
		var conns []net.Conn
		for i := 0; i < n; i++ {
			c, err := net.DialTimeout("tcp", s.addr, waitTimeout)
			if err != nil {
				break
			}
			conns = append(conns, c)
		}
		return conns
	}
	release := func(conns []net.Conn) {
		for _, c := range conns {
			c.Close()
		}
	}
	// worker_connections first: 60 held connections against 40.
	conns := hold(60)
	waitLog(t, s.errorLog(), "40 worker_connections are not enough")
	release(conns)
	waitFor(t, "service after worker_connections", func() bool { return get1(s.addr, "/") == 200 })

	// Then descriptors: room for 10 more than edge has open.
	setNofile(t, pid, uint64(len(fds)+10))
	conns = hold(30)
	waitLog(t, s.errorLog(), "accept4() failed (24: Too many open files)")
	release(conns)
	waitFor(t, "service after the descriptors came back", func() bool { return get1(s.addr, "/") == 200 })
	setNofile(t, pid, 4096)
	for i := 0; i < 20; i++ {
		if st := get1(s.addr, "/"); st != 200 {
			t.Errorf("after the load dropped, request %d: status %d", i, st)
		}
	}
}
