// This file tests the parsing of request targets: the authority grammar
// of absolute-form ones (splitAuthority).
package proxy

import "testing"

func TestSplitAuthority(t *testing.T) {
	for _, tc := range []struct {
		in, host, rest string
		ok             bool
	}{
		{"localhost/x", "localhost", "/x", true},
		{"localhost", "localhost", "", true},
		{"localhost?q", "localhost", "?q", true},
		{"localhost:8080/x", "localhost:8080", "/x", true},
		{"localhost:/x", "localhost:", "/x", true},
		{"[::1]:80/x", "[::1]:80", "/x", true},
		{"/x", "", "/x", true},
		{"u:p@evil.example/", "", "", false},
		{"u@localhost/", "", "", false},
		{"my_host/", "", "", false},
		{"a~b/", "", "", false},
		{"a:x/", "", "", false},
		{"[::1/", "", "", false},
		{"[::1]x/", "", "", false},
	} {
		host, rest, ok := splitAuthority(tc.in)
		if ok != tc.ok || ok && (host != tc.host || rest != tc.rest) {
			t.Errorf("splitAuthority(%q) = %q, %q, %v; want %q, %q, %v", tc.in, host, rest, ok, tc.host, tc.rest, tc.ok)
		}
	}
}
