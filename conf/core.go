// This file holds the directive table of the core modules (main, events,
// http core, index, access, autoindex, charset) and nginx's defaults and
// merge rules for location settings (ngx_http_core_merge_loc_conf and its
// siblings).
package conf

import (
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

func init() {
	register(
		// main and events
		&spec{name: "worker_processes", ctx: ctxMain, args: take1, set: setWorkerProcesses},
		&spec{name: "worker_connections", ctx: ctxEvents, args: take1, set: setWorkerConnections},
		&spec{name: "pid", ctx: ctxMain, args: take1, set: setPid},
		&spec{name: "error_log", ctx: ctxMain | ctxHSL, args: take1More, set: setErrorLog, multi: true},
		&spec{name: "daemon", ctx: ctxMain, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { c.plan.Main.Daemon = flagOn(d); return nil }},
		&spec{name: "user", ctx: ctxMain, args: take12, set: setUser},
		&spec{name: "env", ctx: ctxMain, args: take1, multi: true, set: func(c *compiler, f *frame, d *Directive) error {
			c.plan.Main.Env = append(c.plan.Main.Env, d.Args[0])
			return nil
		}},
		&spec{name: "worker_shutdown_timeout", ctx: ctxMain, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			t, err := parseTime(d, d.Args[0])
			c.plan.Main.WorkerShutdownTimeout = t
			return err
		}},

		// server-level
		&spec{name: "listen", ctx: ctxServer, args: take1More, set: setListen, multi: true},
		&spec{name: "server_name", ctx: ctxServer, args: take1More, set: setServerName, multi: true},
		&spec{name: "merge_slashes", ctx: ctxHS, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.srv.MergeSlashes = flagOn(d); return nil }},
		&spec{name: "underscores_in_headers", ctx: ctxHS, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.srv.UnderscoresInHeaders = flagOn(d); return nil }},
		&spec{name: "ignore_invalid_headers", ctx: ctxHS, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.srv.IgnoreInvalidHeaders = flagOn(d); return nil }},
		&spec{name: "client_header_timeout", ctx: ctxHS, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.srv.ClientHeaderTimeout, err = parseTime(d, d.Args[0])
			return
		}},
		&spec{name: "large_client_header_buffers", ctx: ctxHS, args: take2, set: setLargeHeaderBuffers},
		// max_headers is nginx 1.29.8's, also in Debian's 1.22.1 since
		// 1.22.1-9+deb12u11.
		&spec{name: "max_headers", ctx: ctxHS, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.srv.MaxHeaders, err = parseInt(d, d.Args[0])
			return
		}},
		&spec{name: "http2", ctx: ctxHS, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.srv.HTTP2 = flagOn(d); return nil }},

		// location settings
		&spec{name: "root", ctx: ctxHSLif, args: take1, set: setRoot},
		&spec{name: "alias", ctx: ctxLocation, args: take1, set: setRoot},
		&spec{name: "index", ctx: ctxHSL, args: take1More, multi: true, set: setIndex},
		&spec{name: "try_files", ctx: ctxSL, args: take2More, set: setTryFiles},
		&spec{name: "internal", ctx: ctxLocation, args: take0, set: func(c *compiler, f *frame, d *Directive) error { f.loc.Internal = true; return nil }},
		// Several types blocks at one level add to one map, as in nginx
		// (Nextcloud's config follows "include mime.types" with its own).
		&spec{name: "types", ctx: ctxHSL, args: take0 | isBlock, multi: true, set: setTypes},
		&spec{name: "default_type", ctx: ctxHSLif, args: take1, set: func(c *compiler, f *frame, d *Directive) error { f.loc.DefaultType = d.Args[0]; return nil }},
		&spec{name: "error_page", ctx: ctxHSLif, args: take2More, multi: true, set: setErrorPage},
		&spec{name: "recursive_error_pages", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.RecursiveErrorPages = flagOn(d); return nil }},
		&spec{name: "log_not_found", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.LogNotFound = flagOn(d); return nil }},
		&spec{name: "log_subrequest", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.LogSubrequest = flagOn(d); return nil }},
		&spec{name: "keepalive_timeout", ctx: ctxHSL, args: take12, set: setKeepaliveTimeout},
		&spec{name: "keepalive_requests", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.loc.KeepaliveRequests, err = parseInt(d, d.Args[0])
			return
		}},
		&spec{name: "keepalive_time", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			_, err := parseTime(d, d.Args[0])
			return err
		}},
		&spec{name: "keepalive_disable", ctx: ctxHSL, args: take12, set: func(c *compiler, f *frame, d *Directive) error { return nil }},
		&spec{name: "client_max_body_size", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.loc.ClientMaxBodySize, err = parseSize(d, d.Args[0])
			return
		}},
		&spec{name: "client_body_buffer_size", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.loc.ClientBodyBufferSize, err = parseSize(d, d.Args[0])
			return
		}},
		&spec{name: "client_body_timeout", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.loc.ClientBodyTimeout, err = parseTime(d, d.Args[0])
			return
		}},
		&spec{name: "client_body_temp_path", ctx: ctxHSL, args: take1234, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.ClientBodyTempPath = c.path(d.Args[0])
			return nil
		}},
		&spec{name: "client_body_in_file_only", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			switch d.Args[0] {
			case "on", "clean":
				f.loc.ClientBodyInFileOnly = true
			case "off":
			default:
				return emergf(d, "invalid value \"%s\" in \"%s\" directive", d.Args[0], d.Name)
			}
			return nil
		}},
		&spec{name: "send_timeout", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.loc.SendTimeout, err = parseTime(d, d.Args[0])
			return
		}},
		&spec{name: "server_tokens", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			switch d.Args[0] {
			case "on", "off", "build":
				f.loc.ServerTokens = d.Args[0]
				return nil
			}
			return emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be \"on\", \"off\" or \"build\"", d.Args[0], d.Name)
		}},
		&spec{name: "etag", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.Etag = flagOn(d); return nil }},
		&spec{name: "if_modified_since", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			switch d.Args[0] {
			case "off", "exact", "before":
				f.loc.IfModifiedSince = d.Args[0]
				return nil
			}
			return emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be \"off\", \"exact\" or \"before\"", d.Args[0], d.Name)
		}},
		&spec{name: "absolute_redirect", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.AbsoluteRedirect = flagOn(d); return nil }},
		&spec{name: "server_name_in_redirect", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.ServerNameInRedirect = flagOn(d); return nil }},
		&spec{name: "port_in_redirect", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.PortInRedirect = flagOn(d); return nil }},
		&spec{name: "chunked_transfer_encoding", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.ChunkedTransferEncode = flagOn(d); return nil }},
		// autoindex (ngx_http_autoindex_module)
		&spec{name: "autoindex", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.Autoindex = flagOn(d); return nil }},
		&spec{name: "autoindex_exact_size", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.AutoindexExactSize = flagOn(d); return nil }},
		&spec{name: "autoindex_localtime", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.AutoindexLocaltime = flagOn(d); return nil }},
		&spec{name: "autoindex_format", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			switch d.Args[0] {
			case "html", "xml", "json", "jsonp":
				f.loc.AutoindexFormat = d.Args[0]
				return nil
			}
			return emergf(d, "invalid value \"%s\"", d.Args[0])
		}},
		&spec{name: "charset", ctx: ctxHSLif, args: take1, set: setCharset},
		&spec{name: "source_charset", ctx: ctxHSLif, args: take1, set: func(c *compiler, f *frame, d *Directive) error { f.loc.SourceCharset = d.Args[0]; return nil }},
		&spec{name: "override_charset", ctx: ctxHSLif, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.OverrideCharset = flagOn(d); return nil }},
		&spec{name: "charset_types", ctx: ctxHSL, args: take1More, set: func(c *compiler, f *frame, d *Directive) error {
			// text/html is always in the list (ngx_http_types_slot adds it
			// to every *_types directive); "*" stands for any type.
			f.loc.CharsetTypes = map[string]bool{"text/html": true}
			for _, t := range d.Args {
				f.loc.CharsetTypes[strings.ToLower(t)] = true
			}
			return nil
		}},
		&spec{name: "open_file_cache", ctx: ctxHSL, args: take12, set: setOpenFileCache},
		&spec{name: "open_file_cache_valid", ctx: ctxHSL, args: take1, set: func(c *compiler, f *frame, d *Directive) (err error) {
			f.loc.OpenFileCacheValid, err = parseTime(d, d.Args[0])
			return
		}},
		&spec{name: "open_file_cache_errors", ctx: ctxHSL, args: takeFlag, set: func(c *compiler, f *frame, d *Directive) error { f.loc.OpenFileCacheErrors = flagOn(d); return nil }},
		&spec{name: "disable_symlinks", ctx: ctxHSL, args: take12, set: func(c *compiler, f *frame, d *Directive) error {
			switch d.Args[0] {
			case "off":
				return nil
			}
			return emergf(d, "\"disable_symlinks %s\" is not supported by edge", d.Args[0])
		}},

		// access
		&spec{name: "allow", ctx: ctxHSL, args: take1, multi: true, set: setAccess},
		&spec{name: "deny", ctx: ctxHSL, args: take1, multi: true, set: setAccess},

		// handlers with no settings
		&spec{name: "stub_status", ctx: ctxSL, args: take0 | take1, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.Content = Content{Kind: ContentStubStatus}
			return nil
		}},
		&spec{name: "empty_gif", ctx: ctxLocation, args: take0, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.Content = Content{Kind: ContentEmptyGIF}
			return nil
		}},
	)
}

