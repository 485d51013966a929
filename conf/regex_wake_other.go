//go:build !linux

// This file holds wakeMonitor where edge's sockets use the net package's
// own calls, which wake the runtime's monitor themselves.
package conf

// wakeMonitor does nothing off Linux (see regex_wake_linux.go).
func wakeMonitor() {}
