// This file reads nginx's regexp language: PCRE2's pattern syntax as nginx
// 1.22 compiles it (ngx_regex_compile: no UTF mode, PCRE2_CASELESS for
// "~*", nothing else), into a tree that pcre_emit.go writes out again for
// Go's regexp or for regexp2's backtracking engine. Without UTF mode a
// pattern and its subject are bytes: "." is one byte, classes are sets of
// bytes, and only ASCII letters have a case, so every character item here
// is a set of the 256 byte values with its case folding already applied.
//
// A pattern PCRE2 rejects gets PCRE2's message and offset (nginx prints
// them as `pcre2_compile() failed: MSG in "PATTERN" at "REST"`). What
// PCRE2 accepts but no engine edge has can run (recursion, callouts,
// backtracking verbs ...) is a pcreUnsupported error naming the construct.
package conf

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode"
)

// byteSet is a set of byte values.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

func (s *byteSet) addRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.add(byte(c))
	}
}

func (s *byteSet) addSet(o byteSet) {
	for i := range s {
		s[i] |= o[i]
	}
}

func (s byteSet) negate() byteSet {
	for i := range s {
		s[i] = ^s[i]
	}
	return s
}

func (s byteSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// high reports whether the set holds a byte above 0x7f.
func (s byteSet) high() bool { return s[2]|s[3] != 0 }

// allHigh reports whether the set holds every byte above 0x7f.
func (s byteSet) allHigh() bool { return s[2]&s[3] == ^uint64(0) }

// fold adds the other case of every ASCII letter in the set: PCRE2's
// default character tables (the "C" locale) give no other byte a case.
func (s byteSet) fold() byteSet {
	for c := byte('A'); c <= 'Z'; c++ {
		if s.has(c) || s.has(c+32) {
			s.add(c)
			s.add(c + 32)
		}
	}
	return s
}

func setOf(bs ...byte) byteSet {
	var s byteSet
	for _, b := range bs {
		s.add(b)
	}
	return s
}

// ranges is the set of the byte ranges lo1, hi1, lo2, hi2, ...
func ranges(lohi ...byte) byteSet {
	var s byteSet
	for i := 0; i+1 < len(lohi); i += 2 {
		s.addRange(lohi[i], lohi[i+1])
	}
	return s
}

// The escape classes outside UCP mode, as PCRE2's default tables give them.
var (
	setDigit  = ranges('0', '9')
	setWord   = ranges('a', 'z', 'A', 'Z', '0', '9', '_', '_')
	setSpace  = setOf('\t', '\n', '\v', '\f', '\r', ' ')
	setHSpace = setOf('\t', ' ', 0xa0)
	setVSpace = setOf('\n', '\v', '\f', '\r', 0x85)
	setAll    = byteSet{}.negate()
	setNotNL  = setOf('\n').negate()
)

// posixClasses are the [:name:] classes, ASCII only outside UCP mode.
var posixClasses = map[string]byteSet{
	"alpha":  ranges('a', 'z', 'A', 'Z'),
	"lower":  ranges('a', 'z'),
	"upper":  ranges('A', 'Z'),
	"alnum":  ranges('a', 'z', 'A', 'Z', '0', '9'),
	"ascii":  ranges(0, 0x7f),
	"blank":  setOf(' ', '\t'),
	"cntrl":  ranges(0, 0x1f, 0x7f, 0x7f),
	"digit":  setDigit,
	"graph":  ranges(0x21, 0x7e),
	"print":  ranges(0x20, 0x7e),
	"punct":  ranges(0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e),
	"space":  setSpace,
	"word":   setWord,
	"xdigit": ranges('0', '9', 'a', 'f', 'A', 'F'),
}

// pcreOp is the kind of a pattern tree node.
type pcreOp uint8

const (
	pEmpty         pcreOp = iota // matches the empty string
	pSet                         // one byte of set
	pConcat                      // subs in sequence
	pAlt                         // one of subs, tried in order
	pCapture                     // capture group n around subs[0]
	pGroup                       // (?:...) around subs[0]
	pAtomic                      // (?>...)
	pLookahead                   // (?=...)
	pNegLookahead                // (?!...)
	pLookbehind                  // (?<=...)
	pNegLookbehind               // (?<!...)
	pRepeat                      // subs[0] min..max times (max -1: no limit)
	pBegin                       // \A, and ^ outside multiline mode
	pEnd                         // \z
	pEndNL                       // $ outside multiline mode, \Z: the end, or before a final newline
	pBeginLine                   // ^ in multiline mode
	pEndLine                     // $ in multiline mode
	pWordB                       // \b
	pNotWordB                    // \B
	pBackref                     // \n: what group n matched
)

// repMode says how a repeat gives back what it took.
type repMode uint8

const (
	repGreedy repMode = iota
	repLazy
	repPossessive
)

// pcreNode is a node of a parsed pattern.
type pcreNode struct {
	op       pcreOp
	set      byteSet
	subs     []*pcreNode
	min, max int
	mode     repMode
	n        int  // pCapture, pBackref: the group number
	caseless bool // pBackref: compared ignoring ASCII case
	pos      int  // offset in the pattern (where PCRE2 reports errors)
}

// pcrePattern is a parsed pattern.
type pcrePattern struct {
	root   *pcreNode
	groups int        // capture groups, numbered 1..groups
	names  []pcreName // named groups, in pattern order
}

type pcreName struct {
	name  string
	group int
}

// pcreError is a pattern PCRE2 itself rejects: its message and the offset
// it reports.
type pcreError struct {
	msg string
	off int
}

func (e *pcreError) Error() string { return e.msg }

// pcreUnsupported is a pattern PCRE2 accepts that uses a construct edge
// has no engine for.
type pcreUnsupported struct{ what string }

func (e *pcreUnsupported) Error() string { return e.what }

// pcreFlags are the options inline settings change, scoped to a group.
type pcreFlags struct {
	caseless  bool // i
	multiline bool // m
	dotall    bool // s
	extended  bool // x
	extMore   bool // xx: also spaces in classes
	noAuto    bool // n: plain parentheses do not capture
	ungreedy  bool // U
}

// pcreMaxRepeat is PCRE2's largest {n,m} count.
const pcreMaxRepeat = 65535

// pcreMaxName is PCRE2's longest group name.
const pcreMaxName = 32

type pcreParser struct {
	src    string
	pos    int
	fl     pcreFlags
	quoted bool // inside \Q...\E
	groups int
	caps   map[int]*pcreNode
	names  map[string]int
	pt     *pcrePattern
	refs   []pcreRef
}

// pcreRef is a back reference, checked once every group is known.
type pcreRef struct {
	node *pcreNode
	name string // by name, when set
	off  int
}

// parsePCRE parses src as nginx compiles it; caseless is "~*".
func parsePCRE(src string, caseless bool) (*pcrePattern, error) {
	p := &pcreParser{src: src, caps: map[int]*pcreNode{}, names: map[string]int{}, pt: &pcrePattern{}}
	p.fl.caseless = caseless
	root, err := p.alternation()
	if err != nil {
		return nil, err
	}
	if p.pos < len(src) { // only ")" stops the top level early
		return nil, p.errAt(p.pos, "unmatched closing parenthesis")
	}
	for _, r := range p.refs {
		if r.name != "" {
			n, ok := p.names[r.name]
			if !ok {
				return nil, p.errAt(r.off, "reference to non-existent subpattern")
			}
			r.node.n = n
		}
		if r.node.n > p.groups {
			return nil, p.errAt(r.off, "reference to non-existent subpattern")
		}
	}
	if err := p.checkLookbehinds(root, nil); err != nil {
		return nil, err
	}
	p.pt.root, p.pt.groups = root, p.groups
	return p.pt, nil
}

func (p *pcreParser) errAt(off int, msg string) error { return &pcreError{msg: msg, off: off} }

func unsupported(format string, args ...any) error {
	return &pcreUnsupported{what: fmt.Sprintf(format, args...)}
}

func (p *pcreParser) more() bool { return p.pos < len(p.src) }

func (p *pcreParser) peek(off int) byte {
	if p.pos+off < len(p.src) {
		return p.src[p.pos+off]
	}
	return 0
}

// alternation reads branches up to a ")" or the end.
func (p *pcreParser) alternation() (*pcreNode, error) {
	var alts []*pcreNode
	for {
		seq, err := p.sequence()
		if err != nil {
			return nil, err
		}
		alts = append(alts, seq)
		if p.more() && p.src[p.pos] == '|' && !p.quoted {
			p.pos++
			continue
		}
		break
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &pcreNode{op: pAlt, subs: alts}, nil
}

// sequence reads one branch: quantified items up to "|", ")" or the end.
func (p *pcreParser) sequence() (*pcreNode, error) {
	var items []*pcreNode
	for {
		if err := p.skipNoise(); err != nil {
			return nil, err
		}
		if !p.more() {
			break
		}
		if c := p.src[p.pos]; !p.quoted && (c == '|' || c == ')') {
			break
		}
		item, repeatable, err := p.item()
		if err != nil {
			return nil, err
		}
		if item == nil {
			continue
		}
		for {
			if err := p.skipNoise(); err != nil {
				return nil, err
			}
			start := p.pos
			min, max, mode, errOff, ok, err := p.quantifier()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			if !repeatable {
				return nil, p.errAt(errOff, "quantifier does not follow a repeatable item")
			}
			item = repeat(item, min, max, mode, start)
			repeatable = false
		}
		items = append(items, item)
	}
	switch len(items) {
	case 0:
		return &pcreNode{op: pEmpty}, nil
	case 1:
		return items[0], nil
	}
	return &pcreNode{op: pConcat, subs: items}, nil
}

// repeat wraps item in a quantifier. (An assertion repeated is matched
// as PCRE2 matches it, see isAssertion.)
func repeat(item *pcreNode, min, max int, mode repMode, pos int) *pcreNode {
	return &pcreNode{op: pRepeat, subs: []*pcreNode{item}, min: min, max: max, mode: mode, pos: pos}
}

// isAssertion reports whether n is a lookaround. PCRE2 runs a repeated
// one once, or not at all when its minimum is 0 ({0} drops it): any
// maximum above 1 counts as 1.
func isAssertion(n *pcreNode) bool {
	switch n.op {
	case pLookahead, pNegLookahead, pLookbehind, pNegLookbehind:
		return true
	}
	return false
}

// skipNoise steps over what does not make an item (a quantifier after
// it applies to the item before): (?#...) comments, whitespace and #
// comments in extended mode, and \E (or an empty \Q\E).
func (p *pcreParser) skipNoise() error {
	for p.more() {
		c := p.src[p.pos]
		switch {
		case !p.quoted && strings.HasPrefix(p.src[p.pos:], "(?#"):
			end := strings.IndexByte(p.src[p.pos:], ')')
			if end < 0 {
				return p.errAt(len(p.src), "missing ) after (?# comment")
			}
			p.pos += end + 1
		case c == '\\' && p.peek(1) == 'E':
			p.quoted = false
			p.pos += 2
		case p.quoted:
			return nil
		case c == '\\' && p.peek(1) == 'Q' && p.peek(2) == '\\' && p.peek(3) == 'E':
			p.pos += 4
		case p.fl.extended && (c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'):
			p.pos++
		case p.fl.extended && c == '#':
			for p.more() && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return nil
		}
	}
	return nil
}

// quantifier reads *, +, ?, {n}, {n,} or {n,m} with its ? or + suffix.
// errOff is where PCRE2 reports a quantifier that follows nothing.
func (p *pcreParser) quantifier() (min, max int, mode repMode, errOff int, ok bool, err error) {
	if !p.more() || p.quoted {
		return 0, 0, 0, 0, false, nil
	}
	errOff = p.pos
	switch p.src[p.pos] {
	case '*':
		min, max = 0, -1
		p.pos++
	case '+':
		min, max = 1, -1
		p.pos++
	case '?':
		min, max = 0, 1
		p.pos++
	case '{':
		end, lo, hi, qerr := p.braces(p.pos)
		if qerr != nil {
			return 0, 0, 0, 0, false, qerr
		}
		if end < 0 {
			return 0, 0, 0, 0, false, nil
		}
		min, max, errOff = lo, hi, end-1
		p.pos = end
	default:
		return 0, 0, 0, 0, false, nil
	}
	mode = repGreedy
	if p.fl.ungreedy {
		mode = repLazy
	}
	switch p.peek(0) {
	case '?':
		if p.fl.ungreedy {
			mode = repGreedy
		} else {
			mode = repLazy
		}
		p.pos++
	case '+':
		mode = repPossessive
		p.pos++
	}
	return min, max, mode, errOff, true, nil
}

// braces reads a {n}, {n,} or {n,m} quantifier at i and returns the
// offset past it, or -1 when the text there is not a quantifier (then it
// is literal text, as "{,3}" is in PCRE2 10.42).
func (p *pcreParser) braces(i int) (end, min, max int, err error) {
	s := p.src
	j := i + 1
	readNum := func() (int, bool, error) {
		start := j
		n := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			n = n*10 + int(s[j]-'0')
			if n > pcreMaxRepeat {
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
				return 0, true, p.errAt(j, "number too big in {} quantifier")
			}
			j++
		}
		return n, j > start, nil
	}
	// A quantifier's shape is checked before its numbers are.
	k := i + 1
	digits := 0
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
		digits++
	}
	if digits == 0 {
		return -1, 0, 0, nil
	}
	if k < len(s) && s[k] == ',' {
		k++
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
	}
	if k >= len(s) || s[k] != '}' {
		return -1, 0, 0, nil
	}
	min, _, err = readNum()
	if err != nil {
		return 0, 0, 0, err
	}
	max = min
	if s[j] == ',' {
		j++
		var has bool
		max, has, err = readNum()
		if err != nil {
			return 0, 0, 0, err
		}
		if !has {
			max = -1
		} else if max < min {
			return 0, 0, 0, p.errAt(j, "numbers out of order in {} quantifier")
		}
	}
	return j + 1, min, max, nil
}

// item reads one item; nil (with no error) is an option setting or a
// comment, which match nothing. repeatable says whether a quantifier may
// follow.
func (p *pcreParser) item() (n *pcreNode, repeatable bool, err error) {
	c := p.src[p.pos]
	if p.quoted {
		p.pos++
		return p.literal(c), true, nil
	}
	switch c {
	case '(':
		return p.group()
	case '[':
		set, err := p.class()
		if err != nil {
			return nil, false, err
		}
		return &pcreNode{op: pSet, set: set}, true, nil
	case '.':
		p.pos++
		if p.fl.dotall {
			return &pcreNode{op: pSet, set: setAll}, true, nil
		}
		return &pcreNode{op: pSet, set: setNotNL}, true, nil
	case '^':
		p.pos++
		if p.fl.multiline {
			return &pcreNode{op: pBeginLine}, false, nil
		}
		return &pcreNode{op: pBegin}, false, nil
	case '$':
		p.pos++
		if p.fl.multiline {
			return &pcreNode{op: pEndLine}, false, nil
		}
		return &pcreNode{op: pEndNL}, false, nil
	case '\\':
		return p.escape()
	case '*', '+', '?':
		return nil, false, p.errAt(p.pos, "quantifier does not follow a repeatable item")
	case '{':
		end, _, _, qerr := p.braces(p.pos)
		if qerr != nil {
			return nil, false, qerr
		}
		if end >= 0 {
			return nil, false, p.errAt(end-1, "quantifier does not follow a repeatable item")
		}
	}
	p.pos++
	return p.literal(c), true, nil
}

// literal is one byte, both cases of it when caseless.
func (p *pcreParser) literal(c byte) *pcreNode {
	s := setOf(c)
	if p.fl.caseless {
		s = s.fold()
	}
	return &pcreNode{op: pSet, set: s}
}

// group reads a parenthesized item, p.pos at its "(".
func (p *pcreParser) group() (*pcreNode, bool, error) {
	start := p.pos
	p.pos++
	if p.peek(0) == '*' {
		return nil, false, unsupported("the backtracking control verb or option setting \"(*\"")
	}
	if p.peek(0) != '?' {
		if p.fl.noAuto {
			return p.groupBody(&pcreNode{op: pGroup, pos: start})
		}
		return p.capture(start, "")
	}
	p.pos++
	c := p.peek(0)
	if op, ok := groupKinds[c]; ok {
		p.pos++
		return p.groupBody(&pcreNode{op: op, pos: start})
	}
	if what, ok := unsupportedGroups[c]; ok {
		return nil, false, unsupported("%s", what)
	}
	switch c {
	case '<':
		if c := p.peek(1); c == '=' || c == '!' {
			p.pos += 2
			return p.groupBody(&pcreNode{op: map[byte]pcreOp{'=': pLookbehind, '!': pNegLookbehind}[c], pos: start})
		}
		return p.namedCapture(start, 1, '>')
	case '\'':
		return p.namedCapture(start, 1, '\'')
	case 'P':
		switch p.peek(1) {
		case '<':
			return p.namedCapture(start, 2, '>')
		case '=':
			p.pos += 2
			return p.namedRef(')')
		case '>':
			return nil, false, unsupported("a subroutine call \"(?P>\"")
		case 0:
			if p.pos+1 >= len(p.src) {
				return nil, false, p.errAt(len(p.src), "missing closing parenthesis")
			}
		}
		return nil, false, p.errAt(p.pos+1, "unrecognized character after (?P")
	}
	if c >= '0' && c <= '9' || (c == '+' || c == '-') && p.peek(1) >= '0' && p.peek(1) <= '9' {
		return nil, false, unsupported("a subroutine call \"(?%c\"", c)
	}
	return p.options(start)
}

// groupKinds are the groups "(?" and one character open.
var groupKinds = map[byte]pcreOp{':': pGroup, '>': pAtomic, '=': pLookahead, '!': pNegLookahead}

// unsupportedGroups are what "(?" and one character open that edge has no
// engine for.
var unsupportedGroups = map[byte]string{
	'|': `a branch reset group "(?|"`,
	'(': `a conditional group "(?("`,
	'C': `a callout "(?C"`,
	'*': `a non-atomic assertion "(?*"`,
	'&': `a subroutine call "(?&"`,
	'R': `recursion "(?R)"`,
}

// options reads an option setting, (?imnsxU-imnsx) or (?^...), alone or
// starting a group (?i:...).
func (p *pcreParser) options(start int) (*pcreNode, bool, error) {
	fl := p.fl
	unset := false
	if p.peek(0) == '^' {
		fl.caseless, fl.multiline, fl.noAuto, fl.dotall, fl.extended, fl.extMore = false, false, false, false, false, false
		p.pos++
	}
	for p.more() {
		c := p.src[p.pos]
		switch c {
		case ')':
			p.pos++
			p.fl = fl
			return nil, false, nil
		case ':':
			p.pos++
			saved := p.fl
			p.fl = fl
			n, rep, err := p.groupBody(&pcreNode{op: pGroup, pos: start})
			p.fl = saved
			return n, rep, err
		case '-':
			if unset {
				return nil, false, p.errAt(p.pos, "unrecognized character after (? or (?-")
			}
			unset = true
		case 'i':
			fl.caseless = !unset
		case 'm':
			fl.multiline = !unset
		case 's':
			fl.dotall = !unset
		case 'n':
			fl.noAuto = !unset
		case 'U':
			fl.ungreedy = !unset
		case 'x':
			if unset {
				fl.extended, fl.extMore = false, false
			} else if p.peek(1) == 'x' {
				fl.extended, fl.extMore = true, true
				p.pos++
			} else {
				fl.extended = true
			}
		case 'J':
			return nil, false, unsupported("duplicate group names \"(?J)\"")
		default:
			return nil, false, p.errAt(p.pos, "unrecognized character after (? or (?-")
		}
		p.pos++
	}
	return nil, false, p.errAt(len(p.src), "missing closing parenthesis")
}

// namedCapture reads a named group, (?<name>...), (?'name'...) or
// (?P<name>...), its name skip bytes on and ending with term.
func (p *pcreParser) namedCapture(start, skip int, term byte) (*pcreNode, bool, error) {
	p.pos += skip
	name, err := p.groupName(term)
	if err != nil {
		return nil, false, err
	}
	return p.capture(start, name)
}

// namedRef reads the name of a back reference by name up to term.
func (p *pcreParser) namedRef(term byte) (*pcreNode, bool, error) {
	off := p.pos
	name, err := p.groupName(term)
	if err != nil {
		return nil, false, err
	}
	n := &pcreNode{op: pBackref, caseless: p.fl.caseless}
	p.refs = append(p.refs, pcreRef{node: n, name: name, off: off})
	return n, true, nil
}

// groupName reads a group name up to term.
func (p *pcreParser) groupName(term byte) (string, error) {
	start := p.pos
	if p.more() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		return "", p.errAt(p.pos, "subpattern name must start with a non-digit")
	}
	for p.more() && isWordByte(p.src[p.pos]) {
		p.pos++
	}
	name := p.src[start:p.pos]
	if len(name) > pcreMaxName {
		return "", p.errAt(p.pos, fmt.Sprintf("subpattern name is too long (maximum %d code units)", pcreMaxName))
	}
	if !p.more() || p.src[p.pos] != term {
		if name == "" {
			return "", p.errAt(p.pos, "subpattern name expected")
		}
		return "", p.errAt(p.pos, "syntax error in subpattern name (missing terminator?)")
	}
	if name == "" {
		return "", p.errAt(p.pos, "subpattern name expected")
	}
	p.pos++
	return name, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// capture numbers a capture group (named when name is set) and reads it.
func (p *pcreParser) capture(start int, name string) (*pcreNode, bool, error) {
	p.groups++
	n := &pcreNode{op: pCapture, n: p.groups, pos: start}
	p.caps[n.n] = n
	if name != "" {
		if _, dup := p.names[name]; dup {
			return nil, false, p.errAt(p.pos, "two named subpatterns have the same name (PCRE2_DUPNAMES not set)")
		}
		p.names[name] = n.n
		p.pt.names = append(p.pt.names, pcreName{name: name, group: n.n})
	}
	return p.groupBody(n)
}

// groupBody reads a group's branches and its ")"; option changes inside
// end with it.
func (p *pcreParser) groupBody(n *pcreNode) (*pcreNode, bool, error) {
	saved := p.fl
	body, err := p.alternation()
	p.fl = saved
	if err != nil {
		return nil, false, err
	}
	if !p.more() {
		return nil, false, p.errAt(len(p.src), "missing closing parenthesis")
	}
	p.pos++
	n.subs = []*pcreNode{body}
	return n, true, nil
}

// escape reads a backslash sequence outside a class.
func (p *pcreParser) escape() (*pcreNode, bool, error) {
	start := p.pos
	if start+1 >= len(p.src) {
		return nil, false, p.errAt(len(p.src), "\\ at end of pattern")
	}
	c := p.src[start+1]
	p.pos += 2
	switch c {
	case 'd', 'D', 's', 'S', 'w', 'W', 'h', 'H', 'v', 'V':
		return &pcreNode{op: pSet, set: escapeSet(c)}, true, nil
	case 'N':
		if p.peek(0) == '{' {
			if strings.HasPrefix(p.src[p.pos:], "{U+") {
				return nil, false, p.errAt(p.pos, "\\N{U+dddd} is supported only in Unicode (UTF) mode")
			}
			return nil, false, p.errAt(p.pos, "PCRE2 does not support \\F, \\L, \\l, \\N{name}, \\U, or \\u")
		}
		return &pcreNode{op: pSet, set: setNotNL}, true, nil
	case 'C':
		return &pcreNode{op: pSet, set: setAll}, true, nil
	case 'R':
		// (?>\r\n|\n|\x0b|\x0c|\r|\x85)
		crlf := &pcreNode{op: pConcat, subs: []*pcreNode{{op: pSet, set: setOf('\r')}, {op: pSet, set: setOf('\n')}}}
		return &pcreNode{op: pAtomic, subs: []*pcreNode{{op: pAlt, subs: []*pcreNode{crlf, {op: pSet, set: setVSpace}}}}}, true, nil
	case 'p', 'P':
		set, err := p.property(c == 'P')
		if err != nil {
			return nil, false, err
		}
		return &pcreNode{op: pSet, set: set}, true, nil
	case 'b':
		return &pcreNode{op: pWordB}, false, nil
	case 'B':
		return &pcreNode{op: pNotWordB}, false, nil
	case 'A', 'G':
		// nginx always matches from the subject's start, where \G holds.
		return &pcreNode{op: pBegin}, false, nil
	case 'z':
		return &pcreNode{op: pEnd}, false, nil
	case 'Z':
		return &pcreNode{op: pEndNL}, false, nil
	case 'Q':
		p.quoted = true
		return nil, false, nil
	case 'E':
		return nil, false, nil
	case 'K':
		return nil, false, unsupported("\\K")
	case 'X':
		return nil, false, unsupported("\\X")
	case 'g':
		return p.gReference(start)
	case 'k':
		return p.kReference()
	}
	if c >= '1' && c <= '9' {
		j := p.pos - 1
		num := 0
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' && num <= pcreMaxRepeat {
			num = num*10 + int(p.src[j]-'0')
			j++
		}
		if num < 10 || c == '8' || c == '9' || num <= p.groups {
			p.pos = j
			n := &pcreNode{op: pBackref, n: num, caseless: p.fl.caseless}
			p.refs = append(p.refs, pcreRef{node: n, off: start + 1})
			return n, true, nil
		}
	}
	p.pos = start + 1
	b, err := p.charEscape(false)
	if err != nil {
		return nil, false, err
	}
	return p.literal(b), true, nil
}

