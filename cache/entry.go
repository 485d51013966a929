// This file holds one cache entry on disk: its file name under the zone's
// levels (nginx's ngx_create_hashed_filename), the header that precedes
// the body, and reading it back into an Entry whose bodies are sections of
// the open file, ready for sendfile.
//
// The layout is edge's own (nginx's files are not read or written): a
// fixed part, then the key, the Vary value, ETag, Last-Modified and the
// response head as "Name: Value\r\n" lines, then the identity body and,
// when they were stored, the gzip body and the brotli body. All integers
// are little-endian.
package cache

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"
	"time"
)

// Hash is the md5 of a key (or of a variant), which names the file.
type Hash [md5.Size]byte

// HashKey is the md5 of the key text, as ngx_http_file_cache_create_key.
func HashKey(key string) Hash {
	var stack [256]byte // no allocation for the usual keys, on every lookup
	return md5.Sum(append(stack[:0], key...))
}

func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// filePath is the entry's file under root: the hex name, with each level a
// directory named by the characters taken from the end of the name
// (levels=1:2 puts b7f54b2df7773722d382f4809d65029c in c/29/).
func filePath(root string, levels []int, h Hash) string {
	var name [32]byte
	hex.Encode(name[:], h[:])
	var stack [256]byte // one allocation, the string, for usual roots
	b := append(stack[:0], root...)
	b = append(b, '/')
	end := 32
	for _, l := range levels {
		b = append(b, name[end-l:end]...)
		b = append(b, '/')
		end -= l
	}
	b = append(b, name[:]...)
	return string(b)
}

// magic starts every entry file; the last byte is the format version.
// Version 2 added the brotli section; the loader removes files of
// version 1 as it removes any it cannot read, and the cache fills again.
var magic = [8]byte{'E', 'D', 'G', 'E', 'C', 'A', 'C', 2}

const (
	fixedSize = 8 + 4*8 + 2 + 2 + 5*4 + 16 + 6*8

	// offValidUntil is where ValidUntil and then Date are, rewritten in
	// place by a revalidation.
	offValidUntil = 8

	flagAEFolded = 1 << 0
)

// Section is a byte range of an entry's file.
type Section struct {
	Off, Len int64
}

// Meta is what an entry's header holds. A Meta is shared by every
// request that hits the entry: never modify one.
type Meta struct {
	Key    string
	Status int
	Header []Field
	// ValidUntil is the last fresh second (Unix time); Date is when the
	// entry was stored or last revalidated.
	ValidUntil, Date int64
	// StaleWhileRevalidate and StaleIfError are seconds after ValidUntil.
	StaleWhileRevalidate, StaleIfError int64
	ETag, LastModified                 string
	// Vary is the response's joined Vary value; Variant the hash of the
	// request headers it names, which the entry was stored for.
	Vary    string
	Variant Hash
	// AEFolded: the entry holds its compressed encodings beside the
	// identity body, so Accept-Encoding in Vary does not split variants.
	AEFolded bool
	// Identity, Gzip and Brotli are the bodies; a compressed one's Len
	// is 0 when that variant was not stored.
	Identity, Gzip, Brotli Section

	dev  uint64 // with ino, the file the header was read from or written to
	ino  uint64
	size int64 // the file's length
}

// encodeHeader writes the fixed part and the strings of m; the body
// sections must already be set.
func encodeHeader(m *Meta, head string) []byte {
	b := make([]byte, fixedSize, fixedSize+len(m.Key)+len(m.Vary)+len(m.ETag)+len(m.LastModified)+len(head))
	copy(b, magic[:])
	le := binary.LittleEndian
	le.PutUint64(b[8:], uint64(m.ValidUntil))
	le.PutUint64(b[16:], uint64(m.Date))
	le.PutUint64(b[24:], uint64(m.StaleWhileRevalidate))
	le.PutUint64(b[32:], uint64(m.StaleIfError))
	le.PutUint16(b[40:], uint16(m.Status))
	var flags uint16
	if m.AEFolded {
		flags |= flagAEFolded
	}
	le.PutUint16(b[42:], flags)
	le.PutUint32(b[44:], uint32(len(m.Key)))
	le.PutUint32(b[48:], uint32(len(m.Vary)))
	le.PutUint32(b[52:], uint32(len(m.ETag)))
	le.PutUint32(b[56:], uint32(len(m.LastModified)))
	le.PutUint32(b[60:], uint32(len(head)))
	copy(b[64:80], m.Variant[:])
	le.PutUint64(b[80:], uint64(m.Identity.Off))
	le.PutUint64(b[88:], uint64(m.Identity.Len))
	le.PutUint64(b[96:], uint64(m.Gzip.Off))
	le.PutUint64(b[104:], uint64(m.Gzip.Len))
	le.PutUint64(b[112:], uint64(m.Brotli.Off))
	le.PutUint64(b[120:], uint64(m.Brotli.Len))
	b = append(b, m.Key...)
	b = append(b, m.Vary...)
	b = append(b, m.ETag...)
	b = append(b, m.LastModified...)
	b = append(b, head...)
	return b
}

