// This file holds the SSI parser: nginx's state machine over the bytes of
// a response (ngx_http_ssi_parse), state for state, so that what is a
// command, what passes through as text and what is an error (with the
// message nginx logs for it) are nginx's. Text that only looks like the
// start of a command ("<!-- x", "<!-x") passes through; "<!--#" starts a
// command that ends at "-->". A document that ends inside a command, or
// inside what could still become "<!--#", loses those bytes, as with
// nginx, which keeps them aside until it knows and never gets to know.
package proxy

import "fmt"

// The limits of ngx_http_ssi_filter_module.h.
const (
	ssiCommandLen = 32 // NGX_HTTP_SSI_COMMAND_LEN
	ssiParamLen   = 32 // NGX_HTTP_SSI_PARAM_LEN
	ssiMaxParams  = 16 // NGX_HTTP_SSI_MAX_PARAMS
)

type ssiState int

const (
	ssiStart ssiState = iota
	ssiTag
	ssiComment0
	ssiComment1
	ssiSharp
	ssiPrecommand
	ssiCommand
	ssiPreparam
	ssiParamName
	ssiPreequal
	ssiPrevalue
	ssiDoubleQuoted
	ssiQuoted
	ssiQuotedSymbol
	ssiPostparam
	ssiCommentEnd0
	ssiCommentEnd1
	ssiError
	ssiErrorEnd0
	ssiErrorEnd1
)

// ssiItemKind says what the parser found.
type ssiItemKind int

const (
	ssiText     ssiItemKind = iota // bytes to pass through
	ssiCmd                         // a command, complete
	ssiBadInput                    // a command that failed to parse, up to its "-->"
)

// ssiParam is one name="value" of a command, the value as written
// between its quotes (backslashes kept: evaluation removes them).
type ssiParam struct{ key, value string }

// ssiItem is one thing found in the body.
type ssiItem struct {
	kind   ssiItemKind
	text   []byte
	name   string
	params []ssiParam
}

// ssiParser walks a body. logf gets the [error] lines nginx writes while
// it parses.
type ssiParser struct {
	buf      []byte
	pos      int
	valueLen int
	logf     func(format string, args ...any)
}

func ssiSpace(ch byte) bool { return ch == ' ' || ch == '\r' || ch == '\n' || ch == '\t' }

