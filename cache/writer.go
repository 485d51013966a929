// This file holds storing a response: a temporary file written while the
// body streams to the client, with the gzip and brotli variants
// compressed alongside it, then renamed into place so a reader sees either the old entry or the
// whole new one, never half of one.
package cache

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"edge/internal/gzfixed"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

// tempPrefix names temporary files; the loader never takes them for
// entries.
const tempPrefix = ".edge-tmp-"

// StoreOptions say how a response is stored.
type StoreOptions struct {
	// GzipLevel, when not 0, stores a gzip variant compressed at this
	// level beside the identity body (a response that already has a
	// Content-Encoding gets none). The caller sets it when its gzip
	// settings apply to the response (gzip on, gzip_types, min length).
	GzipLevel int
	// Brotli, when not nil, stores a br variant too, on the same terms.
	Brotli *BrotliOptions
}

// BrotliOptions are the encoder's settings for a stored br variant.
type BrotliOptions struct {
	Level  int // quality, 0..11
	Window int // log2 of the window, 10..24
}

// Writer writes one entry. Write never fails for the caller (the client's
// response must not depend on the cache): a write error is kept, and
// Commit reports it and stores nothing. Every Writer ends with Commit (the
// body is complete) or Abort (it is not), before the Lookup's Done.
type Writer struct {
	l        *Lookup
	target   Hash
	meta     *Meta
	head     string
	f        *os.File
	n        int64
	gz       *gzip.Writer
	gzBuf    bytes.Buffer
	br       *brotli.Writer
	brBuf    bytes.Buffer
	gzLevel  int
	brLevel  int
	brWindow int
	// mem is the entry file's bytes as they will be kept in memory
	// (memory.go): room for the header, then the identity body as
	// written, so that Commit adds the header and the compressed variants
	// without copying the body again. keep turns false (and mem nil) when
	// the body outgrows MemoryEntryLimit.
	mem []byte
	hl  int
	// tiny is the body while it is at most gzfixed.Max bytes.
	tiny   []byte
	keep   bool
	err    error
	closed bool
}

// The compressors a Writer uses, kept between entries: a gzip writer's
// state is some 800 KB, a brotli one's more, against a 45 KB page
// (BenchmarkStore). By level, and for brotli by window.
var (
	gzipWriters   [10]sync.Pool
	brotliWriters [12][25]sync.Pool
)

func gzipWriter(w io.Writer, level int) *gzip.Writer {
	if level >= 0 && level < len(gzipWriters) {
		if zw, _ := gzipWriters[level].Get().(*gzip.Writer); zw != nil {
			zw.Reset(w)
			return zw
		}
	}
	zw, err := gzip.NewWriterLevel(w, level)
	if err != nil {
		return nil
	}
	return zw
}

func brotliWriter(w io.Writer, level, window int) *brotli.Writer {
	if level >= 0 && level < len(brotliWriters) && window >= 0 && window < len(brotliWriters[0]) {
		if zw, _ := brotliWriters[level][window].Get().(*brotli.Writer); zw != nil {
			zw.Reset(w)
			return zw
		}
	}
	return brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: level, LGWin: window})
}

// releaseGzip and releaseBrotli give the writer's compressor back to its
// pool (Reset at the next use discards whatever state it has) and drop
// its variant.
func (w *Writer) releaseGzip() {
	if w.gz != nil && w.gzLevel >= 0 && w.gzLevel < len(gzipWriters) {
		gzipWriters[w.gzLevel].Put(w.gz)
	}
	w.gz = nil
}

func (w *Writer) releaseBrotli() {
	if w.br != nil && w.brLevel >= 0 && w.brLevel < len(brotliWriters) && w.brWindow >= 0 && w.brWindow < len(brotliWriters[0]) {
		brotliWriters[w.brLevel][w.brWindow].Put(w.br)
	}
	w.br = nil
}

func (w *Writer) releaseCompressors() {
	w.releaseGzip()
	w.releaseBrotli()
}