// escapeSet is the set of \d \D \s \S \w \W \h \H \v \V.
func escapeSet(c byte) byteSet {
	var s byteSet
	switch c | 0x20 {
	case 'd':
		s = setDigit
	case 's':
		s = setSpace
	case 'w':
		s = setWord
	case 'h':
		s = setHSpace
	case 'v':
		s = setVSpace
	}
	if c >= 'A' && c <= 'Z' {
		s = s.negate()
	}
	return s
}

// charEscape reads an escape that stands for one byte, p.pos at the
// character after the backslash, and leaves p.pos past it. inClass reads
// "\b" as a backspace and digits as octal.
func (p *pcreParser) charEscape(inClass bool) (byte, error) {
	c := p.src[p.pos]
	p.pos++
	switch c {
	case 'a':
		return 0x07, nil
	case 'e':
		return 0x1b, nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'b':
		if inClass {
			return 0x08, nil
		}
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v := int(c - '0')
		for i := 0; i < 2 && p.more() && p.src[p.pos] >= '0' && p.src[p.pos] <= '7'; i++ {
			v = v*8 + int(p.src[p.pos]-'0')
			p.pos++
		}
		if v > 0xff {
			return 0, p.errAt(p.pos, "octal value is greater than \\377 in 8-bit non-UTF-8 mode")
		}
		return byte(v), nil
	case '8', '9':
		return c, nil
	case 'o':
		if p.peek(0) != '{' {
			return 0, p.errAt(p.pos, "missing opening brace after \\o")
		}
		return p.bracedNumber(8)
	case 'x':
		if p.peek(0) == '{' {
			return p.bracedNumber(16)
		}
		v := 0
		for i := 0; i < 2 && p.more() && hexDigit(p.src[p.pos]) >= 0; i++ {
			v = v*16 + hexDigit(p.src[p.pos])
			p.pos++
		}
		return byte(v), nil
	case 'c':
		if !p.more() {
			return 0, p.errAt(p.pos, "\\c at end of pattern")
		}
		x := p.src[p.pos]
		if x < 0x20 || x > 0x7e {
			return 0, p.errAt(p.pos, "\\c must be followed by a printable ASCII character")
		}
		p.pos++
		if x >= 'a' && x <= 'z' {
			x -= 32
		}
		return x ^ 0x40, nil
	case 'F', 'L', 'l', 'U', 'u':
		return 0, p.errAt(p.pos, "PCRE2 does not support \\F, \\L, \\l, \\N{name}, \\U, or \\u")
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return 0, p.errAt(p.pos-1, "unrecognized character follows \\")
	}
	return c, nil
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// bracedNumber reads {digits} of \x{...} or \o{...}, p.pos at "{".
func (p *pcreParser) bracedNumber(base int) (byte, error) {
	p.pos++
	start := p.pos
	v := 0
	for p.more() && p.src[p.pos] != '}' {
		d := hexDigit(p.src[p.pos])
		if d < 0 || d >= base {
			if base == 8 {
				return 0, p.errAt(p.pos, "non-octal character in \\o{} (closing brace missing?)")
			}
			return 0, p.errAt(p.pos, "non-hex character in \\x{} (closing brace missing?)")
		}
		if v <= 0xff {
			v = v*base + d
		}
		p.pos++
	}
	if p.pos == start {
		return 0, p.errAt(p.pos, "digits missing in \\x{} or \\o{} or \\N{U+}")
	}
	if !p.more() {
		if base == 8 {
			return 0, p.errAt(p.pos, "non-octal character in \\o{} (closing brace missing?)")
		}
		return 0, p.errAt(p.pos, "non-hex character in \\x{} (closing brace missing?)")
	}
	if v > 0xff {
		return 0, p.errAt(p.pos, "character code point value in \\x{} or \\o{} is too large")
	}
	p.pos++
	return byte(v), nil
}

// gReference reads \g: \gN, \g{N}, \g{-N}, \g{name} are back
// references; \g<...> and \g'...' are subroutine calls.
func (p *pcreParser) gReference(start int) (*pcreNode, bool, error) {
	off := p.pos
	switch p.peek(0) {
	case '<', '\'':
		return nil, false, unsupported("a subroutine call \"\\g%c\"", p.peek(0))
	}
	braced := p.peek(0) == '{'
	if braced {
		p.pos++
	}
	sign := byte(0)
	if c := p.peek(0); c == '+' || c == '-' {
		sign = c
		p.pos++
	}
	numStart := p.pos
	num := 0
	for p.more() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		if num <= pcreMaxRepeat {
			num = num*10 + int(p.src[p.pos]-'0')
		}
		p.pos++
	}
	n := &pcreNode{op: pBackref, caseless: p.fl.caseless}
	switch {
	case p.pos > numStart:
		if braced {
			if p.peek(0) != '}' {
				return nil, false, p.errAt(p.pos, "\\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number")
			}
			p.pos++
		}
		switch sign {
		case '-':
			if num == 0 {
				return nil, false, p.errAt(p.pos, "a relative value of zero is not allowed")
			}
			num = p.groups + 1 - num
			if num <= 0 {
				return nil, false, p.errAt(off, "reference to non-existent subpattern")
			}
		case '+':
			if num == 0 {
				return nil, false, p.errAt(p.pos, "a relative value of zero is not allowed")
			}
			num += p.groups
		}
		if num == 0 {
			return nil, false, p.errAt(p.pos, "reference to non-existent subpattern")
		}
		n.n = num
		p.refs = append(p.refs, pcreRef{node: n, off: off})
	case braced && sign == 0:
		p.pos = numStart
		return p.namedRef('}')
	default:
		return nil, false, p.errAt(p.pos, "\\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number")
	}
	return n, true, nil
}

