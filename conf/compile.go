// This file holds the compile step: it walks the syntax tree with the
// directive tables, builds the http/server/location structure, merges
// inherited settings the way nginx's merge_loc_conf functions do, resolves
// variables and returns an immutable Plan.
package conf

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LoadOptions controls Load and LoadText. Everything the command line
// changes in a configuration enters here, so that the Plan is complete
// when it is returned and never edited afterwards.
type LoadOptions struct {
	// Prefix is nginx's -p: relative paths in the configuration (pid,
	// logs, root) resolve against it. Empty means the directory of the
	// configuration file's parent, like nginx's default prefix; callers
	// usually set it.
	Prefix string
	// ConfPrefix is the directory includes resolve against; empty means
	// the directory of the main file (for LoadText, Prefix).
	ConfPrefix string
	// Extra is the text of -g: directives read as if they ended the main
	// context.
	Extra string
	// ErrorLog is nginx's -e: the error log when the main level names
	// none ("" keeps nginx's default, logs/error.log under the prefix).
	ErrorLog string
	// Builtins reads edge's shipped copy of mime.types, fastcgi_params
	// and fastcgi.conf when the file named does not exist, with a
	// [notice] for each (ReadFileWithBuiltins).
	Builtins bool
	// ReadFile and Glob replace file access (nil: the os package).
	ReadFile ReadFileFunc
	Glob     GlobFunc
	// LookupHost replaces the system resolver for the names the
	// configuration resolves at load (nil: lookupHost).
	LookupHost LookupFunc
}

// LookupFunc returns a host name's addresses, none when it has none.
type LookupFunc func(host string) []netip.Addr

// Load parses and compiles a configuration file.
func Load(path string, o LoadOptions) (*Plan, error) {
	read, notices := o.reader()
	tree, err := ParseFile(path, ParseOptions{Prefix: o.ConfPrefix, ReadFile: read, Glob: o.Glob, Extra: o.Extra})
	if err != nil {
		return nil, err
	}
	prefix := o.Prefix
	if prefix == "" {
		prefix = filepath.Dir(path)
	}
	confPrefix := o.ConfPrefix
	if confPrefix == "" {
		confPrefix = filepath.Dir(path)
	}
	return compile(tree, CompileOptions{Path: path, Prefix: prefix, ConfPrefix: confPrefix, LookupHost: o.LookupHost}, o, *notices)
}

// LoadText parses and compiles a configuration given as text (edge's
// built-in site); name stands for its file in messages and dumps.
func LoadText(name string, src []byte, o LoadOptions) (*Plan, error) {
	read, notices := o.reader()
	confPrefix := o.ConfPrefix
	if confPrefix == "" {
		confPrefix = o.Prefix
	}
	tree, err := ParseBytes(name, src, ParseOptions{Prefix: confPrefix, ReadFile: read, Glob: o.Glob, Extra: o.Extra})
	if err != nil {
		return nil, err
	}
	return compile(tree, CompileOptions{Path: name, Prefix: o.Prefix, ConfPrefix: confPrefix, LookupHost: o.LookupHost}, o, *notices)
}

// reader is the file reader of o, and where it records the shipped
// copies it used in their place.
func (o LoadOptions) reader() (ReadFileFunc, *[]*Error) {
	notices := new([]*Error)
	read := o.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	if !o.Builtins {
		return read, notices
	}
	return func(path string) ([]byte, error) {
		data, builtin, err := readWithBuiltins(read, path)
		if builtin {
			*notices = append(*notices, &Error{Level: LevelNotice,
				Msg: fmt.Sprintf("\"%s\" does not exist; using edge's built-in %s", path, filepath.Base(path))})
		}
		return data, err
	}, notices
}

// CompileOptions says where a tree came from.
type CompileOptions struct {
	Path   string // the main file, for messages
	Prefix string // relative paths resolve against it
	// ConfPrefix is nginx's conf prefix, the directory of the main file:
	// the TLS files (ssl_certificate and its neighbours) resolve against
	// it, as includes do. Empty means Prefix.
	ConfPrefix string
	// LookupHost is LoadOptions.LookupHost.
	LookupHost LookupFunc
}