// defaultLocation holds nginx's defaults for every inherited setting.
func defaultLocation() *Location {
	l := &Location{Kind: LocServer}
	l.Root = StaticScript("html")
	l.Index = []*Script{StaticScript("index.html")}
	l.Types = map[string]string{"html": "text/html", "gif": "image/gif", "jpg": "image/jpeg"}
	l.DefaultType = "text/plain"
	l.LogNotFound = true
	l.ClientMaxBodySize = 1 << 20
	l.ClientBodyBufferSize = 16 << 10
	l.ClientBodyTimeout = 60 * time.Second
	l.ClientBodyTempPath = "client_body_temp"
	l.SendTimeout = 60 * time.Second
	l.KeepaliveTimeout = 75 * time.Second
	l.KeepaliveHeader = -1
	l.KeepaliveRequests = 1000
	l.ServerTokens = "on"
	l.Etag = true
	l.IfModifiedSince = "exact"
	l.AbsoluteRedirect = true
	l.PortInRedirect = true
	l.ChunkedTransferEncode = true
	l.CharsetTypes = map[string]bool{"text/html": true, "text/xml": true, "text/plain": true, "text/vnd.wap.wml": true, "application/javascript": true, "application/rss+xml": true}
	l.OpenFileCacheValid = time.Second
	l.AutoindexExactSize = true
	l.AutoindexFormat = "html"
	l.UninitializedVarWarn = true
	l.Gzip = Gzip{Types: map[string]bool{"text/html": true}, MinLength: 20, CompLevel: 1, HTTPVersion: "1.1"}
	l.GzipStatic = "off"
	l.FastCGI = defaultFastCGI()
	return l
}

