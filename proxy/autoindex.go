// This file holds the directory listing of "autoindex on"
// (ngx_http_autoindex_module): what the index handler falls back to for a
// "/" URI whose directory has no index file, in nginx's four formats. The
// bytes are nginx 1.22's, checked against Debian's nginx by the
// differential suite: entries whose name starts with "." are left out,
// directories come first, then names in byte order; each entry is stat()ed
// (a link that leads nowhere is described by lstat()); HTML names longer
// than 50 characters are cut to 47 and "..>", and a name's characters are
// counted as UTF-8 only when the response is labelled utf-8 by "charset".
package proxy

import (
	"edge/proxy/logs"
	"errors"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// autoindexNameLen is the width of the name column of the HTML listing
// (NGX_HTTP_AUTOINDEX_NAME_LEN).
const autoindexNameLen = 50

// dirEntry is one listed name with what stat() said of it.
type dirEntry struct {
	name  string
	dir   bool // a directory (after following links)
	file  bool // a regular file (after following links)
	mtime int64
	size  int64
}

// autoindex answers r with a listing of dirPath (the directory r.uri maps
// to, with its trailing slash), or returns the status to answer with.
func (rt *Site) autoindex(r *Request, dirPath string) int {
	l := r.loc
	format := l.AutoindexFormat
	callback := ""
	if format == "jsonp" {
		var ok bool
		if callback, ok = rt.jsonpCallback(r); !ok {
			return 400
		}
		if callback == "" {
			format = "json"
		}
	}
	path := dirPath
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	d, err := os.Open(path)
	if err != nil {
		return rt.openDirFailed(r, path, err)
	}
	defer d.Close()

	resp := r.resp
	resp.Status = 200
	switch format {
	case "json":
		resp.Header.Set("Content-Type", "application/json")
	case "jsonp":
		resp.Header.Set("Content-Type", "application/javascript")
	case "xml":
		// nginx labels the XML listing utf-8 whatever "charset" says.
		resp.Header.Set("Content-Type", "text/xml; charset=utf-8")
	default:
		resp.Header.Set("Content-Type", "text/html")
	}
	if r.Method == "HEAD" {
		// nginx sends the header before it reads the directory, and for
		// HEAD stops there: no length is known.
		resp.Kind = BodyNone
		resp.Length = -1
		return 0
	}
	entries, status := rt.readDir(r, d, path)
	if status != 0 {
		resp.Header.reset()
		return status
	}
	var b []byte
	switch format {
	case "json", "jsonp":
		b = appendJSONListing(nil, entries, callback)
	case "xml":
		b = appendXMLListing(nil, entries)
	default:
		utf8 := strings.EqualFold(l.Charset, "utf-8")
		offset := int64(0)
		if l.AutoindexLocaltime {
			_, offset64 := rt.now().Zone()
			offset = int64(offset64)
		}
		b = appendHTMLListing(nil, r.uri, entries, utf8, l.AutoindexExactSize, offset)
	}
	resp.Kind = BodyBytes
	resp.Bytes = b
	resp.Length = int64(len(b))
	return 0
}

// jsonpCallback returns the "callback" argument; ok is false (and the
// request gets 400) when it is longer than 128 bytes or has a byte other
// than a letter, a digit, "_" or ".".
func (rt *Site) jsonpCallback(r *Request) (string, bool) {
	cb := argValue(r.args, "callback")
	if len(cb) > 128 {
		rt.log.infof(r, "client sent too long callback name: \"%s\"", cb)
		return "", false
	}
	for i := 0; i < len(cb); i++ {
		c := cb[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' {
			continue
		}
		rt.log.infof(r, "client sent invalid callback name: \"%s\"", cb)
		return "", false
	}
	return cb, true
}

// openDirFailed logs a failed opendir() as nginx does and returns the
// status: 404 for a missing path, 403 for a forbidden one, else 500.
func (rt *Site) openDirFailed(r *Request, path string, err error) int {
	msg := "opendir() \"" + path + "\" failed (" + logs.ErrnoText(err) + ")"
	switch classify(err) {
	case errNotFound, errNotDir:
		rt.log.errorf(r, "%s", msg)
		return 404
	case errForbidden:
		rt.log.errorf(r, "%s", msg)
		return 403
	}
	rt.log.critf(r, "%s", msg)
	return 500
}

// readDir lists d (the directory at path) without its dot names, sorted
// as nginx sorts them. An entry stat() may not see is left out; any other
// failure is a 500.
func (rt *Site) readDir(r *Request, d *os.File, path string) ([]dirEntry, int) {
	names, err := d.Readdirnames(-1)
	if err != nil {
		rt.log.critf(r, "readdir() \"%s\" failed (%s)", path, logs.ErrnoText(err))
		return nil, 500
	}
	entries := make([]dirEntry, 0, len(names))
	for _, name := range names {
		if name[0] == '.' {
			continue
		}
		full := path + "/" + name
		st, err := os.Stat(full)
		if err != nil {
			if !errors.Is(err, syscall.ENOENT) && !errors.Is(err, syscall.ELOOP) {
				rt.log.critf(r, "stat() \"%s\" failed (%s)", full, logs.ErrnoText(err))
				if errors.Is(err, syscall.EACCES) {
					continue
				}
				return nil, 500
			}
			if st, err = os.Lstat(full); err != nil {
				rt.log.critf(r, "lstat() \"%s\" failed (%s)", full, logs.ErrnoText(err))
				return nil, 500
			}
		}
		entries = append(entries, dirEntry{
			name:  name,
			dir:   st.IsDir(),
			file:  st.Mode().IsRegular(),
			mtime: st.ModTime().Unix(),
			size:  st.Size(),
		})
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := &entries[i], &entries[j]
		if a.dir != b.dir {
			return a.dir
		}
		return a.name < b.name
	})
	return entries, 0
}

