// This file pins the address parsers geo shares with nginx to the answers
// nginx 1.22 gives for the same strings (the difftest geo scenario asks
// nginx itself for each of these at run time).
package conf

import "testing"

func TestNgxParseAddr(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want "" means refused
	}{
		{"10.1.2.3", "10.1.2.3"},
		{"01.02.03.004", "1.2.3.4"},
		{"1..2.3", "1.0.2.3"},
		{"10.1.2.", "10.1.2.0"},
		{"255.255.255.255", ""}, // INADDR_NONE
		{"256.0.0.1", ""},
		{"1.2.3", ""},
		{"1.2.3.4.5", ""},
		{"::1", "::1"},
		{"::", "::"},
		{":1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"}, // one leading ":" is skipped
		{":1:2:3:4:5:6:7", ""},
		{"::ffff:10.1.2.3", "::ffff:10.1.2.3"},
		{"::10.1.2.3", "::a01:203"},
		{"1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"},
		{"1:2:3:4:5:6:7:1.2.3.4", ""},
		{"1::2:3:4:5:6:7:8", ""},
		{"1:2:3:4:5:6:7::", ""},
		{"1::2::3", ""},
		{"2001:db8::1%lo", ""},
		{"[::1]", ""},
		{"", ""},
	} {
		a, ok := parseNgxAddr(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("parseNgxAddr(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
