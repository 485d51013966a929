// This file tests the Authorization parser, the user file scanner and
// Check's outcomes that need no nginx.

package authbasic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseAuthorization(t *testing.T) {
	tests := []struct {
		in, user, pass string
		ok             bool
	}{
		{EncodeCredentials("u", "p"), "u", "p", true},
		{"BASIC " + b64("u:p:q"), "u", "p:q", true},
		{"Basic  " + b64("u:"), "u", "", true},
		{"Basic " + strings.TrimRight(b64("ab:c"), "="), "ab", "c", true},
		{"Basic " + b64("u:p") + "=ignored", "u", "p", true},
		{"Basic " + b64(":p"), "", "", false},
		{"Basic " + b64("up"), "", "", false},
		{"Basic x", "", "", false}, // one sextet
		{"Basic ", "", "", false},
		{"Basic", "", "", false},
		{"Basic\t" + b64("u:p"), "", "", false},
		{"Digest " + b64("u:p"), "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		u, p, ok := ParseAuthorization(tt.in)
		if u != tt.user || p != tt.pass || ok != tt.ok {
			t.Errorf("ParseAuthorization(%q) = %q, %q, %v; want %q, %q, %v", tt.in, u, p, ok, tt.user, tt.pass, tt.ok)
		}
	}
}

func TestFindUser(t *testing.T) {
	tests := []struct {
		file, user, hash string
		found            bool
	}{
		{"u:h", "u", "h", true},
		{"u:h\n", "u", "h", true},
		{"u:h:comment\n", "u", "h", true},
		{"u:h\r\n", "u", "h", true},
		{"u:\n", "u", "", true},
		{"u\nu:h\nu:second\n", "u", "second", true}, // the prefix line hides the next
		{"uu:h\nu:x\n", "u", "x", true},
		{"#u:h\nu:x", "u", "x", true},
		{"\n\n\nu:x", "u", "x", true},
		{" u:h", "u", "", false},
		{"U:h", "u", "", false},
		{"", "u", "", false},
		{"u:" + strings.Repeat("a", 5000) + "\n", "u", strings.Repeat("a", 5000), true},
	}
	for _, tt := range tests {
		h, found, err := FindUser(strings.NewReader(tt.file), []byte(tt.user))
		if string(h) != tt.hash || found != tt.found || err != nil {
			t.Errorf("FindUser(%q, %q) = %q, %v, %v; want %q, %v", tt.file, tt.user, h, found, err, tt.hash, tt.found)
		}
	}
}

func TestCheckOutcomes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "users")
	if err := os.WriteFile(file, []byte("a:{PLAIN}b\ny:$y$j9T$abc$def\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, auth string
		status           int
		level, message   string
	}{
		{"allowed", file, EncodeCredentials("a", "b"), 0, "", ""},
		{"mismatch", file, EncodeCredentials("a", "c"), 401, "error", `user "a": password mismatch`},
		{"unsupported", file, EncodeCredentials("y", "c"), 500, "crit", "crypt() failed (unsupported hash)"},
		{"missing", filepath.Join(dir, "none"), EncodeCredentials("a", "b"), 403, "error",
			`open() "` + filepath.Join(dir, "none") + `" failed (2: No such file or directory)`},
		{"a directory", dir, EncodeCredentials("a", "b"), 500, "crit", ""},
	}
	for _, tt := range tests {
		r := Check(tt.file, tt.auth)
		if r.Status != tt.status || r.Level != tt.level || (tt.message != "" && r.Message != tt.message) {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
	if got := Challenge(`a "b"`); got != `Basic realm="a "b""` {
		t.Errorf("Challenge = %s", got)
	}
	if !Off("off") || Off("Off") {
		t.Error("Off")
	}
}
