// This file holds the SSI filter (ngx_http_ssi_filter_module): with "ssi
// on", a response whose Content-Type is in ssi_types and whose length is
// not known to be zero has its commands run: include (a subrequest, in
// place or into a variable), echo, set, config, if/elif/else/endif and
// block/endblock (the stubs of include). It runs after the charset filter
// and before gzip and brotli, as in nginx's chain, on main requests and
// on subrequests alike.
//
// nginx parses the body as it flows and waits on subrequests where the
// output order needs it. edge reads the whole body first (in memory) and
// runs the commands in order as the response is written, each include's
// subrequest to its end before the next byte: the output order and
// "wait" hold by construction (docs/nginx-differences.md).
//
// The headers: a main response loses Content-Length (it is sent chunked
// on HTTP/1.1, or closed on HTTP/1.0) and Accept-Ranges; with
// ssi_last_modified off (the default) Last-Modified and ETag too, with it
// on the ETag is made weak.
package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"edge/conf"
)

// The echo encodings (NGX_HTTP_SSI_*_ENCODING).
const (
	ssiEncNone = iota
	ssiEncURL
	ssiEncEntity
)

// The conditional states: inside an if or elif (1), after else (2).
const (
	ssiCondIf   = 1
	ssiCondElse = 2
)

const (
	ssiDefaultErrmsg  = "[an error occurred while processing the directive]"
	ssiDefaultTimefmt = "%A, %d-%b-%Y %H:%M:%S %Z"
)

// ssiCtx is one processed response's state (nginx's ngx_http_ssi_ctx_t
// of that request).
type ssiCtx struct {
	errmsg, timefmt string
	encoding        int
	output          bool // text and commands are output (false in a skipped branch or a block)
	chosen          bool // a branch of the current if was taken
	conditional     int
	block           bool // inside block ... endblock
}

// ssiShared is what a main request's SSI and its subrequests' share:
// the variables set, blocks and the last regex captures (nginx keeps
// them in the main request's context).
type ssiShared struct {
	vars   []ssiVar
	blocks []ssiBlock
	caps   []string // $0..$9 of the last matching /regex/
}

type ssiVar struct{ name, value string }

type ssiBlock struct {
	name string
	body []byte
}

// shared is the SSI state r's main request holds.
func (r *Request) ssiShared() *ssiShared {
	m := r.mainRequest()
	if m.ssiVars == nil {
		m.ssiVars = &ssiShared{}
	}
	return m.ssiVars
}

func (s *ssiShared) lookup(name string) *ssiVar {
	for i := range s.vars {
		if s.vars[i].name == name {
			return &s.vars[i]
		}
	}
	return nil
}

func (s *ssiShared) set(name, value string) {
	if v := s.lookup(name); v != nil {
		v.value = value
		return
	}
	s.vars = append(s.vars, ssiVar{name, value})
}

