// This file holds Regex, a compiled nginx regexp (location ~, server_name
// ~, rewrite, if ~, map ~, fastcgi_split_path_info, gzip_disable), and the
// methods every caller matches with, so which engine runs a pattern stays
// conf's business.
package conf

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// Regex is a compiled regular expression and where its named captures go.
//
// A pattern runs on one of three engines, chosen when it is compiled
// (pcre_emit.go says how): a file-type pattern such as `\.(jpg|png)$` is a
// set of extensions (regexfast.go); a pattern RE2 matches as PCRE2 does
// runs on Go's regexp, in linear time (and without allocating, unless it
// has captures to report); the rest
// (lookarounds, back references, atomic groups ...) and the subjects on
// which RE2 would answer differently run on regexp2's backtracking
// engine, within a match budget.
type Regex struct {
	Source string

	named    []NamedCapture
	captures int
	ext      *ExtSet
	re       *regexp.Regexp
	// asciiOnly and finalNL say on which subjects re is exact; others
	// go to bt.
	asciiOnly, finalNL bool
	bt                 *regexp2.Regexp
	// required is a run of bytes every match holds, checked before a
	// subject goes to re or bt.
	required string
}

// NamedCapture binds a regex group to a variable slot.
type NamedCapture struct {
	Group int
	Slot  int
	Name  string
}

// ErrMatchLimit is a match that ran out of its budget, nginx's
// "pcre2_match() failed: -47" (PCRE2_ERROR_MATCHLIMIT).
var ErrMatchLimit = errors.New("regex match limit exceeded")

// matchBudget bounds one match on the backtracking engine, as PCRE2's
// match limit (10,000,000 steps by default, which nginx keeps) bounds
// one in nginx: on this project's machine PCRE2 spends about a quarter
// of a second reaching it. regexp2 counts time, not steps, and checks its
// clock every 100 ms, so a match gives up after 0.1 to 0.3 s. Its
// backtracking stack is bounded too (100,000 slots, regexp2's default),
// which PCRE2's heap limit is the counterpart of.
const matchBudget = 100 * time.Millisecond

// NumCaptures is the number of capture groups ($1..$n).
func (re *Regex) NumCaptures() int { return re.captures }

// Names lists the named groups, in group order, with the variable slot
// each one sets.
func (re *Regex) Names() []NamedCapture { return re.named }

// Engine names the engine that runs the pattern on an ASCII subject that
// does not end in a newline: "ext" (the extension set), "re2" or
// "backtrack".
func (re *Regex) Engine() string {
	switch {
	case re.ext != nil:
		return "ext"
	case re.re != nil:
		return "re2"
	}
	return "backtrack"
}

// onRE2 reports whether Go's regexp answers for s as PCRE2 would.
func (re *Regex) onRE2(s string) bool {
	if re.re == nil {
		return false
	}
	return !re.asciiOnly && !re.finalNL || re.exactOn(s)
}

// exactOn checks s against what asciiOnly and finalNL require.
func (re *Regex) exactOn(s string) bool {
	if re.finalNL && s != "" && s[len(s)-1] == '\n' {
		return false
	}
	if re.asciiOnly {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return false
			}
		}
	}
	return true
}

// Match reports whether the regexp matches s; the error is ErrMatchLimit.
func (re *Regex) Match(s string) (bool, error) {
	if re.ext != nil {
		_, _, ok := re.ext.Match(s)
		return ok, nil
	}
	if !strings.Contains(s, re.required) {
		return false, nil
	}
	if re.onRE2(s) {
		return re.re.MatchString(s), nil
	}
	return re.btMatch(s)
}

// Exec matches s and returns the byte offsets of the captures, reusing
// dst: a start and an end for $0, $1 .. $n, -1 for a group that took no
// part in the match. A regexp without groups may give an empty caps. The
// error is ErrMatchLimit.
func (re *Regex) Exec(s string, dst []int) (caps []int, ok bool, err error) {
	dst = dst[:0]
	if re.ext != nil {
		dot, end, ok := re.ext.Match(s)
		if ok && re.captures == 1 {
			dst = append(dst, dot, end, dot+1, end)
		}
		return dst, ok, nil
	}
	if !strings.Contains(s, re.required) {
		return dst, false, nil
	}
	if re.onRE2(s) {
		if re.captures == 0 {
			return dst, re.re.MatchString(s), nil
		}
		m := re.re.FindStringSubmatchIndex(s)
		return append(dst, m...), m != nil, nil
	}
	if re.captures == 0 {
		ok, err := re.btMatch(s)
		return dst, ok, err
	}
	return re.btExec(s, dst)
}

// btMatch is Match on the backtracking engine.
func (re *Regex) btMatch(s string) (bool, error) {
	wakeMonitor()
	rs := subjectRunes(s)
	defer runePool.Put(rs)
	ok, err := re.bt.MatchRunes(*rs)
	if err != nil {
		return false, ErrMatchLimit
	}
	return ok, nil
}

