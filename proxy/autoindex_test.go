package proxy

import (
	"strings"
	"testing"
)

// TestListingSize: the K/M/G rounding of "autoindex_exact_size off" (the
// differential suite compares it with nginx on real files; these are the
// boundaries).
func TestListingSize(t *testing.T) {
	for _, c := range []struct {
		size  int64
		dir   bool
		exact bool
		want  string
	}{
		{0, false, false, "      0"},
		{9999, false, false, "   9999"},
		{10000, false, false, "    10K"},
		{10751, false, false, "    10K"},
		{10752, false, false, "    11K"},
		{1<<20 - 1, false, false, "  1024K"},
		{1 << 20, false, false, "     1M"},
		{3 << 19, false, false, "     2M"},
		{3 << 30, false, false, "     3G"},
		{1<<30 + 1<<29 - 1, false, false, "     1G"},
		{0, true, false, "      -"},
		{3 << 30, false, true, "         3221225472"},
		{0, true, true, "                  -"},
	} {
		e := dirEntry{size: c.size, dir: c.dir}
		if got := string(appendListingSize(nil, &e, c.exact)); got != c.want {
			t.Errorf("size %d dir %v exact %v: %q, want %q", c.size, c.dir, c.exact, got, c.want)
		}
	}
}

// TestNginxUTF8: names are counted as nginx's ngx_utf8_length counts
// them, which accepts what Go's decoder refuses (surrogates, continuation
// bytes above 0xbf) and falls back to bytes on anything else.
func TestNginxUTF8(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"abc", 3},
		{"é日本", 3},
		{"\xed\xa0\x80", 1},     // a surrogate
		{"\xc3\xc3", 1},         // a continuation byte above 0xbf
		{"\xc0\x80x", 3},        // overlong: bytes
		{"a\xff", 2},            // invalid: bytes
		{"\xf4\x90\x80\x80", 4}, // above U+10FFFF: bytes
		{"\xe6\x97", 2},         // cut short: bytes
	} {
		if got := nginxUTF8Length(c.s); got != c.want {
			t.Errorf("nginxUTF8Length(%q) = %d, want %d", c.s, got, c.want)
		}
	}
	long := strings.Repeat("é", 51)
	if got := nginxUTF8Prefix(long, 47); got != strings.Repeat("é", 47) {
		t.Errorf("nginxUTF8Prefix: %q", got)
	}
}

// TestListingLocaltime: autoindex_localtime shifts every time by the
// current offset from UTC, as nginx does (ngx_gmtime of mtime + gmtoff).
func TestListingLocaltime(t *testing.T) {
	e := []dirEntry{{name: "f", mtime: 1709294400}} // 2024-03-01 12:00:00 UTC
	for offset, want := range map[int64]string{0: " 01-Mar-2024 12:00 ", 3600: " 01-Mar-2024 13:00 ", -13 * 3600: " 29-Feb-2024 23:00 "} {
		if got := string(appendHTMLListing(nil, "/", e, false, true, offset)); !strings.Contains(got, want) {
			t.Errorf("offset %d: %q lacks %q", offset, got, want)
		}
	}
}
