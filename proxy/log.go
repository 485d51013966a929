// This file makes the lines of edge's two logs; package logs writes them
// (files, stderr, syslog):
//   - error log lines seen from a request get nginx's context
//     ("*5 message, client: ..., server: ..., request: "...", host: "...""),
//     requestLog;
//   - access logs, one line per request in a log_format (nginx's
//     "combined" by default), appended into a pooled buffer and written to
//     the log's buffered file, so the request never waits on the disk.
package proxy

import (
	"fmt"
	"strings"

	"go.uber.org/zap/buffer"

	"edge/conf"
	"edge/proxy/logs"
)

// requestLog is the error log seen from a request: lines get the
// connection number and nginx's ", client: ..." context.
type requestLog struct {
	l *logs.ErrorLog
	// levels are the error logs of the http, server and location levels
	// that name their own (conf.LocConf.ErrorLogs), by the list's first
	// entry, which the levels that inherit the list share; byText has
	// them by what the list says, for a list of an earlier plan (a
	// connection accepted before a reload still names its servers).
	levels map[*conf.ErrorLog]*logs.ErrorLog
	byText map[string]*logs.ErrorLog
}

// errorLogsText names a list of error_log destinations by what it says.
func errorLogsText(list []conf.ErrorLog) string {
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Path)
		b.WriteByte(0)
		b.WriteString(e.Level.String())
		b.WriteByte(0)
	}
	return b.String()
}

// add opens the error log of a level's own list, once per list.
func (rl requestLog) add(list []conf.ErrorLog, files *logs.Files) error {
	if len(list) == 0 || rl.levels[&list[0]] != nil {
		return nil
	}
	text := errorLogsText(list)
	if l := rl.byText[text]; l != nil {
		rl.levels[&list[0]] = l
		return nil
	}
	l, err := logs.NewErrorLog(list, files)
	if err != nil {
		return err
	}
	rl.levels[&list[0]], rl.byText[text] = l, l
	return nil
}

// forList is the error log of a level's list (nil: the main level's).
func (rl requestLog) forList(list []conf.ErrorLog) *logs.ErrorLog {
	if len(list) == 0 {
		return rl.l
	}
	if l := rl.levels[&list[0]]; l != nil {
		return l
	}
	if l := rl.byText[errorLogsText(list)]; l != nil {
		return l
	}
	return rl.l
}