// appendHTMLListing appends nginx's HTML listing of uri. utf8 says that
// names are counted in UTF-8 characters; offset (seconds) is added to
// every time for autoindex_localtime.
func appendHTMLListing(b []byte, uri string, entries []dirEntry, utf8, exact bool, offset int64) []byte {
	b = append(b, "<html>\r\n<head><title>Index of "...)
	b = appendHTMLEscaped(b, uri)
	b = append(b, "</title></head>\r\n<body>\r\n<h1>Index of "...)
	b = appendHTMLEscaped(b, uri)
	b = append(b, "</h1><hr><pre><a href=\"../\">../</a>\r\n"...)
	for i := range entries {
		e := &entries[i]
		b = append(b, "<a href=\""...)
		b = appendURIComponent(b, e.name)
		if e.dir {
			b = append(b, '/')
		}
		b = append(b, "\">"...)
		n := len(e.name)
		if utf8 {
			n = nginxUTF8Length(e.name)
		}
		shown := e.name
		if n > autoindexNameLen {
			if n == len(e.name) {
				shown = shown[:autoindexNameLen-3]
			} else {
				shown = nginxUTF8Prefix(shown, autoindexNameLen-3)
			}
		}
		b = appendHTMLEscaped(b, shown)
		if n > autoindexNameLen {
			b = append(b, "..&gt;</a>"...)
		} else {
			if e.dir && n < autoindexNameLen {
				b = append(b, '/')
				n++
			}
			b = append(b, "</a>"...)
			for ; n < autoindexNameLen; n++ {
				b = append(b, ' ')
			}
		}
		b = append(b, ' ')
		b = time.Unix(e.mtime+offset, 0).UTC().AppendFormat(b, "02-Jan-2006 15:04 ")
		b = appendListingSize(b, e, exact)
		b = append(b, "\r\n"...)
	}
	return append(b, "</pre><hr></body>\r\n</html>\r\n"...)
}

// appendListingSize appends the size column: bytes right-aligned in 19
// columns (autoindex_exact_size on), or in 7 columns rounded to K, M or G
// as nginx rounds them (half up, 1024 based, K only from 10000 bytes).
func appendListingSize(b []byte, e *dirEntry, exact bool) []byte {
	width := 7
	if exact {
		width = 19
	}
	if e.dir {
		return append(appendSpaces(b, width-1), '-')
	}
	if exact {
		return appendPadded(b, strconv.FormatInt(e.size, 10), width)
	}
	size, unit := e.size, ""
	for _, s := range []struct {
		unit string
		from int64
		div  int64
	}{{"G", 1 << 30, 1 << 30}, {"M", 1 << 20, 1 << 20}, {"K", 10000, 1 << 10}} {
		if e.size >= s.from {
			size = e.size / s.div
			if e.size%s.div >= s.div/2 {
				size++
			}
			unit = s.unit
			break
		}
	}
	return append(appendPadded(b, strconv.FormatInt(size, 10), width-len(unit)), unit...)
}

// appendPadded appends s right-aligned in width columns.
func appendPadded(b []byte, s string, width int) []byte {
	return append(appendSpaces(b, width-len(s)), s...)
}