// compiler holds the state of one compilation.
type compiler struct {
	plan       *Plan
	prefix     string
	confPrefix string // see CompileOptions.ConfPrefix

	pendingVars []pendingVar
	slots       map[string]int
	slotNames   []string
	slotMaps    []*Map

	// set records which directives were given at each level (keyed by the
	// level's Location), for "is duplicate" and for merging.
	set map[*Location]map[*spec]bool
	// ifs holds the "if" locations under each location, for merging.
	ifs map[*Location][]*Location

	mainLoc *Location // the level key for main/events directives
	httpLoc *Location // http-level location settings
	httpSrv *Server   // http-level server settings
	// httpTLS is the http level's TLS settings with the defaults merged,
	// what servers inherit (ssl.go).
	httpTLS *ServerTLS
	// events is true once an events{} block was read.
	events bool
	// mainErrorLog is true once an error_log was read at the main level.
	mainErrorLog bool
	// errorLog is LoadOptions.ErrorLog (-e).
	errorLog string
	// modules are the built-in modules load_module named (modules.go).
	modules map[string]bool

	fastcgiPasses []*FastCGIPass
	proxyPasses   []*ProxyPass
	cacheRefs     []cacheRef // zones named by fastcgi_cache* (cache.go)
	// sslAddrs are the TLS addresses ("tcp 127.0.0.1:443"; markSSLAddrs).
	sslAddrs    map[string]bool
	fpmPools    []*FPMPool
	acmeIssuers map[string]*ACMEIssuer // acme_issuer blocks by name (ssl.go)
	// resolved says which host names of *_pass and upstream servers the
	// system resolved at this load (proxy.go's hostResolves); lookup
	// resolves the names (CompileOptions.LookupHost, nil for lookupHost).
	resolved map[string]bool
	lookupFn LookupFunc
	// logBuffers is the buffer= and flush= of the first buffered
	// access_log to each file (logs.go).
	logBuffers map[string]*AccessLog
}

// frame is the context a directive is read in.
type frame struct {
	ctx  ctx
	srv  *Server
	loc  *Location // the level's settings (also the duplicate-check key)
	prog *[]Op     // where rewrite-module directives append
	up   *Upstream
	acme *ACMEIssuer // inside acme_issuer{} (ssl.go)
}

// Compile turns a syntax tree into a Plan.
func Compile(tree *Tree, o CompileOptions) (*Plan, error) {
	return compile(tree, o, LoadOptions{}, nil)
}

// compile is Compile with the command line's overrides (lo.ErrorLog) and
// the notices loading produced, which end the plan's warnings.
func compile(tree *Tree, o CompileOptions, lo LoadOptions, notices []*Error) (*Plan, error) {
	c := &compiler{
		errorLog:   lo.ErrorLog,
		plan:       &Plan{Tree: tree, Path: o.Path, Prefix: o.Prefix},
		prefix:     o.Prefix,
		confPrefix: o.ConfPrefix,
		lookupFn:   o.LookupHost,
		slots:      map[string]int{},
		set:        map[*Location]map[*spec]bool{},
		ifs:        map[*Location][]*Location{},
		mainLoc:    &Location{},
		httpLoc:    &Location{Kind: LocServer},
		httpSrv:    &Server{},
	}
	c.plan.Main = MainConf{WorkerProcesses: 1, Daemon: true, PidFile: c.path("logs/nginx.pid")}
	f := &frame{ctx: ctxMain, loc: c.mainLoc}
	if err := c.block(f, tree.Main); err != nil {
		return nil, err
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	c.plan.Warnings = append(c.plan.Warnings, notices...)
	return c.plan, nil
}

// block reads a list of directives in one context.
func (c *compiler) block(f *frame, list []*Directive) error {
	for _, d := range list {
		s, err := c.lookup(d, f.ctx)
		if err != nil {
			return err
		}
		if s == nil {
			continue
		}
		if err := c.apply(f, s, d); err != nil {
			return err
		}
	}
	return nil
}

// apply runs a directive's setter at the level f, after the duplicate
// check, and records that it was given there.
func (c *compiler) apply(f *frame, s *spec, d *Directive) error {
	m := c.set[f.loc]
	if m == nil {
		m = map[*spec]bool{}
		c.set[f.loc] = m
	}
	if !s.multi && m[s] {
		return emergf(d, "\"%s\" directive is duplicate", d.Name)
	}
	m[s] = true
	return s.set(c, f, d)
}

// given reports whether one of specs was given at the level l.
func (c *compiler) given(l *Location, specs []*spec) bool {
	m := c.set[l]
	for _, s := range specs {
		if m[s] {
			return true
		}
	}
	return false
}

func (c *compiler) warnf(d *Directive, format string, args ...any) {
	e := emergf(d, format, args...)
	e.Level = LevelWarn
	c.plan.Warnings = append(c.plan.Warnings, e)
}

func (c *compiler) noticef(d *Directive, format string, args ...any) {
	e := emergf(d, format, args...)
	e.Level = LevelNotice
	c.plan.Warnings = append(c.plan.Warnings, e)
}

// path resolves a relative path against the prefix, like nginx's
// ngx_conf_full_name.
func (c *compiler) path(p string) string {
	if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "$") {
		return p
	}
	return filepath.Join(c.prefix, p)
}