// mergeLoc fills every setting of l not given at l's level from parent,
// following nginx's merge rules: most settings inherit as a whole; lists
// (add_header, error_page, allow/deny, access_log, fastcgi_param) inherit
// only when the level has none of its own.
func (c *compiler) mergeLoc(l, p *Location) {
	set := func(names ...string) bool { return c.isSet(l, names...) }
	if !set("root", "alias") {
		l.Root, l.Alias = p.Root, p.Alias
	}
	if !set("index") {
		l.Index = p.Index
	}
	if !set("types") {
		l.Types = p.Types
	}
	if !set("default_type") {
		l.DefaultType = p.DefaultType
	}
	if !set("error_page") {
		l.ErrorPages = p.ErrorPages
	}
	if !set("recursive_error_pages") {
		l.RecursiveErrorPages = p.RecursiveErrorPages
	}
	if !set("log_not_found") {
		l.LogNotFound = p.LogNotFound
	}
	if !set("log_subrequest") {
		l.LogSubrequest = p.LogSubrequest
	}
	if !set("client_max_body_size") {
		l.ClientMaxBodySize = p.ClientMaxBodySize
	}
	if !set("client_body_buffer_size") {
		l.ClientBodyBufferSize = p.ClientBodyBufferSize
	}
	if !set("client_body_timeout") {
		l.ClientBodyTimeout = p.ClientBodyTimeout
	}
	if !set("client_body_temp_path") {
		l.ClientBodyTempPath = p.ClientBodyTempPath
	}
	if !set("client_body_in_file_only") {
		l.ClientBodyInFileOnly = p.ClientBodyInFileOnly
	}
	if !set("send_timeout") {
		l.SendTimeout = p.SendTimeout
	}
	if !set("keepalive_timeout") {
		l.KeepaliveTimeout, l.KeepaliveHeader = p.KeepaliveTimeout, p.KeepaliveHeader
	}
	if !set("keepalive_requests") {
		l.KeepaliveRequests = p.KeepaliveRequests
	}
	if !set("server_tokens") {
		l.ServerTokens = p.ServerTokens
	}
	if !set("etag") {
		l.Etag = p.Etag
	}
	if !set("if_modified_since") {
		l.IfModifiedSince = p.IfModifiedSince
	}
	if !set("absolute_redirect") {
		l.AbsoluteRedirect = p.AbsoluteRedirect
	}
	if !set("server_name_in_redirect") {
		l.ServerNameInRedirect = p.ServerNameInRedirect
	}
	if !set("port_in_redirect") {
		l.PortInRedirect = p.PortInRedirect
	}
	if !set("chunked_transfer_encoding") {
		l.ChunkedTransferEncode = p.ChunkedTransferEncode
	}
	if !set("charset") {
		l.Charset = p.Charset
	}
	if !set("source_charset") {
		l.SourceCharset = p.SourceCharset
	}
	if !set("override_charset") {
		l.OverrideCharset = p.OverrideCharset
	}
	if !set("charset_types") {
		l.CharsetTypes = p.CharsetTypes
	}
	if !set("autoindex") {
		l.Autoindex = p.Autoindex
	}
	if !set("autoindex_exact_size") {
		l.AutoindexExactSize = p.AutoindexExactSize
	}
	if !set("autoindex_localtime") {
		l.AutoindexLocaltime = p.AutoindexLocaltime
	}
	if !set("autoindex_format") {
		l.AutoindexFormat = p.AutoindexFormat
	}
	if !set("open_file_cache") {
		l.OpenFileCacheMax, l.OpenFileCacheInactive = p.OpenFileCacheMax, p.OpenFileCacheInactive
	}
	if !set("open_file_cache_valid") {
		l.OpenFileCacheValid = p.OpenFileCacheValid
	}
	if !set("open_file_cache_errors") {
		l.OpenFileCacheErrors = p.OpenFileCacheErrors
	}
	if !set("allow", "deny") {
		l.Access = p.Access
	}
	if !set("access_log") {
		l.AccessLogs = p.AccessLogs
	}
	if !set("open_log_file_cache") {
		l.LogFileCache = p.LogFileCache
	}
	if !set("add_header") {
		l.AddHeaders = p.AddHeaders
	}
	if !set("expires") {
		l.Expires = p.Expires
	}
	if !set("rewrite_log") {
		l.RewriteLog = p.RewriteLog
	}
	if !set("uninitialized_variable_warn") {
		l.UninitializedVarWarn = p.UninitializedVarWarn
	}
	c.mergeGzip(l, p)
	c.mergeFastCGI(l, p)
}

