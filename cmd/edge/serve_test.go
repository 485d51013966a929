// This file tests edge as a running server against nginx's process
// contract: the pid file appears only once every listener is bound and
// goes away at exit; HUP (or -s reload) swaps the configuration and keeps
// the old one when the new one is broken; USR1 (-s reopen) reopens logs;
// QUIT (-s quit) lets a response in flight finish; TERM (-s stop) does
// not wait; "daemon on" returns once the server is up.
package main

import (
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"edge/testenv"
)

// siteConf is the configuration every test of this package serves, with
// line added to its one server (an indented directive).
func siteConf(line string) string {
	return `daemon off;
error_log logs/error.log info;
events { worker_connections 256; }
http {
    include mime.types;
    access_log logs/access.log;
    server {
        listen 127.0.0.1:{{PORT}};
        root html;
        ` + line + `
    }
}
`
}

// versionConf is the serving tests' configuration: /version answers v.
func versionConf(v string) string { return siteConf(`location = /version { return 200 "` + v + `"; }`) }

func TestPidFileHoldsPid(t *testing.T) {
	s := newSite(t, versionConf("v1"))
	p := s.start()
	if pid := s.readPid(); pid != p.PID() {
		t.Fatalf("pid file holds %d, edge runs as %d", pid, p.PID())
	}
	s.waitBody("/version", "v1")
}

// TestPidFileAfterBind: once the pid file exists the port accepts
// connections at the first try, with no waiting, because edge writes it
// only after binding.
func TestPidFileAfterBind(t *testing.T) {
	s := newSite(t, versionConf("v1"))
	// No port to wait for: the pid file alone.
	testenv.StartEdge(t, testenv.EdgeOptions{Prefix: s.dir, ConfFile: s.conf, PidFile: s.pidFile(), ReadyTimeout: waitTimeout})
	if !canConnect(s.addr) {
		t.Fatalf("the pid file exists but nothing accepts connections on %s", s.addr)
	}
}

// TestBindFailure: a port that is already taken is fatal, and no pid file
// is left behind.
func TestBindFailure(t *testing.T) {
	s := newSite(t, versionConf("v1"))
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	res := s.edge()
	if res.code == 0 {
		t.Fatalf("edge exited 0 with its port taken; stderr:\n%s", res.stderr)
	}
	// nginx: `bind() to 127.0.0.1:PORT failed (98: Address already in use)`.
	want := "[emerg] bind() to " + s.addr + " failed (98: "
	if !strings.Contains(res.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
	}
	if fileExists(s.pidFile()) {
		t.Errorf("pid file %s exists after a failed start", s.pidFile())
	}
}

func TestReload(t *testing.T) {
	tests := []struct {
		name string
		send func(s *site, p *testenv.Proc)
	}{
		{"edge -s reload", func(s *site, p *testenv.Proc) {
			if res := s.edge("-s", "reload"); res.code != 0 {
				s.t.Fatalf("edge -s reload: exit %d, stderr:\n%s", res.code, res.stderr)
			}
		}},
		{"SIGHUP", func(s *site, p *testenv.Proc) {
			if err := p.Signal(syscall.SIGHUP); err != nil {
				s.t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, versionConf("v1"))
			p := s.start()
			s.waitBody("/version", "v1")
			s.writeConf(versionConf("v2"))
			tt.send(s, p)
			s.waitBody("/version", "v2")
			waitLog(t, s.errorLog(), "[notice] "+strconv.Itoa(p.PID())+"#0: reconfiguring done")
			if p.Exited() {
				t.Fatalf("edge exited after the reload: %v", p.Wait())
			}
		})
	}
}

