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

// TestUnescapeRedirect: what nginx 1.22.1 sent as Location for
// "rewrite ^ $arg_r? redirect" and a literal replacement (measured).
func TestUnescapeRedirect(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://x/a", "http://x/a"},
		{"http%3A%2F%2Fx%2F%3Ffrom", "http://x/?from"},
		{"http%3A%2F%2Fexample.com%0D%0Asplit", "http://example.com%0D%0Asplit"},
		{"%5C%5E%7B%7C%7D%60%22%23%25%26%2B%3B%3C%3E%20%0D%7F%80", `\^{|}` + "`" + `%22%23%25&+;<>%20%0D%7F%80`},
		{"a%zzb%2", "azzb"},
		{"a?b%3Fc", "a?b%3Fc"},
		{"a%3Fb?c%3Fd", "a?b?c%3Fd"},
		{"http://x/a%5Cb%3Fc%26d%zz%2", `http://x/a\b?c%26d%zz%2`},
		{"a%23b%26", "a%23b&"},
		{"x%2Fy", "x/y"},
		{"a%4zb", "ab"},
		{"a%4%3Fb", "a3Fb"},
		{"%4?x%41", "xA"},
		{"%4z%41", "A"},
	} {
		if got := unescapeRedirect(tc.in); got != tc.want {
			t.Errorf("unescapeRedirect(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
