// This file holds the open-file cache every static response, try_files
// test and "if (-e ...)" goes through (nginx's open_file_cache, always on
// here): what a path is (file, directory, missing, forbidden), its size
// and time with the ETag and Last-Modified text prepared, and for small
// files the bytes themselves, so a hot small file costs no system call.
// Entries are checked against the disk again once they are older than the
// validity (open_file_cache_valid, 1 s by default in edge), which is the
// only way edge's answers can differ from nginx without a cache: a file
// changed less than that ago may be served in its previous state. A path
// that is missing or cannot be opened is looked at again on every use, as
// nginx's open_file_cache does by default (open_file_cache_errors off): a
// file created now (an upload, a page cache's HTML, a deploy) is served
// at once.
package proxy

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// memFileLimit is the largest file kept in memory; bigger files are sent
// from the disk (sendfile on plain TCP).
const memFileLimit = 256 << 10

// fileCacheMax bounds the number of entries.
const fileCacheMax = 20000

// fileCacheBytes bounds the bytes of file content kept in memory.
const fileCacheBytes = 256 << 20

// fileInfo is what a path is.
type fileInfo struct {
	exists bool
	isDir  bool
	mode   fs.FileMode
	err    error // errNotFound, errForbidden, or another error
	size   int64
	mtime  time.Time
}

var (
	errNotFound  = errors.New("proxy: not found")
	errForbidden = errors.New("proxy: forbidden")
	errNotDir    = errors.New("proxy: not a directory")
)

// fileEntry is one cached path.
type fileEntry struct {
	path    string
	info    fileInfo
	checked atomic.Int64 // unix nanoseconds of the last stat
	used    atomic.Int64 // unix seconds of the last use, for eviction

	etag         string // `"%x-%x"` of mtime and size, as nginx makes it
	lastModified string // HTTP date of mtime
	data         []byte // the content when small enough (nil otherwise)
	// mirror is data's file, kept open for a sendfile of it (mirror.go)
	// when data is at least MirrorMin bytes and keptFiles had room; it is
	// closed when the entry leaves the cache (release).
	mirror   *FileMirror
	released atomic.Bool

	gzMu sync.Mutex
	gz   map[int][]byte // compressed content by coding, level and window (compressed)
}

// fileCache maps paths to entries.
type fileCache struct {
	mu    sync.RWMutex
	m     map[string]*fileEntry
	bytes atomic.Int64
	valid time.Duration
	now   func() time.Time
}

func newFileCache(valid time.Duration, now func() time.Time) *fileCache {
	return &fileCache{m: map[string]*fileEntry{}, valid: valid, now: now}
}

// getAt returns a fresh entry for path at now, a request's start
// (Request.Start), as nginx judges open_file_cache_valid by the time it
// cached for its event loop's turn: a static request read the clock
// twice more for it (tryFiles, then static), 2.2% of edge's user time in
// static-0k. A zero now is the cache's clock.
func (c *fileCache) getAt(path string, now time.Time) *fileEntry {
	if now.IsZero() {
		now = c.now()
	}
	c.mu.RLock()
	e := c.m[path]
	c.mu.RUnlock()
	switch {
	case e == nil:
		e = c.load(path, nil, now)
	case e.info.err != nil:
		// An error is never served from the cache (nginx's
		// open_file_cache_errors off): the path is looked at again.
		fresh := c.load(path, e, now)
		if fresh == e {
			e.used.Store(now.Unix())
			return e
		}
		e = fresh
	default:
		checked := e.checked.Load()
		if now.UnixNano()-checked < int64(c.valid) {
			e.used.Store(now.Unix())
			return e
		}
		// Only one request re-checks a stale entry; the others keep using
		// it meanwhile.
		if !e.checked.CompareAndSwap(checked, now.UnixNano()) {
			return e
		}
		fresh := c.load(path, e, now)
		if fresh == e {
			return e
		}
		e = fresh
	}
	e.used.Store(now.Unix())
	c.mu.Lock()
	old := c.m[path]
	if old == e {
		old = nil
	} else if old != nil {
		c.bytes.Add(-int64(len(old.data)))
	}
	var dropped []*fileEntry
	if len(c.m) >= fileCacheMax || c.bytes.Load() > fileCacheBytes {
		dropped = c.evictLocked(now)
	}
	c.m[path] = e
	c.bytes.Add(int64(len(e.data)))
	c.mu.Unlock()
	// The entries that left close their kept files outside the lock,
	// which every lookup takes: a close is a system call.
	if old != nil {
		old.release()
	}
	for _, d := range dropped {
		d.release()
	}
	return e
}

// statAt is getAt for callers that only need what the path is.
func (c *fileCache) statAt(path string, now time.Time) fileInfo {
	return c.getAt(path, now).info
}