// kReference reads \k<name>, \k'name' or \k{name}.
func (p *pcreParser) kReference() (*pcreNode, bool, error) {
	var term byte
	switch p.peek(0) {
	case '<':
		term = '>'
	case '\'':
		term = '\''
	case '{':
		term = '}'
	default:
		return nil, false, p.errAt(p.pos, "\\k is not followed by a braced, angle-bracketed, or quoted name")
	}
	p.pos++
	return p.namedRef(term)
}

// property reads the rest of \p or \P: a one-letter name or {name}, {^name}.
// Without UTF mode a byte is the code point of the same value.
func (p *pcreParser) property(negate bool) (byteSet, error) {
	if !p.more() {
		return byteSet{}, p.errAt(p.pos, "malformed \\P or \\p sequence")
	}
	var name string
	if p.src[p.pos] == '{' {
		end := strings.IndexByte(p.src[p.pos:], '}')
		if end < 0 {
			return byteSet{}, p.errAt(len(p.src), "malformed \\P or \\p sequence")
		}
		name = p.src[p.pos+1 : p.pos+end]
		p.pos += end + 1
		if strings.HasPrefix(name, "^") {
			negate, name = !negate, name[1:]
		}
	} else {
		name = p.src[p.pos : p.pos+1]
		p.pos++
	}
	set, err := propertySet(name)
	if err != nil {
		if _, ok := err.(*pcreUnsupported); ok {
			return byteSet{}, err
		}
		return byteSet{}, p.errAt(p.pos, "unknown property after \\P or \\p")
	}
	if negate {
		set = set.negate()
	}
	return set, nil
}

