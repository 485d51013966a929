// This file holds the log files: each path opened once and shared by the
// logs naming it, access logs batched under load (bufferedFile), all
// reopened on USR1; and the files of logs with variables in their path,
// opened per line or kept while open_log_file_cache allows.
package logs

import (
	"edge/conf"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
)

// Files opens each path once and reopens them all on USR1.
type Files struct {
	mu    sync.Mutex
	files map[string]*logFile
	// Alert reports a log file that cannot be written (the error log's
	// [alert]); nil drops the report. Set it before the first Open.
	Alert func(msg string)
	now   func() time.Time
	// syslogs are the syslog destinations by target text (syslog.go).
	syslogs map[string]*Peer
	// paths are the files of logs with variables in their path
	// (WritePath).
	paths pathFiles
}

func NewFiles(now func() time.Time) *Files {
	return &Files{files: map[string]*logFile{}, now: now}
}

// logFailureEvery is how often a log file that keeps failing is reported:
// nginx reports a full disk once a minute (ngx_http_log_write's
// disk_full_time), so that a full disk does not also flood the error log.
const logFailureEvery = time.Minute

// logFile is a reopenable file behind a WriteSyncer; buffered files are
// written through a bufferedFile.
type logFile struct {
	path     string
	mu       sync.Mutex
	f        *os.File
	buffered *bufferedFile
	out      zapcore.WriteSyncer
	fs       *Files
	reported time.Time // when a failed write was last reported
}

// Write writes log lines. A failed write (a full disk) loses them, as in
// nginx, and is reported at most once per logFailureEvery; the request
// that logged is served all the same.
func (lf *logFile) Write(p []byte) (int, error) {
	lf.mu.Lock()
	_, err := lf.f.Write(p)
	report := err != nil && lf.reportNow()
	lf.mu.Unlock()
	// Outside the lock: the report may go to this very file (an error log
	// on the full disk), whose failure is then within the minute.
	if report && lf.fs.Alert != nil {
		lf.fs.Alert(fmt.Sprintf("write() to \"%s\" failed (%s) while logging request", lf.path, ErrnoText(err)))
	}
	return len(p), nil
}

// reportNow says whether a failure now is to be reported; lf.mu is held.
func (lf *logFile) reportNow() bool {
	now := lf.fs.now()
	if !lf.reported.IsZero() && now.Sub(lf.reported) < logFailureEvery {
		return false
	}
	lf.reported = now
	return true
}

// ErrnoText words an error as nginx does, "28: No space left on device".
func ErrnoText(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	text := errno.Error()
	if text != "" {
		text = strings.ToUpper(text[:1]) + text[1:]
	}
	return strconv.Itoa(int(errno)) + ": " + text
}

func (lf *logFile) Sync() error {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	return lf.f.Sync()
}

// Open returns the writer for a path; a buffered one (bufSize > 0: an
// access log with nginx's buffer=) holds up to bufSize bytes of lines for
// up to flush (its flush=, bufferedFile), an unbuffered one writes each
// line at once.
func (fs *Files) Open(path string, bufSize int, flush time.Duration) (zapcore.WriteSyncer, error) {
	switch path {
	case "stderr", "/dev/stderr":
		return zapcore.Lock(zapcore.AddSync(os.Stderr)), nil
	case "/dev/stdout":
		return zapcore.Lock(zapcore.AddSync(os.Stdout)), nil
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	key := path
	if bufSize > 0 {
		key += "\x00buffered " + strconv.Itoa(bufSize) + " " + flush.String()
	}
	if lf := fs.files[key]; lf != nil {
		return lf.out, nil
	}
	f, err := openLogFile(path)
	if err != nil {
		return nil, fmt.Errorf("open() \"%s\" failed (%s)", path, ErrnoText(err))
	}
	lf := &logFile{path: path, f: f, fs: fs}
	lf.out = lf
	if bufSize > 0 {
		lf.buffered = &bufferedFile{lf: lf, size: bufSize, every: flush}
		lf.out = lf.buffered
	}
	fs.files[key] = lf
	return lf.out, nil
}

// Reopen reopens every file (after logrotate moved them away).
func (fs *Files) Reopen() error {
	fs.paths.closeAll()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var first error
	for _, lf := range fs.files {
		if lf.buffered != nil {
			lf.buffered.Flush()
		}
		f, err := openLogFile(lf.path)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		lf.mu.Lock()
		old := lf.f
		lf.f = f
		lf.mu.Unlock()
		old.Close()
	}
	return first
}

// Close flushes and closes every file.
func (fs *Files) Close() {
	fs.paths.closeAll()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, lf := range fs.files {
		if lf.buffered != nil {
			lf.buffered.stop()
		}
		lf.f.Close()
	}
	fs.files = map[string]*logFile{}
	for _, p := range fs.syslogs {
		p.close()
	}
	fs.syslogs = nil
}

// Flush writes out buffered lines.
func (fs *Files) Flush() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, lf := range fs.files {
		if lf.buffered != nil {
			lf.buffered.Flush()
		}
	}
}

