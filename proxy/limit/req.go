// Package limit holds the engines of nginx's limit_req and limit_conn
// modules: request-rate zones with nginx's leaky bucket in its integer
// arithmetic, and per-key connection counters, each bounded by the zone size
// the way nginx's shared memory bounds it. The package knows nothing of HTTP
// or configuration: the caller evaluates each zone's key, passes it with the
// time, and gets a decision back (issue 15).
//
// This file holds limit_req (src/http/modules/ngx_http_limit_req_module.c).
package limit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rate is a limit_req_zone rate in nginx's unit: requests per 1000 seconds
// (millirequests per second), so that 30r/m is 500 and 1r/m is 16.
type Rate int64

// ParseRate parses limit_req_zone's rate= value without the "rate=":
// "10r/s" or "30r/m". As in nginx, a value without a suffix is per second,
// and the conversion truncates (1r/m = 16, not 16.67).
func ParseRate(s string) (Rate, error) {
	scale := int64(1)
	num := s
	switch {
	case strings.HasSuffix(s, "r/s"):
		num = s[:len(s)-3]
	case strings.HasSuffix(s, "r/m"):
		num = s[:len(s)-3]
		scale = 60
	}
	n, err := atoi(num)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("limit: invalid rate %q", s)
	}
	return Rate(n * 1000 / scale), nil
}

// atoi is ngx_atoi: decimal digits only, no sign, no overflow.
func atoi(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("empty")
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, errors.New("not a number")
		}
		if n > (1<<63-1-int64(c-'0'))/10 {
			return 0, errors.New("overflow")
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

// MaxReqKey is the longest key limit_req accounts; nginx skips a longer one
// and logs `the value of the "..." key is more than 65535 bytes: "..."`.
const MaxReqKey = 65535

// reqNodeSize is nginx's allocation for one state of a key of n bytes: an
// rbtree node up to its color byte, then ngx_http_limit_req_node_t (color,
// dummy, len, queue, last, excess, count) and the key: 32 + 48 + n.
func reqNodeSize(n int) int { return rbtreeNodeHead + 48 + n }

// ReqZone is one limit_req_zone: the states of its keys, bounded by the
// zone's size, least recently used first to go. Safe for concurrent use.
type ReqZone struct {
	name string
	size int64
	rate Rate
	base time.Time // instant 0 of the zone's millisecond clock

	mu    sync.Mutex
	nodes map[string]*reqNode
	head  *reqNode // most recently used
	tail  *reqNode
	mem   *slab
}

type reqNode struct {
	key    string
	last   int64 // ms since base
	excess int64 // in 1/1000 requests
	count  int   // requests between lookup and account (pins the node)
	// fresh marks a state created by a limit that is not the request's
	// last: nginx gives it last = 0, so that its account sees the whole
	// uptime elapsed and starts it from an empty bucket.
	fresh      bool
	prev, next *reqNode
	chunk      chunk
}

// NewReqZone returns a zone of size bytes (the limit_req_zone size=) with
// rate. The size must be at least MinZoneSize, as nginx demands. The zone's
// own allocations (its tree head and the log context string naming it) come
// out of the size first, as in ngx_http_limit_req_init_zone.
func NewReqZone(name string, size int64, rate Rate) (*ReqZone, error) {
	if size < MinZoneSize {
		return nil, fmt.Errorf("limit: zone %q is too small", name)
	}
	if rate <= 0 {
		return nil, fmt.Errorf("limit: zone %q: invalid rate", name)
	}
	z := &ReqZone{name: name, size: size, rate: rate, nodes: make(map[string]*reqNode), mem: newSlab(size)}
	z.reserve(z.mem)
	return z, nil
}

// reserve takes the zone's own allocations: ngx_http_limit_req_shctx_t
// (rbtree, sentinel, queue: 80 bytes) and the log context naming the zone.
func (z *ReqZone) reserve(s *slab) {
	s.alloc(80)
	s.alloc(len(` in limit_req zone ""`) + 1 + len(z.name))
}

// Name is the zone's name, as log messages quote it.
func (z *ReqZone) Name() string { return z.name }

// Rate is the zone's rate.
func (z *ReqZone) Rate() Rate { return z.rate }

// Len is the number of states the zone holds now.
func (z *ReqZone) Len() int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return len(z.nodes)
}

// Capacity is how many states of keys of keyLen bytes an empty zone of
// this zone's size holds (size 1m, 4-byte keys: 8095).
func (z *ReqZone) Capacity(keyLen int) int {
	s := newSlab(z.size)
	z.reserve(s)
	return s.capacity(reqNodeSize(keyLen))
}

func (z *ReqZone) ms(now time.Time) int64 {
	if z.base.IsZero() {
		z.base = now
	}
	return now.Sub(z.base).Milliseconds()
}

func (z *ReqZone) toFront(n *reqNode) {
	if z.head == n {
		return
	}
	z.unlink(n)
	n.next = z.head
	if z.head != nil {
		z.head.prev = n
	}
	z.head = n
	if z.tail == nil {
		z.tail = n
	}
}

