package cache

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// hit looks key up, wants a HIT and returns the entry (closed and done by
// the test's cleanup) and its identity body.
func (tz *testZone) hit(t *testing.T, k string) (*Entry, string) {
	t.Helper()
	l := tz.Lookup(context.Background(), key(k), basePolicy)
	t.Cleanup(func() { l.Entry.Close(); l.Done() })
	if l.Status != StatusHit || l.Entry == nil {
		t.Fatalf("%q: %v, want a HIT", k, l.Status)
	}
	b, err := l.Entry.ReadBody(l.Entry.Identity)
	if err != nil {
		t.Fatal(err)
	}
	return l.Entry, string(b)
}

func (tz *testZone) wantMemory(t *testing.T, entries int) {
	t.Helper()
	if _, n := tz.Memory(); n != entries {
		t.Fatalf("%d entries in memory, want %d", n, entries)
	}
}

// openFiles is the number of this process's open descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

// TestMemoryHit: a stored entry's HIT comes from memory, without a file,
// and so does the first HIT after a restart once it has read the file.
func TestMemoryHit(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "hello")
	tz.wantMemory(t, 1)
	e, body := tz.hit(t, "k")
	if body != "hello" || e.Data == nil || e.File != nil {
		t.Fatalf("HIT %q, data %v, file %v", body, e.Data != nil, e.File)
	}
	if b, n := tz.Memory(); b != e.size || n != 1 {
		t.Fatalf("memory %d bytes %d entries, want %d and 1", b, n, e.size)
	}

	tz2 := openZone(t, ZoneConfig{Path: tz.Config().Path})
	tz2.wantMemory(t, 0) // the loader reads headers only
	if e, body := tz2.hit(t, "k"); body != "hello" || e.Data == nil {
		t.Fatalf("first HIT after a restart %q, data %v", body, e.Data != nil)
	}
	tz2.wantMemory(t, 1)
}

// TestMemoryReplacedAndPurged: a new response for the key replaces the
// bytes in memory (a request still sending the old ones keeps them), a
// purge drops them, and neither is ever served again.
func TestMemoryReplacedAndPurged(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "old body")
	old, _ := tz.hit(t, "k")

	tz.clock.Add(11 * time.Minute)
	l := tz.Lookup(context.Background(), key("k"), basePolicy)
	if l.Status != StatusExpired {
		t.Fatalf("%v, want EXPIRED", l.Status)
	}
	commit(t, l, "new body")
	l.Entry.Close()
	l.Done()
	if _, body := tz.hit(t, "k"); body != "new body" {
		t.Fatalf("after the replacement: %q", body)
	}
	tz.wantMemory(t, 1)
	if b, _ := old.ReadBody(old.Identity); string(b) != "old body" {
		t.Fatalf("the request holding the old entry now reads %q", b)
	}

	// Replaced by one too big for memory: its bytes are dropped too.
	tz.clock.Add(11 * time.Minute)
	l = tz.Lookup(context.Background(), key("k"), basePolicy)
	big := strings.Repeat("z", MemoryEntryLimit)
	commit(t, l, big)
	l.Entry.Close()
	l.Done()
	tz.wantMemory(t, 0)
	if _, body := tz.hit(t, "k"); body != big {
		t.Fatalf("after the replacement by a big body: %d bytes", len(body))
	}
	tz.fill(t, key("small"), basePolicy, "s")
	tz.clock.Add(11 * time.Minute)
	tz.fill(t, key("k"), basePolicy, "new body")

	if n := tz.Purge("k"); n != 1 {
		t.Fatalf("purged %d", n)
	}
	tz.wantMemory(t, 1) // "small" only
	tz.want(t, key("k"), basePolicy, StatusMiss, "")
}

