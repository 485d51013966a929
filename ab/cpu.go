// This file holds what the harness knows about CPUs: CPU lists in
// taskset's syntax ("0-1,3"), the default split of the machine between the
// servers and the load generator, and the CPU time a process tree (a
// server's master and workers) has used, read from /proc/PID/stat.

package ab

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CPUSet is a sorted list of CPU numbers without duplicates.
type CPUSet []int

// ParseCPUSet reads taskset's list syntax: "0", "0-3", "0,2,4-5".
func ParseCPUSet(s string) (CPUSet, error) {
	var set CPUSet
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || first < 0 {
			return nil, fmt.Errorf("ab: invalid CPU list %q", s)
		}
		last := first
		if isRange {
			last, err = strconv.Atoi(strings.TrimSpace(hi))
			if err != nil || last < first {
				return nil, fmt.Errorf("ab: invalid CPU list %q", s)
			}
		}
		for c := first; c <= last; c++ {
			set = append(set, c)
		}
	}
	slices.Sort(set)
	return slices.Compact(set), nil
}

// String writes the set back in taskset's syntax, ranges folded.
func (s CPUSet) String() string {
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", s[i], s[j]))
		} else {
			parts = append(parts, strconv.Itoa(s[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// Without returns the CPUs of s that are not in other.
func (s CPUSet) Without(other CPUSet) CPUSet {
	var out CPUSet
	for _, c := range s {
		if !slices.Contains(other, c) {
			out = append(out, c)
		}
	}
	return out
}

// Overlaps reports whether s and other share a CPU.
func (s CPUSet) Overlaps(other CPUSet) bool {
	for _, c := range s {
		if slices.Contains(other, c) {
			return true
		}
	}
	return false
}

// machineCPUs is every CPU this process may run on, 0..NumCPU-1. (A
// cgroup or an outer taskset may allow fewer; taskset then refuses the
// list, which is the message the user needs.)
func machineCPUs() CPUSet {
	n := runtime.NumCPU()
	set := make(CPUSet, n)
	for i := range set {
		set[i] = i
	}
	return set
}

// defaultSplit gives the servers the first half of the machine (at least
// one CPU) and the load generator the rest, so that on the 2-CPU machines
// the seeds describe each side has a CPU of its own. On one CPU both share
// it, and the report says so.
func defaultSplit(all CPUSet) (server, client CPUSet) {
	if len(all) < 2 {
		return all, all
	}
	half := len(all) / 2
	return all[:half], all[half:]
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat.
// Linux fixes it at 100 for user space on every architecture Go supports.
const clockTicks = 100

// procStat is what the harness reads from one /proc/PID/stat line.
type procStat struct {
	pid, ppid int
	// ticks is utime + stime, in clockTicks; sys is stime, the part spent
	// in the kernel on the process's behalf.
	ticks, sys int64
}

// parseProcStat reads a /proc/PID/stat line. The command name (field 2)
// is in parentheses and may hold spaces and parentheses itself, so the
// fields are counted from the last ")".
func parseProcStat(line string) (procStat, error) {
	open := strings.IndexByte(line, '(')
	end := strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("ab: malformed /proc stat line %q", line)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line[:open]))
	if err != nil {
		return procStat{}, fmt.Errorf("ab: malformed /proc stat line %q", line)
	}
	// After ")": state(3) ppid(4) ... utime(14) stime(15).
	f := strings.Fields(line[end+1:])
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("ab: short /proc stat line %q", line)
	}
	ppid, err1 := strconv.Atoi(f[1])
	utime, err2 := strconv.ParseInt(f[11], 10, 64)
	stime, err3 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, fmt.Errorf("ab: malformed /proc stat line %q", line)
	}
	return procStat{pid: pid, ppid: ppid, ticks: utime + stime, sys: stime}, nil
}

// readProcs reads the stat line of every process under procDir ("/proc").
// Processes that exit while it reads are skipped.
func readProcs(procDir string) []procStat {
	entries, _ := os.ReadDir(procDir)
	var out []procStat
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(procDir, e.Name(), "stat"))
		if err != nil {
			continue
		}
		if st, err := parseProcStat(string(data)); err == nil {
			out = append(out, st)
		}
	}
	return out
}

// treeTicks sums the CPU ticks of root and all its descendants, and the
// kernel's part of them. Threads are already included in a process's own
// figures.
func treeTicks(procs []procStat, root int) (total, sys int64) {
	children := map[int][]procStat{}
	found := false
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p)
		if p.pid == root {
			total += p.ticks
			sys += p.sys
			found = true
		}
	}
	if !found {
		return 0, 0
	}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			total += c.ticks
			sys += c.sys
			queue = append(queue, c.pid)
		}
	}
	return total, sys
}

// CPUTime returns the CPU time (user + system) used so far by the process
// pid and every process below it: for nginx, the master and its workers;
// for php-fpm, the master and the pool; and sys, the system part of it
// (the kernel working for the processes: their system calls, and the
// network stack's work for what they send). A worker that exited between
// two readings takes its time with it, which the servers here never do
// while a run is timed.
func CPUTime(pid int) (total, sys time.Duration) {
	t, s := treeTicks(readProcs("/proc"), pid)
	return ticksToDuration(t), ticksToDuration(s)
}

func ticksToDuration(t int64) time.Duration {
	return time.Duration(t) * time.Second / clockTicks
}

// stealTicks sums the steal time (the 8th value of a "cpuN" line, in
// clockTicks) of the CPUs in cpus from a /proc/stat text: time the
// hypervisor ran something else while these virtual CPUs had work.
func stealTicks(stat string, cpus CPUSet) int64 {
	var total int64
	for _, line := range strings.Split(stat, "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		n, err := strconv.Atoi(f[0][3:])
		if err != nil || !slices.Contains(cpus, n) {
			continue
		}
		if v, err := strconv.ParseInt(f[8], 10, 64); err == nil {
			total += v
		}
	}
	return total
}

// StealTime is the steal time of cpus so far (0 where /proc/stat cannot
// be read, or on a machine that is not virtual).
func StealTime(cpus CPUSet) time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	return ticksToDuration(stealTicks(string(data), cpus))
}
