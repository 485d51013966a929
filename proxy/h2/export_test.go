package h2

import "time"

// What the package's external tests (which serve through proxy/listen,
// itself an importer of h2) see of its insides.

// Guard is the frame guard.
type Guard = h2Guard

// NewGuard is newH2Guard.
func NewGuard(headerLimit, requests int, now func() time.Time) *Guard {
	return newH2Guard(headerLimit, requests, now)
}

// Scan is the guard's check of bytes read from the client.
func (g *Guard) Scan(b []byte) bool { return g.scan(b) }

// Reason is why the guard tripped.
func (g *Guard) Reason() string { return g.reason }

// ValidPath is validH2Path.
var ValidPath = validH2Path
