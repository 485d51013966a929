// This file holds the error log, in nginx's format ("2026/11/30 05:15:06
// [error] 123#0: *5 message, client: ..., server: ..., request: "...",
// host: "..."") with nginx's eight levels, written unbuffered, to files,
// stderr or syslog.
//
// Package logs is where edge's logs are written: the error log, the log
// files (reopened on USR1, buffered for access logs) and the syslog
// destinations. What a line says (nginx's request context, log_format
// and its variables) is made by proxy, which knows requests.
package logs

import (
	"edge/conf"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

// ErrorLog writes nginx-style error log lines. Its destinations can be
// replaced while other goroutines log (a reload), so holders of an
// *ErrorLog never need to be told about a new one.
type ErrorLog struct {
	outs  atomic.Pointer[[]errorOut]
	now   func() time.Time
	pid   string
	files *Files
}

type errorOut struct {
	w      zapcore.WriteSyncer // nil for a syslog destination
	syslog *Peer
	level  conf.Level
}

// NewErrorLog opens the error logs of a plan (or stderr when paths are
// empty). files may be shared with access logs for reopening.
func NewErrorLog(logs []conf.ErrorLog, files *Files) (*ErrorLog, error) {
	el := &ErrorLog{now: time.Now, pid: strconv.Itoa(os.Getpid()), files: files}
	var outs []errorOut
	for _, l := range logs {
		if l.Syslog != nil {
			outs = append(outs, errorOut{syslog: files.Syslog(l.Syslog), level: l.Level})
			continue
		}
		w, err := files.Open(l.Path, 0, 0)
		if err != nil {
			return nil, err
		}
		outs = append(outs, errorOut{w: w, level: l.Level})
	}
	el.outs.Store(&outs)
	return el, nil
}

// Outputs are an error log's destinations, as TakeOutputs returns them.
type Outputs struct{ list *[]errorOut }

// TakeOutputs makes l write where next writes and returns l's previous
// destinations, for RestoreOutputs if the reload fails after all.
func (l *ErrorLog) TakeOutputs(next *ErrorLog) Outputs {
	return Outputs{l.outs.Swap(next.outs.Load())}
}

// RestoreOutputs puts back destinations returned by TakeOutputs.
func (l *ErrorLog) RestoreOutputs(prev Outputs) { l.outs.Store(prev.list) }

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
	l.Write(level, 0, fmt.Sprintf(format, args...))
}

// Write writes one line at a level for connection conn (0: none, else
// nginx's "*N " before the message).
func (l *ErrorLog) Write(level conf.Level, conn uint64, msg string) {
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
			_ = o.syslog.Send(int(level), b.Bytes()[:b.Len()-1])
		default:
			_, _ = o.w.Write(b.Bytes())
		}
	}
}

var bufPool = buffer.NewPool()