// TestMemoryBounds: the entries in memory, and their open files, stay
// within MemoryEntries and MemoryBytes, the least recently used dropped;
// a dropped entry is still a HIT, from its file.
func TestMemoryBounds(t *testing.T) {
	before := openFiles(t)
	tz := openZone(t, ZoneConfig{MemoryEntries: 3})
	for i := 0; i < 20; i++ {
		tz.fill(t, key(fmt.Sprint(i)), basePolicy, fmt.Sprint("body ", i))
	}
	tz.wantMemory(t, 3)
	if n := openFiles(t) - before; n > 3 {
		t.Fatalf("%d files open for 3 entries in memory", n)
	}
	// 17, 18 and 19 are in memory; a HIT on 0 reads it in and drops 17.
	if e, body := tz.hit(t, "0"); body != "body 0" || e.Data == nil {
		t.Fatalf("HIT of a dropped entry %q", body)
	}
	for _, k := range []string{"0", "18", "19"} {
		if e, _ := tz.hit(t, k); e.Data == nil {
			t.Fatalf("%s not in memory", k)
		}
	}
	tz.wantMemory(t, 3)

	big := strings.Repeat("x", MemoryEntryLimit)
	tz.fill(t, key("big"), basePolicy, big)
	if e, body := tz.hit(t, "big"); body != big || e.Data != nil || e.File == nil {
		t.Fatalf("an entry over MemoryEntryLimit: data %v, file %v", e.Data != nil, e.File)
	}

	tb := openZone(t, ZoneConfig{MemoryBytes: 2500})
	for i := 0; i < 5; i++ {
		tb.fill(t, key(fmt.Sprint(i)), basePolicy, strings.Repeat("y", 1000))
	}
	if b, n := tb.Memory(); b > 2500 || n != 2 {
		t.Fatalf("memory %d bytes %d entries under a 2500-byte bound", b, n)
	}

	off := openZone(t, ZoneConfig{MemoryBytes: -1})
	off.fill(t, key("k"), basePolicy, "x")
	if e, _ := off.hit(t, "k"); e.Data != nil {
		t.Fatal("in memory with MemoryBytes -1")
	}
	off.wantMemory(t, 0)
}

// TestMemoryDiskChanges: a file removed, rewritten or replaced on disk
// behind the zone's back is seen by the next lookup, as when every HIT
// opened its file.
func TestMemoryDiskChanges(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "body")
	p := filePath(tz.Config().Path, []int{1, 2}, HashKey("k"))
	os.Remove(p)
	tz.want(t, key("k"), basePolicy, StatusMiss, "")
	tz.wantMemory(t, 0)

	tz.fill(t, key("k"), basePolicy, "body")
	os.WriteFile(p, []byte("garbage"), 0o600) // the same inode, rewritten
	tz.want(t, key("k"), basePolicy, StatusMiss, "")
	tz.wantMemory(t, 0)

	// Another valid file renamed over it (another process storing the
	// key): its body is served, not the one in memory.
	tz.fill(t, key("k"), basePolicy, "mine")
	other := openZone(t, ZoneConfig{})
	other.fill(t, key("k"), basePolicy, "the other process's")
	if err := os.Rename(filePath(other.Config().Path, []int{1, 2}, HashKey("k")), p); err != nil {
		t.Fatal(err)
	}
	if _, body := tz.hit(t, "k"); body != "the other process's" {
		t.Fatalf("after a rename over the entry: %q", body)
	}
	tz.wantMemory(t, 1)
}

// TestMemoryEvictedWithEntry: inactive removal, max_size eviction and
// Close drop the bytes and close the files.
func TestMemoryEvictedWithEntry(t *testing.T) {
	before := openFiles(t)
	tz := openZone(t, ZoneConfig{Inactive: time.Minute})
	tz.fill(t, key("a"), basePolicy, "a")
	tz.fill(t, key("b"), basePolicy, "b")
	tz.wantMemory(t, 2)
	tz.clock.Add(2 * time.Minute)
	tz.Sweep()
	tz.wantMemory(t, 0)
	if n := openFiles(t) - before; n != 0 {
		t.Fatalf("%d files open after the entries went", n)
	}

	tz.fill(t, key("c"), basePolicy, "c")
	tz.Reconfigure(ZoneConfig{Path: tz.Config().Path, Levels: tz.Config().Levels, KeysZoneSize: 1 << 20, MaxSize: 1})
	tz.Sweep()
	tz.wantMemory(t, 0)

	tz.fill(t, key("d"), basePolicy, "d")
	tz.Close()
	tz.wantMemory(t, 0)
	// A request still in flight on the closed zone (a reload dropped
	// it) is served from the disk, and keeps nothing open.
	tz.want(t, key("d"), basePolicy, StatusHit, "d")
	tz.fill(t, key("e"), basePolicy, "e")
	tz.wantMemory(t, 0)
	if n := openFiles(t) - before; n != 0 {
		t.Fatalf("%d files open after Close", n)
	}
}

