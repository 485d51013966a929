//go:build !linux

package h1

import "edge/proxy"

// parker holds idle connections only on Linux (park_linux.go); elsewhere
// they wait in the engine.
type parker struct{ s *Adapter }

const parkAfter = 0

func (p *parker) park(*tcpEdgeConn) bool           { return false }
func (p *parker) closeParked(*proxy.ConnInfo) bool { return false }
func (p *parker) count() int                       { return 0 }
func (p *parker) stop()                            {}
