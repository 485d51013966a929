//go:build !linux

package h1

import "edge/proxy"

// parker holds idle connections only on Linux (park_linux.go); elsewhere
// they wait in the engine.
type parker struct{ s *Adapter }

const parkAfter = 0

func (p *parker) park(*tcpEdgeConn) bool { return false }
func (p *parker) count() int             { return 0 }
func (p *parker) stop()                  {}

// closeParked closes info's connection if it is a plain-TCP one (a stop).
func (p *parker) closeParked(ci *proxy.ConnInfo) bool {
	k, _ := ci.Adapter.Load().(*keptConn)
	if k == nil {
		return false
	}
	k.live.TCPConn.Close()
	return true
}
