// This file holds one request's use of a zone, as nginx's
// ngx_http_upstream_cache and ngx_http_file_cache_open run it: the lookup
// with its status, the lock that lets one request fill a new key while the
// others wait (fastcgi_cache_lock), the expired-entry states (STALE,
// UPDATING, EXPIRED, background update), stale answers for failures,
// revalidation, and the end of the request.
package cache

import (
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// Request is what a lookup needs from the client's request.
type Request struct {
	// Key is the evaluated fastcgi_cache_key. A missing key is "" and all
	// requests share one entry, as in nginx.
	Key string
	// Bypass is fastcgi_cache_bypass's result: no lookup (BYPASS), but the
	// response may still be stored.
	Bypass bool
	// Header returns a request header's value (several lines joined with
	// ", "), for Vary; nil reads every header as empty. It is called by
	// Lookup and Store, so for a background update (which stores after
	// the client's request ended) it must not read the engine's reused
	// buffers: give it a copy of the request's headers.
	Header func(name string) string
}

// Policy is a location's cache settings. Zero values are nginx's
// defaults where noted.
type Policy struct {
	// Valid is fastcgi_cache_valid, lines in config order (ValidRules).
	Valid []ValidRule
	// Ignore is fastcgi_ignore_headers.
	Ignore Ignore
	// MinUses is fastcgi_cache_min_uses (0 and 1: store the first MISS).
	MinUses int
	// Lock, LockTimeout and LockAge are fastcgi_cache_lock, _timeout and
	// _age (zero times are nginx's 5 s).
	Lock                 bool
	LockTimeout, LockAge time.Duration
	// UseStale is fastcgi_cache_use_stale.
	UseStale UseStale
	// BackgroundUpdate is fastcgi_cache_background_update.
	BackgroundUpdate bool
	// Revalidate is fastcgi_cache_revalidate.
	Revalidate bool
}

// Lookup is one request's view of the zone, from Zone.Lookup to Done.
//
// What the caller does by Status:
//   - HIT, UPDATING: send Entry.
//   - STALE with Background: send Entry, and run the upstream request
//     anyway (without the client) to Store its response.
//   - HIT with ErrorStatus (no Entry): answer that status (a cached 502
//     or 504).
//   - MISS, BYPASS, EXPIRED: ask the upstream. On EXPIRED with Revalidate,
//     send Validators() as If-Modified-Since/If-None-Match and answer a
//     304 with Revalidated. A failure or error status may be answered by
//     Stale; when it is not and edge answers 502/504 itself, tell Failed.
//     Otherwise Decide the response and Store it.
//
// Then Entry.Close once its body is out, and Done exactly once after the
// last use of the Lookup (for a background update: when it ends).
type Lookup struct {
	Status Status
	// Entry is the stored response: the one to send on HIT, UPDATING and
	// STALE, and on EXPIRED the old one (for Stale and revalidation). nil
	// otherwise.
	Entry *Entry
	// Background: a STALE answer whose update the caller runs.
	Background bool
	// ErrorStatus, on a HIT without an Entry, is a 502 or 504 remembered
	// by Failed, or an intercepted error remembered by Intercepted: the
	// caller answers it without asking the upstream, as nginx does for a
	// cached error.
	ErrorStatus int

	z       *Zone
	req     Request
	pol     Policy
	primary Hash
	hash    Hash  // primary, or the variant the request was sent to
	other   *Meta // the primary entry, when it holds another variant
	n       *node
	store   bool // the response may be stored (not SCARCE, no lock timeout)

	updating bool // this lookup owns n.updating
	finished bool
	// fromMemory: a HIT on the bytes the index keeps, which Done moves up
	// the memory list (useData).
	fromMemory bool
}

// step is what one pass of the lookup found.
type step int

const (
	stepDone step = iota
	stepAgain
	stepWait
)

// Lookup finds the entry for the request. With Policy.Lock it may wait
// until another request has filled a new key, until lock_age passes (then
// this one fills it) or until lock_timeout (then it goes to the upstream
// and does not store, status MISS). A ctx that ends stops the wait the
// same way.
func (z *Zone) Lookup(ctx context.Context, req Request, pol Policy) *Lookup {
	l := &Lookup{z: z, req: req, pol: pol, primary: HashKey(req.Key)}
	l.hash = l.primary
	// One clock read serves the whole lookup (a HIT read it three times,
	// 2% of an HTTP/1 HIT's CPU); a wait reads it again.
	now := z.now()
	if req.Bypass {
		z.mu.Lock()
		l.hold(now)
		z.mu.Unlock()
		l.Status, l.store = StatusBypass, l.n != nil
		return l
	}
	timeout := pol.LockTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	deadline := now.Add(timeout)
	for {
		st, ch, until := l.once(now, deadline)
		switch st {
		case stepDone:
			return l
		case stepAgain:
			continue
		}
		now = z.now()
		d := until.Sub(now)
		if d <= 0 {
			continue
		}
		t := time.NewTimer(d)
		z.waiting.Add(1)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
			z.waiting.Add(-1)
			t.Stop()
			l.Status, l.store = StatusMiss, false
			return l
		}
		z.waiting.Add(-1)
		t.Stop()
		now = z.now()
	}
}

