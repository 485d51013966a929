// This file holds a cache zone (one fastcgi_cache_path or proxy_cache_path):
// its configuration, the keys zone (the in-memory index of entries with
// its LRU list), the loader that rebuilds the index from disk when the zone
// opens, and the manager that removes inactive entries and keeps the disk
// under max_size and above min_free, least recently used first.
package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ZoneConfig is one fastcgi_cache_path line. The zero values of the
// optional fields are nginx's defaults where noted.
type ZoneConfig struct {
	// Path is the cache directory; it is created when missing.
	Path string
	// Levels is levels= (ParseLevels); nil keeps all files in Path.
	Levels []int
	// Name and KeysZoneSize are keys_zone=name:size, size in bytes. The
	// index holds KeysPerMiB keys per MiB of it; nginx refuses a zone
	// smaller than two pages (8 KiB), and so does Open.
	Name         string
	KeysZoneSize int64
	// Inactive removes entries not used for this long, fresh or not.
	// Zero is nginx's 10 minutes.
	Inactive time.Duration
	// MaxSize and MinFree bound the disk in bytes: the manager removes
	// entries while the zone holds more than MaxSize or the file system
	// has less than MinFree free. Zero means no bound.
	MaxSize, MinFree int64
	// UseTempPath and TempPath: when both are set, entries are written in
	// TempPath and moved into place (copied when it is another file
	// system); otherwise they are written in Path itself, as
	// use_temp_path=off does. Either way a name under Path only ever
	// holds a complete entry.
	UseTempPath bool
	TempPath    string
	// MemoryBytes and MemoryEntries bound the entry files the zone keeps
	// in memory for HITs (memory.go), each at most MemoryEntryLimit and
	// each with its file open: their bytes and their number. Zero is
	// DefaultMemoryBytes or DefaultMemoryEntries; a negative value keeps
	// none (every HIT opens its file). edge's own: nginx has no such
	// setting (its open_file_cache keeps descriptors, not bodies).
	MemoryBytes   int64
	MemoryEntries int
}

// KeysPerMiB is how many keys a MiB of keys_zone holds. nginx documents
// "about 8 thousand keys" per megabyte (one node is ~128 bytes of slab);
// edge's nodes are bigger in Go's heap (they also keep the key text, for
// purge by prefix) but the zone's size keeps meaning what it means in
// nginx: the number of keys it bounds.
const KeysPerMiB = 8000

// Options are what a zone needs from its environment; every field may be
// zero.
type Options struct {
	// Now is the clock for every time decision (default time.Now).
	Now func() time.Time
	// Logf reports the zone's errors, which nginx logs at [crit] (a full
	// or read-only disk, an unreadable entry). A failure that repeats is
	// reported once, until the zone has written an entry again. nil
	// discards them.
	Logf func(format string, args ...any)
	// Statfs returns the free bytes of the file system holding path
	// (default: statfs(2)); min_free uses it.
	Statfs func(path string) (int64, error)
	// ManagerInterval is how often the manager goroutine sweeps (default
	// 1 s); negative runs no goroutine, and the caller calls Sweep.
	ManagerInterval time.Duration
}