// mergeServer fills a server's own settings from the http level.
func (c *compiler) mergeServer(s *Server) {
	h := c.httpSrv
	set := func(name string) bool { return c.isSet(s.Loc, name) }
	hset := func(name string) bool { return c.isSet(c.httpLoc, name) }
	pick := func(name string, def bool, own, http bool) bool {
		if set(name) {
			return own
		}
		if hset(name) {
			return http
		}
		return def
	}
	s.MergeSlashes = pick("merge_slashes", true, s.MergeSlashes, h.MergeSlashes)
	s.UnderscoresInHeaders = pick("underscores_in_headers", false, s.UnderscoresInHeaders, h.UnderscoresInHeaders)
	s.IgnoreInvalidHeaders = pick("ignore_invalid_headers", true, s.IgnoreInvalidHeaders, h.IgnoreInvalidHeaders)
	s.HTTP2 = pick("http2", false, s.HTTP2, h.HTTP2)
	if !set("client_header_timeout") {
		s.ClientHeaderTimeout = h.ClientHeaderTimeout
		if !hset("client_header_timeout") {
			s.ClientHeaderTimeout = 60 * time.Second
		}
	}
	if !set("large_client_header_buffers") {
		s.LargeHeaderBuffers, s.LargeHeaderBufferSize = h.LargeHeaderBuffers, h.LargeHeaderBufferSize
		if !hset("large_client_header_buffers") {
			s.LargeHeaderBuffers, s.LargeHeaderBufferSize = 4, 8<<10
		}
	}
	if !set("max_headers") {
		s.MaxHeaders = h.MaxHeaders
		if !hset("max_headers") {
			s.MaxHeaders = 1000
		}
	}
	if s.TLS == nil && c.onSSL(s) {
		s.TLS = &ServerTLS{}
	}
	if s.TLS != nil {
		c.mergeTLS(s)
	}
}

