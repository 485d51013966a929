// This file holds the edge-only fpm_pool{} block: a php-fpm pool edge
// supervises, reports on and tunes, and the fpm_status / edge_metrics
// handlers that report on it. Inside the block the directives are
// php-fpm's own pool settings, written the nginx way ("pm.max_children
// 16;"); the cross-field rules php-fpm enforces at startup
// (fpm_conf_process_all_pools in php-fpm's fpm_conf.c) are checked here
// with php-fpm's own words, so "edge -t" rejects what php-fpm would.
//
// A pool edge owns is also shaped by its tuning state file
// (PREFIX/state/fpm-NAME.conf), which "edge fpm tune --apply" writes: its
// pm.* directives override the block's, so a tuned pool survives reloads
// and restarts while edge.conf stays as the user wrote it.
package conf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FPMPool is one fpm_pool block.
type FPMPool struct {
	Name string
	// Network and Address are where php-fpm listens ("unix" and a socket
	// path, or "tcp" and host:port); the FastCGI handler connects there.
	// Default: unix PREFIX/fpm-NAME.sock.
	Network string
	Address string
	// MaxChildren is pm.max_children: the FastCGI client keeps fewer idle
	// connections than this (a kept connection pins a worker) and queues
	// requests beyond it. For an external pool it is read from its
	// pool_file when one is named, else 0 (unknown).
	MaxChildren int
	// External is true for a pool edge only attaches to (not started by edge).
	External bool
	// Pass is set for a pool found behind a fastcgi_pass (HTTPConf's
	// PassPools, in a configuration without fpm_pool): the fastcgi_pass's
	// argument, an address or the upstream{} holding the pool's address;
	// FastCGI counters are kept under that name. Such a pool has no
	// StatusPath: the report finds php-fpm's status page when it reads it.
	Pass string
	File string
	Line int

	// PM is the process manager: "static", "dynamic" (the default) or
	// "ondemand".
	PM string
	// StartServers, MinSpareServers and MaxSpareServers are the dynamic
	// manager's settings. Defaults: min 1, max min(3, max_children), start
	// min + (max - min) / 2 (php-fpm's own rule for an unset start).
	StartServers    int
	MinSpareServers int
	MaxSpareServers int
	// MaxRequests respawns a worker after this many requests; 0 = never.
	MaxRequests int
	// ProcessIdleTimeout ends ondemand workers idle this long. Default 10s.
	ProcessIdleTimeout time.Duration
	// MaxSpawnRate caps workers spawned at once by dynamic. Default 32.
	MaxSpawnRate int
	// RequestTerminateTimeout kills a worker whose request runs longer;
	// 0 = never. RequestSlowlogTimeout logs a backtrace of such requests
	// to Slowlog; php-fpm requires Slowlog with it.
	RequestTerminateTimeout time.Duration
	RequestSlowlogTimeout   time.Duration
	Slowlog                 string

	// User and Group run the workers ("" = edge's user; as root edge then
	// passes -R, as php-fpm requires).
	User  string
	Group string
	// PHPSettings are php_value[...], php_flag[...], php_admin_value[...]
	// and php_admin_flag[...], in file order.
	PHPSettings []PHPSetting
	// Env is env[NAME] = value, in file order.
	Env []EnvVar
	// CatchWorkersOutput sends workers' stdout/stderr to the FPM log and
	// so to edge's error log. Default on (php-fpm's default is off).
	CatchWorkersOutput bool
	// ClearEnv clears the workers' environment. Default on, as php-fpm.
	ClearEnv bool
	// Binary is the php-fpm binary; "" = found at start (php-fpm,
	// php-fpmX.Y in PATH, then /usr/sbin).
	Binary string
	// ProcessControlTimeout is how long php-fpm lets workers finish their
	// request on a reload or stop before killing them. Default 30s, so a
	// reload never cuts a running request.
	ProcessControlTimeout time.Duration

	// StatusPath is pm.status_path. Default "/fpm-status" for a pool edge
	// owns; an external pool reports only when status_path is set.
	StatusPath string
	// StatusNetwork and StatusAddress are pm.status_listen: a socket that
	// answers the status page even when every worker is busy. Default for
	// an owned pool: unix PREFIX/fpm-NAME.status.sock; for an external
	// pool: the pool's own address unless status_listen is set.
	StatusNetwork string
	StatusAddress string

	// PoolFile, PidFile and ConfigFile let "edge fpm tune --apply" change an
	// external pool: its pool file (rewritten with a backup), the master's
	// pid file (for SIGUSR2) and the main php-fpm config checked with -t
	// (default: the one the running master was started with).
	PoolFile   string
	PidFile    string
	ConfigFile string

	// StateFile is where "edge fpm tune --apply" keeps tuned pm.* values
	// for a pool edge owns; Tuned says it existed and was applied.
	StateFile string
	Tuned     bool
}