// load reads a path's state at now; it returns old when nothing changed.
func (c *fileCache) load(path string, old *fileEntry, now time.Time) *fileEntry {
	// A missing path is looked at on every use: syscall.Stat into a
	// stack value costs it no FileInfo and no PathError (2.0 -> 1.6 µs,
	// 4 -> 2 allocations, BenchmarkFileCacheMissing).
	var sys syscall.Stat_t
	err := syscall.Stat(path, &sys)
	var st fs.FileInfo
	if err == nil {
		st, err = os.Stat(path)
	}
	if err != nil {
		cls := classify(err)
		if old != nil && old.info.err == cls {
			return old
		}
		e := &fileEntry{path: path}
		e.checked.Store(now.UnixNano())
		e.info.err = cls
		return e
	}
	e := &fileEntry{path: path}
	e.checked.Store(now.UnixNano())
	e.info = fileInfo{exists: true, isDir: st.IsDir(), mode: st.Mode(), size: st.Size(), mtime: st.ModTime()}
	if old != nil && old.info.exists && old.info.size == e.info.size && old.info.mtime.Equal(e.info.mtime) && old.info.isDir == e.info.isDir {
		return old
	}
	if e.info.isDir {
		return e
	}
	e.etag = makeETag(e.info.mtime, e.info.size)
	e.lastModified = e.info.mtime.UTC().Format(httpTimeFormat)
	if e.info.size <= memFileLimit && st.Mode().IsRegular() {
		data, kept, err := readFull(path, e.info.size)
		switch {
		case err != nil:
			e.info.err = classify(err)
			e.info.exists = err != errNotFound
		default:
			e.data = data
			if kept != nil {
				e.mirror = &FileMirror{File: kept, Data: data}
			}
		}
	}
	return e
}

// readFull reads a small file; a file that changed size meanwhile is read
// again on the next check. A file of MirrorMin bytes or more stays open
// (kept) while keptFiles has room.
func readFull(path string, size int64) (data []byte, kept *os.File, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	data = make([]byte, size)
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		f.Close()
		return nil, nil, err
	}
	if n >= MirrorMin && n == len(data) && keepFile() {
		return data, f, nil
	}
	f.Close()
	return data[:n], nil, nil
}

// keptFiles counts the files the file cache keeps open for mirrors, of
// at most keptFilesMax: a quarter of the process's descriptors, and no
// more than 1000 (nginx's open_file_cache keeps as many as its max=).
var keptFiles atomic.Int64

var keptFilesMax = func() int64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return min(int64(lim.Cur/4), 1000)
}()

// keepFile takes a place in keptFiles; false when there is none.
func keepFile() bool {
	if keptFiles.Add(1) > keptFilesMax {
		keptFiles.Add(-1)
		return false
	}
	return true
}

// release closes the entry's kept file once it has left the cache; a
// response sending from it meanwhile finds it closed and writes the
// bytes instead (mirror.go).
func (e *fileEntry) release() {
	if e.mirror != nil && e.released.CompareAndSwap(false, true) {
		e.mirror.File.Close()
		keptFiles.Add(-1)
	}
}

// evictLocked drops entries not used in the last minute, or every entry
// when that frees nothing (a crude bound; the cache refills itself), and
// returns them for their kept files to be closed once c.mu is let go.
func (c *fileCache) evictLocked(now time.Time) (dropped []*fileEntry) {
	limit := now.Unix() - 60
	for k, e := range c.m {
		if e.used.Load() < limit {
			delete(c.m, k)
			c.bytes.Add(-int64(len(e.data)))
			dropped = append(dropped, e)
		}
	}
	if len(c.m) >= fileCacheMax || c.bytes.Load() > fileCacheBytes {
		for _, e := range c.m {
			dropped = append(dropped, e)
		}
		c.m = map[string]*fileEntry{}
		c.bytes.Store(0)
	}
	return dropped
}

// classify maps an open/stat error to what nginx answers.
func classify(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOENT, syscall.ENAMETOOLONG:
			return errNotFound
		case syscall.ENOTDIR:
			return errNotDir
		case syscall.EACCES, syscall.EPERM:
			return errForbidden
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errNotFound
	case errors.Is(err, fs.ErrPermission):
		return errForbidden
	}
	return err
}

// makeETag builds nginx's ETag: hex mtime seconds, "-", hex size.
func makeETag(mtime time.Time, size int64) string {
	b := make([]byte, 0, 24)
	b = append(b, '"')
	b = strconv.AppendInt(b, mtime.Unix(), 16)
	b = append(b, '-')
	b = strconv.AppendInt(b, size, 16)
	b = append(b, '"')
	return string(b)
}

// httpTimeFormat is the IMF-fixdate of RFC 9110 5.6.7.
const httpTimeFormat = "Mon, 02 Jan 2006 15:04:05 GMT"
