// This file holds the entries a zone keeps in memory, so that a HIT on a
// small page costs no open, read or close (issue 16: edge's HIT must cost
// no more than nginx's, whose open_file_cache spares it the open). An
// entry file of up to MemoryEntryLimit bytes is kept whole, header and
// every variant, from its store (Writer.Commit) or its first HIT after a
// restart, with its file kept open, within the zone's MemoryBytes and
// MemoryEntries, least recently used dropped first.
//
// The bytes belong to one file: setEntry (a new response stored, or a
// file on disk found to differ), remove (purge, eviction, inactive) and a
// vanished file drop them and close the file, so a purged or replaced
// entry is never served from memory. Each HIT still fstats the open file,
// as the open it replaces did: a file removed or rewritten behind the
// zone's back (no link left, another size) is looked up on disk again, so
// a removed cache directory is a MISS at once, as nginx without
// open_file_cache sees it. A request sending the old bytes when the entry
// is replaced keeps its slice, as nginx keeps its open file.
package cache

import (
	"os"
	"syscall"
)

// MemoryEntryLimit is the largest entry file a zone keeps in memory, the
// size up to which proxy's file cache keeps static files (256 KiB).
const MemoryEntryLimit = 256 << 10

// DefaultMemoryBytes and DefaultMemoryEntries are ZoneConfig's defaults:
// 64 MiB and 1000 entries (each with an open descriptor), about 1000 of
// issue 16's 45 KB pages with their gzip variants.
const (
	DefaultMemoryBytes   = 64 << 20
	DefaultMemoryEntries = 1000
)

// memoryLimits are the zone's bounds, from its config. z.mu is held.
func (z *Zone) memoryLimits() (bytes int64, entries int) {
	bytes, entries = z.cfg.MemoryBytes, z.cfg.MemoryEntries
	if bytes == 0 {
		bytes = DefaultMemoryBytes
	}
	if entries == 0 {
		entries = DefaultMemoryEntries
	}
	if bytes < 0 || entries < 0 {
		return 0, 0
	}
	return bytes, entries
}

// keepsInMemory reports whether an entry file of size bytes may be kept.
// z.mu is held.
func (z *Zone) keepsInMemory(size int64) bool {
	bytes, entries := z.memoryLimits()
	return !z.closed && size <= MemoryEntryLimit && size <= bytes && entries > 0
}

// keepData puts n's file bytes in memory, with f, the open file they were
// read from (or written to), in front of the memory list, and drops the
// least recently used others while the zone is over its bounds. data
// must be the whole of n.meta's file. When n cannot keep them, f is
// closed. z.mu is held.
func (z *Zone) keepData(n *node, data []byte, f *os.File) {
	if z.closed || n.prev == nil || !n.exists || n.meta == nil || int64(len(data)) != n.meta.size || !z.keepsInMemory(int64(len(data))) {
		f.Close()
		return
	}
	z.dropData(n)
	n.data, n.file, n.fd = data, f, int(f.Fd())
	n.mnext, n.mprev = z.mem.mnext, &z.mem
	z.mem.mnext.mprev = n
	z.mem.mnext = n
	z.memBytes += int64(len(data))
	z.memEntries++
	z.trimMemory()
}

// trimMemory drops entries from the back of the memory list until the
// zone is within its bounds. z.mu is held.
func (z *Zone) trimMemory() {
	bytes, entries := z.memoryLimits()
	for (z.memBytes > bytes || z.memEntries > entries) && z.mem.mprev != &z.mem {
		z.dropData(z.mem.mprev)
	}
}

// useData moves n to the front of the memory list. z.mu is held.
func (z *Zone) useData(n *node) {
	if n.data == nil || z.mem.mnext == n {
		return
	}
	n.mprev.mnext, n.mnext.mprev = n.mnext, n.mprev
	n.mnext, n.mprev = z.mem.mnext, &z.mem
	z.mem.mnext.mprev = n
	z.mem.mnext = n
}

// dropData forgets n's bytes and closes its file. A HIT checking the
// file at the same time gets os.ErrClosed (the os.File's own reference
// count keeps the descriptor until its fstat returns) and opens the
// entry instead. z.mu is held.
func (z *Zone) dropData(n *node) {
	if n.data == nil {
		return
	}
	n.mprev.mnext, n.mnext.mprev = n.mnext, n.mprev
	n.mprev, n.mnext = nil, nil
	z.memBytes -= int64(len(n.data))
	z.memEntries--
	n.file.Close()
	n.data, n.file, n.fd = nil, nil, -1
}

// dropAllData empties the memory list (Close). z.mu is held.
func (z *Zone) dropAllData() {
	for z.mem.mnext != &z.mem {
		z.dropData(z.mem.mnext)
	}
}

// Memory is the bytes of entry files the zone holds in memory, and how
// many entries (each with an open file) they are.
func (z *Zone) Memory() (bytes int64, entries int) {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.memBytes, z.memEntries
}

// memoryEntry is the HIT from memory: fd, the file data was read from, is
// still linked with the device, inode and size of m's, checked with one
// fstat, and the Entry sends data. ok is false when it is not (removed,
// replaced or rewritten): the caller looks the entry up on disk.
//
// fd is the descriptor number, used outside z.mu without the os.File's
// reference count (whose Stat allocates on every HIT): if an eviction
// closed it meanwhile, fstat fails, or it names another file, whose
// device and inode differ, or it was reopened on this very file, whose
// bytes data still are (an entry file never changes after its rename
// but for the validity Revalidated rewrites in place, which m holds).
func memoryEntry(m *Meta, data []byte, fd int, kept *os.File) (e *Entry, ok bool) {
	var st syscall.Stat_t
	for {
		err := syscall.Fstat(fd, &st)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return nil, false
		}
	}
	if st.Nlink == 0 || uint64(st.Dev) != m.dev || st.Ino != m.ino || st.Size != m.size || int64(len(data)) != m.size {
		return nil, false
	}
	return &Entry{Meta: m, Data: data, Kept: kept}, true
}

// readIn reads an opened entry's whole file into memory when the zone
// keeps files of its size: e then holds Data, and the file, no longer
// e's, is returned for the index to keep. On a read error e stays on its
// file and readIn returns nil.
func (z *Zone) readIn(e *Entry) *os.File {
	z.mu.Lock()
	keep := z.keepsInMemory(e.size)
	z.mu.Unlock()
	if !keep || e.File == nil {
		return nil
	}
	data := make([]byte, e.size)
	if n, err := e.File.ReadAt(data, 0); err != nil || int64(n) != e.size {
		return nil
	}
	f := e.File
	e.File, e.Data = nil, data
	return f
}
