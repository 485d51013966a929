// This file wakes the Go runtime's monitor thread before a match on the
// backtracking engine (see wakeMonitor).
package conf

import "syscall"

// wakeMonitor makes one system call through syscall.Syscall, which wakes
// the runtime's monitor (sysmon) if it sleeps. regexp2's match budget is
// a clock that a goroutine of its own advances, so a long match must be
// preempted for the clock to move, and preemption is sysmon's work. sysmon
// sleeps deeply (up to a minute) while every processor is idle, and edge's
// sockets use raw system calls (internal/rawio), which do not wake it: a
// request that arrives on an idle server and backtracks would otherwise
// keep its processor (with worker_processes 1, the only one) until sysmon
// wakes by itself. getpid is the cheapest call there is.
func wakeMonitor() { syscall.Syscall(syscall.SYS_GETPID, 0, 0, 0) }