// Store starts storing the upstream's response: status and fields are the
// head as it will be replayed to every client (hidden headers removed by
// the caller; a Set-Cookie the config ignores stays, as nginx replays it),
// fr is Decide's verdict. It returns nil when the response must not be
// stored: not cacheable, not yet min_uses, a lock timeout, or a disk that
// fails (reported once through Options.Logf).
func (l *Lookup) Store(status int, fields []Field, fr Freshness, o StoreOptions) *Writer {
	if !l.store || !fr.OK() || l.finished {
		return nil
	}
	z := l.z
	// The Meta outlives the request (the index keeps it for later HITs),
	// so it holds copies, never the caller's strings, which an engine may
	// reuse once the request is over.
	head := encodeHead(fields)
	fields = decodeHead(head)
	m := &Meta{
		Key:                  strings.Clone(l.req.Key),
		Status:               status,
		Header:               fields,
		ValidUntil:           fr.ValidUntil,
		Date:                 z.now().Unix(),
		StaleWhileRevalidate: fr.StaleWhileRevalidate,
		StaleIfError:         fr.StaleIfError,
		ETag:                 FieldValue(fields, "ETag"),
		LastModified:         FieldValue(fields, "Last-Modified"),
		Vary:                 strings.Clone(fr.Vary),
	}
	encoded := FieldValue(fields, "Content-Encoding") != ""
	target := l.primary
	if m.Vary != "" {
		m.AEFolded = (o.GzipLevel != 0 || o.Brotli != nil) && !encoded && hasName(splitList(m.Vary), "Accept-Encoding")
		m.Variant = variantHash(l.primary, m.Vary, l.req.Header, m.AEFolded)
		if l.other != nil && l.other.Variant != m.Variant {
			target = m.Variant
		}
	}
	dir := z.tempDir()
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if errors.Is(err, fs.ErrNotExist) {
		// The directory was removed while serving: make it again, as
		// ngx_create_temp_file does, so caching resumes.
		if err = os.MkdirAll(dir, 0o700); err == nil {
			f, err = os.CreateTemp(dir, tempPrefix+"*")
		}
	}
	if err != nil {
		z.report("open() \"%s\" failed (%v)", dir, err)
		return nil
	}
	w := &Writer{l: l, target: target, meta: m, head: head, f: f, hl: int(headerLen(m, head))}
	z.mu.Lock()
	w.keep = z.keepsInMemory(int64(w.hl))
	z.mu.Unlock()
	if _, err := f.Seek(int64(w.hl), io.SeekStart); err != nil {
		w.err = err
	}
	if o.GzipLevel != 0 && !encoded {
		w.gz, w.gzLevel = gzipWriter(&w.gzBuf, o.GzipLevel), o.GzipLevel
	}
	if o.Brotli != nil && !encoded {
		w.br, w.brLevel, w.brWindow = brotliWriter(&w.brBuf, o.Brotli.Level, o.Brotli.Window), o.Brotli.Level, o.Brotli.Window
	}
	return w
}

func hasName(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// maxGzipBuffer bounds each compressed variant, which is kept in memory
// until Commit: a larger response is stored without it (its gzip or br
// clients are then served by the caller's own compression).
const maxGzipBuffer = 8 << 20

// Write appends body bytes. It always reports len(p), nil.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err == nil && !w.closed {
		if w.n+int64(len(p)) <= gzfixed.Max {
			w.tiny = append(w.tiny, p...)
		}
		var n int
		n, w.err = w.f.Write(p)
		w.n += int64(n)
		if w.keep {
			switch {
			case w.n > MemoryEntryLimit:
				w.keep, w.mem = false, nil
			case w.mem == nil:
				// The first piece is often the whole body (a buffered
				// response): room for it, the header, and as much again
				// by half for the compressed variants, which HTML takes
				// to a fifth to a third.
				size := w.hl + len(p)
				if w.gz != nil || w.br != nil {
					size += len(p) / 2
				}
				w.mem = append(make([]byte, w.hl, size), p...)
			default:
				w.mem = append(w.mem, p...)
			}
		}
		if w.gz != nil && w.err == nil {
			_, w.err = w.gz.Write(p)
			if w.gzBuf.Len() > maxGzipBuffer {
				w.releaseGzip()
				w.gzBuf = bytes.Buffer{}
			}
		}
		if w.br != nil && w.err == nil {
			_, w.err = w.br.Write(p)
			if w.brBuf.Len() > maxGzipBuffer {
				w.releaseBrotli()
				w.brBuf = bytes.Buffer{}
			}
		}
	}
	return len(p), nil
}

