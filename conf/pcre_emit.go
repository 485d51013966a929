// This file writes a parsed PCRE pattern (pcre.go) out for the two
// engines edge has. Neither output uses an option or an inline flag:
// case folding, "." and the anchors are spelled out, so each engine's own
// idea of them (Unicode folding, its "$", its \s) never applies.
//
//   - regexp2 gets the whole language. Its subject is the request's bytes
//     as one rune each (netRune), so its classes are byte sets and its
//     offsets byte offsets: PCRE2 without UTF mode, exactly.
//   - Go's regexp gets what RE2 matches as PCRE2 does, and the form says
//     on which subjects that holds: Go reads a subject as UTF-8, so a
//     class holding bytes above 0x7f (".", [^/], \W) is exact only on an
//     ASCII subject, and Go has no "$" that also matches before a final
//     newline, so a pattern with one is exact only on a subject that
//     does not end in "\n". Any other subject goes to regexp2.
package conf

import (
	"fmt"
	"strings"
)

// goForm is a pattern in Go's syntax and the subjects it is exact on.
type goForm struct {
	expr      string
	asciiOnly bool // exact only on subjects without bytes above 0x7f
	finalNL   bool // exact only on subjects that do not end in "\n"
}

// goMaxRepeat is the largest count Go's regexp takes in {n,m}.
const goMaxRepeat = 1000

// goForm returns the pattern for Go's regexp, or false when RE2 cannot
// match it as PCRE2 does on any subject.
func (pt *pcrePattern) goForm() (goForm, bool) {
	var f goForm
	var b strings.Builder
	if !emitGo(&b, pt.root, &f) {
		return goForm{}, false
	}
	f.expr = b.String()
	return f, true
}

func emitGo(b *strings.Builder, n *pcreNode, f *goForm) bool {
	switch n.op {
	case pEmpty:
		b.WriteString("(?:)")
	case pSet:
		if n.set.high() {
			f.asciiOnly = true
		}
		writeGoSet(b, n.set)
	case pConcat:
		for _, s := range n.subs {
			if !emitGo(b, s, f) {
				return false
			}
		}
	case pAlt:
		b.WriteString("(?:")
		for i, s := range n.subs {
			if i > 0 {
				b.WriteByte('|')
			}
			if !emitGo(b, s, f) {
				return false
			}
		}
		b.WriteByte(')')
	case pCapture, pGroup:
		if n.op == pCapture {
			b.WriteByte('(')
		} else {
			b.WriteString("(?:")
		}
		if !emitGo(b, n.subs[0], f) {
			return false
		}
		b.WriteByte(')')
	case pRepeat:
		body := n.subs[0]
		// RE2 stops a loop on an empty iteration where PCRE2 makes one
		// more, so what a group in it captured differs: "(a|)*" on "aa"
		// leaves $1 "" in PCRE2 and "a" in RE2.
		if n.mode == repPossessive || n.min > goMaxRepeat || n.max > goMaxRepeat ||
			n.max != 1 && canBeEmpty(body) && hasCapture(body) {
			return false
		}
		b.WriteString("(?:")
		if !emitGo(b, body, f) {
			return false
		}
		b.WriteByte(')')
		writeQuantifier(b, n)
	case pBegin:
		b.WriteString(`\A`)
	case pEnd:
		b.WriteString(`\z`)
	case pEndNL:
		f.finalNL = true
		b.WriteString(`\z`)
	case pBeginLine:
		// Go's (?m:^) also matches after a newline that ends the subject.
		f.finalNL = true
		b.WriteString(`(?m:^)`)
	case pEndLine:
		b.WriteString(`(?m:$)`)
	case pWordB:
		b.WriteString(`\b`)
	case pNotWordB:
		b.WriteString(`\B`)
	default: // atomic groups, lookarounds, back references
		return false
	}
	return true
}

// writeGoSet writes a byte set as Go matches it on an ASCII subject: its
// ASCII members, and any non-ASCII character when it holds every byte
// above 0x7f (Go's reading of a UTF-8 character as one, and of a stray
// byte as U+FFFD, then only matters on subjects that are not ASCII).
func writeGoSet(b *strings.Builder, s byteSet) {
	ascii := s
	ascii[2], ascii[3] = 0, 0
	if !s.allHigh() && ascii.count() == 1 {
		for c := 0; c < 0x80; c++ {
			if ascii.has(byte(c)) {
				writeLiteral(b, byte(c))
			}
		}
		return
	}
	if !s.allHigh() && ascii.count() == 0 {
		b.WriteString(`[^\x00-\x{10FFFF}]`)
		return
	}
	b.WriteByte('[')
	writeRanges(b, ascii, writeLiteral)
	if s.allHigh() {
		b.WriteString(`\x{80}-\x{10FFFF}`)
	}
	b.WriteByte(']')
}