func (rl requestLog) logf(r *Request, level conf.Level, format string, args ...any) {
	l := rl.l
	if r != nil {
		l = rl.of(r)
	}
	if l == nil || !l.Enabled(level) {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if r != nil {
		client := r.remoteAddr()
		l.Write(level, r.Conn.ID, string(AppendRequestContext(append([]byte(msg+", client: "), client...), r)))
		return
	}
	l.Write(level, 0, msg)
}

// of is the error log r's messages go to, as nginx moves a request's
// connection log to its location's error_log: the location's (its
// server's before a location is found), else the main level's. A
// subrequest logs where its main request does (nginx moves the log for
// the main request only).
func (rl requestLog) of(r *Request) *logs.ErrorLog { return rl.forList(rl.lists(r)) }

// lists is the error_log list of r's messages (nil: the main level's).
func (rl requestLog) lists(r *Request) []conf.ErrorLog {
	m := r.mainRequest()
	loc := m.loc
	if loc == nil && m.srv != nil {
		loc = m.srv.Loc
	}
	if loc == nil {
		return nil
	}
	return loc.ErrorLogs
}

// AppendRequestContext appends the part of nginx's context of an error
// log line that names r: ", server: NAME, request: "...", host: "..."".
func AppendRequestContext(b []byte, r *Request) []byte {
	b = append(b, ", server: "...)
	if r.srv != nil && len(r.srv.Names) > 0 {
		b = append(b, r.srv.Names[0].Name...)
	}
	if r.Method != "" { // nginx names the request once its line is read
		m := r.mainRequest()
		b = append(append(append(append(append(append(append(b, ", request: \""...), m.Method...), ' '), m.RawTarget...), ' '), m.Proto...), '"')
	}
	if r.parent != nil {
		b = append(append(append(b, ", subrequest: \""...), r.uri...), '"')
	}
	if r.HostHeader != "" {
		b = append(append(append(b, ", host: \""...), r.HostHeader...), '"')
	}
	return b
}

func (rl requestLog) errorf(r *Request, format string, args ...any) {
	rl.logf(r, conf.LevelError, format, args...)
}

func (rl requestLog) alertf(r *Request, format string, args ...any) {
	rl.logf(r, conf.LevelAlert, format, args...)
}

func (rl requestLog) critf(r *Request, format string, args ...any) {
	rl.logf(r, conf.LevelCrit, format, args...)
}

func (rl requestLog) noticef(r *Request, format string, args ...any) {
	rl.logf(r, conf.LevelNotice, format, args...)
}

func (rl requestLog) infof(r *Request, format string, args ...any) {
	rl.logf(r, conf.LevelInfo, format, args...)
}

// bufPool holds the buffers access log lines are made in.
var bufPool = buffer.NewPool()

// accessLog writes r's access log lines (the log phase).
func (rt *Site) accessLog(r *Request) {
	logs := r.loc.AccessLogs
	if len(logs) == 0 {
		return
	}
	for _, al := range logs {
		if al.If != nil {
			v := rt.eval(r, al.If)
			if v == "" || v == "0" {
				continue
			}
		}
		b := bufPool.Get()
		rt.appendLogLine(b, r, al.Format)
		switch {
		case al.Syslog != nil:
			// A syslog message has no line feed.
			if err := rt.accessSyslogs[al].Send(-1, b.Bytes()); err != nil {
				rt.log.logf(r, conf.LevelWarn, "send() to syslog failed while logging request")
			}
		case !al.Path.Static:
			b.AppendByte('\n')
			rt.writePathLog(r, al, b.Bytes())
		default:
			if w := rt.accessWriters[al]; w != nil {
				b.AppendByte('\n')
				_, _ = w.Write(b.Bytes())
			}
		}
		b.Free()
	}
}

// appendLogLine formats one line, escaping variable values as
// log_format's escape= says (literals are written as they are).
func (rt *Site) appendLogLine(b *buffer.Buffer, r *Request, lf *conf.LogFormat) {
	for i := range lf.Script.Parts {
		p := &lf.Script.Parts[i]
		if p.Var == nil {
			b.AppendString(p.Lit)
			continue
		}
		if p.Var.Kind == conf.VarBuiltin && rt.appendLogVar(b, r, p.Var.ID, lf.Escape) {
			continue
		}
		v := rt.varValue(r, p.Var)
		if v == "" && lf.Escape != "json" && lf.Escape != "none" && defaultDash(p.Var) {
			b.AppendByte('-')
			continue
		}
		appendLogEscaped(b, v, lf.Escape)
	}
}

// appendLogVar appends the variables of the common log formats that
// varValue would make a string for ($status, $body_bytes_sent,
// $bytes_sent, $request), escaped as escape asks, and reports whether id
// is one of them. Numbers need no escaping; $request's parts are escaped
// one by one, which is its escaping, as each byte escapes alone.
func (rt *Site) appendLogVar(b *buffer.Buffer, r *Request, id conf.VarID, escape string) bool {
	switch id {
	case conf.VarStatus:
		if r.resp == nil || r.resp.Status == 0 {
			b.AppendString("000")
		} else {
			b.AppendInt(int64(r.resp.Status))
		}
	case conf.VarBodyBytesSent:
		b.AppendInt(r.bodySent)
	case conf.VarBytesSent:
		b.AppendInt(r.bodySent + r.headerBytes())
	case conf.VarRequest:
		m := r.mainRequest()
		if m.Method == "" {
			return true // no request line was read (nginx logs "")
		}
		appendLogEscaped(b, m.Method, escape)
		b.AppendByte(' ')
		appendLogEscaped(b, m.RawTarget, escape)
		b.AppendByte(' ')
		appendLogEscaped(b, m.Proto, escape)
	default:
		return false
	}
	return true
}

// appendLogEscaped appends s escaped as a log_format's escape= asks.
func appendLogEscaped(b *buffer.Buffer, s, escape string) {
	switch escape {
	case "json":
		appendJSONEscaped(b, s)
	case "none":
		b.AppendString(s)
	default:
		appendDefaultEscaped(b, s)
	}
}

// defaultDash: in the default escape mode nginx logs "-" for a variable
// that is not found (an absent header, cookie or argument, no user), and
// nothing for one that is found but empty.
func defaultDash(v *conf.VarRef) bool {
	switch v.Kind {
	case conf.VarHeader, conf.VarSent, conf.VarCookie, conf.VarArg, conf.VarUpstream, conf.VarSlot:
		return true
	case conf.VarBuiltin:
		switch v.ID {
		case conf.VarRemoteUser, conf.VarUpstreamAddr, conf.VarUpstreamStatus, conf.VarUpstreamResponseTime,
			conf.VarUpstreamConnectTime, conf.VarUpstreamHeaderTime, conf.VarGzipRatio, conf.VarBrotliRatio, conf.VarSSLProtocol,
			conf.VarSSLCipher, conf.VarHTTP2, conf.VarContentType, conf.VarContentLength:
			return true
		}
	}
	return false
}

// appendDefaultEscaped escapes '"', '\\' and bytes outside printable ASCII
// as \xHH, as nginx's default log escaping does.
func appendDefaultEscaped(b *buffer.Buffer, s string) {
	const hex = "0123456789ABCDEF"
	clean := 0 // s[clean:i] is still to be appended as it is
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || c > 0x7e {
			b.AppendString(s[clean:i])
			b.AppendString(`\x`)
			b.AppendByte(hex[c>>4])
			b.AppendByte(hex[c&15])
			clean = i + 1
		}
	}
	b.AppendString(s[clean:])
}

// appendJSONEscaped escapes as nginx's ngx_escape_json does (the same
// rules as appendNginxJSONEscaped, on a log buffer): other control bytes
// are \u00XX with upper-case hex.
func appendJSONEscaped(b *buffer.Buffer, s string) {
	const hex = "0123456789ABCDEF"
	clean := 0 // s[clean:i] is still to be appended as it is
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.AppendString(s[clean:i])
		clean = i + 1
		switch c {
		case '"':
			b.AppendString(`\"`)
		case '\\':
			b.AppendString(`\\`)
		case '\n':
			b.AppendString(`\n`)
		case '\r':
			b.AppendString(`\r`)
		case '\t':
			b.AppendString(`\t`)
		case '\b':
			b.AppendString(`\b`)
		case '\f':
			b.AppendString(`\f`)
		default:
			b.AppendString(`\u00`)
			b.AppendByte(hex[c>>4])
			b.AppendByte(hex[c&15])
		}
	}
	b.AppendString(s[clean:])
}