// PHPSetting is one php_value / php_flag / php_admin_value /
// php_admin_flag line.
type PHPSetting struct {
	Kind  string // "php_value", "php_flag", "php_admin_value", "php_admin_flag"
	Name  string
	Value string
}

// EnvVar is one env[NAME] line.
type EnvVar struct {
	Name  string
	Value string
}

// PMValues are the process manager settings tuning changes.
type PMValues struct {
	PM                 string
	MaxChildren        int
	StartServers       int
	MinSpareServers    int
	MaxSpareServers    int
	MaxRequests        int
	ProcessIdleTimeout time.Duration
	MaxSpawnRate       int
}

// Values returns the pool's process manager settings.
func (p *FPMPool) Values() PMValues {
	return PMValues{PM: p.PM, MaxChildren: p.MaxChildren, StartServers: p.StartServers,
		MinSpareServers: p.MinSpareServers, MaxSpareServers: p.MaxSpareServers, MaxRequests: p.MaxRequests,
		ProcessIdleTimeout: p.ProcessIdleTimeout, MaxSpawnRate: p.MaxSpawnRate}
}

// SetValues replaces the pool's process manager settings.
func (p *FPMPool) SetValues(v PMValues) {
	p.PM, p.MaxChildren, p.StartServers = v.PM, v.MaxChildren, v.StartServers
	p.MinSpareServers, p.MaxSpareServers, p.MaxRequests = v.MinSpareServers, v.MaxSpareServers, v.MaxRequests
	p.ProcessIdleTimeout, p.MaxSpawnRate = v.ProcessIdleTimeout, v.MaxSpawnRate
}

// Check applies php-fpm's rules for the process manager
// (fpm_conf_process_all_pools) and returns php-fpm's message for the
// first one broken, and the directive it is about.
func (v PMValues) Check(pool string) (directive, msg string) {
	fail := func(d, format string, args ...any) (string, string) {
		return d, fmt.Sprintf("[pool %s] ", pool) + fmt.Sprintf(format, args...)
	}
	switch v.PM {
	case "static", "dynamic", "ondemand":
	default:
		return fail("pm", "the process manager is missing (static, dynamic or ondemand)")
	}
	if v.MaxChildren < 1 {
		return fail("pm.max_children", "pm.max_children must be a positive value")
	}
	switch v.PM {
	case "dynamic":
		switch {
		case v.MinSpareServers <= 0:
			return fail("pm.min_spare_servers", "pm.min_spare_servers(%d) must be a positive value", v.MinSpareServers)
		case v.MaxSpareServers <= 0:
			return fail("pm.max_spare_servers", "pm.max_spare_servers(%d) must be a positive value", v.MaxSpareServers)
		case v.MinSpareServers > v.MaxChildren || v.MaxSpareServers > v.MaxChildren:
			return fail("pm.max_spare_servers", "pm.min_spare_servers(%d) and pm.max_spare_servers(%d) cannot be greater than pm.max_children(%d)",
				v.MinSpareServers, v.MaxSpareServers, v.MaxChildren)
		case v.MaxSpareServers < v.MinSpareServers:
			return fail("pm.max_spare_servers", "pm.max_spare_servers(%d) must not be less than pm.min_spare_servers(%d)", v.MaxSpareServers, v.MinSpareServers)
		case v.StartServers < v.MinSpareServers || v.StartServers > v.MaxSpareServers:
			return fail("pm.start_servers", "pm.start_servers(%d) must not be less than pm.min_spare_servers(%d) and not greater than pm.max_spare_servers(%d)",
				v.StartServers, v.MinSpareServers, v.MaxSpareServers)
		case v.MaxSpawnRate <= 0:
			return fail("pm.max_spawn_rate", "pm.max_spawn_rate(%d) must be a positive value", v.MaxSpawnRate)
		}
	case "ondemand":
		if v.ProcessIdleTimeout < time.Second {
			return fail("pm.process_idle_timeout", "pm.process_idle_timeout(%ds) must be greater than 0s", int(v.ProcessIdleTimeout/time.Second))
		}
	}
	return "", ""
}

