// record.go holds the FastCGI wire format (FastCGI Specification 1.0,
// section 3 and 5): record headers, the BEGIN_REQUEST and END_REQUEST
// bodies, the name-value pair encoding of PARAMS, the encoding of a
// request's opening records, and the reading of record headers.
package fastcgi

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
)

// recType is a record's type byte (spec section 8).
type recType uint8

const (
	typeBeginRequest    recType = 1
	typeAbortRequest    recType = 2
	typeEndRequest      recType = 3
	typeParams          recType = 4
	typeStdin           recType = 5
	typeStdout          recType = 6
	typeStderr          recType = 7
	typeData            recType = 8
	typeGetValues       recType = 9
	typeGetValuesResult recType = 10
	typeUnknownType     recType = 11
)

const (
	version1   = 1
	headerSize = 8

	// requestID is the only request ID edge uses: php-fpm serves one
	// request per connection at a time (FCGI_MPXS_CONNS is 0), so
	// multiplexing buys nothing.
	requestID = 1

	// maxRecordContent is the largest content length edge writes. The
	// field holds 65535, but php-fpm rejects a record whose content plus
	// padding exceeds 65535 (main/fastcgi.c, fcgi_read_request), so the
	// largest record that needs no padding is 65528 = 0xfff8, the size
	// PHP itself uses for its output records.
	maxRecordContent = 0xfff8

	roleResponder = 1
	flagKeepConn  = 1
)

// Protocol status of an END_REQUEST record (spec section 5.5).
const (
	statusRequestComplete = 0
	statusCantMultiplex   = 1
	statusOverloaded      = 2
	statusUnknownRole     = 3
)

// recordHeader is the decoded 8-byte header that starts every record.
type recordHeader struct {
	typ           recType
	id            uint16
	contentLength uint16
	paddingLength uint8
}

// paddingFor returns the padding that aligns n content bytes to 8, as the
// spec recommends and as php-fpm and nginx do.
func paddingFor(n int) int { return -n & 7 }

// putHeader encodes a record header for n content bytes into b[:8] and
// returns the padding length it announced.
func putHeader(b []byte, t recType, n int) int {
	pad := paddingFor(n)
	b[0] = version1
	b[1] = byte(t)
	binary.BigEndian.PutUint16(b[2:4], requestID)
	binary.BigEndian.PutUint16(b[4:6], uint16(n))
	b[6] = byte(pad)
	b[7] = 0
	return pad
}

// appendRecord appends one record holding content (at most
// maxRecordContent bytes) with its padding.
func appendRecord(b []byte, t recType, content []byte) []byte {
	var h [headerSize]byte
	pad := putHeader(h[:], t, len(content))
	b = append(b, h[:]...)
	b = append(b, content...)
	return append(b, zeroPad[:pad]...)
}

var zeroPad [8]byte

// appendBeginRequest appends a BEGIN_REQUEST record for the RESPONDER role.
func appendBeginRequest(b []byte, keepConn bool) []byte {
	var body [8]byte
	binary.BigEndian.PutUint16(body[0:2], roleResponder)
	if keepConn {
		body[2] = flagKeepConn
	}
	return appendRecord(b, typeBeginRequest, body[:])
}

// setKeepConn sets or clears FCGI_KEEP_CONN in the BEGIN_REQUEST record
// that b starts with (as appendBeginRequest wrote it).
func setKeepConn(b []byte, keepConn bool) {
	if keepConn {
		b[headerSize+2] = flagKeepConn
	} else {
		b[headerSize+2] = 0
	}
}

// parseHeader decodes a record header. Only version 1 exists; anything
// else means the byte stream is not FastCGI (or is out of step).
func parseHeader(b []byte) (recordHeader, error) {
	if b[0] != version1 {
		return recordHeader{}, fmt.Errorf("%w: record version %d", ErrProtocol, b[0])
	}
	return recordHeader{
		typ:           recType(b[1]),
		id:            binary.BigEndian.Uint16(b[2:4]),
		contentLength: binary.BigEndian.Uint16(b[4:6]),
		paddingLength: b[6],
	}, nil
}

// readHeader reads the next record header from br.
func readHeader(br *bufio.Reader) (recordHeader, error) {
	b, err := br.Peek(headerSize)
	if err != nil {
		return recordHeader{}, err
	}
	h, err := parseHeader(b)
	if err != nil {
		return h, err
	}
	_, _ = br.Discard(headerSize) // cannot fail: the bytes are buffered
	return h, nil
}

// endRequest is the body of an END_REQUEST record.
type endRequest struct {
	appStatus      uint32
	protocolStatus uint8
}

func parseEndRequest(b []byte) endRequest {
	return endRequest{appStatus: binary.BigEndian.Uint32(b[0:4]), protocolStatus: b[4]}
}

