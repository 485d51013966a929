// This file holds the Plan: the immutable result of compiling a
// configuration. Everything the server needs at request time is here, with
// inheritance already merged, regexps and variable scripts compiled and
// defaults filled. Nothing in a Plan changes after Compile returns; a reload
// builds a new Plan and the server swaps it atomically.
package conf

import (
	"net/netip"
	"strings"
	"time"

	"edge/proxy/resolver"
)

// Plan is a compiled configuration.
type Plan struct {
	// Tree is the syntax tree the plan was compiled from (for "edge -T").
	Tree *Tree
	// Path is the main configuration file ("" for the embedded default).
	Path string
	// Prefix is the directory relative paths were resolved against.
	Prefix string

	Main MainConf
	// HTTP is nil when the configuration has no http{} block.
	HTTP *HTTPConf
	// Warnings are the [warn] diagnostics compiling produced.
	Warnings []*Error

	// defaults are nginx's defaults of every setting, for Dump.
	defaults planDefaults
}

// planDefaults are the tops of inheritance: every slot's default.
type planDefaults struct {
	loc *Location
	srv *Server
}

// MainConf holds the main and events contexts.
type MainConf struct {
	// WorkerProcesses sets GOMAXPROCS; 0 means "auto" (all CPUs).
	WorkerProcesses int
	// WorkerConnections caps concurrent client connections (nginx's limit is
	// per worker; edge multiplies it by the worker count). Default 512 x workers.
	WorkerConnections int
	PidFile           string // default "logs/nginx.pid" under the prefix, like nginx; "" disables
	Daemon            bool   // default true, as in nginx; edge never forks, see docs
	User              string // accepted; see docs for what edge does with it
	ErrorLogs         []ErrorLog
	// WorkerShutdownTimeout bounds a graceful stop; 0 waits for every request.
	WorkerShutdownTimeout time.Duration
	// Env lists "env" directives (names kept for children such as php-fpm).
	Env []string
}

// ErrorLog is one error_log destination.
type ErrorLog struct {
	Path   string // file path, "stderr", or "syslog:..."
	Level  Level
	Syslog *SyslogTarget // set for a "syslog:" path
}

// HTTPConf is the http{} block.
type HTTPConf struct {
	Servers []*Server
	// Listens groups servers by the address they listen on, in the order the
	// addresses first appear.
	Listens []*ListenGroup

	LogFormats map[string]*LogFormat
	Maps       []*Map
	Upstreams  map[string]*Upstream
	// NamedPasses holds "host:port", lowercased, of every proxy_pass and
	// fastcgi_pass without variables whose host is a name (nginx's
	// implicit upstreams): a *_pass with variables that names the same
	// host and port uses it, resolved as that one is, with no resolver
	// (ngx_http_upstream_init_request's search of the upstreams).
	NamedPasses map[string]bool
	// Pools are the fpm_pool blocks, in file order.
	Pools []*FPMPool
	// PassPools, in a configuration without fpm_pool blocks, are the
	// php-fpm pools its fastcgi_pass directives name (fpmpass.go).
	PassPools []*FPMPool
	// CachePaths are the fastcgi_cache_path and proxy_cache_path zones by
	// name (one namespace, as nginx's shared zones; cache.go).
	CachePaths map[string]*CachePath
	// The limit_req and limit_conn zones by name (limit.go).
	LimitReqZones  map[string]*LimitReqZone
	LimitConnZones map[string]*LimitConnZone

	// Vars names the per-request variable slots (set, map, named captures),
	// indexed by VarRef.Slot.
	Vars []string
	// VarMaps is the map computing each slot, nil for set and captures.
	VarMaps []*Map
}

// LookupVar resolves a variable named at run time (an SSI command's
// "$name", "echo var=name"), as load time resolves one in a directive; ok
// is false for a name nginx would not know either.
func (h *HTTPConf) LookupVar(name string) (ref *VarRef, ok bool) {
	ref = &VarRef{Name: strings.ToLower(name)}
	for i, v := range h.Vars {
		if v == ref.Name {
			ref.Kind, ref.N, ref.Map = VarSlot, i, h.VarMaps[i]
			return ref, true
		}
	}
	if id, ok := builtinVars[ref.Name]; ok {
		ref.Kind, ref.ID = VarBuiltin, id
		return ref, true
	}
	for _, p := range varPrefixes {
		if strings.HasPrefix(ref.Name, p.prefix) && len(ref.Name) > len(p.prefix) {
			ref.Kind = p.kind
			ref.Arg = ref.Name[len(p.prefix):]
			if p.header {
				ref.Arg = strings.ReplaceAll(ref.Arg, "_", "-")
			}
			return ref, true
		}
	}
	return nil, false
}