// TestMemoryConcurrent: HITs running while the entry is replaced, purged
// and evicted only ever see one whole stored body (run with -race).
func TestMemoryConcurrent(t *testing.T) {
	tz := openZone(t, ZoneConfig{MemoryEntries: 1})
	bodies := map[string]bool{}
	for i := 0; i < 5; i++ {
		bodies[strings.Repeat(fmt.Sprint(i), 3000)] = true
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				l := tz.Lookup(context.Background(), key("k"), basePolicy)
				if l.Entry != nil {
					b, err := l.Entry.ReadBody(l.Entry.Identity)
					if err != nil || !bodies[string(b)] {
						select {
						case errs <- fmt.Sprintf("%v: %d bytes %v", l.Status, len(b), err):
						default:
						}
					}
					l.Entry.Close()
				} else if l.Status == StatusMiss {
					w := l.Store(200, nil, l.Decide(200, nil), StoreOptions{})
					if w != nil {
						w.Write([]byte(strings.Repeat("0", 3000)))
						w.Commit()
					}
				}
				l.Done()
			}
		}()
	}
	for i := 0; i < 200; i++ {
		switch i % 3 {
		case 0:
			tz.Purge("k")
		case 1:
			tz.fill(t, key(fmt.Sprint("other", i)), basePolicy, "evicts k from memory")
		}
	}
	close(stop)
	wg.Wait()
	select {
	case e := <-errs:
		t.Fatal(e)
	default:
	}
}

// TestMemoryHitMovesUp: a HIT from memory makes its entry the most
// recently used one, so the bound drops another (the move happens when
// the lookup ends, in Done, which saves the HIT a lock of its own).
func TestMemoryHitMovesUp(t *testing.T) {
	tz := openZone(t, ZoneConfig{MemoryEntries: 2})
	tz.fill(t, key("a"), basePolicy, "body a")
	tz.fill(t, key("b"), basePolicy, "body b")
	l := tz.Lookup(context.Background(), key("a"), basePolicy)
	if l.Status != StatusHit || l.Entry == nil || l.Entry.Data == nil {
		t.Fatalf("a: %v, want a HIT from memory", l.Status)
	}
	l.Entry.Close()
	l.Done()
	tz.fill(t, key("c"), basePolicy, "body c")
	inMemory := func(k string) bool {
		tz.mu.Lock()
		defer tz.mu.Unlock()
		n := tz.nodes[HashKey(key(k).Key)]
		return n != nil && n.data != nil
	}
	if !inMemory("a") || inMemory("b") || !inMemory("c") {
		t.Errorf("in memory: a %v, b %v, c %v; want a and c (b least recently used)", inMemory("a"), inMemory("b"), inMemory("c"))
	}
}

// TestStoreMemoryMatchesFile: the bytes a stored entry keeps in memory
// are the entry file's, byte for byte, however the body was written (one
// piece, many pieces, empty) and whatever variants it has; the writer
// builds them while the body is written, with the header put in front at
// Commit, and its compressors come from pools shared between entries.
func TestStoreMemoryMatchesFile(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	page := strings.Repeat("<p>kept in memory, compressed twice</p>\n", 300)
	fields := []Field{{"Content-Type", "text/html"}, {"ETag", `"v1"`}}
	for i, c := range []struct {
		body  string
		piece int
		o     StoreOptions
	}{
		{page, len(page), StoreOptions{GzipLevel: 1}},
		{page, 1000, StoreOptions{GzipLevel: 6, Brotli: &BrotliOptions{Level: 4, Window: 18}}},
		{page, 7, StoreOptions{}},
		{"", 1, StoreOptions{GzipLevel: 1}},
		{page, 4096, StoreOptions{GzipLevel: 1}}, // the pooled gzip writer again
	} {
		k := key(fmt.Sprint("k", i))
		l := tz.Lookup(context.Background(), k, basePolicy)
		w := l.Store(200, fields, l.Decide(200, fields), c.o)
		for p := c.body; len(p) > 0; {
			n := min(c.piece, len(p))
			io.WriteString(w, p[:n])
			p = p[n:]
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		l.Done()
		file, err := os.ReadFile(tz.path(HashKey(k.Key)))
		if err != nil {
			t.Fatal(err)
		}
		e, body := tz.hit(t, k.Key)
		if e.Data == nil || string(e.Data) != string(file) {
			t.Fatalf("case %d: memory (%d bytes) is not the file (%d bytes)", i, len(e.Data), len(file))
		}
		if body != c.body {
			t.Errorf("case %d: body %d bytes, want %d", i, len(body), len(c.body))
		}
		if (c.o.GzipLevel != 0) != (e.Gzip.Len > 0) {
			t.Errorf("case %d: gzip variant %d bytes", i, e.Gzip.Len)
		}
	}
}
