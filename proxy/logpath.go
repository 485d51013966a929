// This file holds access logs whose path has variables
// (ngx_http_log_script_write): the path is evaluated for every line and
// the file opened for it, created when missing (its directory never is),
// written unbuffered and closed again, unless open_log_file_cache keeps
// it open. As in nginx, a request whose root directory does not exist
// (a $host-named site that is not there) logs nothing but an error, so
// that no stray log files appear; a file that cannot be opened loses its
// line and is reported at [crit].
package proxy

import (
	"os"
	"sync"
	"syscall"
	"time"

	"edge/conf"
)

// writePathLog writes line to the file al's path names for r.
func (rt *site) writePathLog(r *Request, al *conf.AccessLog, line []byte) {
	// nginx tests the root unless serving a file has already shown it
	// exists (r->root_tested).
	if r.fileCache == nil && r.loc.Root != nil {
		root := rt.eval(r, r.loc.Root)
		if fi := rt.files.stat(root); !fi.isDir {
			errno := syscall.ENOTDIR
			switch {
			case fi.err == errNotFound:
				errno = syscall.ENOENT
			case fi.err == errForbidden:
				errno = syscall.EACCES
			}
			rt.log.errorf(r, "testing \"%s\" existence failed (%s) while logging request", root, errnoText(errno))
			return
		}
	}
	path := rt.eval(r, al.Path)
	if err := rt.logFiles.paths.write(path, line, r.loc.LogFileCache, rt.now()); err != nil {
		rt.log.critf(r, "open() \"%s\" failed (%s) while logging request", path, errnoText(err))
	}
}

// pathLogs are the open files of logs with variables in their path, kept
// while open_log_file_cache allows.
type pathLogs struct {
	mu    sync.Mutex
	files map[string]*pathLog
}

type pathLog struct {
	f      *os.File
	opened time.Time
	used   time.Time
}

// write appends line to path; an error is the open's.
func (pl *pathLogs) write(path string, line []byte, cache conf.LogFileCache, now time.Time) error {
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
		e = &pathLog{f: f, opened: now, used: now}
		if pl.files == nil {
			pl.files = map[string]*pathLog{}
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
func (pl *pathLogs) evictLocked(cache conf.LogFileCache, now time.Time) {
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
func (pl *pathLogs) closeAll() {
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