func setWorkerProcesses(c *compiler, f *frame, d *Directive) error {
	if d.Args[0] == "auto" {
		c.plan.Main.WorkerProcesses = 0
		return nil
	}
	n, err := strconv.Atoi(d.Args[0])
	if err != nil || n < 1 {
		return emergf(d, "invalid value \"%s\" in \"worker_processes\" directive", d.Args[0])
	}
	c.plan.Main.WorkerProcesses = n
	return nil
}

// setUser accepts "user": edge is one process and does not switch users
// (a single Go process cannot drop privileges and still reopen logs or
// bind new ports on reload); say so instead of ignoring it silently.
func setUser(c *compiler, f *frame, d *Directive) error {
	c.plan.Main.User = d.Args[0]
	if os.Geteuid() == 0 && d.Args[0] != "root" {
		c.warnf(d, "edge does not switch to user \"%s\"; run it as that user (with CAP_NET_BIND_SERVICE for ports below 1024)", d.Args[0])
	}
	return nil
}

func setWorkerConnections(c *compiler, f *frame, d *Directive) error {
	n, err := strconv.Atoi(d.Args[0])
	if err != nil || n < 1 {
		return emergf(d, "invalid number \"%s\"", d.Args[0])
	}
	c.plan.Main.WorkerConnections = n
	return nil
}

func setPid(c *compiler, f *frame, d *Directive) error {
	if d.Args[0] == "off" {
		c.plan.Main.PidFile = ""
		return nil
	}
	c.plan.Main.PidFile = c.path(d.Args[0])
	return nil
}