// Params holds a request's CGI parameters, encoded as FastCGI name-value
// pairs the moment they are added, so that sending them is a copy and
// building them allocates nothing once the buffer has grown. The zero value
// is empty and ready to use; Reset empties it and keeps its memory, so a
// Params kept in a pooled Request costs no allocation per request.
//
// Order and duplicates are kept as added: the backend decides what a
// repeated name means (php-fpm keeps the last).
type Params struct {
	enc []byte // name-value pairs, back to back
	// cuts are the offsets in enc where a new PARAMS record must start.
	// php-fpm decodes each PARAMS record on its own (main/fastcgi.c,
	// fcgi_get_params), so a pair may never straddle two records even
	// though the spec allows it.
	cuts     []int
	recStart int   // offset in enc where the current record began
	err      error // first pair too large for a record; Do returns it
}

// Add appends the pair name=value.
func (p *Params) Add(name, value string) { addPair(p, name, value) }

// AddBytes appends the pair name=value; the bytes are copied.
func (p *Params) AddBytes(name, value []byte) { addPair(p, name, value) }

// Reset empties p and keeps its memory for the next request.
func (p *Params) Reset() {
	p.enc = p.enc[:0]
	p.cuts = p.cuts[:0]
	p.recStart = 0
	p.err = nil
}

// Len returns the number of encoded bytes.
func (p *Params) Len() int { return len(p.enc) }

// Err returns the error that Do will return for these params: a pair
// larger than one FastCGI record (65528 bytes, names and lengths
// included). Such a pair is left out when added.
func (p *Params) Err() error { return p.err }

// All yields the pairs in the order they were added. The slices point into
// p and are valid until the next Add or Reset.
func (p *Params) All() iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		rest := p.enc
		for len(rest) > 0 {
			name, value, n, err := decodePair(rest)
			if err != nil || !yield(name, value) {
				return
			}
			rest = rest[n:]
		}
	}
}

// addPair encodes one pair; it is generic so that strings and byte slices
// are both appended without a conversion copy.
func addPair[T string | []byte](p *Params, name, value T) {
	n := pairSize(len(name), len(value))
	if n > maxRecordContent {
		if p.err == nil {
			p.err = fmt.Errorf("fastcgi: param %.64q is %d bytes encoded, more than one record (%d)", name, n, maxRecordContent)
		}
		return
	}
	if len(p.enc)-p.recStart+n > maxRecordContent {
		p.cuts = append(p.cuts, len(p.enc))
		p.recStart = len(p.enc)
	}
	p.enc = appendSize(p.enc, len(name))
	p.enc = appendSize(p.enc, len(value))
	p.enc = append(p.enc, name...)
	p.enc = append(p.enc, value...)
}

// pairSize is the encoded size of a pair: lengths below 128 take one
// byte, longer ones four with the top bit set (spec section 3.4).
func pairSize(name, value int) int {
	return sizeLen(name) + sizeLen(value) + name + value
}

func sizeLen(n int) int {
	if n < 128 {
		return 1
	}
	return 4
}

func appendSize(b []byte, n int) []byte {
	if n < 128 {
		return append(b, byte(n))
	}
	return binary.BigEndian.AppendUint32(b, uint32(n)|1<<31)
}

var errShortPair = errors.New("fastcgi: truncated name-value pair")

// decodePair decodes the pair at the start of b and returns its size.
func decodePair(b []byte) (name, value []byte, n int, err error) {
	nl, i, ok := readSize(b)
	if !ok {
		return nil, nil, 0, errShortPair
	}
	vl, j, ok := readSize(b[i:])
	if !ok {
		return nil, nil, 0, errShortPair
	}
	start := i + j
	if uint64(len(b)-start) < uint64(nl)+uint64(vl) {
		return nil, nil, 0, errShortPair
	}
	name = b[start : start+int(nl)]
	value = b[start+int(nl) : start+int(nl)+int(vl)]
	return name, value, start + int(nl) + int(vl), nil
}

func readSize(b []byte) (size uint32, n int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	if b[0] < 128 {
		return uint32(b[0]), 1, true
	}
	if len(b) < 4 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint32(b) &^ (1 << 31), 4, true
}

// appendParams appends the PARAMS records for p, each holding whole pairs,
// and the empty PARAMS record that ends the stream.
func appendParams(b []byte, p *Params) []byte {
	start := 0
	for _, cut := range p.cuts {
		b = appendRecord(b, typeParams, p.enc[start:cut])
		start = cut
	}
	if start < len(p.enc) {
		b = appendRecord(b, typeParams, p.enc[start:])
	}
	return appendRecord(b, typeParams, nil)
}