// Zone is one cache: a directory of entries and their index. Its methods
// are safe for concurrent use. cfg's Path and Levels never change; its
// other fields are read under mu (Reconfigure). The same *Zone should be kept across
// reloads while its ZoneConfig is unchanged (as nginx keeps a keys zone's
// shared memory); a new Zone on the same Path also works, by loading the
// index from disk.
type Zone struct {
	// root, levels and name are the config's path, levels and zone name,
	// which a reload cannot change (Reconfigure): read without the lock,
	// by the loader and the writers. cfg, the rest, is under mu.
	root   string
	levels []int
	name   string

	cfg      ZoneConfig
	now      func() time.Time
	logf     func(string, ...any)
	statfs   func(string) (int64, error)
	capacity int
	bsize    int64

	mu    sync.Mutex
	nodes map[Hash]*node
	lru   node // sentinel: lru.next is the most recently used
	size  int64

	// mem is the sentinel of the list of nodes whose file is in memory
	// (memory.go), mem.mnext the most recently used; memBytes and
	// memEntries their bytes and number.
	mem        node
	memBytes   int64
	memEntries int
	closed     bool // Close ran: nothing more is kept in memory

	cold      atomic.Bool // the loader has not finished
	loaded    chan struct{}
	failing   atomic.Bool  // an error was reported and nothing was written since
	waiting   atomic.Int32 // lookups waiting for a lock
	stop      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// node is one key in the index: a stored entry, or only a use count
// (min_uses) or a fill in progress.
type node struct {
	hash       Hash
	key        string
	uses       int
	exists     bool
	validUntil int64
	expire     int64 // Unix second after which the manager removes it (inactive)
	size       int64 // bytes on disk, in file system blocks
	meta       *Meta // header of the current file, nil until read
	busy       int   // lookups holding it; never evicted while > 0

	// errStatus is a 502 or 504 edge answered itself, kept until errUntil
	// when fastcgi_cache_valid names it (nginx's fcn->error).
	errStatus int
	errUntil  int64

	// updating: one request is filling or refreshing the entry. owner is
	// that request, lockUntil when another may take over (lock_age), and
	// done is closed when it ends.
	updating  bool
	owner     *Lookup
	lockUntil time.Time
	done      chan struct{}

	prev, next *node

	// data is the whole file when the zone keeps it in memory, file the
	// file open, on the memory list by mprev and mnext (memory.go).
	data         []byte
	file         *os.File
	fd           int // file's descriptor number (memoryEntry)
	mprev, mnext *node
}

// Open opens (creating its directory) the zone and starts the loader and,
// unless Options.ManagerInterval is negative, the manager.
func Open(cfg ZoneConfig, opt Options) (*Zone, error) {
	if cfg.Path == "" {
		return nil, errors.New("cache: no path")
	}
	if cfg.KeysZoneSize < 8192 {
		return nil, fmt.Errorf("cache: keys zone \"%s\" is too small", cfg.Name)
	}
	if len(cfg.Levels) > 3 {
		return nil, errors.New("cache: more than 3 levels")
	}
	if cfg.Inactive == 0 {
		cfg.Inactive = 10 * time.Minute
	}
	z := &Zone{
		root:     cfg.Path,
		levels:   slices.Clone(cfg.Levels),
		name:     cfg.Name,
		cfg:      cfg,
		now:      opt.Now,
		logf:     opt.Logf,
		statfs:   opt.Statfs,
		capacity: keysFor(cfg.KeysZoneSize),
		bsize:    4096,
		nodes:    make(map[Hash]*node),
		loaded:   make(chan struct{}),
		stop:     make(chan struct{}),
	}
	if z.now == nil {
		z.now = time.Now
	}
	if z.logf == nil {
		z.logf = func(string, ...any) {}
	}
	if z.statfs == nil {
		z.statfs = statfsFree
	}
	z.lru.next, z.lru.prev = &z.lru, &z.lru
	z.mem.mnext, z.mem.mprev = &z.mem, &z.mem
	if err := os.MkdirAll(cfg.Path, 0o700); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	var st syscall.Statfs_t
	if syscall.Statfs(cfg.Path, &st) == nil && st.Bsize > 0 {
		z.bsize = st.Bsize
	}
	z.cold.Store(true)
	z.wg.Add(1)
	go func() {
		defer z.wg.Done()
		z.load()
	}()
	interval := opt.ManagerInterval
	if interval == 0 {
		interval = time.Second
	}
	if interval > 0 {
		z.wg.Add(1)
		go z.manage(interval)
	}
	return z, nil
}

// Close stops the manager, waits for the loader and closes the files of
// the entries kept in memory. Entries stay on disk for the next Open; a
// lookup after Close still works, from the disk.
func (z *Zone) Close() error {
	z.closeOnce.Do(func() { close(z.stop) })
	z.wg.Wait()
	z.mu.Lock()
	z.closed = true
	z.dropAllData()
	z.mu.Unlock()
	return nil
}

// Config returns the zone's configuration, defaults filled.
func (z *Zone) Config() ZoneConfig {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.cfg
}

// Reconfigure applies a reload's fastcgi_cache_path to the running zone,
// as nginx keeps a keys zone across reloads. Path and Levels cannot
// change (nginx refuses both: "cache ... uses the ... cache path while
// previously it used ...", "cache ... had previously different levels");
// the keys zone size, inactive, max_size, min_free and the temp path take
// effect at once (a smaller keys zone evicts at the next new key).
func (z *Zone) Reconfigure(cfg ZoneConfig) error {
	if cfg.Path != z.root {
		return fmt.Errorf("cache: zone \"%s\" uses the \"%s\" cache path while previously it used the \"%s\" cache path", cfg.Name, cfg.Path, z.root)
	}
	if !slices.Equal(cfg.Levels, z.levels) {
		return fmt.Errorf("cache: zone \"%s\" had previously different levels", cfg.Name)
	}
	if cfg.KeysZoneSize < 8192 {
		return fmt.Errorf("cache: keys zone \"%s\" is too small", cfg.Name)
	}
	if cfg.Inactive == 0 {
		cfg.Inactive = 10 * time.Minute
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	z.cfg = cfg
	z.capacity = keysFor(cfg.KeysZoneSize)
	z.trimMemory()
	return nil
}

// keysFor is the number of keys a keys zone of size bytes holds.
func keysFor(size int64) int {
	return max(1, int(size*KeysPerMiB>>20))
}

// tempDir is where entries are written before they are renamed.
func (z *Zone) tempDir() string {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.cfg.UseTempPath && z.cfg.TempPath != "" {
		return z.cfg.TempPath
	}
	return z.root
}

// Loaded is closed once the loader has indexed every entry on disk.
func (z *Zone) Loaded() <-chan struct{} { return z.loaded }

// Len is the number of keys in the index; Size the bytes on disk the
// index accounts for.
func (z *Zone) Len() int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return len(z.nodes)
}

// Waiting is the number of lookups waiting for another request to fill
// their key (fastcgi_cache_lock).
func (z *Zone) Waiting() int { return int(z.waiting.Load()) }

func (z *Zone) Size() int64 {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.size
}

func (z *Zone) path(h Hash) string { return filePath(z.root, z.levels, h) }

// report logs a failure once until the zone writes successfully again.
func (z *Zone) report(format string, args ...any) {
	if z.failing.CompareAndSwap(false, true) {
		z.logf(format, args...)
	}
}

// touch finds or creates the node for h, moves it to the front of the
// LRU list and extends its inactive time (ngx_http_file_cache_exists).
// It returns nil when the index is full of nodes in use. z.mu is held.
func (z *Zone) touch(h Hash, now time.Time) *node {
	n := z.nodes[h]
	if n == nil {
		if len(z.nodes) >= z.capacity {
			z.forcedExpire()
		}
		if len(z.nodes) >= z.capacity {
			z.report("could not allocate node in cache keys zone \"%s\"", z.name)
			return nil
		}
		n = &node{hash: h}
		z.nodes[h] = n
	} else {
		n.prev.next, n.next.prev = n.next, n.prev
	}
	n.next, n.prev = z.lru.next, &z.lru
	z.lru.next.prev = n
	z.lru.next = n
	n.expire = now.Add(z.cfg.Inactive).Unix()
	return n
}

// forcedExpire is ngx_http_file_cache_forced_expire: when the keys zone
// is full, drop the least recently used entries not in use (up to 20).
// z.mu is held.
func (z *Zone) forcedExpire() {
	tries := 20
	for n := z.lru.prev; n != &z.lru && tries > 0; tries-- {
		prev := n.prev
		if n.busy == 0 && !n.updating {
			z.remove(n)
			return
		}
		n = prev
	}
}

// remove drops n from the index and its file from the disk. z.mu is held.
func (z *Zone) remove(n *node) {
	n.prev.next, n.next.prev = n.next, n.prev
	n.prev, n.next = nil, nil
	delete(z.nodes, n.hash)
	z.dropData(n)
	if n.exists {
		z.size -= n.size
		if err := os.Remove(z.path(n.hash)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			z.report("unlink() \"%s\" failed (%v)", z.path(n.hash), err)
		}
	}
	n.exists = false
}

// blocks rounds a file length up to the file system's blocks.
func (z *Zone) blocks(n int64) int64 { return (n + z.bsize - 1) / z.bsize * z.bsize }

// load walks the zone's directory and indexes every entry (nginx's cache
// loader). While it runs the zone is "cold": a lookup whose key is not
// indexed yet looks on disk. Files that are not entries are removed, and
// so are temporary files left by a process that stopped while writing.
func (z *Zone) load() {
	defer func() {
		z.cold.Store(false)
		close(z.loaded)
	}()
	start := z.now()
	_ = filepath.WalkDir(z.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == z.root {
				z.report("cache loader: %v", err)
			}
			return nil
		}
		select {
		case <-z.stop:
			return filepath.SkipAll
		default:
		}
		if d.IsDir() {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, tempPrefix) {
			if info, err := d.Info(); err == nil && info.ModTime().Before(start.Add(-10*time.Minute)) {
				os.Remove(p)
			}
			return nil
		}
		h, ok := isEntryName(name)
		if !ok || p != z.path(h) {
			return nil
		}
		z.loadFile(h, p)
		return nil
	})
}

