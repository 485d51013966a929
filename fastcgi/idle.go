// idle.go holds IdleConns, the set of kept idle connections to one
// backend address that the Clients of that address share, and how a
// Client finds its set.
package fastcgi

import (
	"sync"
	"sync/atomic"
	"time"
)

// IdleConns is a set of idle kept connections to one backend address,
// which several Clients may share. php-fpm gives each kept connection a
// worker of its own, so what must stay below pm.max_children is the number
// of idle connections to the address, whichever Client kept them. Clients
// of one address that differ in timeouts or limits (two locations passing
// to one pool, an upstream{} and a bare fastcgi_pass naming the same
// socket) must therefore keep them in one set: each keeping its own, they
// can together pin every worker while a new connection waits in the
// listen queue for a worker that never comes free. The zero value keeps
// none; a connection taken from the set gets the timeouts of the request
// that takes it.
//
// The limit bounds the kept connections, idle or busy: without MaxConns
// only a connection that holds one of the limit's places asks php-fpm to
// keep it open (FCGI_KEEP_CONN); any other is closed by php-fpm itself
// after its response, so its worker takes the next connection at once
// instead of waiting for edge to close this one. With MaxConns every
// connection asks, and one beyond the limit goes on to a waiting request
// or is closed by edge (Client.handOff).
type IdleConns struct {
	// waiting counts fresh connections whose request is sent and whose
	// answer has not begun: each may sit in php-fpm's listen queue until
	// a worker is free. While any does, a finished kept connection is
	// closed instead of kept, so its worker takes the waiting one. This
	// is what makes keeping connections safe when the pool's size is not
	// known: kept connections can never starve a queued one.
	waiting atomic.Int64
	limit   atomic.Int64
	// janitor closes connections idle longer than IdleTimeout; it runs
	// only while some are idle.
	janitor *time.Timer
	mu      sync.Mutex
	conns   []*conn // most recently used last
	owned   int     // kept connections, idle or busy (<= limit but after SetLimit)
}

// IdleTimeout is how long a kept connection may stay idle before edge
// closes it (nginx's upstream keepalive_timeout, shorter): an idle kept
// connection pins a php-fpm worker, which then serves nobody else, not
// another web server sharing the pool, not php-fpm's own process manager
// deciding whether the pool may shrink.
const IdleTimeout = 2 * time.Second

// NewIdleConns returns a set that keeps at most limit connections.
func NewIdleConns(limit int) *IdleConns {
	s := new(IdleConns)
	s.limit.Store(int64(limit))
	return s
}

// SetLimit changes the most connections kept and closes the excess (a
// reload that lowered it).
func (s *IdleConns) SetLimit(limit int) {
	s.limit.Store(int64(limit))
	s.mu.Lock()
	var extra []*conn
	if n := len(s.conns); n > limit {
		keep := max(limit, 0)
		extra = append(extra, s.conns[:n-keep]...) // the least recently used
		s.conns = append(s.conns[:0], s.conns[n-keep:]...)
		s.owned -= len(extra)
	}
	s.mu.Unlock()
	for _, cn := range extra {
		cn.dispose()
	}
}

// Len returns the number of idle connections kept now.
func (s *IdleConns) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// reserve takes one of the limit's places for a new connection, if one
// is free, and reports whether it did.
func (s *IdleConns) reserve(limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owned >= limit {
		return false
	}
	s.owned++
	return true
}

// release gives back the place of a kept connection that was closed.
func (s *IdleConns) release() {
	s.mu.Lock()
	s.owned--
	s.mu.Unlock()
}

// put keeps cn, which holds a place, if the idle connections are fewer
// than limit, and reports whether it did.
func (s *IdleConns) put(cn *conn, limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) >= limit {
		return false
	}
	cn.idleSince = time.Now()
	s.conns = append(s.conns, cn)
	if s.janitor == nil {
		s.janitor = time.AfterFunc(IdleTimeout, s.closeStale)
	}
	return true
}

// closeStale closes the connections idle for IdleTimeout and comes back
// while others remain.
func (s *IdleConns) closeStale() {
	cutoff := time.Now().Add(-IdleTimeout)
	s.mu.Lock()
	var stale []*conn
	keep := s.conns[:0]
	for _, cn := range s.conns { // least recently used first
		if cn.idleSince.Before(cutoff) {
			stale = append(stale, cn)
			continue
		}
		keep = append(keep, cn)
	}
	clear(s.conns[len(keep):])
	s.conns = keep
	s.owned -= len(stale)
	if len(s.conns) > 0 {
		s.janitor.Reset(time.Until(s.conns[0].idleSince.Add(IdleTimeout)) + 10*time.Millisecond)
	} else {
		s.janitor = nil
	}
	s.mu.Unlock()
	for _, cn := range stale {
		cn.dispose()
	}
}

// take removes and returns the most recently used connection, or nil.
func (s *IdleConns) take() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.conns)
	if n == 0 {
		return nil
	}
	cn := s.conns[n-1]
	s.conns[n-1] = nil
	s.conns = s.conns[:n-1]
	return cn
}

// closeAll closes every kept connection.
func (s *IdleConns) closeAll() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.owned -= len(conns)
	s.mu.Unlock()
	for _, cn := range conns {
		cn.dispose()
	}
}

// idleSet returns where c keeps idle connections and how many at most
// (0 when c keeps none, whatever a shared set allows).
func (c *Client) idleSet() (*IdleConns, int) {
	switch {
	case c.Idle == nil:
		return &c.ownIdle, max(c.MaxIdle, 0)
	case c.MaxIdle <= 0:
		return c.Idle, 0
	}
	return c.Idle, int(c.Idle.limit.Load())
}