// setErrorLog reads "error_log file [level]". edge has one error log; a
// location-level error_log is accepted and applies server-wide.
func setErrorLog(c *compiler, f *frame, d *Directive) error {
	if len(d.Args) > 2 {
		return emergf(d, "invalid number of arguments in \"error_log\" directive")
	}
	el := ErrorLog{Path: d.Args[0], Level: LevelError}
	switch {
	case el.Path == "stderr":
	case strings.HasPrefix(el.Path, "syslog:"):
		t, err := parseSyslog(d, el.Path)
		if err != nil {
			return err
		}
		el.Syslog = t
	case strings.HasPrefix(el.Path, "memory:"):
		return emergf(d, "error_log to memory is not supported by edge")
	case el.Path == "/dev/null":
	default:
		el.Path = c.path(el.Path)
	}
	if len(d.Args) == 2 {
		lv, ok := ParseLevel(d.Args[1])
		if !ok {
			return emergf(d, "invalid log level \"%s\"", d.Args[1])
		}
		el.Level = lv
	}
	if f.ctx != ctxMain {
		c.warnf(d, "edge writes one error log; \"error_log\" here is applied to the whole process")
	}
	if !c.isSet(c.mainLoc, "error_log_seen") {
		c.plan.Main.ErrorLogs = nil
		c.mark(c.mainLoc, "error_log_seen")
	}
	c.plan.Main.ErrorLogs = append(c.plan.Main.ErrorLogs, el)
	return nil
}

func setLargeHeaderBuffers(c *compiler, f *frame, d *Directive) error {
	n, err := strconv.Atoi(d.Args[0])
	if err != nil || n < 1 {
		return emergf(d, "invalid value \"%s\" in \"%s\" directive", d.Args[0], d.Name)
	}
	size, err := parseSize(d, d.Args[1])
	if err != nil {
		return err
	}
	if size < 64 {
		return emergf(d, "invalid value \"%s\" in \"%s\" directive", d.Args[1], d.Name)
	}
	f.srv.LargeHeaderBuffers, f.srv.LargeHeaderBufferSize = n, int(size)
	return nil
}

func setRoot(c *compiler, f *frame, d *Directive) error {
	other := "alias"
	if d.Name == "alias" {
		other = "root"
	}
	if c.isSet(f.loc, other) {
		return emergf(d, "\"%s\" directive is duplicate, \"%s\" directive was specified earlier", d.Name, other)
	}
	if f.loc.Kind == LocNamed && d.Name == "alias" {
		return emergf(d, "\"alias\" directive cannot be used inside the named location")
	}
	p := d.Args[0]
	if d.Name == "root" && strings.HasSuffix(p, "/") && len(p) > 1 {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
	}
	if !strings.HasPrefix(p, "$") {
		p = c.path(p)
	}
	s, err := c.compileScript(d, p)
	if err != nil {
		return err
	}
	f.loc.Root, f.loc.Alias = s, d.Name == "alias"
	return nil
}

func setIndex(c *compiler, f *frame, d *Directive) error {
	if !c.isSet(f.loc, "index_seen") {
		f.loc.Index = nil
		c.mark(f.loc, "index_seen")
	}
	for _, a := range d.Args {
		if a == "" {
			return emergf(d, "index \"%s\" in \"index\" directive is invalid", a)
		}
		s, err := c.compileScript(d, a)
		if err != nil {
			return err
		}
		f.loc.Index = append(f.loc.Index, s)
	}
	return nil
}

func setTryFiles(c *compiler, f *frame, d *Directive) error {
	var list []TryFile
	for i, a := range d.Args {
		last := i == len(d.Args)-1
		tf := TryFile{}
		switch {
		case last && strings.HasPrefix(a, "="):
			code, err := strconv.Atoi(a[1:])
			if err != nil || code < 100 || code > 999 {
				return emergf(d, "invalid code \"%s\"", a)
			}
			tf.Code = code
		case last && strings.HasPrefix(a, "@"):
			tf.Named = a
		default:
			p := a
			// Only a file argument (not the final URI) ending in "/" tests
			// for a directory; the slash is dropped from the name, as nginx does.
			if !last && strings.HasSuffix(p, "/") && len(p) > 1 {
				tf.Dir = true
				p = p[:len(p)-1]
			}
			s, err := c.compileScript(d, p)
			if err != nil {
				return err
			}
			tf.Path = s
			tf.URI = last
		}
		list = append(list, tf)
	}
	f.loc.TryFiles = list
	return nil
}