// propertySet is a Unicode property over the code points 0..255: the
// general categories and PCRE2's special names. Other properties (scripts,
// binary properties) are refused: PCRE2 knows Unicode tables edge does not
// follow.
func propertySet(name string) (byteSet, error) {
	key := strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(name))
	var in func(r rune) bool
	switch key {
	case "any":
		return setAll, nil
	case "l&", "lc":
		in = func(r rune) bool { return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) }
	case "xan":
		in = func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }
	case "xwd":
		in = func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' }
	case "xsp", "xps":
		in = func(r rune) bool { return unicode.In(r, unicode.Z) || r >= '\t' && r <= '\r' }
	case "xuc":
		in = func(r rune) bool { return r == '$' || r == '@' || r == '`' || r >= 0xa0 }
	default:
		for cat, table := range unicode.Categories {
			if strings.ToLower(cat) == key {
				in = func(r rune) bool { return unicode.Is(table, r) }
			}
		}
		if key == "cn" { // unassigned: no code point below 256
			in = func(rune) bool { return false }
		}
	}
	if in == nil {
		for _, tables := range []map[string]*unicode.RangeTable{unicode.Scripts, unicode.Properties} {
			for known := range tables {
				if strings.ReplaceAll(strings.ToLower(known), "_", "") == key {
					return byteSet{}, unsupported("the Unicode property \\p{%s}", name)
				}
			}
		}
		return byteSet{}, fmt.Errorf("unknown property")
	}
	var s byteSet
	for c := 0; c < 256; c++ {
		if in(rune(c)) {
			s.add(byte(c))
		}
	}
	return s, nil
}