// fpmBuild is the state of one fpm_pool block being read: the pool and
// the directive behind each setting, for messages.
type fpmBuild struct {
	pool  *FPMPool
	block *Directive
	where map[string]*Directive
}

// fpmSpec is a directive inside fpm_pool{}.
type fpmSpec struct {
	args argRule
	// owned marks settings only a pool edge starts can have.
	owned bool
	set   func(c *compiler, b *fpmBuild, d *Directive) error
	// def writes the setting's default (php-fpm's, or edge's where noted
	// in FPMPool) into a new pool; nil for a zero default. Defaults that
	// depend on other settings are fillPMDefaults'.
	def func(p *FPMPool)
}

// fpmValue makes the entry of an fpm_pool directive that sets one field
// of the pool, with its default.
func fpmValue[T any](owned bool, args argRule, get func(*FPMPool) *T, def T, parse argParser[T]) *fpmSpec {
	return &fpmSpec{args: args, owned: owned,
		set: func(c *compiler, b *fpmBuild, d *Directive) error {
			v, err := parse(c, d)
			if err != nil {
				return err
			}
			*get(b.pool) = v
			return nil
		},
		def: func(p *FPMPool) { *get(p) = def },
	}
}

// fpmDirectives are the directives of fpm_pool{} (context ctxFPMPool).
// Their names are php-fpm's; several (listen, user, ...) mean something
// else at http level, so they live in their own table, like upstream{}'s.
var fpmDirectives map[string]*fpmSpec

// fpmArrayDirectives are php-fpm's "name[key]" settings.
var fpmArrayDirectives = []string{"php_value", "php_flag", "php_admin_value", "php_admin_flag", "env"}