func (z *Zone) loadFile(h Hash, p string) {
	f, err := os.Open(p)
	if err != nil {
		return
	}
	defer f.Close()
	dev, ino, size, err := fileID(f)
	if err != nil {
		return
	}
	m, err := readMeta(f, size)
	if err != nil {
		os.Remove(p)
		return
	}
	m.dev, m.ino = dev, ino
	z.mu.Lock()
	defer z.mu.Unlock()
	n := z.nodes[h]
	if n != nil && n.exists {
		return
	}
	if n = z.touch(h, z.now()); n == nil {
		return
	}
	z.setEntry(n, m)
	if n.uses == 0 {
		n.uses = 1
	}
}

// setEntry records that n's file now holds m. z.mu is held.
func (z *Zone) setEntry(n *node, m *Meta) {
	z.dropData(n) // the bytes of the previous file
	if n.exists {
		z.size -= n.size
	}
	n.exists = true
	n.key = m.Key
	n.meta = m
	n.validUntil = m.ValidUntil
	n.size = z.blocks(m.size)
	z.size += n.size
}

// fileID is what tells an entry file from another: its device and inode,
// and its length.
func fileID(f *os.File) (dev, ino uint64, size int64, err error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return 0, 0, 0, err
	}
	return uint64(st.Dev), st.Ino, st.Size, nil
}