func appendSpaces(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// appendJSONListing appends the JSON listing, wrapped in callback's call
// when callback is set (jsonp).
func appendJSONListing(b []byte, entries []dirEntry, callback string) []byte {
	if callback != "" {
		b = append(append(append(b, "/* callback */\r\n"...), callback...), '(')
	}
	b = append(b, '[')
	for i := range entries {
		e := &entries[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\r\n{ \"name\":\""...)
		b = appendNginxJSONEscaped(b, e.name)
		b = append(append(append(b, "\", \"type\":\""...), e.kind()...), "\", \"mtime\":\""...)
		b = time.Unix(e.mtime, 0).UTC().AppendFormat(b, httpTimeFormat)
		if e.file {
			b = strconv.AppendInt(append(b, "\", \"size\":"...), e.size, 10)
		} else {
			b = append(b, '"')
		}
		b = append(b, " }"...)
	}
	b = append(b, "\r\n]"...)
	if callback != "" {
		b = append(b, ");"...)
	}
	return b
}

// appendXMLListing appends the XML listing.
func appendXMLListing(b []byte, entries []dirEntry) []byte {
	b = append(b, "<?xml version=\"1.0\"?>\r\n<list>\r\n"...)
	for i := range entries {
		e := &entries[i]
		kind := e.kind()
		b = append(append(append(b, '<'), kind...), " mtime=\""...)
		b = time.Unix(e.mtime, 0).UTC().AppendFormat(b, "2006-01-02T15:04:05Z")
		if e.file {
			b = strconv.AppendInt(append(b, "\" size=\""...), e.size, 10)
		}
		b = append(b, "\">"...)
		b = appendHTMLEscaped(b, e.name)
		b = append(append(append(b, "</"...), kind...), ">\r\n"...)
	}
	return append(b, "</list>\r\n"...)
}

// kind is the entry's type in the JSON and XML listings.
func (e *dirEntry) kind() string {
	switch {
	case e.dir:
		return "directory"
	case e.file:
		return "file"
	}
	return "other"
}

// appendHTMLEscaped escapes the four characters nginx's ngx_escape_html
// does: < > & and ".
func appendHTMLEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '"':
			b = append(b, "&quot;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendURIComponent percent-encodes every byte but RFC 3986's unreserved
// characters (letters, digits, "-", ".", "_", "~"), with upper-case hex,
// as nginx's NGX_ESCAPE_URI_COMPONENT does for a listing's links.
func appendURIComponent(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return b
}

// appendNginxJSONEscaped escapes like nginx's ngx_escape_json: '"' and
// '\', the five short control escapes, other control bytes as \u00XX in
// upper-case hex; bytes from 0x80 pass as they are.
func appendNginxJSONEscaped(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c > 0x1f:
			b = append(b, c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c == '\b':
			b = append(b, `\b`...)
		case c == '\f':
			b = append(b, `\f`...)
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
	}
	return b
}

// nginxUTF8Next decodes the character at the start of s the way nginx's
// ngx_utf8_decode does, which is laxer than Go's: continuation bytes are
// only required to have the high bit set, and surrogates pass. n is the
// character's length in bytes, 0 when it is not valid.
func nginxUTF8Next(s string) (n int) {
	c := s[0]
	var u, min uint32
	switch {
	case c >= 0xf0:
		u, min, n = uint32(c&0x07), 0x10000, 4
	case c >= 0xe0:
		u, min, n = uint32(c&0x0f), 0x800, 3
	case c >= 0xc2:
		u, min, n = uint32(c&0x1f), 0x80, 2
	default:
		return 0
	}
	if len(s) < n {
		return 0
	}
	for i := 1; i < n; i++ {
		if s[i] < 0x80 {
			return 0
		}
		u = u<<6 | uint32(s[i]&0x3f)
	}
	if u < min || u > 0x10ffff {
		return 0
	}
	return n
}

// nginxUTF8Length counts the characters of s, or returns its length in
// bytes when it is not valid UTF-8 (ngx_utf8_length).
func nginxUTF8Length(s string) int {
	count := 0
	for i := 0; i < len(s); count++ {
		if s[i] < 0x80 {
			i++
			continue
		}
		n := nginxUTF8Next(s[i:])
		if n == 0 {
			return len(s)
		}
		i += n
	}
	return count
}

// nginxUTF8Prefix returns the first chars characters of s, which is valid
// UTF-8 by nginxUTF8Length.
func nginxUTF8Prefix(s string, chars int) string {
	i := 0
	for ; chars > 0 && i < len(s); chars-- {
		if s[i] < 0x80 {
			i++
			continue
		}
		i += nginxUTF8Next(s[i:])
	}
	return s[:i]
}
