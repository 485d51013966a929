// Package resolver is nginx's resolver (ngx_resolver.c) for proxy_pass
// and fastcgi_pass with variables: the names a request's variables give
// are asked of the DNS servers of the `resolver` directive over UDP
// (with TCP when an answer comes truncated), A and AAAA together, the
// answer kept for its TTL (or `valid=`), an error for 10 seconds, and
// the addresses handed out rotated, so that successive requests start
// on successive addresses. Standard library and x/net's dnsmessage
// only; conf builds one Resolver per `resolver` directive at load, so a
// reload starts with an empty cache as nginx's does.
package resolver

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config is one `resolver` directive.
type Config struct {
	// Servers are the name servers, asked in turn (one per try).
	Servers []netip.AddrPort
	// Valid overrides the answers' TTL (valid=); 0 keeps the TTL.
	Valid time.Duration
	// IPv4 and IPv6 say which records are asked for (ipv4=, ipv6=; both
	// on by default).
	IPv4, IPv6 bool
}

// Resolver answers names from its cache or its servers. Its zero value
// is not usable; make one with New.
type Resolver struct {
	cfg Config
	// Now is the clock answers expire by (time.Now by default).
	Now func() time.Time
	// Resend is how long a try waits for an answer before the next
	// server is asked (nginx's resend_timeout, 5 s).
	Resend time.Duration

	mu    sync.Mutex
	names map[string]*node
	next  atomic.Uint32 // the server the next query goes to
}

// node is one name's answer, or the query under way for it.
type node struct {
	done  chan struct{} // closed once addrs/err are set
	addrs []netip.Addr
	err   *Error
	valid time.Time
	turn  atomic.Uint32 // the rotation of the next answer
}

// maxNames bounds the cache: past it, expired names are dropped, and if
// none were, the whole cache (a variable may come from the request).
const maxNames = 4096

// negativeTTL is how long an error answer is kept without valid=
// (ngx_resolver_process_a's 10 seconds).
const negativeTTL = 10 * time.Second

// New returns a resolver for c.
func New(c Config) *Resolver {
	return &Resolver{cfg: c, Now: time.Now, Resend: 5 * time.Second, names: map[string]*node{}}
}

// Config returns the directive the resolver was made from.
func (r *Resolver) Config() Config { return r.cfg }

// String shows the directive's arguments (for edge -T's plan dump).
func (r *Resolver) String() string {
	var b strings.Builder
	for i, s := range r.cfg.Servers {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s.String())
	}
	if r.cfg.Valid > 0 {
		b.WriteString(" valid=" + r.cfg.Valid.String())
	}
	if !r.cfg.IPv4 {
		b.WriteString(" ipv4=off")
	}
	if !r.cfg.IPv6 {
		b.WriteString(" ipv6=off")
	}
	return b.String()
}

// Error is a name that could not be resolved, with nginx's code and text
// ("could not be resolved (3: Host not found)").
type Error struct {
	Code int // the DNS RCODE, or 110 for a timeout
}

// CodeTimedOut is nginx's NGX_RESOLVE_TIMEDOUT (ETIMEDOUT).
const CodeTimedOut = 110

func (e *Error) Error() string {
	texts := []string{"Format error", "Server failure", "Host not found", "Unimplemented", "Operation refused"}
	text := "Unknown error"
	switch {
	case e.Code > 0 && e.Code <= len(texts):
		text = texts[e.Code-1]
	case e.Code == CodeTimedOut:
		text = "Operation timed out"
	}
	return itoa(e.Code) + ": " + text
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}

// Resolve returns name's addresses, IPv4 ones first, each family
// rotated by one more place than the previous answer's; timeout is
// resolver_timeout. An IP address is its own answer. The error is an
// *Error, or ctx's.
func (r *Resolver) Resolve(ctx context.Context, name string, timeout time.Duration) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(name); err == nil {
		return []netip.Addr{a}, nil
	}
	n, owner := r.lookup(name)
	if owner {
		go r.query(n, name, timeout)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-n.done:
	case <-t.C:
		return nil, &Error{Code: CodeTimedOut}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if n.err != nil {
		return nil, n.err
	}
	return rotate(n.addrs, int(n.turn.Add(1)-1)), nil
}

