// This file holds edge's two logs, both written through zap:
//   - the error log, in nginx's format ("2026/11/30 05:15:06 [error]
//     123#0: *5 message, client: ..., server: ..., request: "...", host:
//     "..."") with nginx's eight levels, written unbuffered;
//   - access logs, one line per request in a log_format (nginx's
//     "combined" by default), appended into a pooled buffer and written to
//     a zapcore.BufferedWriteSyncer so the request never waits on the disk;
//     flushed every second and at shutdown, reopened on USR1.
package proxy

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"

	"edge/conf"
)

// ErrorLog writes nginx-style error log lines. Its destinations can be
// replaced while other goroutines log (a reload), so holders of an
// *ErrorLog never need to be told about a new one.
type ErrorLog struct {
	outs  atomic.Pointer[[]errorOut]
	now   func() time.Time
	pid   string
	files *logFiles
}

type errorOut struct {
	w      zapcore.WriteSyncer // nil for a syslog destination
	syslog *syslogPeer
	level  conf.Level
}

// NewErrorLog opens the error logs of a plan (or stderr when paths are
// empty). files may be shared with access logs for reopening.
func NewErrorLog(logs []conf.ErrorLog, files *logFiles) (*ErrorLog, error) {
	el := &ErrorLog{now: time.Now, pid: strconv.Itoa(os.Getpid()), files: files}
	var outs []errorOut
	for _, l := range logs {
		if l.Syslog != nil {
			outs = append(outs, errorOut{syslog: files.syslog(l.Syslog), level: l.Level})
			continue
		}
		w, err := files.open(l.Path, false)
		if err != nil {
			return nil, err
		}
		outs = append(outs, errorOut{w: w, level: l.Level})
	}
	el.outs.Store(&outs)
	return el, nil
}

// takeOutputs makes l write where next writes and returns l's previous
// destinations, for restoreOutputs if the reload fails after all.
func (l *ErrorLog) takeOutputs(next *ErrorLog) *[]errorOut {
	return l.outs.Swap(next.outs.Load())
}

// restoreOutputs puts back destinations returned by takeOutputs.
func (l *ErrorLog) restoreOutputs(prev *[]errorOut) { l.outs.Store(prev) }

func (l *ErrorLog) outputs() []errorOut {
	if p := l.outs.Load(); p != nil {
		return *p
	}
	return nil
}

// StderrErrorLog logs to stderr at the given level (before a plan exists).
func StderrErrorLog(level conf.Level) *ErrorLog {
	el := &ErrorLog{now: time.Now, pid: strconv.Itoa(os.Getpid())}
	outs := []errorOut{{w: zapcore.Lock(zapcore.AddSync(os.Stderr)), level: level}}
	el.outs.Store(&outs)
	return el
}

// Enabled reports whether level would be written anywhere.
func (l *ErrorLog) Enabled(level conf.Level) bool {
	for _, o := range l.outputs() {
		if level <= o.level {
			return true
		}
	}
	return false
}

// Logf writes one line at a level.
func (l *ErrorLog) Logf(level conf.Level, format string, args ...any) {
	l.write(level, 0, fmt.Sprintf(format, args...))
}

func (l *ErrorLog) write(level conf.Level, conn uint64, msg string) {
	if l == nil || !l.Enabled(level) {
		return
	}
	b := bufPool.Get()
	defer b.Free()
	b.AppendString(l.now().Format("2006/01/02 15:04:05"))
	b.AppendString(" [")
	b.AppendString(level.String())
	b.AppendString("] ")
	b.AppendString(l.pid)
	b.AppendString("#0: ")
	if conn != 0 {
		b.AppendByte('*')
		b.AppendUint(conn)
		b.AppendByte(' ')
	}
	b.AppendString(msg)
	b.AppendByte('\n')
	for _, o := range l.outputs() {
		switch {
		case level > o.level:
		case o.syslog != nil:
			// The message is the whole line, nginx's time and level
			// included, without its line feed; its severity is its level.
			_ = o.syslog.send(int(level), b.Bytes()[:b.Len()-1])
		default:
			_, _ = o.w.Write(b.Bytes())
		}
	}
}

