// This file reads the PROXY protocol header (HAProxy's proxy-protocol.txt,
// versions 1 and 2) that a listener with `proxy_protocol` expects before
// anything else, with the rules and error texts of nginx's
// ngx_proxy_protocol_read.

package realip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"strconv"
)

// Header is what a PROXY header said. A header that carries no addresses
// (v1 UNKNOWN, v2 LOCAL, a transport other than TCP, an address family
// other than IPv4/IPv6) is valid and consumed, but gives no Header: nginx
// then leaves the $proxy_protocol_* variables empty.
type Header struct {
	// SrcAddr and DstAddr are $proxy_protocol_addr and
	// $proxy_protocol_server_addr: v1's text as sent (nginx checks only
	// its characters), v2's address as nginx prints it.
	SrcAddr, DstAddr string
	// SrcPort and DstPort are $proxy_protocol_port and
	// $proxy_protocol_server_port.
	SrcPort, DstPort uint16
	// TLVs is the raw type-length-value area of a v2 header.
	TLVs []byte
}

// V1MaxHeader is the longest v1 line ("PROXY TCP6" with two full IPv6
// addresses, two ports and CRLF: 107 bytes, NGX_PROXY_PROTOCOL_V1_MAX_HEADER).
const V1MaxHeader = 107

// DefaultV2Max is the longest v2 header (16-byte head and its length) the
// reader takes by default. nginx parses what its first read of the
// connection holds, so its limit is that buffer: 4096 bytes on a TLS
// listener (NGX_PROXY_PROTOCOL_MAX_HEADER), client_header_buffer_size (1k
// by default) on a plain one; pass that as max to Parse and Read.
const DefaultV2Max = 4096

var v2Signature = []byte("\r\n\r\n\x00\r\nQUIT\n")

// ErrIncomplete is Parse's error when buf holds the start of a header that
// more bytes may complete.
var ErrIncomplete = errors.New("proxy protocol: incomplete header")

// HeaderError is a header nginx refuses; it closes the connection and logs
// Msg at error level, except when Msg is empty (a v2 address block
// shorter than its family needs, which nginx closes on silently).
type HeaderError struct{ Msg string }

func (e *HeaderError) Error() string {
	if e.Msg == "" {
		return "proxy protocol: broken v2 address block"
	}
	return "proxy protocol: " + e.Msg
}

// Parse reads a PROXY header at the start of buf and returns it with the
// number of bytes it took; the connection's data starts at buf[n]. max
// bounds a v2 header (0: DefaultV2Max).
//
// Unlike nginx, which fails a header its first read of the socket did not
// hold whole, Parse asks for more (ErrIncomplete) while the bytes so far can
// still begin a header; a sender that splits its header is served.
func Parse(buf []byte, max int) (h *Header, n int, err error) {
	if max <= 0 {
		max = DefaultV2Max
	}
	if len(buf) < 16 {
		k := min(len(buf), len(v2Signature))
		if bytes.Equal(buf[:k], v2Signature[:k]) {
			return nil, 0, ErrIncomplete // the start of a v2 header
		}
	}
	if len(buf) >= 16 && bytes.Equal(buf[:12], v2Signature) {
		return parseV2(buf, max)
	}
	lf := bytes.IndexByte(buf, '\n')
	if lf < 0 {
		if len(buf) < V1MaxHeader && (bytes.HasPrefix(buf, []byte("PROXY ")) || bytes.HasPrefix([]byte("PROXY "), buf)) {
			return nil, 0, ErrIncomplete
		}
		return nil, 0, broken(buf)
	}
	if lf+1 > V1MaxHeader {
		return nil, 0, broken(buf)
	}
	return parseV1(buf[:lf+1])
}

// broken is nginx's "broken header" error with the text up to the first
// CR or LF.
func broken(buf []byte) error {
	end := bytes.IndexAny(buf, "\r\n")
	if end < 0 {
		end = len(buf)
	}
	return &HeaderError{Msg: `broken header: "` + string(buf[:end]) + `"`}
}

