// This file holds limit_conn (src/http/modules/ngx_http_limit_conn_module.c):
// a counter per key of the requests in progress, taken when the request
// enters the access phase and given back when it ends.

package limit

import (
	"fmt"
	"sync"
)

// MaxConnKey is the longest key limit_conn counts; nginx skips a longer one
// and logs `the value of the "..." key is more than 255 bytes: "..."`.
const MaxConnKey = 255

// connNodeSize is nginx's allocation for a counter of a key of n bytes: an
// rbtree node up to its color byte, then ngx_http_limit_conn_node_t (color,
// len, conn) and the key: 32 + 4 + n.
func connNodeSize(n int) int { return rbtreeNodeHead + 4 + n }

// ConnZone is one limit_conn_zone. Safe for concurrent use.
type ConnZone struct {
	name  string
	size  int64
	mu    sync.Mutex
	nodes map[string]*connNode
	mem   *slab
}

// connNode is one key's counter: 32 bytes, so that with its map slot and
// key a state costs little more than nginx's 64-byte chunk
// (memory_test.go).
type connNode struct {
	key  string
	run  *[]int32 // the chunk's run (chunk.run)
	page int32    // the chunk's page (chunk.page)
	conn int32
}

func (n *connNode) chunk() chunk { return chunk{run: n.run, page: n.page} }

// NewConnZone returns a zone of size bytes (limit_conn_zone's size=); at
// least MinZoneSize.
func NewConnZone(name string, size int64) (*ConnZone, error) {
	if size < MinZoneSize {
		return nil, fmt.Errorf("limit: zone %q is too small", name)
	}
	z := &ConnZone{name: name, size: size, nodes: make(map[string]*connNode), mem: newSlab(size)}
	z.reserve(z.mem)
	return z, nil
}

// reserve takes the zone's own allocations: ngx_http_limit_conn_shctx_t
// (rbtree and sentinel, 64 bytes) and the log context naming the zone.
func (z *ConnZone) reserve(s *slab) {
	s.alloc(64)
	s.alloc(len(` in limit_conn zone ""`) + 1 + len(z.name))
}

// Name is the zone's name.
func (z *ConnZone) Name() string { return z.name }

// Len is the number of keys with requests in progress.
func (z *ConnZone) Len() int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return len(z.nodes)
}

// Count is the number of requests in progress for key.
func (z *ConnZone) Count(key string) int {
	z.mu.Lock()
	defer z.mu.Unlock()
	if n := z.nodes[key]; n != nil {
		return int(n.conn)
	}
	return 0
}

// Capacity is how many distinct keys of keyLen bytes an empty zone of this
// size can count at once.
func (z *ConnZone) Capacity(keyLen int) int {
	s := newSlab(z.size)
	z.reserve(s)
	return s.capacity(connNodeSize(keyLen))
}

// ConnLimit is one limit_conn directive: at most Conn requests per key.
type ConnLimit struct {
	Zone *ConnZone
	Conn int
}

// ConnStatus is $limit_conn_status.
type ConnStatus int

const (
	// ConnNone: no limit applied (every key was empty); the variable is empty.
	ConnNone ConnStatus = iota
	ConnPassed
	ConnRejected
	ConnRejectedDryRun
)

var connStatusNames = [...]string{"", "PASSED", "REJECTED", "REJECTED_DRY_RUN"}

// String is the $limit_conn_status value.
func (s ConnStatus) String() string { return connStatusNames[s] }

// ConnDecision is what a request's limit_conn directives decide.
type ConnDecision struct {
	Status ConnStatus
	// Zone is the zone that rejected.
	Zone string
	// NoMemory is set when the zone could not hold another key; nginx
	// rejects such a request without the "limiting connections" message.
	NoMemory bool
	DryRun   bool
}

// Message is nginx's error log text for a rejection (logged at
// limit_conn_log_level), "" otherwise or for a full zone.
func (d ConnDecision) Message() string {
	if d.NoMemory || (d.Status != ConnRejected && d.Status != ConnRejectedDryRun) {
		return ""
	}
	dry := ""
	if d.DryRun {
		dry = ", dry run,"
	}
	return "limiting connections" + dry + ` by zone "` + d.Zone + `"`
}

// ConnHold is the counters a passed request holds. Release gives them back;
// call it once when the request ends (nginx's pool cleanup). The zero value
// holds nothing.
type ConnHold struct {
	zones []*ConnZone
	nodes []*connNode
}

// Holds reports whether h holds a counter.
func (h *ConnHold) Holds() bool { return len(h.nodes) > 0 }

// Release gives back every counter; later calls do nothing.
func (h *ConnHold) Release() {
	for i, n := range h.nodes {
		z := h.zones[i]
		z.mu.Lock()
		n.conn--
		if n.conn == 0 {
			delete(z.nodes, n.key)
			z.mem.release(n.chunk())
		}
		z.mu.Unlock()
	}
	// Cleared, so that a pooled request pins no state the zone let go.
	clear(h.zones)
	clear(h.nodes)
	h.zones, h.nodes = h.zones[:0], h.nodes[:0]
}

// AcquireConn applies a request's limit_conn directives in order, as
// ngx_http_limit_conn_handler: keys[i] is limits[i]'s evaluated key; an
// empty or over-long key skips that limit. A key at its limit rejects and
// gives back what the earlier limits took. On a pass the counters are
// recorded in hold, to be released when the request ends; on a rejection
// (dry run included) hold holds nothing. A request is counted once: the
// caller calls this only for a request with no status yet (nginx keeps the
// status on the main request, so internal redirects are not counted again).
func AcquireConn(limits []ConnLimit, keys [][]byte, dryRun bool, hold *ConnHold) ConnDecision {
	var d ConnDecision
	for i := range limits {
		key := keys[i]
		if len(key) == 0 || len(key) > MaxConnKey {
			continue
		}
		d.Status = ConnPassed
		z := limits[i].Zone
		z.mu.Lock()
		n := z.nodes[string(key)]
		switch {
		case n == nil:
			c, ok := z.mem.alloc(connNodeSize(len(key)))
			if !ok {
				z.mu.Unlock()
				hold.Release()
				return rejectConn(z, dryRun, true)
			}
			n = &connNode{key: string(key), conn: 1, run: c.run, page: c.page}
			z.nodes[n.key] = n
		case int(n.conn) >= limits[i].Conn:
			z.mu.Unlock()
			hold.Release()
			return rejectConn(z, dryRun, false)
		default:
			n.conn++
		}
		z.mu.Unlock()
		hold.zones = append(hold.zones, z)
		hold.nodes = append(hold.nodes, n)
	}
	return d
}

func rejectConn(z *ConnZone, dryRun, noMem bool) ConnDecision {
	d := ConnDecision{Status: ConnRejected, Zone: z.name, NoMemory: noMem, DryRun: dryRun}
	if dryRun {
		d.Status = ConnRejectedDryRun
	}
	return d
}