// netForm returns the pattern for regexp2, whose subject is one netRune
// per byte.
func (pt *pcrePattern) netForm() string {
	e := &netEmitter{}
	e.emit(pt.root)
	return e.b.String()
}

// netEmitter writes a netForm. Groups are all unnamed, so regexp2
// numbers them as PCRE2 does; the helper groups it adds are named, which
// regexp2 numbers after every unnamed one.
type netEmitter struct {
	b       strings.Builder
	helpers int
}

// The word-character class of \b and \B.
const netWord = `[0-9A-Za-z_]`

func (e *netEmitter) emit(n *pcreNode) {
	b := &e.b
	switch n.op {
	case pEmpty:
		b.WriteString("(?:)")
	case pSet:
		writeNetSet(b, n.set)
	case pConcat:
		for _, s := range n.subs {
			e.emit(s)
		}
	case pAlt:
		b.WriteString("(?:")
		for i, s := range n.subs {
			if i > 0 {
				b.WriteByte('|')
			}
			e.emit(s)
		}
		b.WriteByte(')')
	case pCapture, pGroup, pAtomic, pLookahead, pNegLookahead, pLookbehind, pNegLookbehind:
		b.WriteString(map[pcreOp]string{pCapture: "(", pGroup: "(?:", pAtomic: "(?>", pLookahead: "(?=",
			pNegLookahead: "(?!", pLookbehind: "(?<=", pNegLookbehind: "(?<!"}[n.op])
		e.emit(n.subs[0])
		b.WriteByte(')')
	case pRepeat:
		e.emitRepeat(n)
	case pBegin:
		b.WriteString(`\A`)
	case pEnd:
		b.WriteString(`\z`)
	case pEndNL:
		b.WriteString(`(?=\n?\z)`)
	case pBeginLine:
		b.WriteString(`(?:\A|(?<=\n)(?!\z))`)
	case pEndLine:
		b.WriteString(`(?=\n|\z)`)
	case pWordB:
		b.WriteString(`(?:(?<=` + netWord + `)(?!` + netWord + `)|(?<!` + netWord + `)(?=` + netWord + `))`)
	case pNotWordB:
		b.WriteString(`(?:(?<=` + netWord + `)(?=` + netWord + `)|(?<!` + netWord + `)(?!` + netWord + `))`)
	case pBackref:
		if n.caseless {
			fmt.Fprintf(b, `(?i:\k<%d>)`, n.n)
		} else {
			fmt.Fprintf(b, `(?:\k<%d>)`, n.n)
		}
	}
}

func (e *netEmitter) emitRepeat(n *pcreNode) {
	b := &e.b
	body := n.subs[0]
	if isAssertion(body) {
		switch {
		case n.max == 0:
		case n.min > 0:
			e.emit(body)
		case n.mode == repLazy:
			b.WriteString("(?:")
			e.emit(body)
			b.WriteString(")??")
		default:
			b.WriteString("(?:")
			e.emit(body)
			b.WriteString(")?")
		}
		return
	}
	if n.mode == repPossessive {
		b.WriteString("(?>")
	}
	b.WriteString("(?:")
	// regexp2 makes a loop around an atomic group atomic too, which
	// loses the loop's own way back: "(?:(?>a+))*ab" does not match
	// "aab" there, nor "(?:(?>c*))?c1" "c1". A capture in between keeps
	// the loop a loop.
	helper := atomicTop(body)
	if helper {
		e.helpers++
		fmt.Fprintf(b, "(?<h%d>", e.helpers)
	}
	e.emit(body)
	if helper {
		b.WriteByte(')')
	}
	b.WriteByte(')')
	writeQuantifier(b, n)
	if n.mode == repPossessive {
		b.WriteByte(')')
	}
}

// atomicTop reports whether n is, or is only a group around, an atomic
// group or a possessive repeat.
func atomicTop(n *pcreNode) bool {
	for n.op == pGroup {
		n = n.subs[0]
	}
	return n.op == pAtomic || n.op == pRepeat && n.mode == repPossessive
}

// netHigh is where regexp2's subject puts the bytes above 0x7f: byte b is
// rune netHigh+b, in the private use area, where no rune has a case, so
// regexp2's Unicode case folding (which a case-insensitive back
// reference uses) leaves them alone, as PCRE2 without UTF mode does.
const netHigh = 0xe000

// netRune is the rune regexp2's subject holds for byte b.
func netRune(b byte) rune {
	if b < 0x80 {
		return rune(b)
	}
	return netHigh + rune(b)
}