// parseV1 parses one line, LF included, as ngx_proxy_protocol_read.
func parseV1(line []byte) (*Header, int, error) {
	p := line
	if len(p) < 8 || !bytes.HasPrefix(p, []byte("PROXY ")) {
		return nil, 0, broken(line)
	}
	p = p[6:]
	if bytes.HasPrefix(p, []byte("UNKNOWN")) {
		// Anything up to CRLF.
		if i := bytes.Index(p[7:], []byte("\r\n")); i >= 0 {
			return nil, len(line), nil
		}
		return nil, 0, broken(line)
	}
	if len(p) < 5 || !bytes.HasPrefix(p, []byte("TCP")) || (p[3] != '4' && p[3] != '6') || p[4] != ' ' {
		return nil, 0, broken(line)
	}
	p = p[5:]
	h := &Header{}
	var ok bool
	if h.SrcAddr, p, ok = v1Addr(p); !ok {
		return nil, 0, broken(line)
	}
	if h.DstAddr, p, ok = v1Addr(p); !ok {
		return nil, 0, broken(line)
	}
	if h.SrcPort, p, ok = v1Port(p, ' '); !ok {
		return nil, 0, broken(line)
	}
	if h.DstPort, p, ok = v1Port(p, '\r'); !ok {
		return nil, 0, broken(line)
	}
	if len(p) == 0 || p[0] != '\n' {
		return nil, 0, broken(line)
	}
	return h, len(line), nil
}

// v1Addr is ngx_proxy_protocol_read_addr: hex digits, '.' and ':' up to a
// space; the address itself is not checked.
func v1Addr(p []byte) (string, []byte, bool) {
	for i, c := range p {
		if c == ' ' {
			return string(p[:i]), p[i+1:], true
		}
		if c != ':' && c != '.' && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F') && !(c >= '0' && c <= '9') {
			return "", nil, false
		}
	}
	return "", nil, false
}

// v1Port is ngx_proxy_protocol_read_port: decimal digits up to sep, at
// most 65535.
func v1Port(p []byte, sep byte) (uint16, []byte, bool) {
	i := bytes.IndexByte(p, sep)
	if i < 0 {
		return 0, nil, false
	}
	n, err := strconv.ParseUint(string(p[:i]), 10, 32)
	if err != nil || n > 65535 || i == 0 || p[0] == '+' {
		return 0, nil, false
	}
	return uint16(n), p[i+1:], true
}

// parseV2 is ngx_proxy_protocol_v2_read.
func parseV2(buf []byte, max int) (*Header, int, error) {
	version := buf[12] >> 4
	if version != 2 {
		return nil, 0, &HeaderError{Msg: "unknown PROXY protocol version: " + strconv.Itoa(int(version))}
	}
	length := int(binary.BigEndian.Uint16(buf[14:16]))
	if 16+length > max {
		return nil, 0, &HeaderError{Msg: "header is too large"}
	}
	if len(buf) < 16+length {
		return nil, 0, ErrIncomplete
	}
	end := 16 + length
	body := buf[16:end]
	command := buf[12] & 0x0f
	transport := buf[13] & 0x0f
	if command != 1 || transport != 1 {
		return nil, end, nil // LOCAL, or not a stream: no addresses
	}
	// The address block: source and destination addresses, then ports.
	var size int
	switch buf[13] >> 4 {
	case 1:
		size = 4
	case 2:
		size = 16
	default:
		return nil, end, nil // AF_UNSPEC, AF_UNIX
	}
	if len(body) < 2*size+4 {
		return nil, 0, &HeaderError{}
	}
	src, _ := netip.AddrFromSlice(body[:size])
	dst, _ := netip.AddrFromSlice(body[size : 2*size])
	h := &Header{
		SrcAddr: ntop(src),
		DstAddr: ntop(dst),
		SrcPort: binary.BigEndian.Uint16(body[2*size:]),
		DstPort: binary.BigEndian.Uint16(body[2*size+2:]),
	}
	body = body[2*size+4:]
	if len(body) > 0 {
		h.TLVs = append([]byte(nil), body...)
	}
	return h, end, nil
}

