// This file holds FileMirror: bytes in memory that a file on disk holds
// too, so that an adapter that can send from the file (sendfile on a
// plain TCP connection) copies nothing, as nginx sends a file its
// open_file_cache keeps open. A 45 KB page kept in memory and written
// with send costs edge the kernel's copy of it into the socket, 29% of
// its CPU (docs/performance.md, "Where a keep-alive request's CPU goes").
package proxy

import (
	"os"
	"unsafe"
)

// MirrorMin is the smallest body sent from its mirror's file: below it a
// second system call costs more than the copy it saves.
const MirrorMin = 32 << 10

// FileMirror says that File holds Data at offset 0: a cached static
// file's content, or a cache entry's whole file. Neither changes while
// the mirror is handed out (a changed static file makes a new entry; a
// cache entry file is never rewritten but in its header). File belongs
// to whoever made the mirror, which may close it at any time (the entry
// replaced or evicted): a sender then finds it closed before it sent
// anything, and writes the bytes instead.
type FileMirror struct {
	File *os.File
	Data []byte
}

// Offset returns where b, which is to be sent, is in m's file: ok is
// false when b is not a part of m's Data (a filter made the body anew),
// or too short to be worth a sendfile.
func (m FileMirror) Offset(b []byte) (off int64, ok bool) {
	if m.File == nil || len(b) < MirrorMin || len(m.Data) < len(b) {
		return 0, false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m.Data)))
	if start < base || start-base > uintptr(len(m.Data)-len(b)) {
		return 0, false
	}
	return int64(start - base), true
}
