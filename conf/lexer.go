// This file holds the tokenizer for nginx's configuration language.
//
// It follows ngx_conf_read_token (src/core/ngx_conf_file.c) rule for rule,
// because users bring configs that nginx accepts and expect the same words:
//   - words are separated by spaces, tabs, CR and LF;
//   - ";" and "{" end a word they touch ("root /x;" is two words and a ";"),
//     but "}" inside a word is part of it;
//   - "#" starts a comment only at the start of a word;
//   - single and double quotes only open at the start of a word; a closing quote
//     must be followed by a space, ";", "{" or ")";
//   - inside a word "\"", "\'", "\\" lose their backslash, "\n", "\r", "\t"
//     become control characters, and any other "\x" is kept as written, so
//     regexps such as "\.php$" survive;
//   - "${" does not open a block (it is the ${var} form).
package conf

import "fmt"

// tokenKind says what ended a directive's words.
type tokenKind int

const (
	tokEnd        tokenKind = iota // ";"
	tokBlockStart                  // "{"
	tokBlockEnd                    // "}"
	tokEOF                         // end of the file
)

// lexer reads one file's bytes.
type lexer struct {
	file string
	src  []byte
	pos  int
	line int
}

func newLexer(file string, src []byte) *lexer {
	return &lexer{file: file, src: src, line: 1}
}

// word is one argument together with the line it started on.
type word struct {
	text string
	line int
}

// lexState is the state of ngx_conf_read_token's loop while it reads one
// directive.
type lexState struct {
	lastSpace, needSpace, sharp, quoted, sQuoted, dQuoted, variable bool

	start, startLine int // where the current word began
	words            []word
}

// lexAction is what the lexer does after one step with a byte.
type lexAction int

const (
	lexNext lexAction = iota // read the next byte
	lexOn                    // give this byte to the next step
	lexEnd                   // the directive ended (or an error)
)

// next reads the words of one directive and what ended them. The line
// returned is the line the lexer is on when the directive ended, which is
// the line nginx puts in its messages.
func (lx *lexer) next() (words []word, kind tokenKind, line int, err error) {
	st := &lexState{lastSpace: true}
	for {
		if lx.pos >= len(lx.src) {
			if len(st.words) > 0 || !st.lastSpace {
				return nil, 0, lx.line, lx.errorf("unexpected end of file, expecting \";\" or \"}\"")
			}
			return nil, tokEOF, lx.line, nil
		}
		ch := lx.src[lx.pos]
		lx.pos++
		if ch == '\n' {
			lx.line++
			st.sharp = false
		}
		if st.sharp {
			continue
		}
		if st.quoted {
			st.quoted = false
			continue
		}
		act, kind, err := lx.afterQuote(st, ch)
		if act == lexOn {
			act, kind, err = lx.wordStart(st, ch)
		}
		if act == lexOn {
			act, kind = lx.inWord(st, ch)
		}
		if act != lexEnd {
			continue
		}
		if err != nil {
			return nil, 0, lx.line, err
		}
		return st.words, kind, lx.line, nil
	}
}

// afterQuote handles the byte after a closing quote, which must end the
// word.
func (lx *lexer) afterQuote(st *lexState, ch byte) (lexAction, tokenKind, error) {
	if !st.needSpace {
		return lexOn, 0, nil
	}
	switch ch {
	case ' ', '\t', '\r', '\n':
		st.lastSpace, st.needSpace = true, false
		return lexNext, 0, nil
	case ';':
		return lexEnd, tokEnd, nil
	case '{':
		return lexEnd, tokBlockStart, nil
	case ')':
		st.lastSpace, st.needSpace = true, false
		return lexOn, 0, nil
	}
	return lexEnd, 0, lx.errorf("unexpected \"%c\"", ch)
}

// wordStart handles a byte after a separator: it may start a word, a
// quoted word, a comment, or end the directive.
func (lx *lexer) wordStart(st *lexState, ch byte) (lexAction, tokenKind, error) {
	if !st.lastSpace {
		return lexOn, 0, nil
	}
	st.start, st.startLine = lx.pos-1, lx.line
	switch ch {
	case ' ', '\t', '\r', '\n':
	case ';', '{':
		if len(st.words) == 0 {
			return lexEnd, 0, lx.errorf("unexpected \"%c\"", ch)
		}
		if ch == '{' {
			return lexEnd, tokBlockStart, nil
		}
		return lexEnd, tokEnd, nil
	case '}':
		if len(st.words) != 0 {
			return lexEnd, 0, lx.errorf("unexpected \"}\"")
		}
		return lexEnd, tokBlockEnd, nil
	case '#':
		st.sharp = true
	case '\\':
		st.quoted, st.lastSpace = true, false
	case '"':
		st.start++
		st.dQuoted, st.lastSpace = true, false
	case '\'':
		st.start++
		st.sQuoted, st.lastSpace = true, false
	case '$':
		st.variable, st.lastSpace = true, false
	default:
		st.lastSpace = false
	}
	return lexNext, 0, nil
}

// inWord handles a byte inside a word: it may end the word, and the
// directive with it.
func (lx *lexer) inWord(st *lexState, ch byte) (lexAction, tokenKind) {
	if ch == '{' && st.variable {
		return lexNext, 0
	}
	st.variable = false
	if ch == '\\' {
		st.quoted = true
		return lexNext, 0
	}
	if ch == '$' {
		st.variable = true
		return lexNext, 0
	}
	found := false
	switch {
	case st.dQuoted:
		if ch == '"' {
			st.dQuoted, st.needSpace, found = false, true, true
		}
	case st.sQuoted:
		if ch == '\'' {
			st.sQuoted, st.needSpace, found = false, true, true
		}
	case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ';' || ch == '{':
		st.lastSpace, found = true, true
	}
	if !found {
		return lexNext, 0
	}
	st.words = append(st.words, word{text: unescape(lx.src[st.start : lx.pos-1]), line: st.startLine})
	switch ch {
	case ';':
		return lexEnd, tokEnd
	case '{':
		return lexEnd, tokBlockStart
	}
	return lexNext, 0
}

// unescape applies nginx's escapes to a word's raw bytes.
func unescape(raw []byte) string {
	hasEscape := false
	for _, c := range raw {
		if c == '\\' {
			hasEscape = true
			break
		}
	}
	if !hasEscape {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' && i+1 < len(raw) {
			switch raw[i+1] {
			case '"', '\'', '\\':
				i++
				c = raw[i]
			case 't':
				out = append(out, '\t')
				i++
				continue
			case 'r':
				out = append(out, '\r')
				i++
				continue
			case 'n':
				out = append(out, '\n')
				i++
				continue
			}
		}
		out = append(out, c)
	}
	return string(out)
}

func (lx *lexer) errorf(format string, args ...any) error {
	return &Error{Level: LevelEmerg, Msg: fmt.Sprintf(format, args...), File: lx.file, Line: lx.line}
}
