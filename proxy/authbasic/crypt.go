// This file holds the password schemes of an htpasswd file, dispatched as
// nginx's ngx_crypt does (src/core/ngx_crypt.c): nginx's own {PLAIN},
// {SHA}, {SSHA} and $apr1$, and the crypt(3) formats that Debian's
// libxcrypt gives nginx for everything else: $1$ (MD5-crypt), $5$ and $6$
// (SHA-crypt, Ulrich Drepper's specification), bcrypt ($2a$, $2b$, $2y$
// through golang.org/x/crypto/bcrypt) and traditional DES (des.go). Each is
// written
// from its published description; none takes a password longer than nginx
// passes (crypt gets a NUL-terminated string, so a password stops at its
// first NUL byte).

package authbasic

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"hash"
	"strconv"

	"golang.org/x/crypto/bcrypt"
)

// ErrUnsupportedHash is Verify's error for a stored hash in a crypt(3)
// format that libxcrypt computes and edge does not (yescrypt $y$, gost
// $gy$, scrypt $7$, sha1crypt $sha1$, sunmd5 $md5, NT $3$, BSDi "_", and
// the sign-extension bcrypt $2x$). nginx
// would check such a password; edge answers as nginx does when crypt()
// fails: a [crit] "crypt() failed" and a 500.
var ErrUnsupportedHash = errors.New("unsupported hash")

// Verify reports whether password matches hash, a password field of an
// htpasswd line. It computes what ngx_crypt would and compares the whole
// string in constant time, as nginx compares the whole string (strcmp). A
// hash no scheme recognises and that libxcrypt would refuse gives false
// with no error, as libxcrypt's failure token "*0" never equals a stored
// hash in nginx.
func Verify(password, hash []byte) (bool, error) {
	if i := bytes.IndexByte(password, 0); i >= 0 {
		password = password[:i]
	}
	computed, err := Crypt(password, hash)
	if err != nil {
		return false, err
	}
	if computed == nil {
		return false, nil
	}
	return subtle.ConstantTimeCompare(computed, hash) == 1, nil
}

// Crypt is ngx_crypt: the encryption of key with the scheme and salt that
// salt (a stored hash) names. It returns nil, nil where libxcrypt returns
// its failure token (a malformed setting), and ErrUnsupportedHash for a
// scheme edge does not compute. For bcrypt it returns salt itself when the
// password matches and nil otherwise: x/crypto compares without giving the
// hash out.
func Crypt(key, salt []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(salt, []byte("$apr1$")):
		return md5Crypt(key, salt, "$apr1$"), nil
	case bytes.HasPrefix(salt, []byte("{PLAIN}")):
		return append([]byte("{PLAIN}"), key...), nil
	case bytes.HasPrefix(salt, []byte("{SSHA}")):
		return sshaCrypt(key, salt), nil
	case bytes.HasPrefix(salt, []byte("{SHA}")):
		sum := sha1.Sum(key)
		return append([]byte("{SHA}"), base64.StdEncoding.EncodeToString(sum[:])...), nil
	}
	return libcCrypt(key, salt)
}

// libcCrypt stands in for crypt(3) as Debian's libxcrypt does it.
func libcCrypt(key, salt []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(salt, []byte("$1$")):
		return md5Crypt(key, salt, "$1$"), nil
	case bytes.HasPrefix(salt, []byte("$5$")):
		return shaCrypt(key, salt, "$5$", sha256.New, sha256Order[:]), nil
	case bytes.HasPrefix(salt, []byte("$6$")):
		return shaCrypt(key, salt, "$6$", sha512.New, sha512Order[:]), nil
	case len(salt) > 4 && salt[0] == '$' && salt[1] == '2' && salt[3] == '$' &&
		(salt[2] == 'a' || salt[2] == 'b' || salt[2] == 'y'):
		if bcrypt.CompareHashAndPassword(salt, key) == nil {
			return salt, nil
		}
		return nil, nil
	case len(salt) > 0 && (salt[0] == '$' || salt[0] == '_'):
		if unsupportedPrefix(salt) {
			return nil, ErrUnsupportedHash
		}
		return nil, nil // libxcrypt: "*0"
	}
	if len(salt) >= 2 && isCryptChar(salt[0]) && isCryptChar(salt[1]) {
		return desCrypt(key, salt[:2]), nil
	}
	return nil, nil
}

