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

// next reads the words of one directive and what ended them. The line
// returned is the line the lexer is on when the directive ended, which is
// the line nginx puts in its messages.
func (lx *lexer) next() (words []word, kind tokenKind, line int, err error) {
	var (
		lastSpace = true
		needSpace = false
		sharp     = false
		quoted    = false
		sQuoted   = false
		dQuoted   = false
		variable  = false
		start     = 0
		startLine = 0
	)
	for {
		if lx.pos >= len(lx.src) {
			if len(words) > 0 || !lastSpace {
				return nil, 0, lx.line, lx.errorf("unexpected end of file, expecting \";\" or \"}\"")
			}
			return nil, tokEOF, lx.line, nil
		}
		ch := lx.src[lx.pos]
		lx.pos++
		if ch == '\n' {
			lx.line++
			if sharp {
				sharp = false
			}
		}
		if sharp {
			continue
		}
		if quoted {
			quoted = false
			continue
		}
		if needSpace {
			switch ch {
			case ' ', '\t', '\r', '\n':
				lastSpace = true
				needSpace = false
				continue
			case ';':
				return words, tokEnd, lx.line, nil
			case '{':
				return words, tokBlockStart, lx.line, nil
			case ')':
				lastSpace = true
				needSpace = false
			default:
				return nil, 0, lx.line, lx.errorf("unexpected \"%c\"", ch)
			}
		}
		if lastSpace {
			start = lx.pos - 1
			startLine = lx.line
			switch ch {
			case ' ', '\t', '\r', '\n':
				continue
			case ';', '{':
				if len(words) == 0 {
					return nil, 0, lx.line, lx.errorf("unexpected \"%c\"", ch)
				}
				if ch == '{' {
					return words, tokBlockStart, lx.line, nil
				}
				return words, tokEnd, lx.line, nil
			case '}':
				if len(words) != 0 {
					return nil, 0, lx.line, lx.errorf("unexpected \"}\"")
				}
				return nil, tokBlockEnd, lx.line, nil
			case '#':
				sharp = true
				continue
			case '\\':
				quoted = true
				lastSpace = false
				continue
			case '"':
				start++
				dQuoted = true
				lastSpace = false
				continue
			case '\'':
				start++
				sQuoted = true
				lastSpace = false
				continue
			case '$':
				variable = true
				lastSpace = false
				continue
			default:
				lastSpace = false
			}
			continue
		}
		if ch == '{' && variable {
			continue
		}
		variable = false
		if ch == '\\' {
			quoted = true
			continue
		}
		if ch == '$' {
			variable = true
			continue
		}
		found := false
		if dQuoted {
			if ch == '"' {
				dQuoted = false
				needSpace = true
				found = true
			}
		} else if sQuoted {
			if ch == '\'' {
				sQuoted = false
				needSpace = true
				found = true
			}
		} else if ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ';' || ch == '{' {
			lastSpace = true
			found = true
		}
		if !found {
			continue
		}
		words = append(words, word{text: unescape(lx.src[start : lx.pos-1]), line: startLine})
		if ch == ';' {
			return words, tokEnd, lx.line, nil
		}
		if ch == '{' {
			return words, tokBlockStart, lx.line, nil
		}
	}
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