var bufPool = buffer.NewPool()

// requestLog is the error log seen from a request: lines get the
// connection number and nginx's ", client: ..." context.
type requestLog struct {
	l *ErrorLog
}

func (rl requestLog) logf(r *Request, level conf.Level, format string, args ...any) {
	if rl.l == nil || !rl.l.Enabled(level) {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if r != nil {
		client := "unix:"
		if !r.conn.unix {
			client = r.conn.remoteAddr()
		}
		rl.l.write(level, r.conn.id, string(appendRequestContext(append([]byte(msg+", client: "), client...), r)))
		return
	}
	rl.l.write(level, 0, msg)
}

// appendRequestContext appends the part of nginx's context of an error
// log line that names r: ", server: NAME, request: "...", host: "..."".
func appendRequestContext(b []byte, r *Request) []byte {
	b = append(b, ", server: "...)
	if r.srv != nil && len(r.srv.Names) > 0 {
		b = append(b, r.srv.Names[0].Name...)
	}
	if r.Method != "" { // nginx names the request once its line is read
		b = append(append(append(append(append(append(append(b, ", request: \""...), r.Method...), ' '), r.RawTarget...), ' '), r.Proto...), '"')
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

// logFiles opens each path once and reopens them all on USR1.
type logFiles struct {
	mu    sync.Mutex
	files map[string]*logFile
	// alert reports a log file that cannot be written (the error log's
	// [alert]); nil drops the report.
	alert func(msg string)
	now   func() time.Time
	// syslogs are the syslog destinations by target text (syslog.go).
	syslogs map[string]*syslogPeer
	// paths are the files of logs with variables in their path (logpath.go).
	paths pathLogs
}

func newLogFiles(now func() time.Time) *logFiles {
	return &logFiles{files: map[string]*logFile{}, now: now}
}

// logFailureEvery is how often a log file that keeps failing is reported:
// nginx reports a full disk once a minute (ngx_http_log_write's
// disk_full_time), so that a full disk does not also flood the error log.
const logFailureEvery = time.Minute

// logFile is a reopenable file behind a WriteSyncer; buffered files are
// wrapped in a zapcore.BufferedWriteSyncer.
type logFile struct {
	path     string
	mu       sync.Mutex
	f        *os.File
	buffered *zapcore.BufferedWriteSyncer
	out      zapcore.WriteSyncer
	fs       *logFiles
	reported time.Time // when a failed write was last reported
}

// Write writes log lines. A failed write (a full disk) loses them, as in
// nginx, and is reported at most once per logFailureEvery; the request
// that logged is served all the same.
func (lf *logFile) Write(p []byte) (int, error) {
	lf.mu.Lock()
	_, err := lf.f.Write(p)
	report := err != nil && lf.reportNow()
	lf.mu.Unlock()
	// Outside the lock: the report may go to this very file (an error log
	// on the full disk), whose failure is then within the minute.
	if report && lf.fs.alert != nil {
		lf.fs.alert(fmt.Sprintf("write() to \"%s\" failed (%s) while logging request", lf.path, errnoText(err)))
	}
	return len(p), nil
}

// reportNow says whether a failure now is to be reported; lf.mu is held.
func (lf *logFile) reportNow() bool {
	now := lf.fs.now()
	if !lf.reported.IsZero() && now.Sub(lf.reported) < logFailureEvery {
		return false
	}
	lf.reported = now
	return true
}

// errnoText words an error as nginx does, "28: No space left on device".
func errnoText(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	text := errno.Error()
	if text != "" {
		text = strings.ToUpper(text[:1]) + text[1:]
	}
	return strconv.Itoa(int(errno)) + ": " + text
}

func (lf *logFile) Sync() error {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	return lf.f.Sync()
}

// open returns the writer for a path; buffered writers batch lines.
func (fs *logFiles) open(path string, buffered bool) (zapcore.WriteSyncer, error) {
	switch path {
	case "stderr", "/dev/stderr":
		return zapcore.Lock(zapcore.AddSync(os.Stderr)), nil
	case "/dev/stdout":
		return zapcore.Lock(zapcore.AddSync(os.Stdout)), nil
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	key := path
	if buffered {
		key += "\x00buffered"
	}
	if lf := fs.files[key]; lf != nil {
		return lf.out, nil
	}
	f, err := openLogFile(path)
	if err != nil {
		return nil, fmt.Errorf("open() \"%s\" failed (%v)", path, unwrapPathErr(err))
	}
	lf := &logFile{path: path, f: f, fs: fs}
	lf.out = lf
	if buffered {
		lf.buffered = &zapcore.BufferedWriteSyncer{WS: lf, Size: 64 << 10, FlushInterval: time.Second}
		lf.out = lf.buffered
	}
	fs.files[key] = lf
	return lf.out, nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Reopen reopens every file (after logrotate moved them away).
func (fs *logFiles) Reopen() error {
	fs.paths.closeAll()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var first error
	for _, lf := range fs.files {
		if lf.buffered != nil {
			_ = lf.buffered.Sync()
		}
		f, err := openLogFile(lf.path)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		lf.mu.Lock()
		old := lf.f
		lf.f = f
		lf.mu.Unlock()
		old.Close()
	}
	return first
}

// Close flushes and closes every file.
func (fs *logFiles) Close() {
	fs.paths.closeAll()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, lf := range fs.files {
		if lf.buffered != nil {
			_ = lf.buffered.Stop()
		}
		lf.f.Close()
	}
	fs.files = map[string]*logFile{}
	for _, p := range fs.syslogs {
		p.close()
	}
	fs.syslogs = nil
}

// Flush writes out buffered lines.
func (fs *logFiles) Flush() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, lf := range fs.files {
		if lf.buffered != nil {
			_ = lf.buffered.Sync()
		}
	}
}

// accessLog writes r's access log lines (the log phase).
func (rt *site) accessLog(r *Request) {
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
			if err := rt.accessSyslogs[al].send(-1, b.Bytes()); err != nil {
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
func (rt *site) appendLogLine(b *buffer.Buffer, r *Request, lf *conf.LogFormat) {
	for i := range lf.Script.Parts {
		p := &lf.Script.Parts[i]
		if p.Var == nil {
			b.AppendString(p.Lit)
			continue
		}
		v := rt.varValue(r, p.Var)
		switch lf.Escape {
		case "json":
			appendJSONEscaped(b, v)
		case "none":
			b.AppendString(v)
		default:
			if v == "" && defaultDash(p.Var) {
				b.AppendByte('-')
				continue
			}
			appendDefaultEscaped(b, v)
		}
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
			conf.VarUpstreamConnectTime, conf.VarUpstreamHeaderTime, conf.VarGzipRatio, conf.VarSSLProtocol,
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
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || c > 0x7e {
			b.AppendString(`\x`)
			b.AppendByte(hex[c>>4])
			b.AppendByte(hex[c&15])
			continue
		}
		b.AppendByte(c)
	}
}

// appendJSONEscaped escapes as nginx's ngx_escape_json does (the same
// rules as appendNginxJSONEscaped, on a log buffer): other control bytes
// are \u00XX with upper-case hex.
func appendJSONEscaped(b *buffer.Buffer, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
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
			if c < 0x20 {
				b.AppendString(`\u00`)
				b.AppendByte(hex[c>>4])
				b.AppendByte(hex[c&15])
				continue
			}
			b.AppendByte(c)
		}
	}
}