// confPath resolves a relative path against the conf prefix, as nginx's
// ngx_conf_full_name(cycle, name, 1) does for the files TLS reads.
func (c *compiler) confPath(p string) string {
	if c.confPrefix == "" || p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "$") {
		return c.path(p)
	}
	return filepath.Join(c.confPrefix, p)
}

func init() {
	register(
		&spec{name: "http", ctx: ctxMain, args: take0 | isBlock, set: setHTTP},
		&spec{name: "events", ctx: ctxMain, args: take0 | isBlock, set: setEvents},
		&spec{name: "server", ctx: ctxHTTP, args: take0 | isBlock, local: true, set: setServer, multi: true},
		&spec{name: "location", ctx: ctxServer | ctxLocation, args: take12 | isBlock, local: true, set: setLocation, multi: true},
	)
}

func setHTTP(c *compiler, f *frame, d *Directive) error {
	c.plan.HTTP = &HTTPConf{LogFormats: map[string]*LogFormat{}, Upstreams: map[string]*Upstream{}}
	c.plan.HTTP.LogFormats["combined"] = combinedFormat(c)
	return c.block(&frame{ctx: ctxHTTP, srv: c.httpSrv, loc: c.httpLoc}, d.Block)
}

func setEvents(c *compiler, f *frame, d *Directive) error {
	c.events = true
	return c.block(&frame{ctx: ctxEvents, loc: &Location{}}, d.Block)
}

func setServer(c *compiler, f *frame, d *Directive) error {
	srv := &Server{Loc: &Location{Kind: LocServer, File: d.File, Line: d.Line}, Named: map[string]*Location{}, File: d.File, Line: d.Line}
	if err := c.block(&frame{ctx: ctxServer, srv: srv, loc: srv.Loc, prog: &srv.Rewrite}, d.Block); err != nil {
		return err
	}
	c.plan.HTTP.Servers = append(c.plan.HTTP.Servers, srv)
	return nil
}

// setLocation reads "location [modifier] name { ... }" with nginx's rules
// for modifiers and nesting (ngx_http_core_location).
func setLocation(c *compiler, f *frame, d *Directive) error {
	loc := &Location{File: d.File, Line: d.Line}
	var name string
	if len(d.Args) == 2 {
		mod := d.Args[0]
		name = d.Args[1]
		switch mod {
		case "=":
			loc.Kind = LocExact
		case "^~":
			loc.Kind = LocNoRegex
		case "~", "~*":
			loc.Kind = LocRegex
			re, err := c.compileRegex(d, name, mod == "~*")
			if err != nil {
				return err
			}
			loc.Regex = re
		default:
			return emergf(d, "invalid location modifier \"%s\"", mod)
		}
	} else {
		name = d.Args[0]
		switch {
		case strings.HasPrefix(name, "="):
			loc.Kind = LocExact
			name = name[1:]
		case strings.HasPrefix(name, "~"):
			name = name[1:]
			ci := false
			if strings.HasPrefix(name, "*") {
				ci = true
				name = name[1:]
			}
			loc.Kind = LocRegex
			re, err := c.compileRegex(d, name, ci)
			if err != nil {
				return err
			}
			loc.Regex = re
		case strings.HasPrefix(name, "@"):
			loc.Kind = LocNamed
		default:
			loc.Kind = LocPrefix
		}
	}
	loc.Name = name
	parent := f.loc
	if parent.Kind != LocServer {
		switch {
		case parent.Kind == LocExact:
			return emergf(d, "location \"%s\" cannot be inside the exact location \"%s\"", name, parent.Name)
		case parent.Kind == LocNamed:
			return emergf(d, "location \"%s\" cannot be inside the named location \"%s\"", name, parent.Name)
		case loc.Kind == LocNamed:
			return emergf(d, "named location \"%s\" can be on the server level only", name)
		case loc.Kind != LocRegex && !strings.HasPrefix(name, parent.Name):
			return emergf(d, "location \"%s\" is outside location \"%s\"", name, parent.Name)
		}
	}
	loc.Parent = parent
	if loc.Kind == LocNamed {
		if _, dup := f.srv.Named[name]; dup {
			return emergf(d, "duplicate location \"%s\"", name)
		}
		f.srv.Named[name] = loc
	} else if loc.Kind == LocRegex {
		parent.Regexes = append(parent.Regexes, loc)
	} else {
		for _, o := range parent.Prefixes {
			if o.Name == name && (o.Kind == LocExact) == (loc.Kind == LocExact) {
				return emergf(d, "duplicate location \"%s\"", name)
			}
		}
		parent.Prefixes = append(parent.Prefixes, loc)
	}
	return c.block(&frame{ctx: ctxLocation, srv: f.srv, loc: loc, prog: &loc.Rewrite}, d.Block)
}