func init() {
	const owned = true
	str := func(owned bool, get func(*FPMPool) *string) *fpmSpec { return fpmValue(owned, take1, get, "", strArg) }
	path := func(get func(*FPMPool) *string) *fpmSpec { return fpmValue(false, take1, get, "", pathArg) }
	num := func(owned bool, get func(*FPMPool) *int, def int) *fpmSpec {
		return fpmValue(owned, take1, get, def, numArg)
	}
	msec := func(get func(*FPMPool) *time.Duration, def time.Duration) *fpmSpec {
		return fpmValue(owned, take1, get, def, timeArg)
	}
	flag := func(get func(*FPMPool) *bool, def bool) *fpmSpec { return fpmValue(owned, takeFlag, get, def, flagArg) }
	fpmDirectives = map[string]*fpmSpec{
		"listen":                    {args: take1, set: setFPMListen},
		"external":                  {args: take1, set: setFPMExternal},
		"user":                      str(owned, func(p *FPMPool) *string { return &p.User }),
		"group":                     str(owned, func(p *FPMPool) *string { return &p.Group }),
		"pm":                        {args: take1, set: setFPMMode, def: func(p *FPMPool) { p.PM = "dynamic" }},
		"pm.max_children":           num(false, func(p *FPMPool) *int { return &p.MaxChildren }, 0),
		"pm.start_servers":          num(owned, func(p *FPMPool) *int { return &p.StartServers }, 0),
		"pm.min_spare_servers":      num(owned, func(p *FPMPool) *int { return &p.MinSpareServers }, 0),
		"pm.max_spare_servers":      num(owned, func(p *FPMPool) *int { return &p.MaxSpareServers }, 0),
		"pm.max_requests":           num(owned, func(p *FPMPool) *int { return &p.MaxRequests }, 0),
		"pm.max_spawn_rate":         num(owned, func(p *FPMPool) *int { return &p.MaxSpawnRate }, 32),
		"pm.process_idle_timeout":   msec(func(p *FPMPool) *time.Duration { return &p.ProcessIdleTimeout }, 10*time.Second),
		"pm.status_path":            str(false, func(p *FPMPool) *string { return &p.StatusPath }),
		"pm.status_listen":          {args: take1, set: setFPMStatusListen},
		"request_terminate_timeout": msec(func(p *FPMPool) *time.Duration { return &p.RequestTerminateTimeout }, 0),
		"request_slowlog_timeout":   msec(func(p *FPMPool) *time.Duration { return &p.RequestSlowlogTimeout }, 0),
		"slowlog":                   fpmValue(owned, take1, func(p *FPMPool) *string { return &p.Slowlog }, "", pathArg),
		"catch_workers_output":      flag(func(p *FPMPool) *bool { return &p.CatchWorkersOutput }, true),
		"clear_env":                 flag(func(p *FPMPool) *bool { return &p.ClearEnv }, true),
		"process_control_timeout":   msec(func(p *FPMPool) *time.Duration { return &p.ProcessControlTimeout }, 30*time.Second),
		"binary":                    path(func(p *FPMPool) *string { return &p.Binary }),
		"pool_file":                 path(func(p *FPMPool) *string { return &p.PoolFile }),
		"pid_file":                  path(func(p *FPMPool) *string { return &p.PidFile }),
		"config_file":               path(func(p *FPMPool) *string { return &p.ConfigFile }),
	}
	// The short names the issue and the docs use.
	fpmDirectives["status_path"] = fpmDirectives["pm.status_path"]
	fpmDirectives["status_listen"] = fpmDirectives["pm.status_listen"]

	register(
		&spec{name: "fpm_pool", ctx: ctxHTTP, args: take1 | isBlock, multi: true, edgeOnly: true, local: true, set: setFPMPool},
		&spec{name: "fpm_status", ctx: ctxSL, args: take0 | take1, edgeOnly: true, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.Content = Content{Kind: ContentFPMStatus}
			if len(d.Args) == 1 {
				f.loc.Content.Pool = d.Args[0]
			}
			return nil
		}},
		&spec{name: "edge_metrics", ctx: ctxSL, args: take0, edgeOnly: true, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			f.loc.Content = Content{Kind: ContentMetrics}
			return nil
		}},
	)
}

// setFPMPool reads an fpm_pool{} block.
func setFPMPool(c *compiler, f *frame, d *Directive) error {
	name := d.Args[0]
	if c.findPool(name) != nil {
		return emergf(d, "duplicate fpm_pool \"%s\"", name)
	}
	if !validPoolName(name) {
		return emergf(d, "invalid fpm_pool name \"%s\": letters, digits, \"-\", \"_\" and \".\" only", name)
	}
	pool := &FPMPool{Name: name, File: d.File, Line: d.Line}
	for _, s := range fpmDirectives {
		if s.def != nil {
			s.def(pool)
		}
	}
	b := &fpmBuild{pool: pool, block: d, where: map[string]*Directive{}}
	if err := c.fpmBlock(b, d.Block, false); err != nil {
		return err
	}
	if err := c.finishPool(b); err != nil {
		return err
	}
	c.fpmPools = append(c.fpmPools, b.pool)
	return nil
}

// validPoolName keeps names usable in socket file names and php-fpm's
// [section] header.
func validPoolName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return s != ""
}

// fpmBlock applies the directives of an fpm_pool block (or of a tuning
// state file, where only pm.* settings may appear and override the
// block's).
func (c *compiler) fpmBlock(b *fpmBuild, list []*Directive, state bool) error {
	for _, d := range list {
		s, key, err := lookupFPM(d)
		if err != nil {
			return err
		}
		if state && !strings.HasPrefix(d.Name, "pm") {
			return emergf(d, "\"%s\" directive is not allowed here", d.Name)
		}
		if _, dup := b.where[key]; dup && !state {
			return emergf(d, "\"%s\" directive is duplicate", d.Name)
		}
		b.where[key] = d
		if err := s.set(c, b, d); err != nil {
			return err
		}
	}
	return nil
}