// WritePath appends line to the file at path, a path made for this line
// by a log with variables: opened and closed again, or kept while cache
// (open_log_file_cache) allows. An error is the open's; a failed write
// loses the line, as nginx's does.
func (fs *Files) WritePath(path string, line []byte, cache conf.LogFileCache, now time.Time) error {
	return fs.paths.write(path, line, cache, now)
}

// pathFiles are the open files of logs with variables in their path, kept
// while open_log_file_cache allows.
type pathFiles struct {
	mu    sync.Mutex
	files map[string]*pathFile
}

type pathFile struct {
	f      *os.File
	opened time.Time
	used   time.Time
}

// write appends line to path; an error is the open's.
func (pl *pathFiles) write(path string, line []byte, cache conf.LogFileCache, now time.Time) error {
	if cache.Max == 0 {
		f, err := openLogFile(path)
		if err != nil {
			return err
		}
		_, _ = f.Write(line)
		return f.Close()
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	e := pl.files[path]
	if e != nil && now.Sub(e.opened) >= cache.Valid {
		e.f.Close()
		delete(pl.files, path)
		e = nil
	}
	if e == nil {
		f, err := openLogFile(path)
		if err != nil {
			return err
		}
		e = &pathFile{f: f, opened: now, used: now}
		if pl.files == nil {
			pl.files = map[string]*pathFile{}
		}
		pl.files[path] = e
		pl.evictLocked(cache, now)
	}
	e.used = now
	_, _ = e.f.Write(line)
	return nil
}

// evictLocked closes files unused for cache.Inactive, then the least
// recently used ones while more than cache.Max are open.
func (pl *pathFiles) evictLocked(cache conf.LogFileCache, now time.Time) {
	for path, e := range pl.files {
		if now.Sub(e.used) >= cache.Inactive {
			e.f.Close()
			delete(pl.files, path)
		}
	}
	for len(pl.files) > cache.Max {
		oldest := ""
		for path, e := range pl.files {
			if oldest == "" || e.used.Before(pl.files[oldest].used) {
				oldest = path
			}
		}
		pl.files[oldest].f.Close()
		delete(pl.files, oldest)
	}
}

// closeAll closes every kept file (reopen, shutdown); the next line opens
// its file again.
func (pl *pathFiles) closeAll() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for _, e := range pl.files {
		e.f.Close()
	}
	pl.files = nil
}

// openLogFile opens a log file for appending, creating it as nginx does
// (mode 0644), never its directory.
func openLogFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
}

// bufferedFile is an access log with nginx's buffer=size: its lines wait,
// and go out together when the next one would not fit in size (a line
// longer than size goes out at once after them), every (its flush=)
// after the oldest waiting line was written, and at reopen and shutdown.
// An access log without buffer= writes each line at once, as nginx's
// does: a client that reads the log after its response (nginx's own test
// suite does) finds its line there. A batch of lines that came less than
// a millisecond apart, which edge once made of every log, lost that
// (limit_rate.t found its last line missing).
type bufferedFile struct {
	lf      *logFile
	size    int
	every   time.Duration
	mu      sync.Mutex
	buf     []byte
	timer   *time.Timer
	armed   bool
	stopped bool
}

func (b *bufferedFile) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return b.lf.Write(p)
	}
	if len(b.buf)+len(p) > b.size {
		b.flushLocked()
		if len(p) > b.size {
			return b.lf.Write(p)
		}
	}
	if b.buf == nil {
		b.buf = make([]byte, 0, b.size)
	}
	b.buf = append(b.buf, p...)
	if !b.armed {
		b.armed = true
		if b.timer == nil {
			b.timer = time.AfterFunc(b.every, b.Flush)
		} else {
			b.timer.Reset(b.every)
		}
	}
	return len(p), nil
}

// Flush writes the waiting lines.
func (b *bufferedFile) Flush() {
	b.mu.Lock()
	b.armed = false
	b.flushLocked()
	b.mu.Unlock()
}

func (b *bufferedFile) flushLocked() {
	if len(b.buf) == 0 {
		return
	}
	b.lf.Write(b.buf)
	b.buf = b.buf[:0]
}

// Sync writes the waiting lines; access logs are not fsynced, as nginx's
// are not.
func (b *bufferedFile) Sync() error {
	b.Flush()
	return nil
}

// stop writes the waiting lines; later lines are written at once.
func (b *bufferedFile) stop() {
	b.mu.Lock()
	b.stopped = true
	if b.timer != nil {
		b.timer.Stop()
	}
	b.flushLocked()
	b.mu.Unlock()
}