// class reads a bracketed class, p.pos at "[".
func (p *pcreParser) class() (byteSet, error) {
	start := p.pos
	if s := p.src[start:]; len(s) > 2 && (s[1] == ':' || s[1] == '.' || s[1] == '=') && posixEnd(s, 1) > 0 {
		if s[1] == ':' {
			return byteSet{}, p.errAt(start, "POSIX named classes are supported only within a class")
		}
		return byteSet{}, p.errAt(start, "POSIX collating elements are not supported")
	}
	p.pos++
	negate := false
	if p.peek(0) == '^' {
		negate = true
		p.pos++
	}
	var set byteSet
	first := true
	quoted := false
	for {
		if !p.more() {
			return byteSet{}, p.errAt(len(p.src), "missing terminating ] for character class")
		}
		c := p.src[p.pos]
		if quoted {
			if c == '\\' && p.peek(1) == 'E' {
				quoted = false
				p.pos += 2
				continue
			}
		} else {
			if c == ']' && !first {
				p.pos++
				break
			}
			if p.fl.extMore && (c == ' ' || c == '\t') {
				p.pos++
				continue
			}
			if c == '\\' && (p.peek(1) == 'Q' || p.peek(1) == 'E') {
				quoted = p.peek(1) == 'Q'
				p.pos += 2
				continue
			}
		}
		first = false
		lo, loSet, isSet, err := p.classItem(quoted)
		if err != nil {
			return byteSet{}, err
		}
		if p.peek(0) == '-' && p.peek(1) != ']' && p.pos+1 < len(p.src) {
			r, err := p.classRange(lo, isSet, quoted)
			if err != nil {
				return byteSet{}, err
			}
			set.addSet(r)
			continue
		}
		if isSet {
			set.addSet(loSet)
			continue
		}
		one := setOf(lo)
		if p.fl.caseless {
			one = one.fold()
		}
		set.addSet(one)
	}
	if negate {
		set = set.negate()
	}
	return set, nil
}

