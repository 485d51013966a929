// This file holds the log module: log_format and access_log.
package conf

import (
	"strings"
	"time"
)

// CombinedFormat is nginx's predefined "combined" log format.
const CombinedFormat = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`

func init() {
	register(
		&spec{name: "log_format", ctx: ctxHTTP, args: take2More, multi: true, set: setLogFormat},
		&spec{name: "access_log", ctx: ctxHSLif, args: take1More, multi: true, set: setAccessLog},
		&spec{name: "open_log_file_cache", ctx: ctxHSL, args: take1234, set: func(c *compiler, f *frame, d *Directive) error { return nil }},
	)
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

// setAccessLog reads "access_log path [format [buffer=size] [gzip[=level]]
// [flush=time] [if=condition]]" or "access_log off".
func setAccessLog(c *compiler, f *frame, d *Directive) error {
	if !c.isSet(f.loc, "access_log_seen") {
		f.loc.AccessLogs = nil
		c.mark(f.loc, "access_log_seen")
	}
	if d.Args[0] == "off" {
		if len(d.Args) > 1 {
			return emergf(d, "invalid parameter \"%s\"", d.Args[1])
		}
		f.loc.AccessLogs = []*AccessLog{}
		return nil
	}
	p := d.Args[0]
	if strings.HasPrefix(p, "syslog:") {
		return emergf(d, "access_log to syslog is not supported by edge")
	}
	if strings.Contains(p, "$") {
		return emergf(d, "variables in the access_log path are not supported by edge")
	}
	al := &AccessLog{Path: StaticScript(c.path(p))}
	if p == "stderr" || p == "/dev/stdout" || p == "/dev/stderr" {
		al.Path = StaticScript(p)
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
	if al.Flush == 0 && al.Buffer > 0 {
		al.Flush = time.Second
	}
	f.loc.AccessLogs = append(f.loc.AccessLogs, al)
	return nil
}
