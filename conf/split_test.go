package conf

import "testing"

// TestParsePercent: split_clients percentages as ngx_atofp(..., 2) reads
// them, in hundredths.
func TestParsePercent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"51.2%", 5120, true},
		{"0.5%", 50, true},
		{"10%", 1000, true},
		{"100%", 10000, true},
		{"33.33%", 3333, true},
		{".5%", 50, true},
		{"0.555%", 0, false},
		{"0%", 0, false},
		{"10", 0, false},
		{"%", 0, false},
		{"a%", 0, false},
		{"1.%", 100, true},
	} {
		got, ok := parsePercent(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parsePercent(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
