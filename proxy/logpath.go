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
	"syscall"

	"edge/conf"
	"edge/proxy/logs"
)

// writePathLog writes line to the file al's path names for r.
func (rt *Site) writePathLog(r *Request, al *conf.AccessLog, line []byte) {
	// nginx tests the root unless serving a file has already shown it
	// exists (r->root_tested).
	if r.fileCache == nil && r.loc.Root != nil {
		root := rt.eval(r, r.loc.Root)
		if fi := rt.files.statAt(root, r.Start); !fi.isDir {
			errno := syscall.ENOTDIR
			switch {
			case fi.err == errNotFound:
				errno = syscall.ENOENT
			case fi.err == errForbidden:
				errno = syscall.EACCES
			}
			rt.log.errorf(r, "testing \"%s\" existence failed (%s) while logging request", root, logs.ErrnoText(errno))
			return
		}
	}
	path := rt.eval(r, al.Path)
	if err := rt.logFiles.WritePath(path, line, r.loc.LogFileCache, rt.now()); err != nil {
		rt.log.critf(r, "open() \"%s\" failed (%s) while logging request", path, logs.ErrnoText(err))
	}
}