// headerLen is the length of the header for these strings, which is where
// the identity body starts.
func headerLen(m *Meta, head string) int64 {
	return int64(fixedSize + len(m.Key) + len(m.Vary) + len(m.ETag) + len(m.LastModified) + len(head))
}

func encodeHead(fields []Field) string {
	var sb strings.Builder
	for _, f := range fields {
		sb.WriteString(f.Name)
		sb.WriteString(": ")
		sb.WriteString(f.Value)
		sb.WriteString("\r\n")
	}
	return sb.String()
}

var errCorrupt = errors.New("cache: entry file is corrupt")

// readMeta reads and checks the header of an entry file of the given size.
func readMeta(f *os.File, size int64) (*Meta, error) {
	var fixed [fixedSize]byte
	if _, err := f.ReadAt(fixed[:], 0); err != nil {
		if err == io.EOF {
			return nil, errCorrupt
		}
		return nil, err
	}
	if [8]byte(fixed[:8]) != magic {
		return nil, errCorrupt
	}
	le := binary.LittleEndian
	m := &Meta{
		ValidUntil:           int64(le.Uint64(fixed[8:])),
		Date:                 int64(le.Uint64(fixed[16:])),
		StaleWhileRevalidate: int64(le.Uint64(fixed[24:])),
		StaleIfError:         int64(le.Uint64(fixed[32:])),
		Status:               int(le.Uint16(fixed[40:])),
		AEFolded:             le.Uint16(fixed[42:])&flagAEFolded != 0,
		Identity:             Section{int64(le.Uint64(fixed[80:])), int64(le.Uint64(fixed[88:]))},
		Gzip:                 Section{int64(le.Uint64(fixed[96:])), int64(le.Uint64(fixed[104:]))},
		Brotli:               Section{int64(le.Uint64(fixed[112:])), int64(le.Uint64(fixed[120:]))},
		size:                 size,
	}
	copy(m.Variant[:], fixed[64:80])
	var lens [5]int64
	total := int64(0)
	for i := range lens {
		lens[i] = int64(le.Uint32(fixed[44+4*i:]))
		total += lens[i]
	}
	if fixedSize+total != m.Identity.Off || !within(m.Identity, size) || !within(m.Gzip, size) || !within(m.Brotli, size) {
		return nil, errCorrupt
	}
	strs := make([]byte, total)
	if _, err := f.ReadAt(strs, fixedSize); err != nil {
		return nil, errCorrupt
	}
	s := string(strs)
	take := func(n int64) string { v := s[:n]; s = s[n:]; return v }
	m.Key, m.Vary, m.ETag, m.LastModified = take(lens[0]), take(lens[1]), take(lens[2]), take(lens[3])
	m.Header = decodeHead(take(lens[4]))
	return m, nil
}

// within reports whether a section read from a header lies in a file of
// the given size (a corrupt header must not make a reader allocate or
// seek past it).
func within(sec Section, size int64) bool {
	return sec.Off >= 0 && sec.Len >= 0 && sec.Off <= size && sec.Len <= size-sec.Off
}

func decodeHead(s string) []Field {
	n := strings.Count(s, "\r\n")
	fields := make([]Field, 0, n)
	for s != "" {
		var line string
		line, s, _ = strings.Cut(s, "\r\n")
		name, value, _ := strings.Cut(line, ": ")
		fields = append(fields, Field{name, value})
	}
	return fields
}

// Conditional answers a client's conditional headers from the stored
// validators (nginx answers them itself while the request is cacheable,
// spec: "client conditionals answered locally"), with policy.go's Check
// and the location's if_modified_since mode.
func (m *Meta) Conditional(req CondRequest, mode IMSMode) CondResult {
	var lm time.Time
	if m.LastModified != "" {
		if t, err := parseHTTPTime(m.LastModified); err == nil {
			lm = t
		}
	}
	return Check(req, lm, m.ETag, mode)
}