// Commit completes the entry and puts it in place; the next lookup of the
// key finds it. An error has already been reported through Options.Logf.
func (w *Writer) Commit() error {
	if w.closed {
		return errors.New("cache: entry already closed")
	}
	w.closed = true
	z, m := w.l.z, w.meta
	tmp := w.f.Name()
	err := w.err
	hl := headerLen(m, w.head)
	m.Identity = Section{hl, w.n}
	if err == nil && w.gz != nil {
		if err = w.gz.Close(); err == nil {
			if w.n <= gzfixed.Max {
				// A body of a few bytes, as zlib compresses one without
				// repeats.
				small, _ := gzfixed.Append(nil, w.tiny, w.gzLevel)
				w.gzBuf.Reset()
				w.gzBuf.Write(small)
			}
			m.Gzip = Section{hl + w.n, int64(w.gzBuf.Len())}
			_, err = w.f.Write(w.gzBuf.Bytes())
		}
	}
	if err == nil && w.br != nil {
		if err = w.br.Close(); err == nil {
			m.Brotli = Section{hl + w.n + m.Gzip.Len, int64(w.brBuf.Len())}
			_, err = w.f.Write(w.brBuf.Bytes())
		}
	}
	w.releaseCompressors()
	var hdr []byte
	if err == nil {
		hdr = encodeHeader(m, w.head)
		_, err = w.f.WriteAt(hdr, 0)
	}
	if err == nil {
		m.dev, m.ino, m.size, err = fileID(w.f)
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	final := z.path(w.target)
	if err == nil {
		err = z.place(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
		z.report("cache file \"%s\" not stored (%v)", final, err)
		return err
	}
	// An entry kept in memory keeps its file open for reading
	// (memory.go), never the writable temporary one: a descriptor open
	// for writing would stop the file system from being remounted
	// read-only.
	var data []byte
	var kept *os.File
	if w.keep && m.size <= MemoryEntryLimit && len(hdr) == w.hl {
		if f, err := openEntryFile(final); err == nil {
			if dev, ino, size, err := fileID(f); err == nil && dev == m.dev && ino == m.ino && size == m.size {
				kept = f
				if w.mem == nil { // an empty body
					w.mem = make([]byte, w.hl, m.size)
				}
				copy(w.mem, hdr)
				data = append(append(w.mem, w.gzBuf.Bytes()...), w.brBuf.Bytes()...)
			} else {
				f.Close()
			}
		}
	}
	keep := kept != nil
	z.mu.Lock()
	if n := z.touch(w.target, z.now()); n != nil {
		z.setEntry(n, m)
		if n.uses == 0 {
			n.uses = 1
		}
		if keep {
			z.keepData(n, data, kept) // closes it when not kept
			keep = false
		}
	}
	z.mu.Unlock()
	if keep {
		kept.Close()
	}
	z.failing.Store(false)
	return nil
}

// Abort drops the entry (the upstream's body ended early).
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	w.releaseCompressors()
	w.f.Close()
	os.Remove(w.f.Name())
}

// place moves a complete temporary file to its name, creating the level
// directories, and copies it into the zone first when the temporary file
// is on another file system (use_temp_path with a temp path elsewhere).
func (z *Zone) place(tmp, final string) error {
	if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
		return err
	}
	err := os.Rename(tmp, final)
	if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	src, err := os.Open(tmp)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.CreateTemp(z.root, tempPrefix+"*")
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(dst.Name(), final)
	}
	if err != nil {
		os.Remove(dst.Name())
		return err
	}
	os.Remove(tmp)
	return nil
}
