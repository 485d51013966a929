// This file holds the static content handlers: try_files, index and the
// static file handler, with nginx's answers for each case
// (ngx_http_try_files_handler, ngx_http_index_handler,
// ngx_http_static_handler): a directory without its slash is a 301 to the
// slash form, a missing file a 404, an unreadable one a 403, a directory
// with no index file a 403 (or its listing with autoindex, autoindex.go),
// a method other than GET/HEAD a 405.
package proxy

import (
	"os"
	"strings"
)

// tryFiles runs try_files. done is false when a file matched and the
// request goes on to the content handler with r.uri set to it.
func (rt *Site) tryFiles(r *Request) (next step, status int, done bool) {
	l := r.loc
	for i := range l.TryFiles {
		tf := &l.TryFiles[i]
		switch {
		case tf.Code != 0:
			return stepDone, tf.Code, true
		case tf.Named != "":
			next, status = rt.namedRedirect(r, tf.Named)
			return next, status, true
		case tf.URI:
			next, status = rt.internalRedirect(r, rt.eval(r, tf.Path))
			return next, status, true
		}
		name := rt.eval(r, tf.Path)
		// ngx_http_try_files_handler: the name follows the root or
		// alias; after a prefix location's alias, a name with variables
		// that starts as the URI does loses that location's part.
		strip := 0
		if l := r.loc; l.Alias && l.AliasStrip > 0 && !tf.Path.Static &&
			len(name) >= l.AliasStrip && len(r.uri) >= l.AliasStrip && name[:l.AliasStrip] == r.uri[:l.AliasStrip] {
			strip = l.AliasStrip
		}
		path := rt.eval(r, l.Root) + name[strip:]
		fi := rt.files.statAt(path, r.Start)
		if !fi.exists || fi.isDir != tf.Dir {
			if fi.err != nil && fi.err != errNotFound && fi.err != errNotDir {
				rt.log.errorf(r, "stat() \"%s\" failed (%s)", path, fi.err)
			}
			continue
		}
		switch {
		case !l.Alias:
			r.uri = name
		case l.AliasStrip < 0:
			// A regex location's alias: the file found is the alias
			// and the name, which the URI becomes; a directory leaves
			// the URI as it is.
			if !tf.Dir {
				r.uri = name
				r.addURIToAlias = true
			}
		default:
			r.uri = r.uri[:min(l.AliasStrip, len(r.uri))] + name[strip:]
		}
		r.exten = extension(r.uri)
		return stepDone, 0, false
	}
	return stepDone, 0, false
}

// static serves the file (or index of the directory) for r.uri.
func (rt *Site) static(r *Request) (step, int) {
	if strings.HasSuffix(r.uri, "/") {
		return rt.index(r)
	}
	if r.Method != "GET" && r.Method != "HEAD" && r.Method != "POST" {
		return stepDone, 405
	}
	path, _ := rt.mapURIToPath(r, r.uri)
	if st, ok := rt.brotliStatic(r, path); ok {
		return stepDone, st
	}
	e := rt.files.getAt(path, r.Start)
	if !e.info.exists {
		return stepDone, rt.openFailed(r, path, e.info.err)
	}
	if e.info.isDir {
		loc := r.uri + "/"
		if r.args != "" {
			loc += "?" + r.args
		}
		r.resp.Header.Set("Location", loc)
		return stepDone, 301
	}
	if !e.info.mode.IsRegular() {
		rt.log.errorf(r, "\"%s\" is not a regular file", path)
		return stepDone, 404
	}
	if r.Method == "POST" {
		return stepDone, 405
	}
	return stepDone, rt.fileResponse(r, e)
}

// openFailed logs a failed open like nginx and returns the status.
func (rt *Site) openFailed(r *Request, path string, err error) int {
	switch err {
	case errNotFound, errNotDir:
		if r.loc.LogNotFound {
			rt.log.errorf(r, "open() \"%s\" failed (2: No such file or directory)", path)
		}
		return 404
	case errForbidden:
		rt.log.errorf(r, "open() \"%s\" failed (13: Permission denied)", path)
		return 403
	}
	rt.log.critf(r, "open() \"%s\" failed (%v)", path, err)
	return 500
}

