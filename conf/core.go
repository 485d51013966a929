// This file holds the directive table of the core modules (main, events,
// http core, index, access, autoindex, charset). Each entry of a setting
// carries nginx's default and merge rule (ngx_http_core_merge_loc_conf
// and its siblings) in its slot (slots.go).
package conf

import (
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

func init() {
	register(mainSpecs()...)
	register(serverSpecs()...)
	register(locationSpecs()...)
	register(locationSpecs2()...)
}

// mainSpecs are the main and events directives.
func mainSpecs() []*spec {
	return []*spec{
		&spec{name: "worker_processes", ctx: ctxMain, args: take1, set: setWorkerProcesses},
		&spec{name: "worker_connections", ctx: ctxEvents, args: take1, set: setWorkerConnections},
		&spec{name: "pid", ctx: ctxMain, args: take1, set: setPid},
		// error_log at the main level is the process's; in http, a server
		// or a location it is where that level's requests log, inherited
		// as a whole (a level with its own replaces its parent's).
		(&spec{name: "error_log", ctx: ctxMain | ctxHSL, args: take1More, set: setErrorLog, multi: true}).setSlot(
			fieldFunc(func(l *LocConf) *[]ErrorLog { return &l.ErrorLogs }, func(*compiler) []ErrorLog { return nil })),
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
	}
}

// serverSpecs are the settings of a server itself (http -> server).
func serverSpecs() []*spec {
	return []*spec{
		&spec{name: "listen", ctx: ctxServer, args: take1More, set: setListen, multi: true, local: true},
		&spec{name: "server_name", ctx: ctxServer, args: take1More, set: setServerName, multi: true, local: true},
		flagSlot("merge_slashes", ctxHS, atSrv, func(s *Server) *bool { return &s.MergeSlashes }, true),
		flagSlot("underscores_in_headers", ctxHS, atSrv, func(s *Server) *bool { return &s.UnderscoresInHeaders }, false),
		flagSlot("ignore_invalid_headers", ctxHS, atSrv, func(s *Server) *bool { return &s.IgnoreInvalidHeaders }, true),
		msecSlot("client_header_timeout", ctxHS, atSrv, func(s *Server) *time.Duration { return &s.ClientHeaderTimeout }, 60*time.Second),
		(&spec{name: "large_client_header_buffers", ctx: ctxHS, args: take2, set: setLargeHeaderBuffers}).setSlot(fields(
			field(func(s *Server) *int { return &s.LargeHeaderBuffers }, 4),
			field(func(s *Server) *int { return &s.LargeHeaderBufferSize }, 8<<10))),
		// max_headers is nginx 1.29.8's, also in Debian's 1.22.1 since
		// 1.22.1-9+deb12u11.
		numSlot("max_headers", ctxHS, atSrv, func(s *Server) *int { return &s.MaxHeaders }, 1000),
		http2Spec[0],
		// The default server's value is announced in SETTINGS, as nginx
		// announces the one of the server that took the connection.
		numSlot("http2_max_concurrent_streams", ctxHS, atSrv, func(s *Server) *int { return &s.HTTP2MaxConcurrentStreams }, 128),
	}
}

// http2Spec is "http2", whose being written anywhere also decides a TLS
// server's ALPN (mergeTLS).
var http2Spec = []*spec{flagSlot("http2", ctxHS, atSrv, func(s *Server) *bool { return &s.HTTP2 }, false)}

// rootSlot is root's and alias's: one setting, as in nginx.
var rootSlot = func() *slot[LocConf] {
	s := fields(
		fieldFunc(func(l *LocConf) **Script { return &l.Root }, func(c *compiler) *Script {
			// nginx's default root "html" is relative to the prefix.
			return StaticScript(c.path("html"))
		}),
		field(func(l *LocConf) *bool { return &l.Alias }, false),
		field(func(l *LocConf) *int { return &l.AliasStrip }, 0))
	s.show = func(l *LocConf) string {
		if l.Alias {
			return "alias " + l.Root.Raw
		}
		return l.Root.Raw
	}
	return s
}()

// accessSlot is allow's and deny's: one list of rules in file order.
var accessSlot = field(func(l *LocConf) *[]AccessRule { return &l.Access }, nil)

// locationSpecs are the http core module's location settings.
func locationSpecs() []*spec {
	return []*spec{
		(&spec{name: "root", ctx: ctxHSLif, args: take1, set: setRoot}).setSlot(rootSlot),
		(&spec{name: "alias", ctx: ctxLocation, args: take1, set: setRoot}).setSlot(rootSlot),
		(&spec{name: "index", ctx: ctxHSL, args: take1More, multi: true, set: setIndex}).setSlot(
			field(func(l *LocConf) *[]*Script { return &l.Index }, []*Script{StaticScript("index.html")})),
		// try_files is never inherited, as in nginx.
		&spec{name: "try_files", ctx: ctxSL, args: take2More, set: setTryFiles, local: true},
		&spec{name: "internal", ctx: ctxLocation, args: take0, local: true, set: func(c *compiler, f *frame, d *Directive) error { f.loc.Internal = true; return nil }},
		// Several types blocks at one level add to one map, as in nginx
		// (Nextcloud's config follows "include mime.types" with its own).
		(&spec{name: "types", ctx: ctxHSL, args: take0 | isBlock, multi: true, set: setTypes}).setSlot(
			field(func(l *LocConf) *map[string]string { return &l.Types }, map[string]string{"html": "text/html", "gif": "image/gif", "jpg": "image/jpeg"})),
		strSlot("default_type", ctxHSLif, atLoc, func(l *LocConf) *string { return &l.DefaultType }, "text/plain"),
		(&spec{name: "error_page", ctx: ctxHSLif, args: take2More, multi: true, set: setErrorPage}).setSlot(
			field(func(l *LocConf) *map[int]*ErrorPage { return &l.ErrorPages }, nil)),
		flagSlot("recursive_error_pages", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.RecursiveErrorPages }, false),
		flagSlot("log_not_found", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.LogNotFound }, true),
		flagSlot("log_subrequest", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.LogSubrequest }, false),
		(&spec{name: "keepalive_timeout", ctx: ctxHSL, args: take12, set: setKeepaliveTimeout}).setSlot(fields(
			field(func(l *LocConf) *time.Duration { return &l.KeepaliveTimeout }, 75*time.Second),
			field(func(l *LocConf) *time.Duration { return &l.KeepaliveHeader }, -1))),
		numSlot("keepalive_requests", ctxHSL, atLoc, func(l *LocConf) *int { return &l.KeepaliveRequests }, 1000),
		// keepalive_time and keepalive_disable are accepted (checked, no effect).
		&spec{name: "keepalive_time", ctx: ctxHSL, args: take1, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			_, err := parseTime(d, d.Args[0])
			return err
		}},
		&spec{name: "keepalive_disable", ctx: ctxHSL, args: take12, local: true, set: func(c *compiler, f *frame, d *Directive) error { return nil }},
		sizeSlot("client_max_body_size", ctxHSL, atLoc, func(l *LocConf) *int64 { return &l.ClientMaxBodySize }, 1<<20),
		sizeSlot("client_body_buffer_size", ctxHSL, atLoc, func(l *LocConf) *int64 { return &l.ClientBodyBufferSize }, 16<<10),
		msecSlot("client_body_timeout", ctxHSL, atLoc, func(l *LocConf) *time.Duration { return &l.ClientBodyTimeout }, 60*time.Second),
		(&spec{name: "client_body_temp_path", ctx: ctxHSL, args: take1234, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.ClientBodyTempPath = c.path(d.Args[0])
			return nil
		}}).setSlot(fieldFunc(func(l *LocConf) *string { return &l.ClientBodyTempPath }, func(c *compiler) string { return c.path("client_body_temp") })),
		value("client_body_in_file_only", ctxHSL, take1, atLoc, func(l *LocConf) *bool { return &l.ClientBodyInFileOnly }, false, parseInFileOnly),
		msecSlot("send_timeout", ctxHSL, atLoc, func(l *LocConf) *time.Duration { return &l.SendTimeout }, 60*time.Second),
		enumSlot("server_tokens", ctxHSL, atLoc, func(l *LocConf) *string { return &l.ServerTokens }, "on", "on", "off", "build"),
		flagSlot("etag", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.Etag }, true),
		enumSlot("if_modified_since", ctxHSL, atLoc, func(l *LocConf) *string { return &l.IfModifiedSince }, "exact", "off", "exact", "before"),
		flagSlot("absolute_redirect", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.AbsoluteRedirect }, true),
		flagSlot("server_name_in_redirect", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.ServerNameInRedirect }, false),
		flagSlot("port_in_redirect", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.PortInRedirect }, true),
		// chunked_transfer_encoding is accepted (docs/directives.md).
		&spec{name: "chunked_transfer_encoding", ctx: ctxHSL, args: takeFlag, local: true, set: func(c *compiler, f *frame, d *Directive) error { return nil }},
	}
}