// ListenGroup is every server{} that listens on one address.
type ListenGroup struct {
	Listen  Listen    // the options in effect (from the first listen that named them)
	Servers []*Server // in file order
	Default *Server   // default_server, else the first
	// Names resolves Host/SNI to a server for this address.
	Names *ServerNames
}

// Listen is one listen directive.
type Listen struct {
	Network       string // "tcp" or "unix"
	Addr          string // "127.0.0.1:80", "[::]:443", "0.0.0.0:8080", or a socket path
	DefaultServer bool
	SSL           bool
	HTTP2         bool // listen ... http2 (deprecated in nginx, still accepted) or http2 on
	Backlog       int  // 0 means the system default
	ReusePort     bool
	IPv6Only      bool
	// Bind asks for a socket of the address's own ("bind", or an option
	// that implies it, as in nginx: backlog=, reuseport, ipv6only=, ...).
	// Without it, a specific address on a port that a wildcard address
	// also listens on is served by the wildcard's socket, told apart by
	// the connection's local address, as nginx does.
	Bind bool
	// ProxyProtocol: every connection starts with a PROXY protocol header.
	ProxyProtocol bool
	File          string
	Line          int
}

// Server is one server{} block.
type Server struct {
	Names   []ServerName
	Listens []Listen
	// Loc holds the server-level location settings; requests that match no
	// location use it, and every location inherits from it.
	Loc *Location
	// Rewrite is the server-level rewrite program (nginx's
	// SERVER_REWRITE phase): it runs once, before the location search.
	Rewrite []Op
	// Named holds the "@name" locations.
	Named map[string]*Location

	HTTP2 bool // "http2 on" in this server
	// HTTP2MaxConcurrentStreams is http2_max_concurrent_streams (128).
	HTTP2MaxConcurrentStreams int

	MergeSlashes          bool
	UnderscoresInHeaders  bool
	IgnoreInvalidHeaders  bool
	ClientHeaderTimeout   time.Duration
	LargeHeaderBuffers    int // number
	LargeHeaderBufferSize int // bytes: the longest request line or header line
	MaxHeaders            int // header lines a request may have, ignored invalid ones aside (default 1000)
	KeepaliveTimeout      time.Duration
	KeepaliveHeader       time.Duration // -1: no Keep-Alive header
	KeepaliveRequests     int

	TLS *ServerTLS // nil when no listen of this server has ssl

	File string
	Line int
}

// ServerName is one server_name entry.
type ServerName struct {
	Name  string         // as written, lowercased
	Kind  ServerNameKind // how it matches
	Regex *Regex         // for regex names
}

// ServerNameKind says how a server_name matches a host.
type ServerNameKind int

const (
	NameExact      ServerNameKind = iota
	NameWildPrefix                // "*.example.com" or ".example.com" (also matches example.com)
	NameWildSuffix                // "www.example.*"
	NameRegex                     // "~^www\d+\.example\.net$"
)

// ServerNames is the lookup structure for a ListenGroup, built once: exact
// names in a map, then wildcard names longest first, then regexps in order,
// which is nginx's precedence.
type ServerNames struct {
	Exact      map[string]*Server
	WildPrefix []WildName // longest first
	WildSuffix []WildName // longest first
	Regex      []RegexName
}

// WildName is a wildcard server name ready for matching.
type WildName struct {
	Pattern string // for prefix wildcards ".example.com" (leading dot), for suffix "www.example."
	Dot     bool   // ".example.com" form: also matches "example.com"
	Server  *Server
}

// RegexName is a regex server name.
type RegexName struct {
	Regex  *Regex
	Server *Server
}

// LocationKind says how a location matches.
type LocationKind int

const (
	LocPrefix  LocationKind = iota // location /path
	LocExact                       // location = /path
	LocNoRegex                     // location ^~ /path
	LocRegex                       // location ~ re, ~* re
	LocNamed                       // location @name
	LocServer                      // the server's implicit location
	LocIf                          // the body of an "if" block
)

// Location is a location{} block (or a server's implicit location, or an
// "if" block), with every inherited setting merged in.
type Location struct {
	Kind  LocationKind
	Name  string // the prefix, exact path, regex source or @name
	Regex *Regex // for LocRegex

	Parent *Location
	// Prefixes holds nested prefix/exact/^~ locations sorted for matching.
	Prefixes []*Location
	// Regexes holds nested regex locations in file order.
	Regexes []*Location

	// Rewrite is this location's rewrite program (not inherited).
	Rewrite []Op

	// Internal: only internal redirects may reach this location.
	Internal bool

	// AutoRedirect: a prefix, exact or ^~ location whose name ends in "/"
	// and which passes requests on (fastcgi_pass, proxy_pass) answers its
	// name without the slash with a 301 to the name (nginx's
	// clcf->auto_redirect, set by the *_pass directives).
	AutoRedirect bool

	// Content is what produces the response when nothing earlier did.
	Content Content

	// LimitExcept is the location's limit_except block, nil without one.
	LimitExcept *LimitExcept

	LocConf

	File string
	Line int
}