func statfsFree(path string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * st.Bsize, nil
}

func (z *Zone) manage(interval time.Duration) {
	defer z.wg.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-z.stop:
			return
		case <-t.C:
			z.Sweep()
		}
	}
}

// Sweep is one pass of the cache manager (ngx_http_file_cache_manager):
// entries unused for longer than inactive go first, fresh or not; then
// the least recently used ones while the zone is over max_size or the
// file system under min_free. Entries in use are kept.
func (z *Zone) Sweep() {
	now := z.now().Unix()
	var free int64
	var freeErr error
	if z.Config().MinFree > 0 {
		free, freeErr = z.statfs(z.root) // outside the lock: a system call
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	for n := z.lru.prev; n != &z.lru; {
		prev := n.prev
		if n.expire >= now {
			break // the list is in order of last use, so of expire
		}
		if n.busy == 0 && !n.updating {
			z.remove(n)
		}
		n = prev
	}
	if z.cfg.MaxSize > 0 {
		z.evictWhile(func() bool { return z.size > z.cfg.MaxSize }, nil)
	}
	if z.cfg.MinFree > 0 {
		if freeErr != nil {
			z.report("statfs(\"%s\") failed (%v)", z.root, freeErr)
			return
		}
		z.evictWhile(func() bool { return free < z.cfg.MinFree }, func(freed int64) { free += freed })
	}
}

// evictWhile removes least recently used entries while over() holds;
// freed, when not nil, is told the bytes each removal released. z.mu is
// held.
func (z *Zone) evictWhile(over func() bool, freed func(int64)) {
	for n := z.lru.prev; n != &z.lru && over(); {
		prev := n.prev
		if n.busy == 0 && !n.updating && n.exists {
			sz := n.size
			z.remove(n)
			if freed != nil {
				freed(sz)
			}
		}
		n = prev
	}
}