// lookup returns name's node, and whether the caller must start its
// query (no node, or an expired one).
func (r *Resolver) lookup(name string) (*node, bool) {
	now := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := r.names[name]; n != nil {
		select {
		case <-n.done:
			if !now.After(n.valid) {
				return n, false
			}
		default:
			return n, false // under way: wait for it
		}
	}
	if len(r.names) >= maxNames {
		r.expire(now)
	}
	n := &node{done: make(chan struct{})}
	r.names[name] = n
	return n, true
}

// expire drops the expired names, or all of them when none was.
func (r *Resolver) expire(now time.Time) {
	for k, n := range r.names {
		select {
		case <-n.done:
			if now.After(n.valid) {
				delete(r.names, k)
			}
		default:
		}
	}
	if len(r.names) >= maxNames {
		clear(r.names)
	}
}

// query asks the servers for name and completes n. A timed-out query
// is not kept: the next request asks again.
func (r *Resolver) query(n *node, name string, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	addrs, ttl, err := r.ask(ctx, name)
	now := r.Now()
	switch {
	case err == nil:
		n.addrs = addrs
	case errors.As(err, &n.err):
	default:
		n.err = &Error{Code: CodeTimedOut}
	}
	if n.err != nil {
		ttl = negativeTTL
	}
	if r.cfg.Valid > 0 {
		ttl = r.cfg.Valid
	}
	n.valid = now.Add(ttl)
	if n.err != nil && n.err.Code == CodeTimedOut {
		r.mu.Lock()
		if r.names[name] == n {
			delete(r.names, name)
		}
		r.mu.Unlock()
	}
	close(n.done)
}

// ask sends the queries for name to one server after another, a try
// every Resend, until ctx ends.
func (r *Resolver) ask(ctx context.Context, name string) ([]netip.Addr, time.Duration, error) {
	if !validName(name) {
		// ngx_resolver_create_name_query's NGX_DECLINED: not asked.
		return nil, 0, &Error{Code: 3}
	}
	var last error = &Error{Code: CodeTimedOut}
	for ctx.Err() == nil {
		srv := r.cfg.Servers[int(r.next.Add(1)-1)%len(r.cfg.Servers)]
		tctx, cancel := context.WithTimeout(ctx, r.Resend)
		addrs, ttl, err := exchange(tctx, srv, name, r.cfg.IPv4, r.cfg.IPv6)
		cancel()
		if err == nil {
			return addrs, ttl, nil
		}
		var e *Error
		if errors.As(err, &e) {
			return nil, 0, err
		}
		last = err
		if tctx.Err() == nil {
			// The server failed at once (refused port): wait out the try
			// rather than spin on the servers.
			select {
			case <-ctx.Done():
			case <-time.After(r.Resend):
			}
		}
	}
	if errors.Is(last, context.DeadlineExceeded) || ctx.Err() != nil {
		return nil, 0, &Error{Code: CodeTimedOut}
	}
	return nil, 0, last
}

// validName is what nginx asks about: labels of 1 to 63 bytes, 255 in
// all; a trailing dot is allowed.
func validName(name string) bool {
	name = strings.TrimSuffix(name, ".")
	if name == "" || len(name) > 253 {
		return false
	}
	for _, l := range strings.Split(name, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
	}
	return true
}

// rotate returns addrs with each family's addresses turned by k places,
// the IPv4 ones first (ngx_resolver_export).
func rotate(addrs []netip.Addr, k int) []netip.Addr {
	out := make([]netip.Addr, 0, len(addrs))
	for _, v4 := range []bool{true, false} {
		start := len(out)
		for _, a := range addrs {
			if a.Is4() == v4 {
				out = append(out, a)
			}
		}
		fam := out[start:]
		if n := len(fam); n > 1 {
			k := k % n
			turned := append(append([]netip.Addr(nil), fam[k:]...), fam[:k]...)
			copy(fam, turned)
		}
	}
	return out
}