// finish runs once the whole tree is read: it resolves variables, merges
// inheritance and builds the lookup structures.
func (c *compiler) finish() error {
	if err := c.finishMain(); err != nil {
		return err
	}
	h := c.plan.HTTP
	if h == nil {
		return c.resolveVars()
	}
	if err := c.resolveVars(); err != nil {
		return err
	}
	h.Vars = c.slotNames
	h.VarMaps = c.slotMaps
	if err := c.resolveFastCGIPasses(); err != nil {
		return err
	}
	if err := c.finishPools(); err != nil {
		return err
	}
	if err := c.resolveProxyPasses(); err != nil {
		return err
	}
	if err := c.finishLimits(); err != nil {
		return err
	}
	c.mergeHTTP()
	c.markSSLAddrs()
	for _, srv := range h.Servers {
		c.mergeServer(srv)
		c.mergeTree(srv.Loc, c.httpLoc)
		for _, n := range srv.Named {
			c.mergeTree(n, srv.Loc)
		}
		if err := c.checkServer(srv); err != nil {
			return err
		}
	}
	if err := c.resolveCacheZones(); err != nil {
		return err
	}
	c.shareLogBuffers()
	return c.buildListens()
}

// mergeHTTP gives the http level nginx's defaults for what it did not
// set, so that it is the complete parent of every server.
func (c *compiler) mergeHTTP() {
	def := &Location{Kind: LocServer}
	initSlots(c, locSlots, &def.LocConf)
	mergeSlots(c, locSlots, c.httpLoc, &c.httpLoc.LocConf, &def.LocConf)
	defSrv := &Server{TLS: &ServerTLS{}}
	initSlots(c, srvSlots, defSrv)
	initSlots(c, tlsSlots, defSrv.TLS)
	mergeSlots(c, srvSlots, c.httpLoc, c.httpSrv, defSrv)
	c.httpTLS = &ServerTLS{}
	if c.httpSrv.TLS != nil {
		*c.httpTLS = *c.httpSrv.TLS
	}
	mergeSlots(c, tlsSlots, c.httpLoc, c.httpTLS, defSrv.TLS)
	c.plan.defaults = planDefaults{loc: def, srv: defSrv}
}

// mergeTree merges a location and everything under it, the "if" blocks
// included: each inherits what it did not set from its parent.
func (c *compiler) mergeTree(l, parent *Location) {
	mergeSlots(c, locSlots, l, &l.LocConf, &parent.LocConf)
	for _, ch := range c.ifs[l] {
		c.mergeTree(ch, l)
	}
	for _, ch := range l.Prefixes {
		c.mergeTree(ch, l)
	}
	for _, ch := range l.Regexes {
		c.mergeTree(ch, l)
	}
	sortPrefixes(l.Prefixes)
}

// sortPrefixes orders prefix locations longest first, so the first that
// matches is the longest match (nginx builds a tree for the same answer).
func sortPrefixes(list []*Location) {
	sort.SliceStable(list, func(i, j int) bool {
		if len(list[i].Name) != len(list[j].Name) {
			return len(list[i].Name) > len(list[j].Name)
		}
		// An exact location is tried before a prefix with the same name.
		return list[i].Kind == LocExact && list[j].Kind != LocExact
	})
}

func (c *compiler) finishMain() error {
	if !c.events {
		return &Error{Level: LevelEmerg, Msg: "no \"events\" section in configuration"}
	}
	m := &c.plan.Main
	if m.WorkerConnections == 0 {
		m.WorkerConnections = 512
	}
	if c.errorLog != "" && !c.mainErrorLog {
		// -e names the error log unless the main level does; nginx opens
		// a relative file against the prefix, as error_log's.
		p := c.errorLog
		if p != "stderr" {
			p = c.path(p)
		}
		m.ErrorLogs = []ErrorLog{{Path: p, Level: LevelError}}
	}
	if len(m.ErrorLogs) == 0 {
		m.ErrorLogs = []ErrorLog{{Path: c.path("logs/error.log"), Level: LevelError}}
	}
	return nil
}

// checkServer applies the cross-directive checks of one server.
func (c *compiler) checkServer(srv *Server) error {
	if len(srv.Listens) == 0 {
		port := "80"
		if os.Geteuid() != 0 {
			port = "8000"
		}
		srv.Listens = []Listen{{Network: "tcp", Addr: "0.0.0.0:" + port, File: srv.File, Line: srv.Line}}
	}
	if len(srv.Names) == 0 {
		srv.Names = []ServerName{{Name: "", Kind: NameExact}}
	}
	return c.checkTLS(srv)
}

// describe is used in messages about a location.
func (l *Location) describe() string {
	switch l.Kind {
	case LocExact:
		return "= " + l.Name
	case LocNoRegex:
		return "^~ " + l.Name
	case LocRegex:
		return "~ " + l.Name
	}
	return l.Name
}