// lookupFPM finds the spec of a directive inside fpm_pool{} and the key
// its duplicates are checked under.
func lookupFPM(d *Directive) (*fpmSpec, string, error) {
	for _, prefix := range fpmArrayDirectives {
		if key, ok := strings.CutPrefix(d.Name, prefix+"["); ok && strings.HasSuffix(key, "]") && len(key) > 1 {
			s := &fpmSpec{args: take1, owned: true, set: setFPMArray(prefix, key[:len(key)-1])}
			return s, d.Name, checkFPMArgs(s, d)
		}
	}
	s := fpmDirectives[d.Name]
	if s == nil {
		if table[d.Name] != nil {
			return nil, "", emergf(d, "\"%s\" directive is not allowed here", d.Name)
		}
		return nil, "", emergf(d, "unknown directive \"%s\"", d.Name)
	}
	key := strings.TrimPrefix(d.Name, "pm.")
	if key == "status_path" || key == "status_listen" {
		key = "pm." + key
	} else {
		key = d.Name
	}
	return s, key, checkFPMArgs(s, d)
}

// checkFPMArgs applies the argument rules lookup applies to other
// directives.
func checkFPMArgs(s *fpmSpec, d *Directive) error {
	if d.HasBlock {
		return emergf(d, "directive \"%s\" is not terminated by \";\"", d.Name)
	}
	if !checkArgs(&spec{args: s.args}, len(d.Args)) {
		return emergf(d, "invalid number of arguments in \"%s\" directive", d.Name)
	}
	if s.args&takeFlag != 0 {
		if a := strings.ToLower(d.Args[0]); a != "on" && a != "off" {
			return emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be \"on\" or \"off\"", d.Args[0], d.Name)
		}
	}
	return nil
}

// setFPMArray reads php_value[name] value and its siblings.
func setFPMArray(kind, key string) func(c *compiler, b *fpmBuild, d *Directive) error {
	return func(c *compiler, b *fpmBuild, d *Directive) error {
		v := d.Args[0]
		if kind == "env" {
			b.pool.Env = append(b.pool.Env, EnvVar{Name: key, Value: v})
			return nil
		}
		if strings.HasSuffix(kind, "_flag") {
			switch strings.ToLower(v) {
			case "on", "off", "yes", "no", "true", "false", "1", "0":
			default:
				return emergf(d, "invalid value \"%s\" in \"%s\" directive, it must be \"on\" or \"off\"", v, d.Name)
			}
		}
		b.pool.PHPSettings = append(b.pool.PHPSettings, PHPSetting{Kind: kind, Name: key, Value: v})
		return nil
	}
}

// parseFPMAddress reads a php-fpm socket address: "unix:/path", "/path",
// "host:port" or a bare port (php-fpm listens on all addresses then; edge
// connects to 127.0.0.1).
func parseFPMAddress(c *compiler, d *Directive, a string) (network, address string, err error) {
	switch {
	case strings.HasPrefix(a, "unix:"):
		return "unix", c.path(a[5:]), nil
	case strings.HasPrefix(a, "/") || strings.HasPrefix(a, "."):
		return "unix", c.path(a), nil
	}
	if n, perr := strconv.Atoi(a); perr == nil {
		if n < 1 || n > 65535 {
			return "", "", emergf(d, "invalid port in \"%s\" of the \"%s\" directive", a, d.Name)
		}
		return "tcp", "127.0.0.1:" + a, nil
	}
	i := strings.LastIndexByte(a, ':')
	if i < 0 {
		return "", "", emergf(d, "invalid address \"%s\" in \"%s\" directive", a, d.Name)
	}
	if n, perr := strconv.Atoi(a[i+1:]); perr != nil || n < 1 || n > 65535 {
		return "", "", emergf(d, "invalid port in \"%s\" of the \"%s\" directive", a, d.Name)
	}
	return "tcp", a, nil
}

func setFPMListen(c *compiler, b *fpmBuild, d *Directive) (err error) {
	b.pool.Network, b.pool.Address, err = parseFPMAddress(c, d, d.Args[0])
	return
}

func setFPMExternal(c *compiler, b *fpmBuild, d *Directive) (err error) {
	b.pool.External = true
	b.pool.Network, b.pool.Address, err = parseFPMAddress(c, d, d.Args[0])
	return
}

func setFPMStatusListen(c *compiler, b *fpmBuild, d *Directive) (err error) {
	b.pool.StatusNetwork, b.pool.StatusAddress, err = parseFPMAddress(c, d, d.Args[0])
	return
}