// ssiFilter is the header part: it decides whether r's response is
// processed and makes its body a stream that processes it.
func (rt *Site) ssiFilter(r *Request) {
	s := &r.loc.SSI
	resp := r.resp
	if !s.On || resp.Drop || resp.Upgrade != nil || !s.TypeOK(resp.Header.Get("Content-Type")) {
		return
	}
	var length int64 = -1
	switch resp.Kind {
	case BodyNone:
		length = 0
		if r.Method == "HEAD" {
			length = resp.Length
		}
	case BodyBytes:
		length = int64(len(resp.Bytes))
	case BodyFile, BodyStream:
		length = resp.Length
	}
	if length == 0 {
		return
	}
	r.ssi = &ssiCtx{errmsg: ssiDefaultErrmsg, timefmt: ssiDefaultTimefmt, encoding: ssiEncEntity, output: true}
	if r.parent == nil {
		resp.Header.Del("Content-Length")
		resp.Header.Del("Accept-Ranges")
		if !s.LastModified {
			resp.Header.Del("Last-Modified")
			resp.Header.Del("ETag")
		} else {
			weakenETag(&resp.Header)
		}
	}
	if r.Method == "HEAD" && r.parent == nil {
		// No body is read for HEAD, so no command runs.
		rt.dropBody(resp)
		resp.Kind, resp.Length = BodyStream, -1
		resp.Stream = func(io.Writer, func() error) error { return nil }
		return
	}
	// Take the body as it is now; the stream reads it when the response
	// is written.
	kind, data, file, closeFile, off, n, inner := resp.Kind, resp.Bytes, resp.File, resp.CloseFile, resp.Offset, resp.Length, resp.Stream
	if resp.pooled != nil {
		data = append([]byte(nil), data...)
		resp.Release()
	}
	resp.Kind, resp.Bytes, resp.File, resp.CloseFile, resp.Stream, resp.Length = BodyStream, nil, nil, false, nil, -1
	read := func() ([]byte, error) {
		var body []byte
		switch kind {
		case BodyBytes:
			body = data
		case BodyFile:
			body = make([]byte, n)
			_, err := file.ReadAt(body, off)
			if closeFile {
				file.Close()
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
		case BodyStream:
			var b bytes.Buffer
			if err := inner(&b, func() error { return nil }); err != nil {
				return nil, err
			}
			body = b.Bytes()
		}
		return body, nil
	}
	if r.parent != nil {
		// A subrequest's body is processed as its parent takes it.
		resp.Stream = func(w io.Writer, flush func() error) error {
			body, err := read()
			if err != nil {
				return err
			}
			return rt.ssiRun(r, body, w)
		}
		return
	}
	// A main response is processed now, before its head goes out, so that
	// a failure early in the output (an include's body past
	// subrequest_output_buffer_size) ends the connection without a
	// response, as nginx's does while what it output is still below
	// postpone_output.
	body, err := read()
	var out bytes.Buffer
	if err == nil {
		err = rt.ssiRun(r, body, &out)
	}
	if err != nil && out.Len() < postponeOutput {
		rt.dropBody(resp)
		resp.Drop, resp.Close = true, true
		return
	}
	resp.Stream = func(w io.Writer, flush func() error) error {
		if _, werr := w.Write(out.Bytes()); werr != nil {
			return werr
		}
		return err
	}
}

// postponeOutput is nginx's postpone_output default: output below it
// waits in nginx's write filter.
const postponeOutput = 1460

// ssiRun runs the commands of body, writing the output to w.
func (rt *Site) ssiRun(r *Request, body []byte, w io.Writer) error {
	c := r.ssi
	sh := r.ssiShared()
	p := &ssiParser{buf: body, valueLen: int(r.loc.SSI.ValueLength), logf: func(f string, a ...any) { rt.ssiErrorf(r, f, a...) }}
	for {
		it, ok := p.next()
		if !ok {
			return nil
		}
		var err error
		switch it.kind {
		case ssiText:
			switch {
			case c.output:
				_, err = w.Write(it.text)
			case c.block && len(sh.blocks) > 0:
				bl := &sh.blocks[len(sh.blocks)-1]
				bl.body = append(bl.body, it.text...)
			}
		case ssiBadInput:
			err = rt.ssiFail(r, w)
		case ssiCmd:
			var failed bool
			failed, err = rt.ssiCommand(r, it, w)
			if failed && err == nil {
				err = rt.ssiFail(r, w)
			}
		}
		if err != nil {
			return err
		}
	}
}

// ssiFail outputs the error message of a failed command, unless
// ssi_silent_errors.
func (rt *Site) ssiFail(r *Request, w io.Writer) error {
	if r.loc.SSI.SilentErrors {
		return nil
	}
	_, err := io.WriteString(w, r.ssi.errmsg)
	return err
}

// ssiCommandSpec is a command's parameters and place (nginx's
// ngx_http_ssi_command_t).
type ssiCommandSpec struct {
	params      []string
	mandatory   []string
	conditional int
	block       bool // endblock: runs inside a block
}

var ssiCommands = map[string]*ssiCommandSpec{
	"include":  {params: []string{"virtual", "file", "wait", "set", "stub"}},
	"echo":     {params: []string{"var", "default", "encoding"}, mandatory: []string{"var"}},
	"config":   {params: []string{"errmsg", "timefmt"}},
	"set":      {params: []string{"var", "value"}, mandatory: []string{"var", "value"}},
	"if":       {params: []string{"expr"}, mandatory: []string{"expr"}},
	"elif":     {params: []string{"expr"}, mandatory: []string{"expr"}, conditional: ssiCondIf},
	"else":     {conditional: ssiCondIf},
	"endif":    {conditional: ssiCondElse},
	"block":    {params: []string{"name"}, mandatory: []string{"name"}},
	"endblock": {block: true},
}

// ssiCommand runs one command; failed asks for the error message.
func (rt *Site) ssiCommand(r *Request, it ssiItem, w io.Writer) (failed bool, err error) {
	c := r.ssi
	sh := r.ssiShared()
	cmd := ssiCommands[it.name]
	if cmd == nil {
		if c.output {
			rt.ssiErrorf(r, "invalid SSI command: \"%s\"", it.name)
			return true, nil
		}
		return false, nil
	}
	if !c.output && !cmd.block {
		if c.block {
			// Inside a block a command is kept as text, for the stub.
			if len(sh.blocks) > 0 {
				bl := &sh.blocks[len(sh.blocks)-1]
				bl.body = append(bl.body, "<!--#"...)
				bl.body = append(bl.body, it.name...)
				for _, p := range it.params {
					bl.body = append(append(append(append(append(bl.body, ' '), p.key...), '=', '"'), p.value...), '"')
				}
				bl.body = append(bl.body, " -->"...)
			}
			return false, nil
		}
		if cmd.conditional == 0 {
			return false, nil
		}
	}
	if cmd.conditional != 0 && (c.conditional == 0 || c.conditional > cmd.conditional) {
		rt.ssiErrorf(r, "invalid context of SSI command: \"%s\"", it.name)
		return true, nil
	}
	if len(it.params) > ssiMaxParams {
		rt.ssiErrorf(r, "too many SSI command parameters: \"%s\"", it.name)
		return true, nil
	}
	params := map[string]string{}
	for _, p := range it.params {
		known := false
		for _, name := range cmd.params {
			if p.key == name {
				known = true
			}
		}
		if !known {
			rt.ssiErrorf(r, "invalid parameter name: \"%s\" in \"%s\" SSI command", p.key, it.name)
			return true, nil
		}
		if _, dup := params[p.key]; dup {
			rt.ssiErrorf(r, "duplicate \"%s\" parameter in \"%s\" SSI command", p.key, it.name)
			return true, nil
		}
		params[p.key] = p.value
	}
	for _, name := range cmd.mandatory {
		if _, ok := params[name]; !ok {
			rt.ssiErrorf(r, "mandatory \"%s\" parameter is absent in \"%s\" SSI command", name, it.name)
			return true, nil
		}
	}
	switch it.name {
	case "include":
		return rt.ssiInclude(r, params, w)
	case "echo":
		return rt.ssiEcho(r, params, w)
	case "config":
		if v, ok := params["timefmt"]; ok {
			c.timefmt = v
		}
		if v, ok := params["errmsg"]; ok {
			c.errmsg = v
		}
	case "set":
		v, ok := rt.ssiEvaluate(r, params["value"], false)
		if !ok {
			return true, nil
		}
		sh.set(strings.ToLower(params["var"]), v)
	case "if", "elif":
		return rt.ssiIf(r, it.name, params["expr"]), nil
	case "else":
		c.output = !c.chosen
		c.conditional = ssiCondElse
	case "endif":
		c.output, c.chosen, c.conditional = true, false, 0
	case "block":
		sh.blocks = append(sh.blocks, ssiBlock{name: params["name"]})
		c.output, c.block = false, true
	case "endblock":
		c.output, c.block = true, false
	}
	return false, nil
}

// ssiInclude is the include command: a subrequest whose body goes in
// place, into a variable (set=), or is replaced by a block (stub=) when
// it ends with an error status or no body.
func (rt *Site) ssiInclude(r *Request, params map[string]string, w io.Writer) (bool, error) {
	uri, isVirtual := params["virtual"]
	file, isFile := params["file"]
	wait, hasWait := params["wait"]
	set, hasSet := params["set"]
	stub, hasStub := params["stub"]
	switch {
	case isVirtual && isFile:
		rt.ssiErrorf(r, "inclusion may be either virtual=\"%s\" or file=\"%s\"", uri, file)
		return true, nil
	case !isVirtual && !isFile:
		rt.ssiErrorf(r, "no parameter in \"include\" SSI command")
		return true, nil
	case hasSet && hasStub:
		rt.ssiErrorf(r, "\"set\" and \"stub\" cannot be used together in \"include\" SSI command")
		return true, nil
	}
	if hasWait {
		if !isVirtual {
			rt.ssiErrorf(r, "\"wait\" cannot be used with file=\"%s\"", file)
			return true, nil
		}
		if !strings.EqualFold(wait, "no") && !strings.EqualFold(wait, "yes") {
			rt.ssiErrorf(r, "invalid value \"%s\" in the \"wait\" parameter", wait)
			return true, nil
		}
	}
	if !isVirtual {
		uri = file
	}
	uri, ok := rt.ssiEvaluate(r, uri, true)
	if !ok {
		return true, nil
	}
	path, args, ok := parseUnsafeURI(uri)
	if !ok {
		rt.ssiErrorf(r, "unsafe URI \"%s\" was detected", uri)
		return true, nil
	}
	sh := r.ssiShared()
	var block *ssiBlock
	if hasStub {
		for i := range sh.blocks {
			if sh.blocks[i].name == stub {
				block = &sh.blocks[i]
				break
			}
		}
		if block == nil {
			rt.ssiErrorf(r, "\"stub\"=\"%s\" for \"include\" not found", stub)
			return true, nil
		}
	}
	var setVar string
	if hasSet {
		setVar = strings.ToLower(set)
		if sh.lookup(setVar) == nil {
			sh.vars = append(sh.vars, ssiVar{name: setVar})
		}
	}
	sr := rt.newSubrequest(r, path, args)
	if sr == nil {
		return true, nil
	}
	if hasSet {
		body, err := rt.subrequestInMemory(sr)
		if err == nil && sr.resp.Drop {
			err = errSubrequestClosed
		}
		if err != nil {
			return false, err
		}
		if sr.resp.Status < 300 {
			sh.set(setVar, string(body))
		}
		return false, nil
	}
	sr.stub = block != nil
	rt.serveSubrequest(sr)
	n, err := rt.subrequestBody(sr, w)
	if err == nil && sr.resp.Drop {
		err = errSubrequestClosed
	}
	if err != nil {
		return false, err
	}
	if block != nil && (sr.stubbed || n == 0) {
		// A stub that stands for an error status is the subrequest's
		// output and passes through its SSI filter; one after an empty
		// body passes only where SSI took that body.
		if sr.ssi != nil || sr.stubbed && sr.loc.SSI.On && sr.loc.SSI.TypeOK(r.resp.Header.Get("Content-Type")) {
			// The stub goes out as the subrequest's output, through its
			// own SSI filter.
			sr.ssi = &ssiCtx{errmsg: ssiDefaultErrmsg, timefmt: ssiDefaultTimefmt, encoding: ssiEncEntity, output: true}
			return false, rt.ssiRun(sr, append([]byte(nil), block.body...), w)
		}
		_, err = w.Write(block.body)
	}
	return false, err
}

// ssiEcho is the echo command.
func (rt *Site) ssiEcho(r *Request, params map[string]string, w io.Writer) (bool, error) {
	c := r.ssi
	value, found := rt.ssiVariable(r, strings.ToLower(params["var"]))
	if !found {
		def, ok := params["default"]
		switch {
		case !ok:
			value = "(none)"
		default:
			value = def
		}
	}
	if enc, ok := params["encoding"]; ok {
		switch enc {
		case "none":
			c.encoding = ssiEncNone
		case "url":
			c.encoding = ssiEncURL
		case "entity":
			c.encoding = ssiEncEntity
		default:
			rt.ssiErrorf(r, "unknown encoding \"%s\" in the \"echo\" command", enc)
		}
	}
	if value == "" {
		return false, nil
	}
	switch c.encoding {
	case ssiEncURL:
		value = escapeWith(value, ssiURLEscape)
	case ssiEncEntity:
		value = escapeHTML(value)
	}
	_, err := io.WriteString(w, value)
	return false, err
}

// ssiURLEscape is nginx's NGX_ESCAPE_HTML set: space, the double and
// single quotes, '#', '%', '<', '>', '\\', '^', '`', '{', '|', '}', the
// controls and bytes from 0x7f on.
func ssiURLEscape(c byte) bool {
	return c <= ' ' || c >= 0x7f || c == '"' || c == '#' || c == '%' || c == '\'' || c == '<' || c == '>' || strings.IndexByte("\\^`{|}", c) >= 0
}

// escapeHTML is ngx_escape_html: <, >, & and ".
func escapeHTML(s string) string {
	if !strings.ContainsAny(s, "<>&\"") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// ssiIf is the if and elif commands; it reports a failed expression.
func (rt *Site) ssiIf(r *Request, name, expr string) bool {
	c := r.ssi
	if name == "if" && c.conditional != 0 {
		rt.ssiErrorf(r, "the \"if\" command inside the \"if\" command")
		return true
	}
	if c.chosen {
		c.output = false
		return false
	}
	// The left side: a run of letters, digits and $ { } _ " ', lowercased
	// (nginx lowercases it in place).
	i := 0
	lb := []byte(expr)
	for ; i < len(lb); i++ {
		ch := lb[i]
		if ch >= 'A' && ch <= 'Z' {
			lb[i] = ch | 0x20
			continue
		}
		if ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || strings.IndexByte("${}_\"'", ch) >= 0 {
			continue
		}
		break
	}
	left := string(lb[:i])
	for i < len(expr) && expr[i] == ' ' {
		i++
	}
	lv, ok := rt.ssiEvaluate(r, left, false)
	if !ok {
		return true
	}
	choose := func(yes bool) {
		c.output = yes
		if yes {
			c.chosen = true
		}
		c.conditional = ssiCondIf
	}
	if i == len(expr) {
		choose(lv != "")
		return false
	}
	negative := false
	switch {
	case expr[i] == '=':
		i++
	case i+1 < len(expr) && expr[i] == '!' && expr[i+1] == '=':
		negative = true
		i += 2
	default:
		rt.ssiErrorf(r, "invalid expression in \"%s\"", expr)
		return true
	}
	for i < len(expr) && expr[i] == ' ' {
		i++
	}
	last := len(expr)
	regex := false
	if i < last-1 && expr[i] == '/' {
		if expr[last-1] != '/' {
			rt.ssiErrorf(r, "invalid expression in \"%s\"", expr)
			return true
		}
		regex = true
		last--
		i++
	} else if i < last-1 && expr[i] == '\\' && expr[i+1] == '/' {
		i++
	}
	rv, ok := rt.ssiEvaluate(r, expr[i:last], false)
	if !ok {
		return true
	}
	var match bool
	if !regex {
		match = lv == rv
	} else {
		m, failed := rt.ssiRegexMatch(r, rv, lv)
		if failed {
			return true
		}
		match = m
	}
	choose(match != negative)
	return false
}

// ssiRegexes caches the patterns SSI expressions compiled, by source.
var ssiRegexes struct {
	sync.Mutex
	m map[string]*conf.Regex
}

// ssiRegexMatch matches s against pattern, keeping the captures for $0..$9
// and named captures as SSI variables; failed when the pattern does not
// compile or the match fails.
func (rt *Site) ssiRegexMatch(r *Request, pattern, s string) (match, failed bool) {
	ssiRegexes.Lock()
	re := ssiRegexes.m[pattern]
	ssiRegexes.Unlock()
	if re == nil {
		var err error
		re, err = conf.CompileRuntime(pattern)
		if err != nil {
			rt.ssiErrorf(r, "%s", err.Error())
			return false, true
		}
		ssiRegexes.Lock()
		if ssiRegexes.m == nil || len(ssiRegexes.m) > 1024 {
			ssiRegexes.m = map[string]*conf.Regex{}
		}
		ssiRegexes.m[pattern] = re
		ssiRegexes.Unlock()
	}
	caps, ok, err := re.Exec(s, nil)
	if err != nil {
		rt.ssiAlertf(r, "pcre2_match() failed: -47 on \"%s\" using \"%s\"", s, pattern)
		return false, true
	}
	if !ok {
		return false, false
	}
	sh := r.ssiShared()
	// nginx's count of captures is the highest group that took part, plus
	// one.
	n := 0
	for g := 0; 2*g+1 < len(caps); g++ {
		if caps[2*g] >= 0 {
			n = g + 1
		}
	}
	sh.caps = sh.caps[:0]
	for g := 0; g < n; g++ {
		v := ""
		if caps[2*g] >= 0 {
			v = s[caps[2*g]:caps[2*g+1]]
		}
		sh.caps = append(sh.caps, v)
	}
	for _, nc := range re.Names() {
		v := ""
		if 2*nc.Group+1 < len(caps) && caps[2*nc.Group] >= 0 {
			v = s[caps[2*nc.Group]:caps[2*nc.Group+1]]
		}
		sh.set(strings.ToLower(nc.Name), v)
	}
	return true, false
}

// ssiVariable looks a name up as SSI does: the captures $0..$9 of the
// last /regex/, the SSI variables, then nginx's variables. found is
// false for a variable with no value (nginx's not_found).
func (rt *Site) ssiVariable(r *Request, name string) (string, bool) {
	sh := r.ssiShared()
	if len(name) == 1 && name[0] >= '0' && name[0] <= '9' {
		if i := int(name[0] - '0'); i < len(sh.caps) {
			return sh.caps[i], true
		}
	}
	if v := sh.lookup(name); v != nil {
		return v.value, true
	}
	if rt.plan.HTTP == nil {
		return "", false
	}
	ref, ok := rt.plan.HTTP.LookupVar(name)
	if !ok {
		if name != "" && name[0] >= '1' && name[0] <= '9' && len(name) == 1 {
			v := r.capture(int(name[0] - '0'))
			return v, v != ""
		}
		return "", false
	}
	v := rt.varValue(r, ref)
	if v == "" && varMayBeAbsent(r, ref) {
		return "", false
	}
	return v, true
}

// varMayBeAbsent reports whether an empty value of ref is nginx's "not
// found" rather than an empty value: a header, argument, cookie or
// response header that is not there (one sent empty is found), a set variable never set, the upstream's and TLS's
// variables without one.
func varMayBeAbsent(r *Request, ref *conf.VarRef) bool {
	switch ref.Kind {
	case conf.VarHeader:
		var all [32]HeaderKV
		for _, h := range r.Header.AppendAll(all[:0]) {
			if strings.EqualFold(h.Name, ref.Arg) {
				return false
			}
		}
		return true
	case conf.VarArg:
		for args := r.args; args != ""; {
			var part string
			part, args, _ = strings.Cut(args, "&")
			if k, _, ok := strings.Cut(part, "="); ok && strings.EqualFold(k, ref.Arg) {
				return false
			}
		}
		return true
	case conf.VarSent:
		return !r.resp.Header.Has(ref.Arg)
	case conf.VarUpstream:
		return !r.up.used() || !r.up.header.Has(ref.Arg)
	case conf.VarCookie:
		var all [32]HeaderKV
		for _, h := range r.Header.AppendAll(all[:0]) {
			if !strings.EqualFold(h.Name, "Cookie") {
				continue
			}
			for c := h.Value; c != ""; {
				var part string
				part, c, _ = strings.Cut(c, ";")
				if k, _, ok := strings.Cut(strings.TrimLeft(part, " \t"), "="); ok && strings.EqualFold(strings.TrimSpace(k), ref.Arg) {
					return false
				}
			}
		}
		return true
	case conf.VarSlot:
		return ref.Map == nil && (ref.N >= len(r.slots) || !r.slots[ref.N].valid)
	}
	switch ref.ID {
	case conf.VarArgs, conf.VarQueryString, conf.VarContentType, conf.VarContentLength, conf.VarRemoteUser, conf.VarRequestBody, conf.VarRequestBodyFile,
		conf.VarUpstreamAddr, conf.VarUpstreamStatus, conf.VarUpstreamResponseTime, conf.VarUpstreamConnectTime,
		conf.VarUpstreamHeaderTime, conf.VarUpstreamCacheStatus, conf.VarUpstreamResponseLength, conf.VarUpstreamBytesReceived,
		conf.VarSSLProtocol, conf.VarSSLCipher, conf.VarSSLSessionReused, conf.VarSSLServerName, conf.VarSSLSessionID:
		return true
	}
	return false
}

// ssiEvaluate is ngx_http_ssi_evaluate_string: variables replaced,
// backslashes before \ ' " $ removed (others kept), and with addPrefix a
// relative result put under the directory of r's URI. ok is false after
// the error was logged.
func (rt *Site) ssiEvaluate(r *Request, text string, addPrefix bool) (string, bool) {
	prefix := ""
	if addPrefix {
		if i := strings.LastIndexByte(r.uri, '/'); i >= 0 {
			prefix = r.uri[:i+1]
		}
	}
	if !strings.Contains(text, "$") {
		out := unquoteSSI(text)
		if addPrefix && (text == "" || text[0] != '/') {
			out = prefix + out
		}
		return out, true
	}
	var parts []string
	for i := 0; i < len(text); {
		if text[i] == '$' {
			i++
			if i == len(text) {
				rt.ssiErrorf(r, "invalid variable name in \"%s\"", text)
				return "", false
			}
			bracket := false
			if text[i] == '{' {
				bracket = true
				i++
				if i == len(text) {
					rt.ssiErrorf(r, "invalid variable name in \"%s\"", text)
					return "", false
				}
			}
			start := i
			for i < len(text) {
				ch := text[i]
				if ch == '}' && bracket {
					break
				}
				if !isVarNameChar(ch) {
					break
				}
				i++
			}
			name := text[start:i]
			if bracket {
				if i == len(text) || text[i] != '}' {
					rt.ssiErrorf(r, "the closing bracket in \"%s\" variable is missing", name)
					return "", false
				}
				i++
			}
			if name == "" {
				rt.ssiErrorf(r, "invalid variable name in \"%s\"", text)
				return "", false
			}
			v, found := rt.ssiVariable(r, strings.ToLower(name))
			if !found {
				continue
			}
			parts = append(parts, v)
			continue
		}
		start := i
		quoted := false
		for ; i < len(text); i++ {
			if !quoted && text[i] == '$' {
				break
			}
			if !quoted && text[i] == '\\' {
				quoted = true
				continue
			}
			quoted = false
		}
		parts = append(parts, unquoteSSI(text[start:i]))
	}
	out := strings.Join(parts, "")
	if addPrefix {
		for _, p := range parts {
			if p != "" {
				if p[0] != '/' {
					out = prefix + out
				}
				break
			}
		}
	}
	return out, true
}

func isVarNameChar(ch byte) bool {
	return ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '_'
}

// unquoteSSI removes a backslash before \ ' " and $, keeps the others,
// and drops a final lone backslash, as nginx's evaluation does.
func unquoteSSI(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	b := make([]byte, 0, len(s))
	quoted := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !quoted {
			if ch == '\\' {
				quoted = true
				continue
			}
		} else {
			quoted = false
			if ch != '\\' && ch != '\'' && ch != '"' && ch != '$' {
				b = append(b, '\\')
			}
		}
		b = append(b, ch)
	}
	return string(b)
}

// parseUnsafeURI is ngx_http_parse_unsafe_uri for an include: the URI is
// split at its "?", percent-decoded, and refused (ok false) when empty,
// starting with "?", holding a NUL or a ".." segment.
func parseUnsafeURI(uri string) (path, args string, ok bool) {
	if uri == "" || uri[0] == '?' {
		return "", "", false
	}
	path = uri
	if i := strings.IndexByte(uri, '?'); i >= 0 {
		path, args = uri[:i], uri[i+1:]
	}
	if dotdotUnsafe(path) {
		return "", "", false
	}
	if strings.IndexByte(path, '%') >= 0 {
		path = unescapeAll(path)
		if dotdotUnsafe(path) {
			return "", "", false
		}
	}
	return path, args, true
}

// dotdotUnsafe finds a NUL, a leading ".." segment or a "/.." one.
func dotdotUnsafe(p string) bool {
	if strings.IndexByte(p, 0) >= 0 {
		return true
	}
	seg := func(s string) bool { return s == ".." || strings.HasPrefix(s, "../") }
	if seg(p) {
		return true
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && seg(p[i+1:]) {
			return true
		}
	}
	return false
}

// unescapeAll decodes every %XX (an invalid one is kept as it is).
func unescapeAll(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// ssiDate is $date_local and $date_gmt, in the timefmt of r's SSI
// ("config timefmt"), or SSI's default outside one.
func (rt *Site) ssiDate(r *Request, gmt bool) string {
	now := rt.now()
	if gmt {
		now = now.UTC()
	} else {
		now = now.Local()
	}
	f := ssiDefaultTimefmt
	if r.ssi != nil {
		f = r.ssi.timefmt
	}
	if f == "%s" {
		return strconv.FormatInt(now.Unix(), 10)
	}
	return strftime(f, now)
}

// strftime formats t as C's strftime does in the C locale, for the
// conversions SSI pages use.
func strftime(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'C':
			b.WriteString(pad2(t.Year() / 100))
		case 'd':
			b.WriteString(pad2(t.Day()))
		case 'e':
			if t.Day() < 10 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Itoa(t.Day()))
		case 'D':
			b.WriteString(strftime("%m/%d/%y", t))
		case 'F':
			b.WriteString(strftime("%Y-%m-%d", t))
		case 'H':
			b.WriteString(pad2(t.Hour()))
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad2(h))
		case 'j':
			d := strconv.Itoa(t.YearDay())
			b.WriteString(strings.Repeat("0", 3-len(d)) + d)
		case 'k':
			if t.Hour() < 10 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Itoa(t.Hour()))
		case 'm':
			b.WriteString(pad2(int(t.Month())))
		case 'M':
			b.WriteString(pad2(t.Minute()))
		case 'n':
			b.WriteByte('\n')
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'R':
			b.WriteString(strftime("%H:%M", t))
		case 'S':
			b.WriteString(pad2(t.Second()))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 't':
			b.WriteByte('\t')
		case 'T':
			b.WriteString(strftime("%H:%M:%S", t))
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			b.WriteString(strconv.Itoa(wd))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'y':
			b.WriteString(pad2(t.Year() % 100))
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'Z':
			// C's gmtime names its zone GMT.
			name, _ := t.Zone()
			if name == "UTC" && t.Location() == time.UTC {
				name = "GMT"
			}
			b.WriteString(name)
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'c':
			b.WriteString(strftime("%a %b %e %H:%M:%S %Y", t))
		case 'x':
			b.WriteString(strftime("%m/%d/%y", t))
		case 'X':
			b.WriteString(strftime("%H:%M:%S", t))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// ssiErrorf logs an [error] of the SSI filter: nginx meets them while it
// sends the response, and says so.
func (rt *Site) ssiErrorf(r *Request, format string, args ...any) {
	rt.log.errorf(r, "%s while sending response to client", fmt.Sprintf(format, args...))
}

func (rt *Site) ssiAlertf(r *Request, format string, args ...any) {
	rt.log.alertf(r, "%s while sending response to client", fmt.Sprintf(format, args...))
}