// locationSpecs2 are the location settings of the autoindex, charset and
// access modules and the open file cache.
func locationSpecs2() []*spec {
	return []*spec{
		flagSlot("autoindex", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.Autoindex }, false),
		flagSlot("autoindex_exact_size", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.AutoindexExactSize }, true),
		flagSlot("autoindex_localtime", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.AutoindexLocaltime }, false),
		value("autoindex_format", ctxHSL, take1, atLoc, func(l *LocConf) *string { return &l.AutoindexFormat }, "html", parseAutoindexFormat),
		(&spec{name: "charset", ctx: ctxHSLif, args: take1, set: setCharset}).setSlot(
			field(func(l *LocConf) *string { return &l.Charset }, "")),
		strSlot("source_charset", ctxHSLif, atLoc, func(l *LocConf) *string { return &l.SourceCharset }, ""),
		flagSlot("override_charset", ctxHSLif, atLoc, func(l *LocConf) *bool { return &l.OverrideCharset }, false),
		value("charset_types", ctxHSL, take1More, atLoc, func(l *LocConf) *map[string]bool { return &l.CharsetTypes },
			map[string]bool{"text/html": true, "text/xml": true, "text/plain": true, "text/vnd.wap.wml": true, "application/javascript": true, "application/rss+xml": true},
			parseTypesList),
		(&spec{name: "open_file_cache", ctx: ctxHSL, args: take12, set: setOpenFileCache}).setSlot(fields(
			field(func(l *LocConf) *int { return &l.OpenFileCacheMax }, 0),
			field(func(l *LocConf) *time.Duration { return &l.OpenFileCacheInactive }, 0))),
		msecSlot("open_file_cache_valid", ctxHSL, atLoc, func(l *LocConf) *time.Duration { return &l.OpenFileCacheValid }, time.Second),
		flagSlot("open_file_cache_errors", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.OpenFileCacheErrors }, false),
		&spec{name: "disable_symlinks", ctx: ctxHSL, args: take12, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			switch d.Args[0] {
			case "off":
				return nil
			}
			return emergf(d, "\"disable_symlinks %s\" is not supported by edge", d.Args[0])
		}},

		// access
		(&spec{name: "allow", ctx: ctxHSL | ctxLimitExcept, args: take1, multi: true, set: setAccess}).setSlot(accessSlot),
		(&spec{name: "deny", ctx: ctxHSL | ctxLimitExcept, args: take1, multi: true, set: setAccess}).setSlot(accessSlot),

		// handlers with no settings
		&spec{name: "stub_status", ctx: ctxSL, args: take0 | take1, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.Content = Content{Kind: ContentStubStatus}
			return nil
		}},
		&spec{name: "empty_gif", ctx: ctxLocation, args: take0, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.Content = Content{Kind: ContentEmptyGIF}
			return nil
		}},
	}
}