// setFPMMode reads pm; php-fpm's parser words its refusal this way
// (fpm_conf_set_pm).
func setFPMMode(c *compiler, b *fpmBuild, d *Directive) error {
	switch d.Args[0] {
	case "static", "dynamic", "ondemand":
		b.pool.PM = d.Args[0]
		return nil
	}
	return emergf(d, "[pool %s] unable to parse value for entry 'pm': invalid process manager (static, dynamic or ondemand)", b.pool.Name)
}

// maxSocketPath is the longest unix socket path (sun_path holds 108 bytes
// with the terminating NUL).
const maxSocketPath = 107

// finishPool fills defaults and checks the pool the way php-fpm would.
func (c *compiler) finishPool(b *fpmBuild) error {
	p := b.pool
	if p.External {
		return c.finishExternalPool(b)
	}
	if p.Address == "" {
		p.Network, p.Address = "unix", c.path("fpm-"+p.Name+".sock")
	}
	if p.StatusPath == "" {
		p.StatusPath = "/fpm-status"
	}
	if p.StatusAddress == "" {
		p.StatusNetwork, p.StatusAddress = "unix", c.path("fpm-"+p.Name+".status.sock")
	}
	p.StateFile = c.path(filepath.Join("state", "fpm-"+p.Name+".conf"))
	if err := c.applyTuneState(b); err != nil {
		return err
	}
	c.fillPMDefaults(b)
	if d, msg := p.Values().Check(p.Name); msg != "" {
		return emergf(b.at(d), "%s", msg)
	}
	if err := checkStatusPath(p); err != nil {
		return emergf(b.at("pm.status_path"), "%s", err)
	}
	if p.RequestSlowlogTimeout > 0 && p.Slowlog == "" {
		return emergf(b.at("request_slowlog_timeout"), "[pool %s] 'slowlog' must be specified for use with 'request_slowlog_timeout'", p.Name)
	}
	for _, a := range []string{p.Address, p.StatusAddress} {
		if strings.HasPrefix(a, "/") && len(a) > maxSocketPath {
			return emergf(b.block, "fpm_pool \"%s\": the socket path \"%s\" is longer than %d bytes; set \"listen\" and \"status_listen\"", p.Name, a, maxSocketPath)
		}
	}
	return nil
}

// fillPMDefaults gives unset spare-server settings values that always
// satisfy php-fpm's rules, so only values the user wrote can break them.
func (c *compiler) fillPMDefaults(b *fpmBuild) {
	p := b.pool
	set := func(name string) bool { _, ok := b.where[name]; return ok }
	if !set("pm.max_children") && !p.Tuned {
		p.MaxChildren = 5 // php-fpm's www.conf
	}
	if p.PM != "dynamic" {
		return
	}
	if !set("pm.min_spare_servers") && p.MinSpareServers == 0 {
		p.MinSpareServers = 1
	}
	if !set("pm.max_spare_servers") && p.MaxSpareServers == 0 {
		p.MaxSpareServers = max(p.MinSpareServers, min(3, p.MaxChildren))
	}
	if p.StartServers == 0 {
		// php-fpm's rule for an unset start_servers.
		p.StartServers = p.MinSpareServers + (p.MaxSpareServers-p.MinSpareServers)/2
	}
}

// at returns the directive that set name, or the block itself.
func (b *fpmBuild) at(name string) *Directive {
	if d := b.where[name]; d != nil {
		return d
	}
	return b.block
}

// checkStatusPath is php-fpm's check of pm.status_path.
func checkStatusPath(p *FPMPool) error {
	s := p.StatusPath
	if s == "" {
		return nil
	}
	if s[0] != '/' {
		return fmt.Errorf("[pool %s] the status path '%s' must start with a '/'", p.Name, s)
	}
	if len(s) < 2 {
		return fmt.Errorf("[pool %s] the status path '%s' is not long enough", p.Name, s)
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/-_.~", r)) {
			return fmt.Errorf("[pool %s] the status path '%s' must contain only the following characters '[alphanum]/_-.~'", p.Name, s)
		}
	}
	return nil
}