// fileResponse prepares a 200 for a cached file; a large file is opened
// here and closed by the adapter once sent.
func (rt *Site) fileResponse(r *Request, e *fileEntry) int {
	resp := r.resp
	resp.Status = 200
	r.fileCache = e
	h := &resp.Header
	// A file reached through X-Accel-Redirect keeps the type the
	// application sent (nginx's ngx_http_set_content_type leaves a type
	// already set alone).
	if !r.up.used() || !h.Has("Content-Type") {
		h.Set("Content-Type", rt.contentType(r))
	}
	h.Set("Last-Modified", e.lastModified)
	if r.loc.Etag {
		h.Set("ETag", e.etag)
	}
	h.Set("Accept-Ranges", "bytes")
	resp.Length = e.info.size
	if e.data != nil {
		resp.Kind = BodyBytes
		resp.Bytes = e.data
		if e.mirror != nil {
			resp.Mirror = *e.mirror
		}
		return 0
	}
	f, err := os.Open(e.path)
	if err != nil {
		resp.Header.reset()
		return rt.openFailed(r, e.path, classify(err))
	}
	resp.Kind = BodyFile
	resp.File = f
	resp.CloseFile = true
	resp.Offset = 0
	return 0
}

// index serves "/dir/": the first index file that exists is an internal
// redirect; none gives 403 (or 404 when the directory is missing).
func (rt *Site) index(r *Request) (step, int) {
	if r.Method != "GET" && r.Method != "HEAD" && r.Method != "POST" {
		return stepDone, 405
	}
	l := r.loc
	dirPath, _ := rt.mapURIToPath(r, r.uri)
	for _, ix := range l.Index {
		name := rt.eval(r, ix)
		if strings.HasPrefix(name, "/") {
			return rt.redirectTo(r, name, r.args)
		}
		fi := rt.files.statAt(dirPath+name, r.Start)
		if !fi.exists {
			if fi.err == errForbidden {
				rt.log.errorf(r, "open() \"%s\" failed (13: Permission denied)", dirPath+name)
				return stepDone, 403
			}
			continue
		}
		return rt.redirectTo(r, r.uri+name, r.args)
	}
	fi := rt.files.statAt(dirPath, r.Start)
	if !fi.exists || !fi.isDir {
		if r.loc.LogNotFound {
			rt.log.errorf(r, "\"%s\" is not found (2: No such file or directory)", dirPath)
		}
		return stepDone, 404
	}
	// nginx's content phase: the index module declined, autoindex (GET
	// and HEAD only) lists the directory, else the phase ends in 403.
	if l.Autoindex && (r.Method == "GET" || r.Method == "HEAD") {
		return stepDone, rt.autoindex(r, dirPath)
	}
	rt.log.errorf(r, "directory index of \"%s\" is forbidden", dirPath)
	return stepDone, 403
}

// contentType picks the MIME type from the URI's extension, like
// ngx_http_set_content_type, with the charset added by the charset filter.
func (rt *Site) contentType(r *Request) string {
	l := r.loc
	t := ""
	if r.exten != "" {
		ext := r.exten
		if t2, ok := l.Types[ext]; ok {
			t = t2
		} else if lower := strings.ToLower(ext); lower != ext {
			t = l.Types[lower]
		}
	}
	if t == "" {
		t = l.DefaultType
	}
	return t
}

// emptyGIF answers with a 1x1 transparent GIF (empty_gif).
func (rt *Site) emptyGIF(r *Request) int {
	if r.Method != "GET" && r.Method != "HEAD" {
		return 405
	}
	resp := r.resp
	resp.Status = 200
	resp.Header.Set("Content-Type", "image/gif")
	resp.Header.Set("Last-Modified", emptyGIFModified)
	resp.Kind = BodyBytes
	resp.Bytes = emptyGIFBytes
	resp.Length = int64(len(emptyGIFBytes))
	return 0
}

// emptyGIFModified is the Last-Modified nginx gives the empty GIF: its
// r->headers_out.last_modified_time 23433600.
const emptyGIFModified = "Mon, 28 Sep 1970 06:00:00 GMT"

// emptyGIFBytes is nginx's 43-byte transparent 1x1 GIF, byte for byte
// (ngx_http_empty_gif_module), sent with its fixed Last-Modified.
var emptyGIFBytes = []byte{
	0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x01, 0x00,
	0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x01,
	0x00, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02,
	0x4c, 0x01, 0x00, 0x3b,
}
