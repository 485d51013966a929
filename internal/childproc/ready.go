// ready.go waits for a child to be ready: polling a connect, never
// sleeping for a guessed time.
package childproc

import (
	"fmt"
	"net"
	"time"
)

// pollInterval is the pause between connect attempts.
const pollInterval = 10 * time.Millisecond

// WaitListening polls until a connect to network/addr succeeds. When p is
// not nil it fails at once if p exits first, which turns a bad
// configuration into an immediate error instead of a timeout. timeout is
// a failure deadline, not a measurement.
func WaitListening(p *Process, network, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout(network, addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if p != nil && p.Exited() {
			return fmt.Errorf("%s exited before listening on %s: %v", p.Name, addr, p.err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s %s after %v: %v", network, addr, timeout, err)
		}
		time.Sleep(pollInterval)
	}
}