// ContentKind names the content handlers.
type ContentKind int

const (
	ContentStatic     ContentKind = iota // files under root/alias (the default)
	ContentFastCGI                       // fastcgi_pass
	ContentStubStatus                    // stub_status
	ContentFPMStatus                     // fpm_status
	ContentMetrics                       // edge_metrics
	ContentEmptyGIF                      // empty_gif
	ContentProxy                         // proxy_pass
	ContentCachePurge                    // fastcgi_cache_purge zone key (cache.go)
)

// Content is a location's content handler and its settings.
type Content struct {
	Kind ContentKind
	// FastCGI is set for ContentFastCGI.
	FastCGI *FastCGIPass
	// Proxy is set for ContentProxy.
	Proxy *ProxyPass
	// Pool names the fpm_pool for ContentFPMStatus ("" = the only one).
	Pool string
	// Purge is set for ContentCachePurge.
	Purge *CachePurge
}

// LocConf is every setting a location inherits from its parents.
type LocConf struct {
	// Root is the root or alias path script; Alias tells which.
	Root  *Script
	Alias bool
	// AliasStrip is, for an alias, nginx's clcf->alias: the length of
	// the name of the location the alias was written in, which a URI
	// loses before it is appended (nested locations and "if" blocks
	// inherit it with the alias); -1 when that location is a regex, where
	// the alias is the whole path (plus the URI after try_files found a
	// file, nginx's add_uri_to_alias).
	AliasStrip int
	Index      []*Script
	TryFiles   []TryFile // nil: no try_files (never inherited, as in nginx)

	Types       map[string]string // lowercase extension -> MIME type
	DefaultType string

	ErrorPages          map[int]*ErrorPage
	RecursiveErrorPages bool
	LogNotFound         bool
	LogSubrequest       bool

	ClientMaxBodySize     int64 // bytes; 0 disables the check
	ClientBodyBufferSize  int64
	ClientBodyTimeout     time.Duration
	ClientBodyTempPath    string
	ClientBodyInFileOnly  bool
	SendTimeout           time.Duration
	KeepaliveTimeout      time.Duration // location-level keepalive_timeout (0 closes after the response)
	KeepaliveHeader       time.Duration
	KeepaliveRequests     int
	ServerTokens          string // "on", "off", "build"
	Etag                  bool
	IfModifiedSince       string // "exact", "before", "off"
	AbsoluteRedirect      bool
	ServerNameInRedirect  bool
	PortInRedirect        bool
	Charset               string // "" = off
	CharsetTypes          map[string]bool
	OverrideCharset       bool
	SourceCharset         string
	Autoindex             bool   // directory listings for "/" URIs without an index file
	AutoindexExactSize    bool   // HTML sizes in bytes (default) or rounded to K/M/G
	AutoindexLocaltime    bool   // HTML times in local time instead of UTC
	AutoindexFormat       string // "html" (default), "xml", "json", "jsonp"
	OpenFileCacheValid    time.Duration
	OpenFileCacheMax      int // 0 = the default
	OpenFileCacheInactive time.Duration
	OpenFileCacheErrors   bool

	AccessLogs []*AccessLog // empty: off
	// ErrorLogs is the error_log of this level or the nearest one above
	// (nginx's clcf->error_log): where a request's messages go. nil: the
	// main level's (Main.ErrorLogs), where messages of no request go.
	ErrorLogs    []ErrorLog
	LogFileCache LogFileCache // open_log_file_cache
	AddHeaders   []HeaderAdd
	// HeadersMore is the headers-more commands, the inherited ones
	// first (headersmore.go).
	HeadersMore []MoreCmd
	Expires     Expires
	Access      []AccessRule
	Gzip        Gzip
	Brotli      Brotli // ngx_brotli's filter and static modules (brotli.go)
	SSI         SSI    // the ssi filter (ssi.go)
	// SubrequestOutputBufferSize bounds a subrequest's response kept in
	// memory (an SSI include with set=).
	SubrequestOutputBufferSize int64

	RewriteLog           bool
	UninitializedVarWarn bool

	FastCGI FastCGI

	Proxy Proxy
	// Resolver is the resolver directive's (nil: none, nginx's "no
	// resolver defined"); ResolverTimeout bounds one name's resolution
	// (default 30s).
	Resolver        *resolver.Resolver
	ResolverTimeout time.Duration
	// FastCGICache is fastcgi_cache and its companions, ProxyCache
	// proxy_cache and its (cache.go).
	FastCGICache Cache
	ProxyCache   Cache
	// The access modules (realip.go, auth.go, limit.go).
	RealIP    RealIP
	AuthBasic AuthBasic
	Satisfy   string // "all" (the default) or "any"
	Limits    Limits
}

