// Package gzfixed compresses a body of a few bytes into one final
// fixed-Huffman block of literals, where klauspost/compress (edge's gzip)
// writes a stored block and an empty last block. For a body without
// repeats that is zlib's encoding: "SEE-THIS" is then 28 bytes of gzip,
// as nginx sends it, not 33. zlib finds matches in one with repeats
// ("aaaa...") and comes out shorter; gzfixed is never longer than
// klauspost. The header is klauspost's (OS unknown, where zlib says Unix).
package gzfixed

import (
	"encoding/binary"
	"hash/crc32"
)

// Max is the longest body Append encodes; klauspost stores bodies up to
// this length rather than compress them (a stored block and an empty last
// one, 7 bytes beside the body). A fixed block is the smaller up to it:
// at most 9 bits a byte and 10 besides, against 8 a byte and 56.
const Max = 32

// Append appends b gzip-compressed to dst, with the header
// klauspost/compress writes at level (no name, no time, OS unknown, the
// extra flags of the level). It returns dst unchanged and false when b is
// longer than Max.
func Append(dst, b []byte, level int) ([]byte, bool) {
	if len(b) > Max {
		return dst, false
	}
	xfl := byte(0)
	switch level {
	case 1:
		xfl = 4 // fastest
	case 9:
		xfl = 2 // best
	}
	dst = append(dst, 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 0xff)
	var w bitWriter
	w.dst = dst
	w.write(1|1<<1, 3) // BFINAL, BTYPE 01: fixed Huffman codes
	for _, c := range b {
		code, n := litCode(c)
		w.write(reverse(code, n), n)
	}
	w.write(0, 7) // end of block: code 256 is seven 0 bits
	dst = w.flush()
	dst = binary.LittleEndian.AppendUint32(dst, crc32.ChecksumIEEE(b))
	return binary.LittleEndian.AppendUint32(dst, uint32(len(b))), true
}

// litCode is the fixed code of a literal byte (RFC 1951 3.2.6): 0-143
// are 8 bits from 0x30, 144-255 are 9 bits from 0x190.
func litCode(c byte) (code uint32, n uint) {
	if c < 144 {
		return 0x30 + uint32(c), 8
	}
	return 0x190 + uint32(c) - 144, 9
}

// reverse reverses the n low bits of code: Huffman codes are packed from
// their most significant bit, everything else from the least.
func reverse(code uint32, n uint) uint32 {
	var r uint32
	for range n {
		r = r<<1 | code&1
		code >>= 1
	}
	return r
}

// bitWriter packs bits from each byte's least significant bit.
type bitWriter struct {
	dst   []byte
	acc   uint32
	nbits uint
}

func (w *bitWriter) write(v uint32, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.dst = append(w.dst, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

func (w *bitWriter) flush() []byte {
	if w.nbits > 0 {
		w.dst = append(w.dst, byte(w.acc))
	}
	w.acc, w.nbits = 0, 0
	return w.dst
}