// TestReloadBrokenConfig: a reload with a typo logs [emerg] with the place
// and keeps the old configuration serving. "edge -s reload" itself reads
// the configuration first (to find the pid file), so like nginx it fails
// without signalling.
func TestReloadBrokenConfig(t *testing.T) {
	s := newSite(t, versionConf("v1"))
	p := s.start()
	s.waitBody("/version", "v1")
	broken := strings.Replace(versionConf("v2"), "root html;", "root html;\n        fastcgi_pas 127.0.0.1:9000;", 1)
	s.writeConf(broken)
	const line = 10 // the line of fastcgi_pas in broken
	want := `unknown directive "fastcgi_pas" in ` + s.conf + ":" + strconv.Itoa(line)

	res := s.edge("-s", "reload")
	if res.code != 1 || !strings.Contains(res.stderr, "edge: [emerg] "+want+"\n") {
		t.Errorf("edge -s reload with a typo: exit %d, stderr:\n%s\nwant exit 1 and %q", res.code, res.stderr, want)
	}

	if err := p.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLog(t, s.errorLog(), "[emerg] "+strconv.Itoa(p.PID())+"#0: "+want)
	if resp := s.get("/version"); resp.Status != 200 || string(resp.Body) != "v1" {
		t.Errorf("after a failed reload GET /version = %d %q, want the old 200 \"v1\"", resp.Status, resp.Body)
	}
	if p.Exited() {
		t.Fatalf("edge exited after a failed reload: %v", p.Wait())
	}
	// Fixed again, the next reload is taken.
	s.writeConf(versionConf("v3"))
	if err := p.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitBody("/version", "v3")
}

// TestReopenLogs: after logrotate's rename, USR1 (or -s reopen) makes edge
// write a new access log; lines already buffered go to the old file.
func TestReopenLogs(t *testing.T) {
	tests := []struct {
		name string
		send func(s *site, p *testenv.Proc)
	}{
		{"edge -s reopen", func(s *site, p *testenv.Proc) {
			if res := s.edge("-s", "reopen"); res.code != 0 {
				s.t.Fatalf("edge -s reopen: exit %d, stderr:\n%s", res.code, res.stderr)
			}
		}},
		{"SIGUSR1", func(s *site, p *testenv.Proc) {
			if err := p.Signal(syscall.SIGUSR1); err != nil {
				s.t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, versionConf("v1"))
			p := s.start()
			s.get("/version?before-rotate")
			rotated := s.accessLog() + ".1"
			if err := os.Rename(s.accessLog(), rotated); err != nil {
				t.Fatal(err)
			}
			tt.send(s, p)
			waitLog(t, s.errorLog(), "[notice] "+strconv.Itoa(p.PID())+"#0: reopening logs")
			s.get("/version?after-rotate")
			text := waitLog(t, s.accessLog(), "GET /version?after-rotate HTTP/1.1")
			if strings.Contains(text, "before-rotate") {
				t.Errorf("the new access log holds the line from before the rotation:\n%s", text)
			}
			old := waitLog(t, rotated, "GET /version?before-rotate HTTP/1.1")
			if strings.Contains(old, "after-rotate") {
				t.Errorf("the rotated access log got a line after reopening:\n%s", old)
			}
		})
	}
}

// bigFileSize is far more than the socket buffers of both ends can hold,
// so a client that does not read keeps edge busy sending.
const bigFileSize = 32 << 20