// mergeServer fills a server's own settings from the http level, and its
// TLS settings (ssl.go).
func (c *compiler) mergeServer(s *Server) {
	mergeSlots(c, srvSlots, s.Loc, s, c.httpSrv)
	if s.TLS == nil && c.onSSL(s) {
		s.TLS = &ServerTLS{}
	}
	if s.TLS != nil {
		c.mergeTLS(s)
	}
}

func parseInFileOnly(c *compiler, d *Directive) (bool, error) {
	switch d.Args[0] {
	case "on", "clean":
		return true, nil
	case "off":
		return false, nil
	}
	return false, emergf(d, "invalid value \"%s\" in \"%s\" directive", d.Args[0], d.Name)
}

func parseAutoindexFormat(c *compiler, d *Directive) (string, error) {
	switch d.Args[0] {
	case "html", "xml", "json", "jsonp":
		return d.Args[0], nil
	}
	return "", emergf(d, "invalid value \"%s\"", d.Args[0])
}

// parseTypesList reads a *_types list: text/html is always in it
// (ngx_http_types_slot adds it to every *_types directive); "*" stands
// for any type.
func parseTypesList(c *compiler, d *Directive) (map[string]bool, error) {
	m := map[string]bool{"text/html": true}
	for _, t := range d.Args {
		m[strings.ToLower(t)] = true
	}
	return m, nil
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

// setErrorLog reads "error_log file [level]": the process's at the main
// level, else its level's requests'.
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
		f.loc.ErrorLogs = append(f.loc.ErrorLogs, el)
		return nil
	}
	c.mainErrorLog = true
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
	// f.loc.Root is set at this level only by root or alias (merging
	// comes later).
	if f.loc.Root != nil {
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
	if f.loc.Alias {
		f.loc.AliasStrip = len(f.loc.Name)
		if f.loc.Kind == LocRegex {
			f.loc.AliasStrip = -1
		}
	}
	return nil
}

func setIndex(c *compiler, f *frame, d *Directive) error {
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
	if f.loc.Types == nil {
		f.loc.Types = map[string]string{}
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
	if f.loc.ErrorPages == nil {
		f.loc.ErrorPages = map[int]*ErrorPage{}
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

// parseSize reads nginx's sizes: a number with an optional k/m/g suffix
// (ParseSize).
func parseSize(d *Directive, s string) (int64, error) {
	n, ok := ParseSize(s)
	if !ok {
		return 0, emergf(d, "\"%s\" directive invalid value", d.Name)
	}
	return n, nil
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
