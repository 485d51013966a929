// Package rawio reads and writes sockets with raw system calls under
// their syscall.RawConn, and waits in Go's poller only when a socket
// would block. proxy uses it for plain-TCP client connections and
// fastcgi for its connections to PHP.
//
// Why: net.Conn's Read and Write make their system calls through
// syscall.Syscall, which tells the runtime that the thread may block.
// When the kernel takes the CPU from the thread during the call (the PHP
// worker that a write woke, a timer tick), the runtime's monitor thread
// finds the processor "in a system call", takes it away and starts
// another thread to run it, and the first thread, back from the kernel,
// must park; each system call also wakes the monitor from its deep sleep
// when the server was idle. On a server that shares its CPU with the PHP
// pool this happened on most requests (about 5000 monitor wake-ups and
// three or four busy threads in a 4-second run, against about 700 and
// one with raw calls). The sockets are non-blocking, so a raw call never
// blocks in the kernel, and nginx's loop makes the same calls.
//
// What it costs: the thread keeps its processor for the length of the
// call, so a large write (the kernel copying a few hundred KiB) delays
// the goroutines queued behind it and a stop-the-world by that much.
// Only the net package's own TCP and unix connections are read raw (their
// descriptors are non-blocking unless something calls File on them,
// which edge does not); under the race detector the calls go through the
// syscall package, which tells the detector that a socket orders the
// goroutines on its two ends.
package rawio