// TestQuitDrains: QUIT (-s quit) closes the listeners, lets the response
// in flight finish, then exits 0 and removes the pid file.
func TestQuitDrains(t *testing.T) {
	s := newSite(t, versionConf("v1"))
	writeBigFile(t, s.path("html/big.bin"), bigFileSize)
	p := s.start()
	dl := startSlowDownload(t, s.addr, "/big.bin")

	if res := s.edge("-s", "quit"); res.code != 0 {
		t.Fatalf("edge -s quit: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	waitFor(t, "edge to close its listener", func() bool { return !canConnect(s.addr) })
	if p.Exited() {
		t.Fatalf("edge exited with a response in flight (%d of %d bytes read): %v", dl.read, bigFileSize, p.Wait())
	}
	n, err := dl.finish()
	if err != nil || n != bigFileSize {
		t.Fatalf("the response in flight was cut: read %d of %d bytes (%v)", n, bigFileSize, err)
	}
	if code := waitExit(t, p); code != 0 {
		t.Errorf("edge exited %d after QUIT, want 0", code)
	}
	if fileExists(s.pidFile()) {
		t.Errorf("pid file %s left after exit", s.pidFile())
	}
	waitLog(t, s.errorLog(), "gracefully shutting down")
}

// TestQuitAfterReloadTimeout: QUIT waits for responses in flight at most
// the worker_shutdown_timeout of the configuration serving when it comes,
// one that a reload brought in (issue 13: it was the first one's).
func TestQuitAfterReloadTimeout(t *testing.T) {
	s := newSite(t, versionConf("v1"))
	writeBigFile(t, s.path("html/big.bin"), bigFileSize)
	p := s.start()
	s.writeConf("worker_shutdown_timeout 1s;\n" + versionConf("v2"))
	if res := s.edge("-s", "reload"); res.code != 0 {
		t.Fatalf("edge -s reload: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	s.waitBody("/version", "v2")
	startSlowDownload(t, s.addr, "/big.bin") // and never read on
	if res := s.edge("-s", "quit"); res.code != 0 {
		t.Fatalf("edge -s quit: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	// send_timeout (60 s) would hold the download far longer than the
	// wait below; the shutdown timeout (1 s) ends it.
	if code := waitExit(t, p); code != 0 {
		t.Errorf("edge exited %d after QUIT, want 0", code)
	}
}

// TestStopIsFast: TERM (-s stop) exits without waiting for a response in
// flight, exits 0 and removes the pid file.
func TestStopIsFast(t *testing.T) {
	s := newSite(t, versionConf("v1"))
	writeBigFile(t, s.path("html/big.bin"), bigFileSize)
	p := s.start()
	dl := startSlowDownload(t, s.addr, "/big.bin")

	if res := s.edge("-s", "stop"); res.code != 0 {
		t.Fatalf("edge -s stop: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	// The client reads nothing meanwhile: edge must not wait for it.
	if code := waitExit(t, p); code != 0 {
		t.Errorf("edge exited %d after TERM, want 0", code)
	}
	if n, _ := dl.finish(); n >= bigFileSize {
		t.Errorf("the whole body (%d bytes) arrived although edge was stopped", n)
	}
	if fileExists(s.pidFile()) {
		t.Errorf("pid file %s left after exit", s.pidFile())
	}
}

// TestDaemon: without "daemon off" edge returns once it serves, its pid
// file names the daemon, and -s stop ends it.
func TestDaemon(t *testing.T) {
	s := newSite(t, strings.Replace(versionConf("v1"), "daemon off;\n", "", 1))
	res := s.edge()
	pid := s.readPid()
	if pid > 0 {
		t.Cleanup(func() {
			if processAlive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
	}
	if res.code != 0 {
		t.Fatalf("edge (daemon on): exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if pid == 0 {
		t.Fatalf("edge returned but wrote no pid file %s", s.pidFile())
	}
	if !processAlive(pid) {
		t.Fatalf("the daemon (pid %d) is not running", pid)
	}
	// Serving already: no polling needed.
	if resp := s.get("/version"); resp.Status != 200 || string(resp.Body) != "v1" {
		t.Fatalf("GET /version = %d %q", resp.Status, resp.Body)
	}
	if res := s.edge("-s", "stop"); res.code != 0 {
		t.Fatalf("edge -s stop: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	waitFor(t, "the daemon to exit", func() bool { return !processAlive(pid) })
	waitFor(t, "the pid file to go", func() bool { return !fileExists(s.pidFile()) })
}

// TestDaemonStartFailure: a daemon that cannot bind makes the command
// itself fail with the reason.
func TestDaemonStartFailure(t *testing.T) {
	s := newSite(t, strings.Replace(versionConf("v1"), "daemon off;\n", "", 1))
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	res := s.edge()
	if res.code == 0 || !strings.Contains(res.stderr, "bind() to "+s.addr+" failed") {
		t.Fatalf("edge (daemon on, port taken): exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if fileExists(s.pidFile()) {
		t.Errorf("pid file %s exists after a failed start", s.pidFile())
	}
}
