package main

import (
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSystemdNotify is edge under a Type=notify unit: the states arrive on
// $NOTIFY_SOCKET in order as the server starts, reloads and stops.
func TestSystemdNotify(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)
	s := newSite(t, "daemon off;\nerror_log logs/error.log;\nevents {}\nhttp {\n  server { listen 127.0.0.1:{{PORT}}; }\n}\n")
	p := s.start()

	next := func(want string) {
		t.Helper()
		// The deadline bounds a stuck test; it is not a timing assertion.
		_ = conn.SetReadDeadline(time.Now().Add(waitTimeout))
		buf := make([]byte, 4096)
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("waiting for %q on NOTIFY_SOCKET: %v", want, err)
		}
		if got := string(buf[:n]); !strings.HasPrefix(got, want) {
			t.Fatalf("NOTIFY_SOCKET got %q, want %q", got, want)
		}
	}
	next("READY=1")
	if err := p.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	next("RELOADING=1")
	next("READY=1")
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	next("STOPPING=1")
}