// classRange reads the rest of a range "lo-hi" in a class, p.pos at "-".
func (p *pcreParser) classRange(lo byte, loIsSet, quoted bool) (byteSet, error) {
	dash := p.pos
	if loIsSet {
		return byteSet{}, p.errAt(dash, "invalid range in character class")
	}
	p.pos++
	hiStart := p.pos
	hi, _, hiSet, err := p.classItem(quoted)
	if err != nil {
		return byteSet{}, err
	}
	if hiSet {
		return byteSet{}, p.errAt(p.pos, "invalid range in character class")
	}
	if hi < lo {
		return byteSet{}, p.errAt(hiStart, "range out of order in character class")
	}
	r := ranges(lo, hi)
	if p.fl.caseless {
		r = r.fold()
	}
	return r, nil
}

// posixEnd returns the offset past the ":]" (or ".]", "=]") closing a
// POSIX class that opens at s[i] (the ":"), or -1.
func posixEnd(s string, i int) int {
	term := s[i]
	for j := i + 1; j+1 < len(s); j++ {
		if s[j] == '\\' || s[j] == '[' || s[j] == ']' && s[j-1] != term {
			return -1
		}
		if s[j] == term && s[j+1] == ']' {
			return j + 2
		}
	}
	return -1
}

// classItem reads one member of a class: a byte, or a set (an escape
// class or a POSIX class) that cannot end a range.
func (p *pcreParser) classItem(quoted bool) (b byte, set byteSet, isSet bool, err error) {
	c := p.src[p.pos]
	if quoted {
		p.pos++
		return c, byteSet{}, false, nil
	}
	if c == '[' && p.peek(1) == ':' {
		if end := posixEnd(p.src[p.pos:], 1); end > 0 {
			body := p.src[p.pos+2 : p.pos+end-2]
			nameOff := p.pos + 2
			neg := strings.HasPrefix(body, "^")
			if neg {
				body, nameOff = body[1:], nameOff+1
			}
			s, ok := posixClasses[body]
			if !ok {
				return 0, byteSet{}, false, p.errAt(nameOff, "unknown POSIX class name")
			}
			if p.fl.caseless && (body == "upper" || body == "lower") {
				s = s.fold()
			}
			if neg {
				s = s.negate()
			}
			p.pos += end
			return 0, s, true, nil
		}
	}
	if c == '[' && (p.peek(1) == '.' || p.peek(1) == '=') && posixEnd(p.src[p.pos:], 1) > 0 {
		return 0, byteSet{}, false, p.errAt(p.pos, "POSIX collating elements are not supported")
	}
	if c != '\\' {
		p.pos++
		return c, byteSet{}, false, nil
	}
	if p.pos+1 >= len(p.src) {
		return 0, byteSet{}, false, p.errAt(len(p.src), "\\ at end of pattern")
	}
	e := p.src[p.pos+1]
	switch e {
	case 'd', 'D', 's', 'S', 'w', 'W', 'h', 'H', 'v', 'V':
		p.pos += 2
		return 0, escapeSet(e), true, nil
	case 'p', 'P':
		p.pos += 2
		s, err := p.property(e == 'P')
		return 0, s, true, err
	case 'N':
		return 0, byteSet{}, false, p.errAt(p.pos+2, "\\N is not supported in a class")
	case 'R', 'X', 'B', 'A', 'z', 'Z', 'G', 'K', 'g', 'k':
		return 0, byteSet{}, false, p.errAt(p.pos+1, "escape sequence is invalid in character class")
	}
	p.pos++
	b, err = p.charEscape(true)
	return b, byteSet{}, false, err
}