// btExec is Exec on the backtracking engine.
func (re *Regex) btExec(s string, dst []int) (caps []int, ok bool, err error) {
	wakeMonitor()
	rs := subjectRunes(s)
	defer runePool.Put(rs)
	err = re.bt.FindRunesMatches(*rs, 0, func(m regexp2.MatchView) bool {
		ok = true
		for g := 0; g <= re.captures; g++ {
			i, n, set := m.GroupRange(g)
			if !set {
				i, n = -1, 0
			}
			dst = append(dst, i, i+n)
		}
		return false
	})
	if err != nil {
		return dst[:0], false, ErrMatchLimit
	}
	return dst, ok, nil
}

// runePool holds the rune buffers regexp2's subjects are built in.
var runePool = sync.Pool{New: func() any { return new([]rune) }}

// subjectRunes is s as regexp2 reads it: one rune per byte (netRune), so
// that a rune offset is a byte offset and a class is a set of bytes, as in
// PCRE2 without UTF mode. The buffer goes back to runePool.
func subjectRunes(s string) *[]rune {
	rs := runePool.Get().(*[]rune)
	b := (*rs)[:0]
	for i := 0; i < len(s); i++ {
		b = append(b, netRune(s[i]))
	}
	*rs = b
	return rs
}

// compileRegex compiles one of nginx's regexps, caseless for "~*". Named
// captures become per-request variables, as in nginx.
func (c *compiler) compileRegex(d *Directive, src string, caseless bool) (*Regex, error) {
	r, err := compilePCRE(src, caseless)
	if err != nil {
		return nil, regexError(d, src, err)
	}
	for i := range r.named {
		r.named[i].Slot = c.declareSlot(r.named[i].Name, nil)
	}
	return r, nil
}

// regexError words a compile error as nginx does, with the directive's
// file and line.
func regexError(d *Directive, src string, err error) error {
	var pe *pcreError
	var un *pcreUnsupported
	switch {
	case errors.As(err, &pe) && pe.off >= len(src):
		return emergf(d, "pcre2_compile() failed: %s in \"%s\"", pe.msg, src)
	case errors.As(err, &pe):
		return emergf(d, "pcre2_compile() failed: %s in \"%s\" at \"%s\"", pe.msg, src, src[pe.off:])
	case errors.As(err, &un):
		return emergf(d, "regex \"%s\" uses %s, which edge does not support", src, un.what)
	}
	return emergf(d, "regex \"%s\": %v", src, err)
}

// compilePCRE compiles a pattern for the engines that can run it (the
// slots of its named captures are left for the caller).
func compilePCRE(src string, caseless bool) (*Regex, error) {
	pt, err := parsePCRE(src, caseless)
	if err != nil {
		return nil, err
	}
	r := &Regex{Source: src, captures: pt.groups, required: pt.required()}
	for _, n := range pt.names {
		r.named = append(r.named, NamedCapture{Group: n.group, Name: n.name})
	}
	if r.captures <= 1 && len(r.named) == 0 {
		r.ext = parseExtSet(src, caseless)
		if r.ext != nil && r.captures == 1 && strings.Contains(src, "(?:") {
			r.ext = nil // a capture elsewhere than around the extensions
		}
		if r.ext != nil {
			return r, nil
		}
	}
	if f, ok := pt.goForm(); ok {
		if re, err := regexp.Compile(f.expr); err == nil {
			r.re, r.asciiOnly, r.finalNL = re, f.asciiOnly, f.finalNL
			if !r.asciiOnly && !r.finalNL {
				return r, nil
			}
		}
	}
	bt, err := regexp2.Compile(pt.netForm())
	if err != nil {
		return nil, err
	}
	bt.MatchTimeout = matchBudget
	r.bt = bt
	return r, nil
}

// CompileRuntime compiles a pattern met while serving (an SSI "if"
// expression's /regex/), case-sensitive as nginx's ngx_regex_compile
// makes it there. Named captures have no slots (Slot is -1): the caller
// keeps their values itself. The error is nginx's text for the log.
func CompileRuntime(src string) (*Regex, error) {
	r, err := compilePCRE(src, false)
	if err != nil {
		var pe *pcreError
		var un *pcreUnsupported
		switch {
		case errors.As(err, &pe) && pe.off >= len(src):
			return nil, fmt.Errorf("pcre2_compile() failed: %s in \"%s\"", pe.msg, src)
		case errors.As(err, &pe):
			return nil, fmt.Errorf("pcre2_compile() failed: %s in \"%s\" at \"%s\"", pe.msg, src, src[pe.off:])
		case errors.As(err, &un):
			return nil, fmt.Errorf("regex \"%s\" uses %s, which edge does not support", src, un.what)
		}
		return nil, fmt.Errorf("regex \"%s\": %v", src, err)
	}
	for i := range r.named {
		r.named[i].Slot = -1
	}
	return r, nil
}