// setTypes reads a types{} block: each entry is "mime/type ext ext ...".
func setTypes(c *compiler, f *frame, d *Directive) error {
	if !c.isSet(f.loc, "types_seen") {
		f.loc.Types = map[string]string{}
		c.mark(f.loc, "types_seen")
	}
	for _, e := range d.Block {
		if e.HasBlock || len(e.Args) == 0 {
			return emergf(e, "invalid number of arguments in \"types\" directive")
		}
		for _, ext := range e.Args {
			ext = strings.ToLower(ext)
			if old, ok := f.loc.Types[ext]; ok && old != e.Name {
				c.warnf(e, "duplicate extension \"%s\", content type: \"%s\", previous content type: \"%s\"", ext, e.Name, old)
			}
			f.loc.Types[ext] = e.Name
		}
	}
	return nil
}

// setErrorPage reads "error_page code ... [=[response]] uri".
func setErrorPage(c *compiler, f *frame, d *Directive) error {
	if !c.isSet(f.loc, "error_page_seen") {
		f.loc.ErrorPages = map[int]*ErrorPage{}
		c.mark(f.loc, "error_page_seen")
	}
	args := d.Args
	uri := args[len(args)-1]
	args = args[:len(args)-1]
	ep := &ErrorPage{}
	if last := args[len(args)-1]; strings.HasPrefix(last, "=") {
		args = args[:len(args)-1]
		if last == "=" {
			ep.Override = -1
		} else {
			code, err := strconv.Atoi(last[1:])
			if err != nil || code < 100 || code > 999 {
				return emergf(d, "invalid value \"%s\"", last)
			}
			ep.Override = code
		}
		if len(args) == 0 {
			return emergf(d, "invalid number of arguments in \"error_page\" directive")
		}
	}
	if strings.HasPrefix(uri, "@") {
		ep.Named = uri
	} else {
		s, err := c.compileScript(d, uri)
		if err != nil {
			return err
		}
		ep.URI = s
		ep.Redirect = !strings.HasPrefix(uri, "/") && !strings.HasPrefix(uri, "$")
	}
	for _, a := range args {
		code, err := strconv.Atoi(a)
		if err != nil {
			return emergf(d, "invalid value \"%s\"", a)
		}
		if code < 300 || code > 599 {
			return emergf(d, "value \"%d\" must be between 300 and 599", code)
		}
		if code == 499 {
			return emergf(d, "value \"499\" must be between 300 and 599 and not 499")
		}
		f.loc.ErrorPages[code] = ep
	}
	return nil
}

func setKeepaliveTimeout(c *compiler, f *frame, d *Directive) error {
	t, err := parseTime(d, d.Args[0])
	if err != nil {
		return err
	}
	f.loc.KeepaliveTimeout, f.loc.KeepaliveHeader = t, -1
	if len(d.Args) == 2 {
		h, err := parseTime(d, d.Args[1])
		if err != nil {
			return err
		}
		f.loc.KeepaliveHeader = h
	}
	return nil
}

func setCharset(c *compiler, f *frame, d *Directive) error {
	v := strings.ToLower(d.Args[0])
	switch v {
	case "off":
		f.loc.Charset = ""
	case "utf-8", "utf8":
		f.loc.Charset = d.Args[0]
	default:
		if strings.HasPrefix(v, "$") {
			return emergf(d, "a variable in \"charset\" is not supported by edge")
		}
		// Other charsets are labels only; edge does not recode bodies.
		f.loc.Charset = d.Args[0]
		c.warnf(d, "edge labels responses with charset \"%s\" but never recodes them (no charset_map)", d.Args[0])
	}
	return nil
}

