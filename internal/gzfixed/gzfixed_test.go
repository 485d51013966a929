package gzfixed

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

func gunzip(t *testing.T, z []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("% x: %v", z, err)
	}
	return b
}

// TestZlibSizes: the bodies nginx's proxy_cache.t compresses come out
// with zlib's lengths (gzip -1 here: 28 and 20 bytes), and the deflate
// data of "SEE-THIS" is zlib's byte for byte.
func TestZlibSizes(t *testing.T) {
	z, ok := Append(nil, []byte("SEE-THIS"), 1)
	if !ok || len(z) != 28 {
		t.Fatalf("SEE-THIS: %v, %d bytes: % x", ok, len(z), z)
	}
	// printf SEE-THIS | gzip -1 | xxd: the deflate block and trailer.
	zlib := []byte{0x0b, 0x76, 0x75, 0xd5, 0x0d, 0xf1, 0xf0, 0x0c, 0x06, 0x00, 0x77, 0xb1, 0x43, 0x27, 0x08, 0, 0, 0}
	if !bytes.Equal(z[10:], zlib) {
		t.Errorf("SEE-THIS: % x, want zlib's % x", z[10:], zlib)
	}
	if string(gunzip(t, z)) != "SEE-THIS" {
		t.Errorf("SEE-THIS does not come back")
	}
	if z, ok := Append(nil, nil, 6); !ok || len(z) != 20 || len(gunzip(t, z)) != 0 {
		t.Errorf("empty: %v, % x", ok, z)
	}
}

// TestRoundTrip: every byte value, and every length up to Max, decodes
// to what was encoded, and is shorter than klauspost's stored block; a
// body over Max is left to the caller.
func TestRoundTrip(t *testing.T) {
	for c := range 256 {
		b := bytes.Repeat([]byte{byte(c)}, 3)
		z, ok := Append([]byte("prefix"), b, 6)
		if !ok || string(z[:6]) != "prefix" || !bytes.Equal(gunzip(t, z[6:]), b) {
			t.Fatalf("byte %#x: %v % x", c, ok, z)
		}
	}
	for n := range Max + 1 {
		b := []byte("The quick brown fox jumps over the lazy dog")[:n]
		z, ok := Append(nil, b, 1)
		if !ok || !bytes.Equal(gunzip(t, z), b) {
			t.Fatalf("%d bytes: %v % x", n, ok, z)
		}
	}
	if _, ok := Append(nil, make([]byte, Max+1), 1); ok {
		t.Errorf("a body over Max was encoded")
	}
	if z, _ := Append(nil, bytes.Repeat([]byte{0xff}, Max), 1); len(z) >= 10+Max+7+8 {
		t.Errorf("%d bytes of 0xff: %d bytes, not under a stored block's", Max, len(z))
	}
}
