// This file tests CPU lists, the default CPU split and the CPU time read
// from /proc.

package ab

import (
	"os"
	"slices"
	"testing"
	"time"
)

func TestParseCPUSet(t *testing.T) {
	tests := []struct {
		in      string
		want    CPUSet
		str     string
		wantErr bool
	}{
		{"0", CPUSet{0}, "0", false},
		{"0-3", CPUSet{0, 1, 2, 3}, "0-3", false},
		{"4,0-1,1", CPUSet{0, 1, 4}, "0-1,4", false},
		{" 2 , 5-6 ", CPUSet{2, 5, 6}, "2,5-6", false},
		{"", nil, "", true},
		{"3-1", nil, "", true},
		{"a", nil, "", true},
		{"-1", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCPUSet(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseCPUSet(%q) error %v", tt.in, err)
			}
			if !slices.Equal(got, tt.want) || got.String() != tt.str {
				t.Errorf("ParseCPUSet(%q) = %v (%q), want %v (%q)", tt.in, got, got.String(), tt.want, tt.str)
			}
		})
	}
}

func TestCPUSetWithoutAndOverlaps(t *testing.T) {
	a, b := CPUSet{0, 1, 2, 3}, CPUSet{1, 3}
	if got := a.Without(b); !slices.Equal(got, CPUSet{0, 2}) {
		t.Errorf("Without = %v", got)
	}
	if !a.Overlaps(b) || b.Overlaps(CPUSet{0, 2}) {
		t.Error("Overlaps is wrong")
	}
}

func TestDefaultSplit(t *testing.T) {
	tests := []struct {
		all            CPUSet
		server, client CPUSet
	}{
		{CPUSet{0}, CPUSet{0}, CPUSet{0}},
		{CPUSet{0, 1}, CPUSet{0}, CPUSet{1}},
		{CPUSet{0, 1, 2}, CPUSet{0}, CPUSet{1, 2}},
		{CPUSet{0, 1, 2, 3, 4, 5, 6, 7}, CPUSet{0, 1, 2, 3}, CPUSet{4, 5, 6, 7}},
	}
	for _, tt := range tests {
		s, c := defaultSplit(tt.all)
		if !slices.Equal(s, tt.server) || !slices.Equal(c, tt.client) {
			t.Errorf("defaultSplit(%v) = %v, %v; want %v, %v", tt.all, s, c, tt.server, tt.client)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		line    string
		want    procStat
		wantErr bool
	}{
		{"1234 (nginx) S 1 1234 1234 0 -1 4194624 100 0 0 0 57 13 0 0 20 0 1 0 100 0 0",
			procStat{pid: 1234, ppid: 1, ticks: 70, sys: 13}, false},
		// A command name with spaces and a ")" of its own.
		{"99 (a b) c) R 7 99 99 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 1 0 0",
			procStat{pid: 99, ppid: 7, ticks: 11, sys: 6}, false},
		{"garbage", procStat{}, true},
		{"5 (x) S 1 2", procStat{}, true},
	}
	for _, tt := range tests {
		got, err := parseProcStat(tt.line)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parseProcStat(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
		}
	}
}

func TestTreeTicks(t *testing.T) {
	procs := []procStat{
		{pid: 10, ppid: 1, ticks: 5, sys: 1},    // master
		{pid: 11, ppid: 10, ticks: 7, sys: 2},   // worker
		{pid: 12, ppid: 10, ticks: 9, sys: 4},   // worker
		{pid: 13, ppid: 12, ticks: 1, sys: 1},   // a worker's child
		{pid: 20, ppid: 1, ticks: 100, sys: 50}, // unrelated
	}
	tests := []struct {
		root      int
		want, sys int64
	}{{10, 22, 8}, {12, 10, 5}, {20, 100, 50}, {99, 0, 0}}
	for _, tt := range tests {
		if got, sys := treeTicks(procs, tt.root); got != tt.want || sys != tt.sys {
			t.Errorf("treeTicks(%d) = %d, %d; want %d, %d", tt.root, got, sys, tt.want, tt.sys)
		}
	}
}

func TestCPUTimeOfThisProcessGrows(t *testing.T) {
	before, _ := CPUTime(os.Getpid())
	// Burn CPU until /proc shows more: at least two ticks (20 ms).
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for {
		total, sys := CPUTime(os.Getpid())
		if sys > total {
			t.Fatalf("system time %v above the total %v", sys, total)
		}
		if total >= before+20*time.Millisecond {
			break
		}
		for i := 0; i < 1_000_000; i++ {
			x += i
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU time stayed at %v while spinning", total)
		}
	}
	_ = x
}

// TestStealTicks reads the steal column of the server CPUs' lines only.
func TestStealTicks(t *testing.T) {
	stat := "cpu  10 0 10 100 0 0 0 9 0 0\n" +
		"cpu0 5 0 5 50 0 0 0 4 0 0\n" +
		"cpu1 5 0 5 50 0 0 0 5 0 0\n" +
		"cpu12 1 0 1 1 0 0 0 7 0 0\n" +
		"intr 1 2 3\n"
	for _, tc := range []struct {
		cpus CPUSet
		want int64
	}{{CPUSet{0}, 4}, {CPUSet{1}, 5}, {CPUSet{0, 1}, 9}, {CPUSet{12}, 7}, {CPUSet{2}, 0}} {
		if got := stealTicks(stat, tc.cpus); got != tc.want {
			t.Errorf("stealTicks(%v) = %d, want %d", tc.cpus, got, tc.want)
		}
	}
}