// checkLookbehinds applies PCRE2 10.42's rule: every branch of a
// lookbehind has a fixed length. open holds the groups n is inside of.
func (p *pcreParser) checkLookbehinds(n *pcreNode, open []*pcreNode) error {
	if n.op == pLookbehind || n.op == pNegLookbehind {
		branches := []*pcreNode{n.subs[0]}
		if n.subs[0].op == pAlt {
			branches = n.subs[0].subs
		}
		for _, b := range branches {
			if _, ok := p.fixedLength(b, open, 0); !ok {
				return p.errAt(n.pos, "lookbehind assertion is not fixed length")
			}
		}
	}
	if n.op == pCapture {
		open = append(open, n)
	}
	for _, s := range n.subs {
		if err := p.checkLookbehinds(s, open); err != nil {
			return err
		}
	}
	return nil
}

// fixedLength returns the length every match of n has, if it has one. A
// back reference has its group's length, unless the lookbehind is inside
// that group (open).
func (p *pcreParser) fixedLength(n *pcreNode, open []*pcreNode, depth int) (int, bool) {
	switch n.op {
	case pSet:
		return 1, true
	case pConcat:
		total := 0
		for _, s := range n.subs {
			l, ok := p.fixedLength(s, open, depth)
			if !ok {
				return 0, false
			}
			total += l
		}
		return total, true
	case pAlt:
		first := -1
		for _, s := range n.subs {
			l, ok := p.fixedLength(s, open, depth)
			if !ok || first >= 0 && l != first {
				return 0, false
			}
			first = l
		}
		return first, true
	case pCapture, pGroup, pAtomic:
		return p.fixedLength(n.subs[0], open, depth)
	case pRepeat:
		// A repeated lookahead has no length; PCRE2 10.42 counts a
		// lookbehind repeated a variable number of times as variable.
		switch n.subs[0].op {
		case pLookahead, pNegLookahead:
			return 0, true
		case pLookbehind, pNegLookbehind:
			return 0, n.min == n.max
		}
		if n.min != n.max {
			return 0, false
		}
		l, ok := p.fixedLength(n.subs[0], open, depth)
		return l * n.min, ok
	case pBackref:
		g := p.caps[n.n]
		if g == nil || depth > 8 || slices.Contains(open, g) {
			return 0, false
		}
		return p.fixedLength(g, open, depth+1)
	}
	return 0, true // assertions and the empty string
}