func (z *ReqZone) unlink(n *reqNode) {
	if n.prev != nil {
		n.prev.next = n.next
	} else if z.head == n {
		z.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else if z.tail == n {
		z.tail = n.prev
	}
	n.prev, n.next = nil, nil
}

func (z *ReqZone) remove(n *reqNode) {
	z.unlink(n)
	delete(z.nodes, n.key)
	z.mem.release(n.chunk)
}

// expire is ngx_http_limit_req_expire. force (n == 0 in nginx) removes the
// least recently used state whatever its excess, then up to two more whose
// excess has drained and that were last seen a minute ago or more; without
// force, up to two such. A state pinned by a request in flight stops the walk:
// nginx bumps states on lookup, so the ones before it are newer.
func (z *ReqZone) expire(now int64, force bool) {
	n := 1
	if force {
		n = 0
	}
	for n < 3 {
		lr := z.tail
		if lr == nil || lr.count > 0 {
			return
		}
		if n != 0 && !lr.fresh {
			ms := now - lr.last
			if ms < 0 {
				ms = -ms
			}
			if ms < 60000 {
				return
			}
			if lr.excess-int64(z.rate)*ms/1000 > 0 {
				return
			}
		}
		n++
		z.remove(lr)
	}
}

// leak is the bucket's step shared by lookup and account: the state's
// excess after now - last milliseconds at the zone's rate, plus this
// request. A clock gone back counts as 0 ms, gone back over a minute as
// 1 ms. A fresh state (created by a request's non-last limit) has nginx's
// last = 0: the whole uptime has drained it.
func (z *ReqZone) leak(lr *reqNode, now int64) (excess, ms int64) {
	ms = now - lr.last
	if ms < -60000 {
		ms = 1
	} else if ms < 0 {
		ms = 0
	}
	excess = lr.excess - int64(z.rate)*ms/1000 + 1000
	if excess < 0 || lr.fresh {
		excess = 0
	}
	return excess, ms
}

// lookup result codes, as in ngx_http_limit_req_lookup.
type lookupResult int

const (
	lookupOK    lookupResult = iota // accounted (the last limit)
	lookupAgain                     // passed, state pinned until account
	lookupBusy                      // over the burst
	lookupError                     // zone full: could not allocate node
)

// lookup finds or creates key's state and applies the leaky bucket. The
// last limit of a request accounts at once; earlier ones only pin their
// state, so that a later zone's rejection leaves them untouched.
func (z *ReqZone) lookup(l *ReqLimit, key []byte, now int64, account bool) (lookupResult, int64, *reqNode) {
	lr := z.nodes[string(key)]
	if lr != nil {
		z.toFront(lr)
		excess, ms := z.leak(lr, now)
		if excess > l.burst() {
			return lookupBusy, excess, nil
		}
		if account {
			lr.excess = excess
			if ms != 0 || lr.fresh {
				lr.last = now
			}
			lr.fresh = false
			return lookupOK, excess, nil
		}
		lr.count++
		return lookupAgain, excess, lr
	}

	size := reqNodeSize(len(key))
	z.expire(now, false)
	c, ok := z.mem.alloc(size)
	if !ok {
		z.expire(now, true)
		c, ok = z.mem.alloc(size)
		if !ok {
			return lookupError, 0, nil
		}
	}
	lr = &reqNode{key: string(key), last: now, chunk: c}
	z.nodes[lr.key] = lr
	z.toFront(lr)
	if account {
		return lookupOK, 0, nil
	}
	lr.count = 1
	lr.fresh = true
	return lookupAgain, 0, lr
}

// NoDelay is ReqLimit.Delay for `nodelay`: nginx's NGX_MAX_INT_T_VALUE/1000.
const NoDelay = (1<<63 - 1) / 1000

// ReqLimit is one limit_req directive.
type ReqLimit struct {
	Zone *ReqZone
	// Burst is burst= in requests; 0 when absent.
	Burst int64
	// Delay is delay= in requests: excess up to it passes at once, beyond
	// it is delayed. 0 when absent (every excess request waits), NoDelay
	// for nodelay.
	Delay int64
}

func (l *ReqLimit) burst() int64 { return l.Burst * 1000 }
func (l *ReqLimit) delay() int64 {
	if l.Delay >= NoDelay {
		return NoDelay * 1000
	}
	return l.Delay * 1000
}

// ReqStatus is $limit_req_status.
type ReqStatus int

const (
	// ReqNone: no limit applied (every key was empty); the variable is empty.
	ReqNone ReqStatus = iota
	ReqPassed
	ReqDelayed
	ReqRejected
	ReqDelayedDryRun
	ReqRejectedDryRun
)

var reqStatusNames = [...]string{"", "PASSED", "DELAYED", "REJECTED", "DELAYED_DRY_RUN", "REJECTED_DRY_RUN"}

// String is the $limit_req_status value.
func (s ReqStatus) String() string { return reqStatusNames[s] }

// ReqDecision is what a request's limit_req directives decide.
type ReqDecision struct {
	Status ReqStatus
	// Delay is how long to hold the request before going on (ReqDelayed
	// only; a dry run reports the delay it would have applied).
	Delay time.Duration
	// Zone is the zone that rejected or set the delay; Excess its excess
	// in 1/1000 requests at that moment. Both empty for ReqPassed.
	Zone   string
	Excess int64
	// NoMemory is set when the rejection came from a full zone that had
	// nothing to evict; nginx logs it at alert level (NoMemoryMessage)
	// instead of the "limiting requests" message.
	NoMemory bool
	DryRun   bool
}

// Message is nginx's error log text for the decision (logged at
// limit_req_log_level for a rejection, one level lower for a delay), or ""
// for a decision nginx does not log.
func (d ReqDecision) Message() string {
	dry := ""
	if d.DryRun {
		dry = ", dry run"
	}
	ex := strconv.FormatInt(d.Excess/1000, 10) + "." + fmt.Sprintf("%03d", d.Excess%1000)
	switch {
	case d.NoMemory:
		return `could not allocate node in limit_req zone "` + d.Zone + `"`
	case d.Status == ReqRejected || d.Status == ReqRejectedDryRun:
		return "limiting requests" + dry + ", excess: " + ex + ` by zone "` + d.Zone + `"`
	case d.Status == ReqDelayed || d.Status == ReqDelayedDryRun:
		return "delaying request" + dry + ", excess: " + ex + `, by zone "` + d.Zone + `"`
	}
	return ""
}

// CheckReq applies a request's limit_req directives, in their order, as
// ngx_http_limit_req_handler does. keys[i] is the evaluated key of
// limits[i]'s zone; an empty key (or one longer than MaxReqKey) skips that
// limit. now is the request's time: one value for the whole check, as
// nginx's cached ngx_current_msec is. dryRun is limit_req_dry_run.
//
// Every limit but the last is looked up first and pinned; the last one
// accounts at once; if a limit rejects, the earlier ones are released
// unchanged (nginx's "rollback"); otherwise they account, and the longest of
// their delays wins.
func CheckReq(limits []ReqLimit, keys [][]byte, now time.Time, dryRun bool) ReqDecision {
	var (
		rc      = lookupResult(-1)
		excess  int64
		pinned  [8]*reqNode
		pins    = pinned[:0]
		pinZone [8]int
		zidx    = pinZone[:0]
		last    = -1
	)
	n := 0
	for ; n < len(limits); n++ {
		l := &limits[n]
		key := keys[n]
		last = n
		if len(key) == 0 || len(key) > MaxReqKey {
			continue
		}
		z := l.Zone
		z.mu.Lock()
		var node *reqNode
		rc, excess, node = z.lookup(l, key, z.ms(now), n == len(limits)-1)
		z.mu.Unlock()
		if node != nil {
			pins = append(pins, node)
			zidx = append(zidx, n)
		}
		if rc != lookupAgain {
			break
		}
	}
	if rc < 0 {
		return ReqDecision{Status: ReqNone}
	}
	if rc == lookupBusy || rc == lookupError {
		for i, node := range pins {
			z := limits[zidx[i]].Zone
			z.mu.Lock()
			node.count--
			z.mu.Unlock()
		}
		d := ReqDecision{Status: ReqRejected, Zone: limits[n].Zone.name, Excess: excess, NoMemory: rc == lookupError, DryRun: dryRun}
		if dryRun {
			d.Status = ReqRejectedDryRun
		}
		return d
	}
	if rc == lookupAgain {
		excess = 0
	}

	// ngx_http_limit_req_account: the last limit's delay, then each pinned
	// one's, the longest winning.
	if n == len(limits) {
		n = last
	}
	decider := n
	var maxDelay int64
	if l := &limits[decider]; excess > l.delay() {
		maxDelay = (excess - l.delay()) * 1000 / int64(l.Zone.rate)
	}
	for i := len(pins) - 1; i >= 0; i-- {
		l := &limits[zidx[i]]
		z := l.Zone
		lr := pins[i]
		z.mu.Lock()
		t := z.ms(now)
		e, ms := z.leak(lr, t)
		if ms != 0 || lr.fresh {
			lr.last = t
		}
		lr.fresh = false
		lr.excess = e
		lr.count--
		z.mu.Unlock()
		if e <= l.delay() {
			continue
		}
		if delay := (e - l.delay()) * 1000 / int64(z.rate); delay > maxDelay {
			maxDelay, excess, decider = delay, e, zidx[i]
		}
	}
	if maxDelay == 0 {
		return ReqDecision{Status: ReqPassed}
	}
	d := ReqDecision{Status: ReqDelayed, Delay: time.Duration(maxDelay) * time.Millisecond,
		Zone: limits[decider].Zone.name, Excess: excess, DryRun: dryRun}
	if dryRun {
		d.Status = ReqDelayedDryRun
	}
	return d
}
