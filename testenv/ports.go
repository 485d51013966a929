// This file holds loopback port allocation and readiness polling.

package testenv

import (
	"edge/internal/childproc"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// readyTimeout bounds how long a process may take to start listening. It is
// a failure deadline, not a measurement: polling returns as soon as the
// connect succeeds.
const readyTimeout = 10 * time.Second

// pollInterval is the pause between attempts while waiting.
const pollInterval = 10 * time.Millisecond

// handedOut remembers every port FreePort returned in this process: the
// kernel may offer a just-closed port again, and two servers of one test
// process must never be given the same port.
var handedOut struct {
	sync.Mutex
	ports map[int]bool
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on now and
// that this process has not handed out before. Another process may still take
// it before the caller binds it; on a test machine that is rare enough.
func FreePort(t testing.TB) int {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	if handedOut.ports == nil {
		handedOut.ports = make(map[int]bool)
	}
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("testenv: free port: %v", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if !handedOut.ports[port] {
			handedOut.ports[port] = true
			return port
		}
	}
	t.Fatalf("testenv: free port: the kernel kept offering ports already handed out")
	return 0
}

// FreeListenPort is FreePort for a port some other process binds a
// while later (a container's published port, bound by dockerd seconds
// after): it lies below the kernel's ephemeral range, which the outgoing
// connections of tests running meanwhile take their local ports from; a
// port of that range could be in use as one by then ("bind: address
// already in use").
func FreeListenPort(t testing.TB) int {
	t.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var lo, hi int
		if n, _ := fmt.Sscan(string(b), &lo, &hi); n == 2 && lo > 1024 {
			low = lo
		}
	}
	if low <= 10000 {
		return FreePort(t)
	}
	handedOut.Lock()
	defer handedOut.Unlock()
	if handedOut.ports == nil {
		handedOut.ports = make(map[int]bool)
	}
	for range 1000 {
		port := 10000 + rand.IntN(low-10000)
		if handedOut.ports[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		ln.Close()
		handedOut.ports[port] = true
		return port
	}
	t.Fatalf("testenv: no free port below %d", low)
	return 0
}

// WaitPort polls until a TCP connect to addr succeeds, and fails the test if
// none does within 10s.
func WaitPort(t testing.TB, addr string) {
	t.Helper()
	waitListening(t, nil, "tcp", addr)
}

// WaitProcPort polls until a TCP connect to addr succeeds, for a port that p
// is to open: it fails at once, with p's output, when p exits first, and
// after timeout (zero means 10s), a failure deadline that a loaded machine
// may need longer.
func WaitProcPort(t testing.TB, p *Proc, addr string, timeout time.Duration) {
	t.Helper()
	waitListeningFor(t, p, "tcp", addr, timeout)
}

// waitListening polls until a connect to network/addr succeeds. When p is not
// nil it fails at once if p exits first, which turns a bad config into an
// immediate failure with p's output instead of a timeout.
func waitListening(t testing.TB, p *Proc, network, addr string) {
	t.Helper()
	waitListeningFor(t, p, network, addr, readyTimeout)
}

// orReadyTimeout is timeout, or readyTimeout when it is zero.
func orReadyTimeout(timeout time.Duration) time.Duration {
	if timeout == 0 {
		return readyTimeout
	}
	return timeout
}

// waitListeningFor is waitListening with its own deadline (zero means
// readyTimeout).
func waitListeningFor(t testing.TB, p *Proc, network, addr string, timeout time.Duration) {
	t.Helper()
	var proc *childproc.Process
	if p != nil {
		proc = p.proc
	}
	if err := childproc.WaitListening(proc, network, addr, orReadyTimeout(timeout)); err != nil {
		t.Fatalf("testenv: %v", err)
	}
}

// Eventually polls cond, with a pause growing from 1ms to 50ms, until it
// holds, and fails the test naming what it waited for after 20s (a
// failure deadline, not a measurement).
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for delay := time.Millisecond; !cond(); delay = min(2*delay, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(delay)
	}
}