// next returns the next item; false at the end of the body.
func (p *ssiParser) next() (ssiItem, bool) {
	buf := p.buf
	textStart := p.pos
	tagStart := -1
	state := ssiStart
	var (
		cmd      []byte
		params   []ssiParam
		key, val []byte
		saved    ssiState
	)
	logf := p.logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	flushParam := func() {
		params = append(params, ssiParam{key: string(key), value: string(val)})
		key, val = nil, nil
	}
	tooLongValue := func(ch byte) {
		logf("too long \"%s%c...\" value of \"%s\" parameter in \"%s\" SSI command", val, ch, key, cmd)
	}
	for i := p.pos; i < len(buf); i++ {
		ch := buf[i]
		switch state {
		case ssiStart:
			if ch == '<' {
				tagStart = i
				state = ssiTag
			}
		case ssiTag, ssiComment0, ssiComment1:
			want := byte('-')
			if state == ssiTag {
				want = '!'
			}
			switch {
			case ch == want:
				state++
			case ch == '<':
				tagStart = i
				state = ssiTag
			default:
				state = ssiStart
			}
		case ssiSharp:
			switch ch {
			case '#':
				if tagStart > textStart {
					// The text before the command goes first; the
					// command is read again from its "<" next time.
					p.pos = tagStart
					return ssiItem{kind: ssiText, text: buf[textStart:tagStart]}, true
				}
				state = ssiPrecommand
			case '<':
				tagStart = i
				state = ssiTag
			default:
				state = ssiStart
			}
		case ssiPrecommand:
			if !ssiSpace(ch) {
				cmd = append(cmd[:0], ch)
				params = params[:0]
				state = ssiCommand
			}
		case ssiCommand:
			switch {
			case ssiSpace(ch):
				state = ssiPreparam
			case ch == '-':
				state = ssiCommentEnd0
			case len(cmd) == ssiCommandLen:
				logf("the \"%s%c...\" SSI command is too long", cmd, ch)
				state = ssiError
			default:
				cmd = append(cmd, ch)
			}
		case ssiPreparam:
			switch {
			case ssiSpace(ch):
			case ch == '-':
				state = ssiCommentEnd0
			default:
				key, val = []byte{ch}, nil
				state = ssiParamName
			}
		case ssiParamName:
			switch {
			case ssiSpace(ch):
				state = ssiPreequal
			case ch == '=':
				state = ssiPrevalue
			case ch == '-':
				key = append(key, ch)
				logf("invalid \"%s\" parameter in \"%s\" SSI command", key, cmd)
				state = ssiErrorEnd0
			case len(key) == ssiParamLen:
				logf("too long \"%s%c...\" parameter in \"%s\" SSI command", key, ch, cmd)
				state = ssiError
			default:
				key = append(key, ch)
			}
		case ssiPreequal:
			switch {
			case ssiSpace(ch):
			case ch == '=':
				state = ssiPrevalue
			default:
				logf("unexpected \"%c\" symbol after \"%s\" parameter in \"%s\" SSI command", ch, key, cmd)
				state = ssiError
				if ch == '-' {
					state = ssiErrorEnd0
				}
			}
		case ssiPrevalue:
			switch {
			case ssiSpace(ch):
			case ch == '"':
				state = ssiDoubleQuoted
			case ch == '\'':
				state = ssiQuoted
			default:
				logf("unexpected \"%c\" symbol before value of \"%s\" parameter in \"%s\" SSI command", ch, key, cmd)
				state = ssiError
				if ch == '-' {
					state = ssiErrorEnd0
				}
			}
		case ssiDoubleQuoted, ssiQuoted:
			quote := byte('"')
			if state == ssiQuoted {
				quote = '\''
			}
			if ch == quote {
				flushParam()
				state = ssiPostparam
				break
			}
			if ch == '\\' {
				// The backslash is kept, and the next byte taken as it is.
				saved = state
				state = ssiQuotedSymbol
			}
			if len(val) == p.valueLen {
				tooLongValue(ch)
				state = ssiError
				break
			}
			val = append(val, ch)
		case ssiQuotedSymbol:
			state = saved
			if len(val) == p.valueLen {
				tooLongValue(ch)
				state = ssiError
				break
			}
			val = append(val, ch)
		case ssiPostparam:
			switch {
			case ssiSpace(ch):
				state = ssiPreparam
			case ch == '-':
				state = ssiCommentEnd0
			default:
				last := params[len(params)-1]
				logf("unexpected \"%c\" symbol after \"%s\" value of \"%s\" parameter in \"%s\" SSI command", ch, last.value, last.key, cmd)
				state = ssiError
			}
		case ssiCommentEnd0, ssiCommentEnd1:
			switch {
			case state == ssiCommentEnd0 && ch == '-':
				state = ssiCommentEnd1
			case state == ssiCommentEnd1 && ch == '>':
				p.pos = i + 1
				return ssiItem{kind: ssiCmd, name: string(cmd), params: params}, true
			default:
				logf("unexpected \"%c\" symbol in \"%s\" SSI command", ch, cmd)
				state = ssiError
			}
		case ssiError:
			if ch == '-' {
				state = ssiErrorEnd0
			}
		case ssiErrorEnd0:
			state = ssiError
			if ch == '-' {
				state = ssiErrorEnd1
			}
		case ssiErrorEnd1:
			if ch == '>' {
				p.pos = i + 1
				return ssiItem{kind: ssiBadInput, name: string(cmd)}, true
			}
			state = ssiError
		}
	}
	p.pos = len(buf)
	end := len(buf)
	if state != ssiStart {
		// A possible or started command never completed: dropped.
		end = tagStart
	}
	if end > textStart {
		return ssiItem{kind: ssiText, text: buf[textStart:end]}, true
	}
	return ssiItem{}, false
}

// String shows an item in test failures.
func (it ssiItem) String() string {
	switch it.kind {
	case ssiText:
		return fmt.Sprintf("text %q", it.text)
	case ssiCmd:
		return fmt.Sprintf("cmd %s %v", it.name, it.params)
	}
	return fmt.Sprintf("bad %s", it.name)
}