// finishExternalPool checks an attached pool: only reporting settings
// and what tuning needs to find it.
func (c *compiler) finishExternalPool(b *fpmBuild) error {
	p := b.pool
	for _, d := range b.block.Block {
		if s := fpmDirectives[d.Name]; s == nil || s.owned || d.Name == "listen" {
			return emergf(d, "\"%s\" directive is not allowed in an external fpm_pool", d.Name)
		}
	}
	// What edge does not know of a pool it did not start stays unset
	// rather than showing edge's defaults.
	if _, ok := b.where["pm"]; !ok {
		p.PM = ""
	}
	p.MaxSpawnRate, p.ProcessIdleTimeout, p.ProcessControlTimeout = 0, 0, 0
	p.CatchWorkersOutput, p.ClearEnv = false, false
	if p.StatusAddress == "" {
		p.StatusNetwork, p.StatusAddress = p.Network, p.Address
	}
	if err := checkStatusPath(p); err != nil {
		return emergf(b.at("pm.status_path"), "%s", err)
	}
	if p.PoolFile == "" {
		return nil
	}
	// The pool file says how many workers edge may keep busy; reading it
	// here keeps the FastCGI client's bound right after a tune.
	data, err := os.ReadFile(p.PoolFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return emergf(b.at("pool_file"), "open() \"%s\" failed (2: No such file or directory)", p.PoolFile)
		}
		return emergf(b.at("pool_file"), "open() \"%s\" failed (%v)", p.PoolFile, err)
	}
	v := ParsePoolINI(string(data))
	p.SetValues(v)
	return nil
}

// ParsePoolINI reads the pm.* settings of the first pool section of a
// php-fpm ini file (the last value of a repeated key wins, as in
// php-fpm).
func ParsePoolINI(text string) PMValues {
	var v PMValues
	inPool := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			if inPool {
				break
			}
			inPool = !strings.EqualFold(line, "[global]")
			continue
		}
		k, val, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, ";") || strings.HasPrefix(line, "#") {
			continue
		}
		k, val = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(val), `"'`)
		n, _ := strconv.Atoi(val)
		switch k {
		case "pm":
			v.PM = val
		case "pm.max_children":
			v.MaxChildren = n
		case "pm.start_servers":
			v.StartServers = n
		case "pm.min_spare_servers":
			v.MinSpareServers = n
		case "pm.max_spare_servers":
			v.MaxSpareServers = n
		case "pm.max_requests":
			v.MaxRequests = n
		case "pm.max_spawn_rate":
			v.MaxSpawnRate = n
		case "pm.process_idle_timeout":
			if d, ok := ParseDuration(val); ok {
				v.ProcessIdleTimeout = d
			}
		}
	}
	return v
}

// applyTuneState reads the pool's tuning state file, when there is one.
func (c *compiler) applyTuneState(b *fpmBuild) error {
	data, err := os.ReadFile(b.pool.StateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return emergf(b.block, "open() \"%s\" failed (%v)", b.pool.StateFile, err)
	}
	tree, err := ParseBytes(b.pool.StateFile, data, ParseOptions{})
	if err != nil {
		return err
	}
	if err := c.fpmBlock(b, tree.Main, true); err != nil {
		return err
	}
	b.pool.Tuned = true
	return nil
}

// FormatTuneState renders pm.* values as a tuning state file.
func FormatTuneState(v PMValues, comment string) string {
	var s strings.Builder
	for _, line := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
		fmt.Fprintf(&s, "# %s\n", line)
	}
	fmt.Fprintf(&s, "pm %s;\npm.max_children %d;\n", v.PM, v.MaxChildren)
	if v.PM == "dynamic" {
		fmt.Fprintf(&s, "pm.start_servers %d;\npm.min_spare_servers %d;\npm.max_spare_servers %d;\n",
			v.StartServers, v.MinSpareServers, v.MaxSpareServers)
	}
	if v.PM == "ondemand" && v.ProcessIdleTimeout > 0 {
		fmt.Fprintf(&s, "pm.process_idle_timeout %ds;\n", int(v.ProcessIdleTimeout/time.Second))
	}
	fmt.Fprintf(&s, "pm.max_requests %d;\n", v.MaxRequests)
	return s.String()
}

// findPool returns the fpm_pool with the given name, or nil.
func (c *compiler) findPool(name string) *FPMPool { return PoolNamed(c.fpmPools, name) }