// Entry is one cached response handed to a request: its Meta and where
// its bodies are read or sent from, the open file or, for an entry the
// zone keeps in memory (memory.go), the file's bytes. Close it once the
// body is sent.
type Entry struct {
	*Meta
	// File is the entry's open file; nil when Data holds it.
	File *os.File
	// Data is the whole file (header included, so a Section indexes it
	// as it does the file) when the zone keeps the entry in memory; nil
	// otherwise. It is shared by every HIT and never modified.
	Data []byte
	// Kept is the file Data was read from, which the zone keeps open
	// while it keeps Data, for a sender that can send a section from it
	// (sendfile) rather than copy it. It is the zone's: never close it;
	// the zone may close it at any time (the entry dropped), and a
	// sender that finds it closed sends Data instead.
	Kept *os.File
}

// Body returns the section to send: the gzip variant when gzip is true
// and one is stored (encoded reports which was chosen).
func (e *Entry) Body(gzip bool) (s Section, encoded bool) {
	if gzip && e.Gzip.Len > 0 {
		return e.Gzip, true
	}
	return e.Identity, false
}

// Bytes returns a section's bytes when the entry is in memory, nil
// otherwise (then send it from File at s.Off). The slice is shared:
// never modify it.
func (e *Entry) Bytes(s Section) []byte {
	if e.Data == nil {
		return nil
	}
	return e.Data[s.Off : s.Off+s.Len : s.Off+s.Len]
}

// Section returns a reader of section s, from memory or from the file
// at s's offset (the file's own offset is not used).
func (e *Entry) Section(s Section) *io.SectionReader {
	if e.Data != nil {
		return io.NewSectionReader(bytes.NewReader(e.Data), s.Off, s.Len)
	}
	return io.NewSectionReader(e.File, s.Off, s.Len)
}

// Reader returns a reader of s.Len bytes at s. For an entry read from
// its file it positions the file at s and returns an *io.LimitedReader
// around the *os.File, which net.TCPConn's ReadFrom (and so fasthttp's
// body copy) sends with sendfile. Callers with their own sendfile at an
// offset use s.Off and s.Len directly.
func (e *Entry) Reader(s Section) (io.Reader, error) {
	if e.Data != nil {
		return bytes.NewReader(e.Bytes(s)), nil
	}
	if _, err := e.File.Seek(s.Off, io.SeekStart); err != nil {
		return nil, err
	}
	return &io.LimitedReader{R: e.File, N: s.Len}, nil
}

// ReadBody returns a section's bytes (for callers that cannot use the
// file directly, and for tests); from memory, the slice is shared.
func (e *Entry) ReadBody(s Section) ([]byte, error) {
	if e.Data != nil {
		return e.Bytes(s), nil
	}
	b := make([]byte, s.Len)
	_, err := e.File.ReadAt(b, s.Off)
	return b, err
}

// Close closes the entry's file, when it has one open.
func (e *Entry) Close() error {
	if e == nil || e.File == nil {
		return nil
	}
	return e.File.Close()
}

// splitList splits a comma-separated header value into trimmed items.
func splitList(v string) []string {
	var out []string
	for v != "" {
		var item string
		item, v, _ = strings.Cut(v, ",")
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// variantHash is ngx_http_file_cache_vary: the md5 of the primary key's
// hash followed by "name:value\r\n" for each header the Vary value names,
// in its order (order-sensitive, spec: Vary). Accept-* values have their
// whitespace removed. With folded, Accept-Encoding is left out: the entry
// holds both encodings. The input is built in a stack buffer, so a HIT on
// a Vary entry does not allocate for it.
func variantHash(primary Hash, vary string, header func(string) string, folded bool) Hash {
	var stack [512]byte
	b := append(stack[:0], primary[:]...)
	for vary != "" {
		var n string
		n, vary, _ = strings.Cut(vary, ",")
		if n = strings.TrimSpace(n); n == "" || (folded && strings.EqualFold(n, "Accept-Encoding")) {
			continue
		}
		for i := 0; i < len(n); i++ {
			c := n[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
		b = append(b, ':')
		v := ""
		if header != nil {
			v = header(n)
		}
		if len(n) > 7 && strings.EqualFold(n[:7], "accept-") {
			for i := 0; i < len(v); i++ {
				if c := v[i]; c != ' ' && c != '\t' {
					b = append(b, c)
				}
			}
		} else {
			b = append(b, v...)
		}
		b = append(b, '\r', '\n')
	}
	return md5.Sum(b)
}

// isEntryName reports whether a file name is a 32-digit lower-case hex
// hash, the only names the loader takes as entries.
func isEntryName(name string) (Hash, bool) {
	var h Hash
	if len(name) != 32 {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(name)); err != nil || strings.ToLower(name) != name {
		return h, false
	}
	return h, true
}