// unsupportedPrefix lists the libxcrypt schemes edge does not compute.
func unsupportedPrefix(salt []byte) bool {
	for _, p := range []string{"$y$", "$gy$", "$7$", "$sha1$", "$md5", "$3$", "$2x$", "_"} {
		if bytes.HasPrefix(salt, []byte(p)) {
			return true
		}
	}
	return false
}

// cryptAlphabet is crypt(3)'s base-64 alphabet (not RFC 4648's).
const cryptAlphabet = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func isCryptChar(c byte) bool {
	return c == '.' || c == '/' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
}

// to64 appends n characters of v, low six bits first.
func to64(dst []byte, v uint32, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, cryptAlphabet[v&0x3f])
		v >>= 6
	}
	return dst
}

// saltOf returns the salt that follows magic: up to max bytes, ending at
// the first '$'.
func saltOf(setting []byte, magic string, max int) []byte {
	s := setting[len(magic):]
	if i := bytes.IndexByte(s, '$'); i >= 0 {
		s = s[:i]
	}
	if len(s) > max {
		s = s[:max]
	}
	return s
}

// md5Crypt is Poul-Henning Kamp's MD5-crypt, with magic "$1$" (crypt(3))
// or "$apr1$" (Apache's variant, the same algorithm under another magic).
func md5Crypt(pw, setting []byte, magic string) []byte {
	salt := saltOf(setting, magic, 8)

	alt := md5.New()
	alt.Write(pw)
	alt.Write(salt)
	alt.Write(pw)
	final := alt.Sum(nil)

	ctx := md5.New()
	ctx.Write(pw)
	ctx.Write([]byte(magic))
	ctx.Write(salt)
	for n := len(pw); n > 0; n -= 16 {
		ctx.Write(final[:min(n, 16)])
	}
	// The original clears final before this loop, so a set bit adds a
	// zero byte.
	for i := len(pw); i > 0; i >>= 1 {
		if i&1 != 0 {
			ctx.Write([]byte{0})
		} else {
			ctx.Write(pw[:1])
		}
	}
	final = ctx.Sum(nil)

	c := md5.New()
	for i := 0; i < 1000; i++ {
		final = stretchRound(c, i, pw, salt, final)
	}

	out := make([]byte, 0, len(magic)+len(salt)+1+22)
	out = append(out, magic...)
	out = append(out, salt...)
	out = append(out, '$')
	f := func(a, b, c int) uint32 { return uint32(final[a])<<16 | uint32(final[b])<<8 | uint32(final[c]) }
	out = to64(out, f(0, 6, 12), 4)
	out = to64(out, f(1, 7, 13), 4)
	out = to64(out, f(2, 8, 14), 4)
	out = to64(out, f(3, 9, 15), 4)
	out = to64(out, f(4, 10, 5), 4)
	out = to64(out, uint32(final[11]), 2)
	return out
}

// sshaCrypt is nginx's {SSHA}: base64(SHA-1(password + salt) + salt), the
// salt being whatever follows the 20-byte digest in the stored value. A
// value that does not decode, or is shorter than a digest, has no salt.
func sshaCrypt(key, setting []byte) []byte {
	decoded, ok := nginxBase64Decode(setting[len("{SSHA}"):])
	var salt []byte
	if ok && len(decoded) >= sha1.Size {
		salt = decoded[sha1.Size:]
	}
	h := sha1.New()
	h.Write(key)
	h.Write(salt)
	sum := h.Sum(nil)
	return append([]byte("{SSHA}"), base64.StdEncoding.EncodeToString(append(sum, salt...))...)
}

// nginxBase64Decode is ngx_decode_base64: the standard alphabet, input
// ending at the first '=', no padding required, a lone trailing sextet an
// error.
func nginxBase64Decode(src []byte) ([]byte, bool) {
	if i := bytes.IndexByte(src, '='); i >= 0 {
		src = src[:i]
	}
	if len(src)%4 == 1 {
		return nil, false
	}
	out, err := base64.RawStdEncoding.Strict().DecodeString(string(src))
	if err != nil {
		// Strict rejects non-zero trailing bits, which nginx ignores.
		out, err = base64.RawStdEncoding.DecodeString(string(src))
		if err != nil {
			return nil, false
		}
	}
	return out, true
}

// The byte order in which SHA-crypt writes its final digest, three bytes
// to four characters (Drepper's specification, "the final step").
var sha256Order, sha512Order = shaOrder(10, false), shaOrder(21, true)