// PoolNamed returns the fpm_pool of pools named name, or nil.
func PoolNamed(pools []*FPMPool, name string) *FPMPool {
	for _, p := range pools {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// finishPools runs once the whole file is read and the fastcgi_pass
// names are resolved: it publishes the pools in the plan (the fpm_pool
// blocks, or without any the pools behind fastcgi_pass) and binds
// fpm_status to its pool.
func (c *compiler) finishPools() error {
	h := c.plan.HTTP
	h.Pools = c.fpmPools
	if len(h.Pools) == 0 {
		h.PassPools = passPools(c.fastcgiPasses)
	}
	return c.plan.EachLocation(func(l *Location) error {
		if l.Content.Kind != ContentFPMStatus {
			return nil
		}
		switch {
		case l.Content.Pool != "" && len(h.ReportPoolsNamed(l.Content.Pool)) == 0:
			return &Error{Level: LevelEmerg, Msg: fmt.Sprintf("no fpm_pool \"%s\" for \"fpm_status\"", l.Content.Pool), File: l.File, Line: l.Line}
		case l.Content.Pool == "" && len(h.ReportPools()) == 0:
			return &Error{Level: LevelEmerg, Msg: "\"fpm_status\" needs an fpm_pool or a fastcgi_pass", File: l.File, Line: l.Line}
		}
		return nil
	})
}

// dumpPools describes the pools for Plan.Dump.
func dumpPools(b *strings.Builder, pools []*FPMPool) {
	for _, p := range pools {
		kind := "owned"
		if p.External {
			kind = "external"
		}
		fmt.Fprintf(b, "fpm_pool %s %s listen=%s:%s status=%s:%s%s\n", p.Name, kind, p.Network, p.Address, p.StatusNetwork, p.StatusAddress, p.StatusPath)
		fmt.Fprintf(b, "  pm=%s max_children=%d start=%d min_spare=%d max_spare=%d max_requests=%d idle_timeout=%s spawn_rate=%d tuned=%v\n",
			p.PM, p.MaxChildren, p.StartServers, p.MinSpareServers, p.MaxSpareServers, p.MaxRequests, p.ProcessIdleTimeout, p.MaxSpawnRate, p.Tuned)
		if p.External {
			if p.PoolFile != "" || p.PidFile != "" {
				fmt.Fprintf(b, "  pool_file=%s pid_file=%s config_file=%s\n", p.PoolFile, p.PidFile, p.ConfigFile)
			}
			continue
		}
		fmt.Fprintf(b, "  user=%s group=%s catch_workers_output=%v clear_env=%v process_control_timeout=%s\n",
			p.User, p.Group, p.CatchWorkersOutput, p.ClearEnv, p.ProcessControlTimeout)
		if p.RequestTerminateTimeout > 0 || p.RequestSlowlogTimeout > 0 {
			fmt.Fprintf(b, "  request_terminate_timeout=%s request_slowlog_timeout=%s slowlog=%s\n", p.RequestTerminateTimeout, p.RequestSlowlogTimeout, p.Slowlog)
		}
		for _, s := range p.PHPSettings {
			fmt.Fprintf(b, "  %s[%s]=%s\n", s.Kind, s.Name, s.Value)
		}
		for _, e := range p.Env {
			fmt.Fprintf(b, "  env[%s]=%s\n", e.Name, e.Value)
		}
	}
}

// DefaultPHPParts returns the parts of the shipped default-php.conf that
// the built-in site inserts at its {{PHP_POOL}} and {{PHP}} markers: a
// pool and a PHP location when php-fpm is installed, else no pool and a
// location that keeps PHP source from being served.
func DefaultPHPParts(withPHP bool) (pool, server string) {
	data, err := Builtin("default-php.conf")
	if err != nil {
		return "", ""
	}
	parts := map[string]string{}
	name := ""
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if n, ok := strings.CutPrefix(line, "#@ "); ok {
			name = strings.TrimSpace(n)
			continue
		}
		if name != "" {
			parts[name] += line
		}
	}
	trim := func(s string) string { return strings.TrimRight(s, "\n") }
	if withPHP {
		return trim(parts["pool"]), trim(parts["server"])
	}
	return "", trim(parts["server-without-php"])
}
