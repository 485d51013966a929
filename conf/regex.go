// This file holds Regex, a compiled nginx regexp (location ~, server_name
// ~, rewrite, if ~, map ~, fastcgi_split_path_info, gzip_disable), and the
// methods every caller matches with, so which engine runs a pattern stays
// conf's business.
package conf

import (
	"regexp"
	"strings"
)

// Regex is a compiled regular expression and where its named captures go.
type Regex struct {
	Source string

	named    []NamedCapture
	captures int
	// ext, when set, matches like re without running it: the pattern is
	// a file type such as `\.(jpg|png)$` (regexfast.go). Group 1, when
	// there is one, is the extension.
	ext *ExtSet
	re  *regexp.Regexp
}

// NamedCapture binds a regex group to a variable slot.
type NamedCapture struct {
	Group int
	Slot  int
	Name  string
}

// NumCaptures is the number of capture groups ($1..$n).
func (re *Regex) NumCaptures() int { return re.captures }

// Names lists the named groups, in group order, with the variable slot
// each one sets.
func (re *Regex) Names() []NamedCapture { return re.named }

// Match reports whether the regexp matches s.
func (re *Regex) Match(s string) bool {
	if re.ext != nil {
		_, ok := re.ext.Match(s)
		return ok
	}
	return re.re.MatchString(s)
}

// Exec matches s and returns the byte offsets of the captures, reusing
// dst: a start and an end for $0, $1 .. $n, -1 for a group that took no
// part in the match. A regexp without groups gives an empty caps.
func (re *Regex) Exec(s string, dst []int) (caps []int, ok bool) {
	dst = dst[:0]
	if re.ext != nil {
		dot, ok := re.ext.Match(s)
		if !ok {
			return dst, false
		}
		if re.captures == 1 {
			dst = append(dst, dot, len(s), dot+1, len(s))
		}
		return dst, true
	}
	if re.captures == 0 {
		return dst, re.re.MatchString(s)
	}
	m := re.re.FindStringSubmatchIndex(s)
	if m == nil {
		return dst, false
	}
	return append(dst, m...), true
}

// compileRegex compiles a PCRE-style regex with Go's engine. Named
// captures become per-request variables, as in nginx.
func (c *compiler) compileRegex(d *Directive, src string, caseless bool) (*Regex, error) {
	expr := src
	if caseless {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "error parsing regexp: ")
		if strings.Contains(src, "(?=") || strings.Contains(src, "(?!") || strings.Contains(src, "(?<=") || strings.Contains(src, "(?<!") {
			return nil, emergf(d, "regex \"%s\" uses a lookaround assertion, which edge's regexp engine (RE2) does not support", src)
		}
		return nil, emergf(d, "pcre2_compile() failed: %s in \"%s\"", msg, src)
	}
	r := &Regex{Source: src, re: re, captures: re.NumSubexp()}
	if r.captures <= 1 && !strings.Contains(src, "(?P<") && !strings.Contains(src, "(?<") {
		r.ext = parseExtSet(src, caseless)
		if r.ext != nil && r.captures == 1 && strings.Contains(src, "(?:") {
			r.ext = nil // a capture elsewhere than around the extensions
		}
	}
	for i, name := range re.SubexpNames() {
		if name != "" {
			r.named = append(r.named, NamedCapture{Group: i, Name: name, Slot: c.declareSlot(name, nil)})
		}
	}
	return r, nil
}
