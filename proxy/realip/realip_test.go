// This file tests the address parsers, the trusted list, the PROXY header
// reader's incremental reads and limits, and TLV lookup.

package realip

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"testing"
	"testing/iotest"
)

func TestParseAddr(t *testing.T) {
	tests := []struct {
		in, want string
		port     uint16
		ok       bool
	}{
		{"192.0.2.1", "192.0.2.1", 0, true},
		{"010.001.0.1", "10.1.0.1", 0, true},
		{"1..2.3", "1.0.2.3", 0, true},
		{"1.2.3.", "1.2.3.0", 0, true},
		{"1.2.3", "", 0, false},
		{"1.2.3.256", "", 0, false},
		{"255.255.255.255", "", 0, false},
		{"2001:db8::1", "2001:db8::1", 0, true},
		{"::ffff:1.2.3.4", "::ffff:1.2.3.4", 0, true},
		{"fe80::1%eth0", "", 0, false},
		{"192.0.2.1:80", "192.0.2.1", 80, true},
		{"[2001:db8::1]:8080", "2001:db8::1", 8080, true},
		{"[2001:db8::1]", "", 0, false},
		{"[2001:db8::1]:", "", 0, false},
		{"192.0.2.1:0", "", 0, false},
		{"192.0.2.1:65535", "192.0.2.1", 65535, true},
		{"192.0.2.1:+80", "", 0, false},
		{"", "", 0, false},
	}
	for _, tt := range tests {
		a, ok := ParseAddrPort(tt.in)
		if ok != tt.ok || (ok && (a.String() != tt.want || a.Port != tt.port)) {
			t.Errorf("ParseAddrPort(%q) = %v %d %v; want %s %d %v", tt.in, a, a.Port, ok, tt.want, tt.port, tt.ok)
		}
	}
}