// TryFile is one try_files argument.
type TryFile struct {
	Path  *Script
	Dir   bool   // ends with "/": tests for a directory
	Code  int    // the last argument "=404"
	Named string // the last argument "@name"
	URI   bool   // the last argument, a URI for an internal redirect
}

// ErrorPage is one error_page mapping.
type ErrorPage struct {
	URI *Script
	// Override is the status the client gets: 0 keeps the original code,
	// -1 ("=" alone) takes the status of the page's response.
	Override int
	Named    string // "@name" target
	Redirect bool   // the URI is absolute (http://...) or the code is 301..308
}

// HeaderAdd is one add_header directive.
type HeaderAdd struct {
	Name   string
	Value  *Script
	Always bool
}

// ExpiresMode is what expires does.
type ExpiresMode int

const (
	ExpiresOff      ExpiresMode = iota // no headers changed (the default)
	ExpiresEpoch                       // Expires: Thu, 01 Jan 1970 00:00:01 GMT, Cache-Control: no-cache
	ExpiresMax                         // Expires: Thu, 31 Dec 2037 23:55:55 GMT, Cache-Control: max-age=315360000
	ExpiresAccess                      // now + Time
	ExpiresModified                    // Last-Modified + Time
	ExpiresDaily                       // "@15h30m": the next such time of day
)

// Expires is the expires directive.
type Expires struct {
	Mode ExpiresMode
	Time time.Duration // may be negative
	// Var, when set, is the value with variables, parsed per request
	// (ParseExpires); Mode is then ExpiresAccess, or ExpiresModified after
	// "modified", and Time is 0.
	Var *Script
}

// AccessRule is allow or deny.
type AccessRule struct {
	Allow bool
	All   bool
	Net   netip.Prefix
	Unix  bool // "unix:"
}

// Encoding is what the gzip and brotli filters share: whether they run,
// the types and least length they compress, and the level.
type Encoding struct {
	On        bool
	Types     map[string]bool // MIME types; "*" in AnyType
	AnyType   bool
	MinLength int64 // bytes; a known shorter length is sent as it is
	CompLevel int   // gzip 1..9 (default 1), brotli 0..11 (default 6)
}

// Gzip is the gzip module's settings.
type Gzip struct {
	Encoding
	HTTPVersion  string
	Proxied      []string // off, expired, no-cache, no-store, private, no_last_modified, no_etag, auth, any
	DisableMSIE6 bool
	Disable      []*Regex
	Vary         bool
}

// Brotli is ngx_brotli's settings: the filter's (brotli, brotli_types,
// brotli_min_length, brotli_comp_level, brotli_window) and the static
// module's (brotli_static).
type Brotli struct {
	Encoding
	Window int    // brotli_window as its log2 (10..24); 19 = 512k
	Static string // brotli_static: "off", "on" or "always"
}

// AccessLog is one access_log destination.
type AccessLog struct {
	// Path is the file path; with variables it is evaluated, and the
	// file opened, per request. A "syslog:" target keeps its text here.
	Path   *Script
	Syslog *SyslogTarget // set for a "syslog:" target
	Format *LogFormat
	Buffer int           // bytes; 0 = the default buffering
	Flush  time.Duration // 0 = the default
	Gzip   bool
	If     *Script // if=condition
}

// LogFormat is a compiled log_format.
type LogFormat struct {
	Name   string
	Escape string // "default", "json", "none"
	Script *Script
}

// Map is a map{} block: Dest is computed lazily from Source.
type Map struct {
	Source    *Script
	Dest      string // variable name without "$"
	Slot      int
	Hostnames bool
	Volatile  bool
	Default   *Script
	Exact     map[string]*Script
	// Wildcards holds hostnames patterns when Hostnames is set.
	WildPrefix []MapWild
	WildSuffix []MapWild
	Regexes    []MapRegex
	// Split, when not nil, makes the map a split_clients block (split.go):
	// the value is that of the part the key's hash falls in.
	Split []SplitPart
	// Geo, when not nil, makes the map a geo block (geo.go): the value
	// is Geo.Value's for the client address, or for Source's value when
	// Source is not nil.
	Geo *Geo
}

// MapWild is a hostnames wildcard entry of a map.
type MapWild struct {
	Pattern string
	Dot     bool
	Value   *Script
}

// MapRegex is a regex entry of a map.
type MapRegex struct {
	Regex *Regex
	Value *Script
}