func setOpenFileCache(c *compiler, f *frame, d *Directive) error {
	if d.Args[0] == "off" {
		f.loc.OpenFileCacheMax = 0
		return nil
	}
	for _, a := range d.Args {
		switch {
		case strings.HasPrefix(a, "max="):
			n, err := strconv.Atoi(a[4:])
			if err != nil || n <= 0 {
				return emergf(d, "invalid \"max\" value \"%s\" in \"%s\" directive", a, d.Name)
			}
			f.loc.OpenFileCacheMax = n
		case strings.HasPrefix(a, "inactive="):
			t, err := parseTime(d, a[9:])
			if err != nil {
				return err
			}
			f.loc.OpenFileCacheInactive = t
		default:
			return emergf(d, "invalid \"open_file_cache\" parameter \"%s\"", a)
		}
	}
	return nil
}

// setAccess reads allow/deny: an address, a CIDR, "unix:" or "all".
func setAccess(c *compiler, f *frame, d *Directive) error {
	r := AccessRule{Allow: d.Name == "allow"}
	a := d.Args[0]
	switch {
	case a == "all":
		r.All = true
	case a == "unix:":
		r.Unix = true
	case strings.Contains(a, "/"):
		p, err := netip.ParsePrefix(a)
		if err != nil {
			return emergf(d, "invalid parameter \"%s\"", a)
		}
		if p.Masked() != p {
			c.warnf(d, "low address bits of %s are meaningless", a)
		}
		r.Net = p.Masked()
	default:
		ip, err := netip.ParseAddr(a)
		if err != nil {
			return emergf(d, "invalid parameter \"%s\"", a)
		}
		r.Net = netip.PrefixFrom(ip, ip.BitLen())
	}
	f.loc.Access = append(f.loc.Access, r)
	return nil
}

// parseSize reads nginx's sizes: a number with an optional k/m/g suffix.
func parseSize(d *Directive, s string) (int64, error) {
	if s == "" {
		return 0, emergf(d, "\"%s\" directive invalid value", d.Name)
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		mult, s = 1<<10, s[:len(s)-1]
	case 'm', 'M':
		mult, s = 1<<20, s[:len(s)-1]
	case 'g', 'G':
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, emergf(d, "\"%s\" directive invalid value", d.Name)
	}
	return n * mult, nil
}

// parseTime reads nginx's times: "30", "30s", "1h30m", "500ms", "1d",
// "2w", "1M" (30 days), "1y" (365 days). A bare number means seconds.
func parseTime(d *Directive, s string) (time.Duration, error) {
	t, ok := ParseDuration(s)
	if !ok {
		return 0, emergf(d, "\"%s\" directive invalid value", d.Name)
	}
	return t, nil
}

// ParseDuration reads a time in nginx's syntax (see parseTime).
func ParseDuration(s string) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	var total time.Duration
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil {
			return 0, false
		}
		s = s[i:]
		unit := time.Second
		switch {
		case strings.HasPrefix(s, "ms"):
			unit, s = time.Millisecond, s[2:]
		case s == "":
		default:
			switch s[0] {
			case 's':
				unit = time.Second
			case 'm':
				unit = time.Minute
			case 'h':
				unit = time.Hour
			case 'd':
				unit = 24 * time.Hour
			case 'w':
				unit = 7 * 24 * time.Hour
			case 'M':
				unit = 30 * 24 * time.Hour
			case 'y':
				unit = 365 * 24 * time.Hour
			case ' ':
				unit = time.Second
			default:
				return 0, false
			}
			s = strings.TrimLeft(s[1:], " ")
		}
		total += time.Duration(n) * unit
	}
	return total, true
}

func parseInt(d *Directive, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, emergf(d, "invalid number \"%s\"", s)
	}
	return n, nil
}