// writeNetSet writes a byte set as a class of netRunes.
func writeNetSet(b *strings.Builder, s byteSet) {
	switch s.count() {
	case 0:
		b.WriteString(`(?!)`)
		return
	case 1:
		for c := 0; c < 256; c++ {
			if s.has(byte(c)) {
				writeNetRune(b, byte(c))
			}
		}
		return
	}
	b.WriteByte('[')
	writeRanges(b, s, writeNetRune)
	b.WriteByte(']')
}

// writeRanges writes the members of s as class ranges, each end written
// by one, split where ASCII ends.
func writeRanges(b *strings.Builder, s byteSet, one func(*strings.Builder, byte)) {
	for c := 0; c < 256; c++ {
		if !s.has(byte(c)) {
			continue
		}
		end := c
		for end+1 < 256 && s.has(byte(end+1)) && end+1 != 0x80 {
			end++
		}
		one(b, byte(c))
		if end > c {
			b.WriteByte('-')
			one(b, byte(end))
		}
		c = end
	}
}

// writeLiteral writes an ASCII byte: letters and digits as they are,
// anything else as \xHH, which both engines read the same way.
func writeLiteral(b *strings.Builder, c byte) {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		b.WriteByte(c)
		return
	}
	fmt.Fprintf(b, `\x%02x`, c)
}

// writeNetRune writes byte c as regexp2 sees it (netRune).
func writeNetRune(b *strings.Builder, c byte) {
	if c < 0x80 {
		writeLiteral(b, c)
		return
	}
	fmt.Fprintf(b, `\u%04x`, netRune(c))
}

func writeQuantifier(b *strings.Builder, n *pcreNode) {
	switch {
	case n.min == 0 && n.max == -1:
		b.WriteByte('*')
	case n.min == 1 && n.max == -1:
		b.WriteByte('+')
	case n.min == 0 && n.max == 1:
		b.WriteByte('?')
	case n.max == -1:
		fmt.Fprintf(b, "{%d,}", n.min)
	case n.min == n.max:
		fmt.Fprintf(b, "{%d}", n.min)
	default:
		fmt.Fprintf(b, "{%d,%d}", n.min, n.max)
	}
	if n.mode == repLazy {
		b.WriteByte('?')
	}
}

// canBeEmpty reports whether n can match the empty string.
func canBeEmpty(n *pcreNode) bool {
	switch n.op {
	case pSet:
		return false
	case pConcat:
		for _, s := range n.subs {
			if !canBeEmpty(s) {
				return false
			}
		}
		return true
	case pAlt:
		for _, s := range n.subs {
			if canBeEmpty(s) {
				return true
			}
		}
		return false
	case pCapture, pGroup, pAtomic:
		return canBeEmpty(n.subs[0])
	case pRepeat:
		return n.min == 0 || canBeEmpty(n.subs[0])
	case pBackref:
		return true // the group may have matched ""
	}
	return true // assertions and the empty string
}

// hasCapture reports whether n holds a capture group.
func hasCapture(n *pcreNode) bool {
	if n.op == pCapture {
		return true
	}
	for _, s := range n.subs {
		if hasCapture(s) {
			return true
		}
	}
	return false
}

// required returns the longest run of bytes every match of the pattern
// holds, "" when there is none: a subject without it cannot match, which
// spares the backtracking engine most of the subjects it would fail on
// (Laravel's `/\.(?!well-known).*` needs "/.").
func (pt *pcrePattern) required() string {
	return requiredIn(pt.root)
}

func requiredIn(n *pcreNode) string {
	switch n.op {
	case pSet:
		if n.set.count() == 1 {
			for c := 0; c < 256; c++ {
				if n.set.has(byte(c)) {
					return string([]byte{byte(c)})
				}
			}
		}
	case pCapture, pGroup, pAtomic:
		return requiredIn(n.subs[0])
	case pRepeat:
		if n.min > 0 && !isAssertion(n.subs[0]) {
			return requiredIn(n.subs[0])
		}
	case pConcat:
		best, run := "", ""
		for _, s := range n.subs {
			if s.op == pSet && s.set.count() == 1 {
				run += requiredIn(s)
				continue
			}
			if isZeroWidth(s) {
				continue // an anchor or assertion does not break a run
			}
			best, run = longer(best, run), ""
			best = longer(best, requiredIn(s))
		}
		return longer(best, run)
	}
	return ""
}

// isZeroWidth reports whether n matches no bytes (anchors, assertions).
func isZeroWidth(n *pcreNode) bool {
	switch n.op {
	case pBegin, pEnd, pEndNL, pBeginLine, pEndLine, pWordB, pNotWordB:
		return true
	}
	return isAssertion(n)
}

func longer(a, b string) string {
	if len(b) > len(a) {
		return b
	}
	return a
}