// hold moves the lookup onto the node of l.hash, counting a use. z.mu is
// held.
func (l *Lookup) hold(now time.Time) *node {
	n := l.z.touch(l.hash, now)
	if n == l.n {
		return n
	}
	if l.n != nil {
		l.release()
	}
	l.n = n
	if n != nil {
		n.busy++
		n.uses++
	}
	return n
}

// once is one pass of the lookup at now.
func (l *Lookup) once(now, deadline time.Time) (step, <-chan struct{}, time.Time) {
	z := l.z
	z.mu.Lock()
	n := l.hold(now)
	if n == nil {
		z.mu.Unlock()
		l.Status, l.store = StatusMiss, false
		return stepDone, nil, time.Time{}
	}
	if n.errStatus != 0 {
		if now.Unix() <= n.errUntil {
			z.mu.Unlock()
			l.Status, l.ErrorStatus = StatusHit, n.errStatus
			return stepDone, nil, time.Time{}
		}
		n.errStatus = 0
	}
	exists, meta, data, fd, kept := n.exists, n.meta, n.data, n.fd, n.file
	z.mu.Unlock()

	var e *Entry
	var read *os.File // the file e.Data was just read from, for the index to keep
	if exists || z.cold.Load() {
		var err error
		ok := false
		if data != nil {
			e, ok = memoryEntry(meta, data, fd, kept)
		}
		if !ok {
			if e, err = z.openEntry(l.hash, meta); err == nil {
				read = z.readIn(e)
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			z.mu.Lock()
			if n.exists && n.prev != nil {
				z.size -= n.size
				z.dropData(n)
				n.exists, n.meta = false, nil
			}
			z.mu.Unlock()
		default:
			z.report("open() \"%s\" failed (%v)", z.path(l.hash), err)
			l.Status, l.store = StatusMiss, false
			return stepDone, nil, time.Time{}
		}
	}
	if e != nil && e.Key != l.req.Key {
		z.report("cache file \"%s\" has md5 collision", z.path(l.hash))
		e.Close()
		read.Close()
		e, read = nil, nil
	}
	if e != nil && e.Vary != "" && l.hash == l.primary {
		v := variantHash(l.primary, e.Vary, l.req.Header, e.AEFolded)
		if v != e.Variant {
			l.other = e.Meta
			e.Close()
			if read != nil {
				z.mu.Lock()
				z.keepRead(n, e, read)
				z.mu.Unlock()
			}
			l.hash = v
			return stepAgain, nil, time.Time{}
		}
	}

	sec := now.Unix()
	if e != nil && sec <= e.ValidUntil && read == nil && exists && e.Meta == meta {
		// A fresh HIT on what the index already held changes nothing in
		// it, so it takes the lock once more only in Done (which also
		// moves a memory entry up its list): two locks per HIT, not
		// three.
		l.Entry, l.Status, l.fromMemory = e, StatusHit, e.Data != nil
		return stepDone, nil, time.Time{}
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if e != nil {
		z.keepRead(n, e, read)
		l.Entry = e
		if sec <= e.ValidUntil {
			l.Status = StatusHit
			return stepDone, nil, time.Time{}
		}
		staleOK := l.pol.UseStale&StaleUpdating != 0 ||
			(e.StaleWhileRevalidate > 0 && sec <= e.ValidUntil+e.StaleWhileRevalidate)
		l.store = true
		if n.updating {
			if staleOK {
				l.Status, l.store = StatusUpdating, false
			} else {
				l.Status = StatusExpired
			}
			return stepDone, nil, time.Time{}
		}
		l.takeUpdate(n, now)
		if staleOK && l.pol.BackgroundUpdate {
			l.Status, l.Background = StatusStale, true
		} else {
			l.Status = StatusExpired
		}
		return stepDone, nil, time.Time{}
	}

	l.Status = StatusMiss
	if n.uses < l.pol.MinUses {
		return stepDone, nil, time.Time{} // nginx's SCARCE: not stored yet
	}
	l.store = true
	if !l.pol.Lock || l.updating {
		return stepDone, nil, time.Time{}
	}
	if !n.updating || !now.Before(n.lockUntil) {
		l.takeUpdate(n, now)
		return stepDone, nil, time.Time{}
	}
	if !now.Before(deadline) {
		l.store = false // lock timeout: to the upstream, uncached
		return stepDone, nil, time.Time{}
	}
	until := n.lockUntil
	if deadline.Before(until) {
		until = deadline
	}
	return stepWait, n.done, until
}

// keepRead records what a lookup read of n's file: its header when the
// index did not hold it, and its bytes in memory, with read, the file
// they came from (closed when the index does not keep it); a HIT from
// memory moves n up the memory list. z.mu is held.
func (z *Zone) keepRead(n *node, e *Entry, read *os.File) {
	if n.prev != nil && (!n.exists || n.meta != e.Meta) {
		z.setEntry(n, e.Meta)
	}
	switch {
	case read != nil && n.meta == e.Meta:
		z.keepData(n, e.Data, read)
	case read != nil:
		read.Close()
	case e.Data != nil:
		z.useData(n)
	}
}

// takeUpdate makes l the request that fills or refreshes n; a previous
// owner whose lock_age passed keeps running, but its waiters are woken to
// wait for l. z.mu is held.
func (l *Lookup) takeUpdate(n *node, now time.Time) {
	if n.done != nil {
		close(n.done)
	}
	age := l.pol.LockAge
	if age == 0 {
		age = 5 * time.Second
	}
	n.updating, n.owner, n.lockUntil, n.done = true, l, now.Add(age), make(chan struct{})
	l.updating = true
}

// release lets go of l.n. z.mu is held.
func (l *Lookup) release() {
	n := l.n
	n.busy--
	if l.updating && n.owner == l {
		n.updating, n.owner = false, nil
		close(n.done)
		n.done = nil
	}
	l.updating = false
	// ngx_http_file_cache_free: a key that was never stored leaves the
	// index, unless min_uses needs its count.
	if !n.exists && n.busy == 0 && !n.updating && n.errStatus == 0 && l.pol.MinUses <= 1 && n.prev != nil {
		n.prev.next, n.next.prev = n.next, n.prev
		n.prev, n.next = nil, nil
		delete(l.z.nodes, n.hash)
	}
	l.n = nil
}

// Done ends the lookup: the lock or update it held is released and the
// key may be evicted again. It does not close Entry.
func (l *Lookup) Done() {
	if l.finished {
		return
	}
	l.finished = true
	l.z.mu.Lock()
	if n := l.n; n != nil {
		if l.fromMemory && n.prev != nil {
			l.z.useData(n)
		}
		l.release()
	}
	l.z.mu.Unlock()
}

// openEntry opens the entry file of h. known is the header the index
// holds; it is used when the file is still the one it was read from, so a
// HIT reads no header from the disk.
func (z *Zone) openEntry(h Hash, known *Meta) (*Entry, error) {
	f, err := openEntryFile(z.path(h))
	if err != nil {
		return nil, err
	}
	dev, ino, size, err := fileID(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	if known != nil && known.dev == dev && known.ino == ino && known.size == size {
		return &Entry{Meta: known, File: f}, nil
	}
	m, err := readMeta(f, size)
	if err != nil {
		f.Close()
		if errors.Is(err, errCorrupt) {
			z.report("cache file \"%s\" is corrupt", z.path(h))
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	m.dev, m.ino = dev, ino
	return &Entry{Meta: m, File: f}, nil
}

// openEntryFile opens an entry file for reading, as os.Open would but
// without trying to add it to the runtime poller: for a regular file that
// attempt fails, after three fcntl calls and an epoll_ctl more than this
// (os.NewFile makes one fcntl), on every HIT (strace of the 45 KB page of
// issue 16's edge ab scenario).
func openEntryFile(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// Decide is the package's Decide with the lookup's clock and policy.
func (l *Lookup) Decide(status int, fields []Field) Freshness {
	return Decide(l.z.now(), status, fields, l.pol.Valid, l.pol.Ignore)
}

// Validators returns the stored Last-Modified and ETag to send upstream
// as If-Modified-Since and If-None-Match, when the lookup revalidates
// (EXPIRED with fastcgi_cache_revalidate on); ok is false otherwise. While
// the request is cacheable, the client's own conditional headers are not
// passed upstream (spec).
func (l *Lookup) Validators() (lastModified, etag string, ok bool) {
	if l.Status != StatusExpired || !l.pol.Revalidate || l.Entry == nil {
		return "", "", false
	}
	if l.Entry.LastModified == "" && l.Entry.ETag == "" {
		return "", "", false
	}
	return l.Entry.LastModified, l.Entry.ETag, true
}

// Revalidated records the upstream's 304 to a revalidation: the entry's
// freshness is renewed from the 304's headers (or fastcgi_cache_valid for
// the stored status), written into the entry file in place, and the
// status becomes REVALIDATED; the caller sends Entry.
func (l *Lookup) Revalidated(fields []Field) error {
	e := l.Entry
	if e == nil {
		return errors.New("cache: nothing to revalidate")
	}
	l.Status = StatusRevalidated
	now := l.z.now()
	f := Decide(now, e.Status, fields, l.pol.Valid, l.pol.Ignore)
	if !f.OK() {
		ttl := ValidFor(l.pol.Valid, e.Status)
		if ttl <= 0 {
			return nil
		}
		f.ValidUntil = now.Unix() + int64(ttl/time.Second)
	}
	m := *e.Meta
	m.ValidUntil, m.Date = f.ValidUntil, now.Unix()
	p := l.z.path(l.hash)
	wf, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err == nil {
		var b [16]byte
		binary.LittleEndian.PutUint64(b[0:], uint64(m.ValidUntil))
		binary.LittleEndian.PutUint64(b[8:], uint64(m.Date))
		_, err = wf.WriteAt(b[:], offValidUntil)
		if cerr := wf.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		l.z.report("cache file \"%s\" update failed (%v)", p, err)
		return err
	}
	l.z.mu.Lock()
	if n := l.n; n != nil && n.prev != nil && n.meta == e.Meta {
		n.meta, n.validUntil = &m, m.ValidUntil
	}
	l.z.mu.Unlock()
	e.Meta = &m
	return nil
}

// Stale decides whether the expired entry answers for an upstream failure
// (f, or the response status when f is FailNone); on true the status is
// STALE and the caller sends Entry instead of the upstream's answer.
func (l *Lookup) Stale(f Failure, status int) bool {
	e := l.Entry
	if e == nil || l.Status != StatusExpired {
		return false
	}
	sec := l.z.now().Unix()
	window := e.StaleIfError > 0 && sec <= e.ValidUntil+e.StaleIfError
	if ServeStale(l.pol.UseStale, f, status, window) {
		l.Status = StatusStale
		return true
	}
	return false
}

// Failed records that the upstream request failed and edge answers
// status itself. A 502 or 504 that fastcgi_cache_valid names (WordOps
// lists "499 502 503 1m") is remembered in the index for that long, and
// lookups meanwhile are a HIT with ErrorStatus, without a file
// (ngx_http_upstream_finalize_request). Other statuses are not kept.
func (l *Lookup) Failed(status int) {
	if (status != 502 && status != 504) || !l.store || l.finished {
		return
	}
	ttl := ValidFor(l.pol.Valid, status)
	if ttl <= 0 {
		return
	}
	l.rememberError(status, l.z.now().Unix()+int64(ttl/time.Second))
}

// Intercepted records an error status whose body the location's
// error_page replaces (*_intercept_errors): when the response is
// cacheable, by its headers (Cache-Control, X-Accel-Expires, Expires) or
// else by fastcgi_cache_valid, the status is remembered in the index
// until then, and lookups meanwhile are a HIT with ErrorStatus, so the
// error page answers without asking the upstream
// (ngx_http_upstream_intercept_errors sets r->cache->error from
// valid_sec, nginx ticket #1382). A response that is not cacheable
// (no-cache, Set-Cookie, no valid time) is not remembered. Nothing is
// written to disk: an entry already stored stays and serves again once
// the error expires.
func (l *Lookup) Intercepted(status int, fields []Field) {
	if !l.store || l.finished {
		return
	}
	if f := l.Decide(status, fields); f.OK() {
		l.rememberError(status, f.ValidUntil)
	}
}

// rememberError keeps status in the lookup's node until the unix second
// until.
func (l *Lookup) rememberError(status int, until int64) {
	z := l.z
	z.mu.Lock()
	if n := l.n; n != nil && n.prev != nil {
		n.errStatus, n.errUntil = status, until
	}
	z.mu.Unlock()
}
