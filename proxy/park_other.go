//go:build !linux

package proxy

// parker holds idle connections only on Linux (park_linux.go); elsewhere
// they wait in the engine.
type parker struct{ s *Server }

const parkAfter = 0

func (p *parker) park(*tcpEdgeConn) bool     { return false }
func (p *parker) closeParked(*connInfo) bool { return false }
func (p *parker) stop()                      {}