func TestTrusted(t *testing.T) {
	var tr Trusted
	if !tr.Empty() {
		t.Fatal("zero Trusted is not empty")
	}
	low, err := tr.Add("10.1.2.3/8")
	if err != nil || !low {
		t.Fatalf("10.1.2.3/8: low %v, %v", low, err)
	}
	for _, v := range []string{"192.0.2.7", "2001:db8::/32", "unix:"} {
		if _, err := tr.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.Add("proxy.example"); !errors.Is(err, ErrNotAddress) {
		t.Fatalf("host name: %v", err)
	}
	if _, err := tr.Add("10.0.0.0/33"); err == nil {
		t.Fatal("/33 accepted")
	}
	tests := []struct {
		a    Addr
		want bool
	}{
		{Addr{IP: netip.MustParseAddr("10.200.0.1")}, true},
		{Addr{IP: netip.MustParseAddr("::ffff:10.200.0.1")}, true},
		{Addr{IP: netip.MustParseAddr("192.0.2.7")}, true},
		{Addr{IP: netip.MustParseAddr("192.0.2.8")}, false},
		{Addr{IP: netip.MustParseAddr("2001:db8:1::1")}, true},
		{Addr{IP: netip.MustParseAddr("2001:db9::1")}, false},
		{Addr{Unix: true}, true},
	}
	for _, tt := range tests {
		if got := tr.Contains(tt.a); got != tt.want {
			t.Errorf("Contains(%v) = %v", tt.a, got)
		}
	}
	c := Config{From: &tr, Source: XForwardedFor}
	got, ok := c.Resolve(Addr{Unix: true}, []string{"192.0.2.9"})
	if !ok || got.String() != "192.0.2.9" {
		t.Fatalf("from a unix socket: %v %v", got, ok)
	}
	if (Addr{Unix: true}).String() != "unix:" {
		t.Fatal("unix text")
	}
}

func TestParseIncomplete(t *testing.T) {
	v1 := []byte("PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\nGET /")
	for i := 0; i < 45; i++ {
		if _, _, err := Parse(v1[:i], 0); !errors.Is(err, ErrIncomplete) {
			t.Fatalf("v1 cut at %d: %v", i, err)
		}
	}
	h, n, err := Parse(v1, 0)
	if err != nil || n != 45 || h.SrcAddr != "192.0.2.1" {
		t.Fatalf("v1: %+v %d %v", h, n, err)
	}
	v2h := v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.1", 1, 2))
	for i := 0; i < len(v2h); i++ {
		if _, _, err := Parse(v2h[:i], 0); !errors.Is(err, ErrIncomplete) {
			t.Fatalf("v2 cut at %d: %v", i, err)
		}
	}
	// Not a header at all: refused at once, with nginx's text.
	_, _, err = Parse([]byte("GET / HTTP/1.1\r\n"), 0)
	if err == nil || err.Error() != `proxy protocol: broken header: "GET / HTTP/1.1"` {
		t.Fatalf("plain request: %v", err)
	}
	_, _, err = Parse([]byte("GET / HT"), 0)
	var he *HeaderError
	if !errors.As(err, &he) {
		t.Fatalf("start of a plain request: %v", err)
	}
}

func TestParseLimits(t *testing.T) {
	long := append([]byte("PROXY TCP6 "), bytes.Repeat([]byte("f"), 100)...)
	if _, _, err := Parse(long, 0); err == nil || errors.Is(err, ErrIncomplete) {
		t.Fatalf("a 111-byte line without LF: %v", err)
	}
	big := v2(0x21, 0x11, append(inet4("192.0.2.1", "198.51.100.1", 1, 2), make([]byte, 2000)...))
	if _, _, err := Parse(big, 1024); err == nil || err.Error() != "proxy protocol: header is too large" {
		t.Fatalf("2 KB v2 header, 1 KB limit: %v", err)
	}
	if h, n, err := Parse(big, 4096); err != nil || n != len(big) || len(h.TLVs) != 2000 {
		t.Fatalf("2 KB v2 header, 4 KB limit: %v", err)
	}
}

func TestRead(t *testing.T) {
	raw := append(v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.1", 1, 2)), "GET / HTTP/1.1\r\n"...)
	h, rest, err := Read(iotest.OneByteReader(bytes.NewReader(raw)), 0)
	if err != nil || h.SrcAddr != "192.0.2.1" || !bytes.HasPrefix([]byte("GET / HTTP/1.1\r\n"), rest) {
		t.Fatalf("one byte at a time: %+v %q %v", h, rest, err)
	}
	h, rest, err = Read(bytes.NewReader(raw), 0)
	if err != nil || string(rest) != "GET / HTTP/1.1\r\n" {
		t.Fatalf("in one read: %+v %q %v", h, rest, err)
	}
	if _, _, err := Read(bytes.NewReader([]byte("PROXY TCP4 1.2")), 0); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("EOF inside a header: %v", err)
	}
}

func TestTLV(t *testing.T) {
	ssl := []byte{0x01, 0, 0, 0, 7, 0x21, 0, 7, 'T', 'L', 'S', 'v', '1', '.', '3', 0x22, 0, 2, 'c', 'n'}
	tlvs := []byte{0x01, 0, 2, 'h', '2', 0x04, 0, 0, 0xea, 0, 3, 'v', 'p', 'c'}
	tlvs = append(tlvs, 0x20, 0, byte(len(ssl)))
	tlvs = append(tlvs, ssl...)
	h := &Header{TLVs: tlvs}
	tests := []struct{ name, want string }{
		{"alpn", "h2"}, {"0xea", "vpc"}, {"0xEA", "vpc"}, {"ssl_version", "TLSv1.3"}, {"ssl_cn", "cn"}, {"ssl_verify", "7"},
	}
	for _, tt := range tests {
		v, ok, err := h.TLV(tt.name)
		if string(v) != tt.want || !ok || err != nil {
			t.Errorf("TLV(%s) = %q %v %v", tt.name, v, ok, err)
		}
	}
	if _, ok, err := h.TLV("authority"); ok || err != nil {
		t.Errorf("absent TLV: %v %v", ok, err)
	}
	if _, _, err := (&Header{TLVs: []byte{1, 0, 9, 'x'}}).TLV("alpn"); !errors.Is(err, ErrBrokenTLV) {
		t.Errorf("broken TLV: %v", err)
	}
	if _, _, err := h.TLV("nonsense"); err == nil {
		t.Error("unknown TLV name accepted")
	}
}
