// This file decodes request header blocks for edge's own HTTP/2 engine
// (engine.go): HEADERS and its CONTINUATION frames through one HPACK
// decoder per connection, into the stream's own slice of fields, with
// the checks of RFC 9113 8.2 and 8.3 that x/net/http2's Framer makes
// when it decodes them itself (ReadMetaHeaders), which allocated a frame,
// two closures and a growing slice per request.
package h2

import (
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// headerBlock is one decoded header block.
type headerBlock struct {
	id        uint32
	endStream bool
	selfDep   bool // a priority on the stream itself (RFC 9113 5.3.1)
	// fields are the pseudo-fields, then the regular ones (npseudo
	// marks where they start).
	fields  []hpack.HeaderField
	npseudo int
	// truncated: the list passed the header budget (h2HeaderBudget);
	// the rest was decoded, for the table, and dropped.
	truncated bool
	remain    uint32 // budget left
	// invalid: a field is malformed; the stream gets PROTOCOL_ERROR.
	invalid bool
	seen    uint8 // pseudo-fields seen, one bit each, for duplicates
	regular bool  // a regular field came
}

func (b *headerBlock) StreamEnded() bool                  { return b.endStream }
func (b *headerBlock) PseudoFields() []hpack.HeaderField  { return b.fields[:b.npseudo] }
func (b *headerBlock) RegularFields() []hpack.HeaderField { return b.fields[b.npseudo:] }

// pseudoBit is a request pseudo-field's bit in headerBlock.seen, 0 for
// a name that is none (":status" included: a response's).
func pseudoBit(name string) uint8 {
	switch name {
	case ":method":
		return 1
	case ":scheme":
		return 2
	case ":authority":
		return 4
	case ":path":
		return 8
	case ":protocol":
		return 16
	}
	return 0
}

// emit takes one decoded field (the decoder's emit function).
func (c *ownConn) emit(hf hpack.HeaderField) {
	b := &c.blk
	if b.invalid || b.truncated {
		return
	}
	size := hf.Size()
	if size > b.remain {
		b.truncated = true
		return
	}
	b.remain -= size
	if !validFieldValue(hf.Value) {
		b.invalid = true
		return
	}
	if len(hf.Name) > 0 && hf.Name[0] == ':' {
		bit := pseudoBit(hf.Name)
		if b.regular || bit == 0 || b.seen&bit != 0 {
			b.invalid = true
			return
		}
		b.seen |= bit
		b.fields = append(b.fields, hf)
		b.npseudo++
		return
	}
	b.regular = true
	if !validWireName(hf.Name) {
		b.invalid = true
		return
	}
	b.fields = append(b.fields, hf)
}

// validWireName reports whether a field name is a token in lower case
// (RFC 9113 8.2.1).
func validWireName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' || !tokenChar(c) {
			return false
		}
	}
	return true
}

// startBlock begins a header block with its HEADERS frame.
func (c *ownConn) startBlock(f *http2.HeadersFrame) error {
	c.blk = headerBlock{
		id:        f.StreamID,
		endStream: f.StreamEnded(),
		selfDep:   f.HasPriority() && f.Priority.StreamDep == f.StreamID,
		fields:    make([]hpack.HeaderField, 0, 16),
		remain:    c.maxHeaderList,
	}
	return c.blockFragment(f.HeaderBlockFragment(), f.HeadersEnded())
}

// blockFragment decodes a fragment of the block; the last one hands the
// block on.
func (c *ownConn) blockFragment(frag []byte, end bool) error {
	if _, err := c.hdec.Write(frag); err != nil {
		return connError(errCodeCompression)
	}
	if !end {
		return nil
	}
	if err := c.hdec.Close(); err != nil {
		return connError(errCodeCompression)
	}
	b := &c.blk
	if b.invalid {
		if b.id > c.maxID && b.id%2 == 1 {
			c.setMaxID(b.id)
		}
		c.resetStream(b.id, errCodeProtocol)
		return nil
	}
	return c.processHeaders(b)
}
