// This file holds the ssi module's directives (ngx_http_ssi_filter_module)
// and core's subrequest_output_buffer_size, which bounds the response of
// an SSI "include ... set=" subrequest. The filter itself is proxy/ssi.go.
package conf

import "strings"

// SSI is the ssi module's settings of a location.
type SSI struct {
	On           bool
	SilentErrors bool
	LastModified bool
	Types        map[string]bool // MIME types; text/html is always in it
	AnyType      bool            // ssi_types *
	ValueLength  int64           // ssi_value_length: the longest parameter value
	MinFileChunk int64           // ssi_min_file_chunk: accepted (edge holds the body in memory)
}

func init() {
	register(
		flagSlot("ssi", ctxHSLif, atLoc, func(l *LocConf) *bool { return &l.SSI.On }, false),
		flagSlot("ssi_silent_errors", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.SSI.SilentErrors }, false),
		flagSlot("ssi_last_modified", ctxHSL, atLoc, func(l *LocConf) *bool { return &l.SSI.LastModified }, false),
		(&spec{name: "ssi_types", ctx: ctxHSL, args: take1More, set: setSSITypes}).setSlot(fields(
			field(func(l *LocConf) *map[string]bool { return &l.SSI.Types }, map[string]bool{"text/html": true}),
			field(func(l *LocConf) *bool { return &l.SSI.AnyType }, false))),
		sizeSlot("ssi_value_length", ctxHSL, atLoc, func(l *LocConf) *int64 { return &l.SSI.ValueLength }, 255),
		sizeSlot("ssi_min_file_chunk", ctxHSL, atLoc, func(l *LocConf) *int64 { return &l.SSI.MinFileChunk }, 1024),
		// ssi_ignore_recycled_buffers concerns nginx's buffer reuse, which
		// edge does not have: its value is checked and has no effect.
		&spec{name: "ssi_ignore_recycled_buffers", ctx: ctxHSL, args: takeFlag, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			_, err := flagArg(c, d)
			return err
		}},
		// nginx's default is one memory page: 4k on Linux x86-64.
		sizeSlot("subrequest_output_buffer_size", ctxHSL, atLoc, func(l *LocConf) *int64 { return &l.SubrequestOutputBufferSize }, 4096),
	)
}

// setSSITypes reads an ssi_types list: text/html is always in it
// (ngx_http_html_default_types) and "*" takes any type.
func setSSITypes(c *compiler, f *frame, d *Directive) error {
	s := &f.loc.SSI
	s.Types = map[string]bool{"text/html": true}
	s.AnyType = false
	for _, t := range d.Args {
		if t == "*" {
			s.AnyType = true
			continue
		}
		s.Types[strings.ToLower(t)] = true
	}
	return nil
}

// TypeOK reports whether a response's Content-Type is one ssi_types
// lists (the part before ";", case-insensitive, as nginx compares it).
func (s *SSI) TypeOK(ct string) bool {
	if s.AnyType {
		return true
	}
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return s.Types[strings.ToLower(strings.TrimSpace(ct))]
}