// Read reads a PROXY header from r, which the caller gives a deadline
// (nginx uses the listener's client_header_timeout for the first bytes),
// and returns it with the bytes read past it, which belong to the
// connection. It reads in one buffer, as much as arrives, and stops once
// a header is complete or refused.
func Read(r io.Reader, max int) (h *Header, rest []byte, err error) {
	if max <= 0 {
		max = DefaultV2Max
	}
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		k, rerr := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		h, n, perr := Parse(buf, max)
		if perr == nil {
			return h, buf[n:], nil
		}
		if !errors.Is(perr, ErrIncomplete) {
			return nil, nil, perr
		}
		if rerr != nil {
			if rerr == io.EOF {
				rerr = io.ErrUnexpectedEOF
			}
			return nil, nil, rerr
		}
	}
}

// The v2 TLV types nginx names in $proxy_protocol_tlv_NAME (nginx 1.23.2).
var tlvNames = map[string]byte{
	"alpn": 0x01, "authority": 0x02, "unique_id": 0x05, "ssl": 0x20, "netns": 0x30,
}

var sslSubNames = map[string]byte{
	"ssl_version": 0x21, "ssl_cn": 0x22, "ssl_cipher": 0x23, "ssl_sig_alg": 0x24, "ssl_key_alg": 0x25,
}

// ErrBrokenTLV is TLV's error for a TLV area that does not parse; nginx
// logs "broken PROXY protocol TLV" and the variable fails.
var ErrBrokenTLV = errors.New("broken PROXY protocol TLV")

// TLV is $proxy_protocol_tlv_NAME: name is a type name (alpn, authority,
// unique_id, ssl, netns), an SSL sub-type (ssl_version, ssl_cn, ssl_cipher,
// ssl_sig_alg, ssl_key_alg), ssl_verify (the SSL TLV's verify field in
// decimal), or a type number as 0xHH. ok is false when the header has no
// such TLV. Debian's nginx 1.22 predates these variables; the semantics
// are nginx 1.23.2's.
func (h *Header) TLV(name string) (value []byte, ok bool, err error) {
	if h == nil {
		return nil, false, nil
	}
	if t, found := tlvNames[name]; found {
		return lookupTLV(h.TLVs, t)
	}
	if len(name) > 2 && name[:2] == "0x" {
		n, perr := strconv.ParseUint(name[2:], 16, 8)
		if perr != nil {
			return nil, false, errors.New("proxy protocol: unknown TLV " + name)
		}
		return lookupTLV(h.TLVs, byte(n))
	}
	sub, isSub := sslSubNames[name]
	if !isSub && name != "ssl_verify" {
		return nil, false, errors.New("proxy protocol: unknown TLV " + name)
	}
	ssl, ok, err := lookupTLV(h.TLVs, 0x20)
	if !ok || err != nil {
		return nil, ok, err
	}
	if len(ssl) < 5 { // client (1) and verify (4)
		return nil, false, ErrBrokenTLV
	}
	if name == "ssl_verify" {
		return []byte(strconv.FormatUint(uint64(binary.BigEndian.Uint32(ssl[1:5])), 10)), true, nil
	}
	return lookupTLV(ssl[5:], sub)
}

// lookupTLV is ngx_proxy_protocol_lookup_tlv: the first TLV of type t.
func lookupTLV(p []byte, t byte) ([]byte, bool, error) {
	for len(p) > 0 {
		if len(p) < 3 {
			return nil, false, ErrBrokenTLV
		}
		n := int(binary.BigEndian.Uint16(p[1:3]))
		typ := p[0]
		p = p[3:]
		if len(p) < n {
			return nil, false, ErrBrokenTLV
		}
		if typ == t {
			return p[:n], true, nil
		}
		p = p[n:]
	}
	return nil, false, nil
}
