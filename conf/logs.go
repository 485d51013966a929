// This file holds the log module: log_format and access_log.
package conf

import (
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CombinedFormat is nginx's predefined "combined" log format.
const CombinedFormat = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`

func init() {
	register(
		&spec{name: "log_format", ctx: ctxHTTP, args: take2More, multi: true, local: true, set: setLogFormat},
		(&spec{name: "access_log", ctx: ctxHSLif, args: take1More, multi: true, set: setAccessLog}).setSlot(
			fieldFunc(func(l *LocConf) *[]*AccessLog { return &l.AccessLogs }, defaultAccessLogs)),
		(&spec{name: "open_log_file_cache", ctx: ctxHSL, args: take1234, set: setOpenLogFileCache}).setSlot(
			field(func(l *LocConf) *LogFileCache { return &l.LogFileCache }, LogFileCache{})),
	)
}

// defaultAccessLogs is nginx's default: logs/access.log in the
// combined format.
func defaultAccessLogs(c *compiler) []*AccessLog {
	return []*AccessLog{{Path: StaticScript(c.path("logs/access.log")), Format: c.plan.HTTP.LogFormats["combined"]}}
}

func combinedFormat(c *compiler) *LogFormat {
	s, _ := c.compileScript(nil, CombinedFormat)
	return &LogFormat{Name: "combined", Escape: "default", Script: s}
}

func setLogFormat(c *compiler, f *frame, d *Directive) error {
	name := d.Args[0]
	if _, dup := c.plan.HTTP.LogFormats[name]; dup {
		return emergf(d, "duplicate \"log_format\" name \"%s\"", name)
	}
	lf := &LogFormat{Name: name, Escape: "default"}
	parts := d.Args[1:]
	if strings.HasPrefix(parts[0], "escape=") {
		switch e := parts[0][7:]; e {
		case "default", "json", "none":
			lf.Escape = e
		default:
			return emergf(d, "unknown log format escaping \"%s\"", e)
		}
		parts = parts[1:]
		if len(parts) == 0 {
			return emergf(d, "invalid number of arguments in \"log_format\" directive")
		}
	}
	s, err := c.compileScript(d, strings.Join(parts, ""))
	if err != nil {
		return err
	}
	lf.Script = s
	c.plan.HTTP.LogFormats[name] = lf
	return nil
}

// SyslogTarget is a "syslog:" destination of access_log or error_log
// (ngx_syslog_process_conf): messages are RFC 3164 datagrams,
// "<PRI>Mmm dd hh:mm:ss hostname tag: message".
type SyslogTarget struct {
	Raw        string // the whole "syslog:..." argument
	Network    string // "udp" or "unixgram"
	Addr       string // host:port (514 by default) or a socket path
	Facility   int    // 0..23, local7 (23) by default
	Severity   int    // 0..7, info (6) by default; error_log sends each line's own level
	Tag        string // "nginx" by default
	NoHostname bool   // leave the hostname out of the header
}

var syslogFacilities = []string{"kern", "user", "mail", "daemon", "auth", "intern", "lpr", "news", "uucp",
	"clock", "authpriv", "ftp", "ntp", "audit", "alert", "cron", "local0",
	"local1", "local2", "local3", "local4", "local5", "local6", "local7"}

// syslogSeverities are nginx's level names, not syslog's "err"/"warning".
var syslogSeverities = []string{"emerg", "alert", "crit", "error", "warn", "notice", "info", "debug"}

// parseSyslog reads "syslog:server=...,facility=...,severity=...,tag=...,
// nohostname" with nginx's defaults and messages.
func parseSyslog(d *Directive, arg string) (*SyslogTarget, error) {
	t := &SyslogTarget{Raw: arg, Facility: -1, Severity: -1}
	for _, p := range strings.Split(strings.TrimPrefix(arg, "syslog:"), ",") {
		key, val, _ := strings.Cut(p, "=")
		switch {
		case key == "server" && strings.HasPrefix(p, "server="):
			if t.Addr != "" {
				return nil, emergf(d, "duplicate syslog \"server\"")
			}
			t.Network, t.Addr = "udp", val
			if path, ok := strings.CutPrefix(val, "unix:"); ok {
				t.Network, t.Addr = "unixgram", path
			} else if _, _, err := net.SplitHostPort(val); err != nil {
				t.Addr = net.JoinHostPort(strings.Trim(val, "[]"), "514")
			}
			if t.Addr == "" || t.Addr == ":514" {
				return nil, emergf(d, "no host in syslog server \"%s\"", val)
			}
		case key == "facility" && strings.HasPrefix(p, "facility="):
			if t.Facility >= 0 {
				return nil, emergf(d, "duplicate syslog \"facility\"")
			}
			if t.Facility = slices.Index(syslogFacilities, val); t.Facility < 0 {
				return nil, emergf(d, "unknown syslog facility \"%s\"", val)
			}
		case key == "severity" && strings.HasPrefix(p, "severity="):
			if t.Severity >= 0 {
				return nil, emergf(d, "duplicate syslog \"severity\"")
			}
			if t.Severity = slices.Index(syslogSeverities, val); t.Severity < 0 {
				return nil, emergf(d, "unknown syslog severity \"%s\"", val)
			}
		case key == "tag" && strings.HasPrefix(p, "tag="):
			if t.Tag != "" {
				return nil, emergf(d, "duplicate syslog \"tag\"")
			}
			// RFC 3164: alphanumeric characters, at most 32.
			if len(val) > 32 {
				return nil, emergf(d, "syslog tag length exceeds 32")
			}
			for i := 0; i < len(val); i++ {
				c := val[i] | 0x20
				if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || val[i] == '_') {
					return nil, emergf(d, "syslog \"tag\" only allows alphanumeric characters and underscore")
				}
			}
			t.Tag = val
		case p == "nohostname":
			t.NoHostname = true
		default:
			return nil, emergf(d, "unknown syslog parameter \"%s\"", p)
		}
	}
	if t.Addr == "" {
		return nil, emergf(d, "no syslog server specified")
	}
	if t.Facility < 0 {
		t.Facility = 23
	}
	if t.Severity < 0 {
		t.Severity = 6
	}
	if t.Tag == "" {
		t.Tag = "nginx"
	}
	return t, nil
}

// setAccessLog reads "access_log path [format [buffer=size] [gzip[=level]]
// [flush=time] [if=condition]]" or "access_log off".
func setAccessLog(c *compiler, f *frame, d *Directive) error {
	if d.Args[0] == "off" {
		if len(d.Args) > 1 {
			return emergf(d, "invalid parameter \"%s\"", d.Args[1])
		}
		f.loc.AccessLogs = []*AccessLog{}
		return nil
	}
	p := d.Args[0]
	al := &AccessLog{}
	switch {
	case strings.HasPrefix(p, "syslog:"):
		t, err := parseSyslog(d, p)
		if err != nil {
			return err
		}
		al.Syslog, al.Path = t, StaticScript(p)
	case p == "stderr" || p == "/dev/stdout" || p == "/dev/stderr":
		al.Path = StaticScript(p)
	case strings.Contains(p, "$"):
		// A path with variables is made whole against the prefix before
		// it is compiled, even one that starts with a variable
		// (ngx_conf_full_name in ngx_http_log_set_log).
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.prefix, p)
		}
		s, err := c.compileScript(d, p)
		if err != nil {
			return err
		}
		al.Path = s
	default:
		al.Path = StaticScript(c.path(p))
	}
	name := "combined"
	rest := d.Args[1:]
	if len(rest) > 0 && !strings.Contains(rest[0], "=") && rest[0] != "gzip" {
		name, rest = rest[0], rest[1:]
	}
	lf := c.plan.HTTP.LogFormats[name]
	if lf == nil {
		return emergf(d, "unknown log format \"%s\"", name)
	}
	al.Format = lf
	if err := c.accessLogOptions(d, al, rest); err != nil {
		return err
	}
	f.loc.AccessLogs = append(f.loc.AccessLogs, al)
	return nil
}

// accessLogOptions reads access_log's buffer=, flush= and if= options.
func (c *compiler) accessLogOptions(d *Directive, al *AccessLog, rest []string) error {
	for _, a := range rest {
		switch {
		case strings.HasPrefix(a, "buffer="):
			n, err := parseSize(d, a[7:])
			if err != nil {
				return emergf(d, "invalid buffer size \"%s\"", a[7:])
			}
			al.Buffer = int(n)
		case strings.HasPrefix(a, "flush="):
			t, ok := ParseDuration(a[6:])
			if !ok {
				return emergf(d, "invalid flush time \"%s\"", a[6:])
			}
			al.Flush = t
		case a == "gzip" || strings.HasPrefix(a, "gzip="):
			return emergf(d, "gzip-compressed access logs are not supported by edge; compress them with logrotate")
		case strings.HasPrefix(a, "if="):
			s, err := c.compileScript(d, a[3:])
			if err != nil {
				return err
			}
			al.If = s
		default:
			return emergf(d, "invalid parameter \"%s\"", a)
		}
	}
	if al.Buffer > 0 && !al.Path.Static {
		return emergf(d, "buffered logs cannot have variables in name")
	}
	if al.Buffer > 0 && al.Syslog != nil {
		return emergf(d, "logs to syslog cannot be buffered")
	}
	if al.Buffer > 0 {
		// nginx's buffer belongs to the open file, not to the directive:
		// a second buffered log to the same file must ask for the same
		// buffer (the flush= given, before its default, included).
		if prev := c.logBuffers[al.Path.Raw]; prev != nil {
			if prev.Buffer != al.Buffer || prev.Flush != al.Flush {
				return emergf(d, "access_log \"%s\" already defined with conflicting parameters", d.Args[0])
			}
		} else {
			if c.logBuffers == nil {
				c.logBuffers = map[string]*AccessLog{}
			}
			c.logBuffers[al.Path.Raw] = &AccessLog{Buffer: al.Buffer, Flush: al.Flush}
		}
	}
	if al.Flush == 0 && al.Buffer > 0 {
		al.Flush = time.Second
	}
	return nil
}

// shareLogBuffers gives an unbuffered access log the buffer another
// access_log declared for the same file, as nginx's file buffer serves
// every log that writes to the file, whichever comes first in the
// configuration.
func (c *compiler) shareLogBuffers() {
	if len(c.logBuffers) == 0 {
		return
	}
	c.plan.EachLocation(func(l *Location) error {
		for _, al := range l.AccessLogs {
			if b := c.logBuffers[al.Path.Raw]; b != nil && al.Buffer == 0 && al.Syslog == nil && al.Path.Static {
				al.Buffer, al.Flush = b.Buffer, b.Flush
				if al.Flush == 0 {
					al.Flush = time.Second
				}
			}
		}
		return nil
	})
}

// LogFileCache is open_log_file_cache: how long the files of access logs
// with variables in their path stay open. Max 0 is "off" (the default):
// such a file is opened for every line.
type LogFileCache struct {
	Max      int           // descriptors kept
	Inactive time.Duration // a descriptor unused this long is closed (10s)
	Valid    time.Duration // a descriptor is opened again after this long (60s)
	MinUses  int           // accepted; edge keeps a file open from its first use
}

// setOpenLogFileCache reads "open_log_file_cache max=N [inactive=time]
// [min_uses=N] [valid=time] | off".
func setOpenLogFileCache(c *compiler, f *frame, d *Directive) error {
	lc := LogFileCache{Inactive: 10 * time.Second, Valid: 60 * time.Second, MinUses: 1}
	off := false
	duration := func(s string, dst *time.Duration) (err error) {
		var ok bool
		if *dst, ok = ParseDuration(s); !ok {
			err = strconv.ErrSyntax
		}
		return err
	}
	for _, a := range d.Args {
		var err error
		key, val, _ := strings.Cut(a, "=")
		switch key {
		case "max":
			lc.Max, err = strconv.Atoi(val)
		case "inactive":
			err = duration(val, &lc.Inactive)
		case "min_uses":
			lc.MinUses, err = strconv.Atoi(val)
		case "valid":
			err = duration(val, &lc.Valid)
		case "off":
			off = a == "off"
			if !off {
				err = strconv.ErrSyntax
			}
		default:
			err = strconv.ErrSyntax
		}
		if err != nil || lc.Max < 0 || lc.MinUses < 0 {
			return emergf(d, "invalid \"open_log_file_cache\" parameter \"%s\"", a)
		}
	}
	if off {
		f.loc.LogFileCache = LogFileCache{}
		return nil
	}
	if lc.Max == 0 {
		return emergf(d, "\"open_log_file_cache\" must have \"max\" parameter")
	}
	f.loc.LogFileCache = lc
	return nil
}