// shaOrder lists the digest's byte triples: group i takes i, i+g, i+2g,
// rotated by i mod 3, one way for SHA-256 and the other for SHA-512; the
// digest's last bytes follow (one or two).
func shaOrder(g int, sha512 bool) [][3]int {
	var out [][3]int
	for i := 0; i < g; i++ {
		a, b, c := i, i+g, i+2*g
		r := i % 3
		if sha512 && r != 0 {
			r = 3 - r
		}
		switch r {
		case 1:
			a, b, c = c, a, b
		case 2:
			a, b, c = b, c, a
		}
		out = append(out, [3]int{a, b, c})
	}
	return out
}

const (
	shaRoundsDefault = 5000
	shaRoundsMin     = 1000
	shaRoundsMax     = 999999999
)

// shaCrypt is SHA-crypt ($5$ with SHA-256, $6$ with SHA-512), following
// Ulrich Drepper's "Unix crypt using SHA-256 and SHA-512".
func shaCrypt(pw, setting []byte, magic string, newHash func() hash.Hash, order [][3]int) []byte {
	rest := setting[len(magic):]
	rounds, custom := shaRoundsDefault, false
	if bytes.HasPrefix(rest, []byte("rounds=")) {
		num := rest[len("rounds="):]
		end := bytes.IndexByte(num, '$')
		if end < 0 {
			return nil
		}
		n, err := strconv.ParseUint(string(num[:end]), 10, 64)
		if err != nil || num[0] == '+' {
			return nil
		}
		// Drepper's code clamps rounds into range; libxcrypt, which nginx
		// calls on Debian, refuses them instead ("*0").
		if n < shaRoundsMin || n > shaRoundsMax {
			return nil
		}
		rounds, custom = int(n), true
		rest = num[end+1:]
	}
	salt := rest
	if i := bytes.IndexByte(salt, '$'); i >= 0 {
		salt = salt[:i]
	}
	if len(salt) > 16 {
		salt = salt[:16]
	}

	h := newHash()
	size := h.Size()
	h.Write(pw)
	h.Write(salt)
	h.Write(pw)
	b := h.Sum(nil)

	h.Reset()
	h.Write(pw)
	h.Write(salt)
	n := len(pw)
	for ; n > size; n -= size {
		h.Write(b)
	}
	h.Write(b[:n])
	for n = len(pw); n > 0; n >>= 1 {
		if n&1 != 0 {
			h.Write(b)
		} else {
			h.Write(pw)
		}
	}
	a := h.Sum(nil)

	h.Reset()
	for i := 0; i < len(pw); i++ {
		h.Write(pw)
	}
	p := repeatTo(h.Sum(nil), len(pw))

	h.Reset()
	for i := 0; i < 16+int(a[0]); i++ {
		h.Write(salt)
	}
	s := repeatTo(h.Sum(nil), len(salt))

	c := a
	for i := 0; i < rounds; i++ {
		c = stretchRound(h, i, p, s, c)
	}

	out := append([]byte(nil), magic...)
	if custom {
		out = append(out, "rounds="...)
		out = strconv.AppendInt(out, int64(rounds), 10)
		out = append(out, '$')
	}
	out = append(out, salt...)
	out = append(out, '$')
	for _, t := range order {
		out = to64(out, uint32(c[t[0]])<<16|uint32(c[t[1]])<<8|uint32(c[t[2]]), 4)
	}
	if size == 32 {
		out = to64(out, uint32(c[31])<<8|uint32(c[30]), 3)
	} else {
		out = to64(out, uint32(c[63]), 2)
	}
	return out
}

// stretchRound is one round of the loop MD5-crypt introduced and SHA-crypt
// kept: the previous digest and the password (or, in SHA-crypt, its
// derived sequence) in an order set by the round number, the salt on
// rounds not divisible by 3, the password again on rounds not divisible by
// 7. It returns the new digest in prev's storage.
func stretchRound(h hash.Hash, i int, pw, salt, prev []byte) []byte {
	h.Reset()
	if i&1 != 0 {
		h.Write(pw)
	} else {
		h.Write(prev)
	}
	if i%3 != 0 {
		h.Write(salt)
	}
	if i%7 != 0 {
		h.Write(pw)
	}
	if i&1 != 0 {
		h.Write(prev)
	} else {
		h.Write(pw)
	}
	return h.Sum(prev[:0])
}

// repeatTo is digest repeated and cut to n bytes.
func repeatTo(digest []byte, n int) []byte {
	out := make([]byte, 0, n)
	for len(out) < n {
		out = append(out, digest[:min(len(digest), n-len(out))]...)
	}
	return out
}
