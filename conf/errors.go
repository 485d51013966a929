// This file holds the diagnostics conf produces: nginx's log levels and an
// error type that prints like nginx's "... in /path/file.conf:12".
package conf

import "fmt"

// Level is a log severity with nginx's names and order.
type Level int

const (
	LevelEmerg Level = iota
	LevelAlert
	LevelCrit
	LevelError
	LevelWarn
	LevelNotice
	LevelInfo
	LevelDebug
)

var levelNames = [...]string{"emerg", "alert", "crit", "error", "warn", "notice", "info", "debug"}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "unknown"
	}
	return levelNames[l]
}

// ParseLevel reads a level name as error_log takes it.
func ParseLevel(s string) (Level, bool) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), true
		}
	}
	return 0, false
}

// Error is one diagnostic about a configuration. Error() gives nginx's text
// without the program name and level, e.g.
// `unknown directive "foo" in /etc/edge/edge.conf:12`; callers print
// "edge: [emerg] " before it, as nginx does.
type Error struct {
	Level Level
	Msg   string
	File  string // "" when the message is not about a place in a file
	Line  int
}

func (e *Error) Error() string {
	if e.File == "" {
		return e.Msg
	}
	if e.File == "command line" {
		return e.Msg + " in command line"
	}
	return fmt.Sprintf("%s in %s:%d", e.Msg, e.File, e.Line)
}

// emergf makes an [emerg] error at a directive's place.
func emergf(d *Directive, format string, args ...any) *Error {
	e := &Error{Level: LevelEmerg, Msg: fmt.Sprintf(format, args...)}
	if d != nil {
		e.File, e.Line = d.File, d.Line
	}
	return e
}
