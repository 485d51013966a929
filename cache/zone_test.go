package cache

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInactive: spec "inactive=10m: evicts even fresh entries".
func TestInactive(t *testing.T) {
	tz := openZone(t, ZoneConfig{Inactive: time.Minute})
	long, _ := ValidRules(nil, time.Hour)
	pol := Policy{Valid: long}
	tz.fill(t, key("old"), pol, "x")
	tz.clock.Add(40 * time.Second)
	tz.fill(t, key("used"), pol, "y")
	tz.clock.Add(30 * time.Second)
	tz.Sweep()
	if st, _ := tz.get(t, key("used"), pol); st != StatusHit {
		t.Fatalf("used: %v", st)
	}
	if st, _ := tz.get(t, key("old"), pol); st != StatusMiss {
		t.Fatalf("inactive entry still served: %v", st)
	}
	if _, err := os.Stat(filePath(tz.Config().Path, []int{1, 2}, HashKey("old"))); !os.IsNotExist(err) {
		t.Fatalf("inactive file kept: %v", err)
	}
}

// TestMaxSize: the manager removes the least recently used entries while
// the zone is over max_size.
func TestMaxSize(t *testing.T) {
	tz := openZone(t, ZoneConfig{MaxSize: 3 * 12 * 1024})
	page := strings.Repeat("x", 10*1024)
	for _, k := range []string{"a", "b", "c", "d"} {
		tz.fill(t, key(k), basePolicy, page)
		tz.clock.Add(time.Second)
	}
	tz.get(t, key("a"), basePolicy) // a is now the most recently used
	tz.Sweep()
	if tz.Size() > 3*12*1024 {
		t.Fatalf("size %d over max_size", tz.Size())
	}
	if st, _ := tz.get(t, key("b"), basePolicy); st != StatusMiss {
		t.Fatalf("least recently used kept: %v", st)
	}
	for _, k := range []string{"a", "c", "d"} {
		if st, _ := tz.get(t, key(k), basePolicy); st != StatusHit {
			t.Errorf("%s: %v", k, st)
		}
	}
}

// TestMinFree: statfs is injected; the manager removes entries until the
// file system has min_free.
func TestMinFree(t *testing.T) {
	dir := t.TempDir()
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	var z *Zone
	const disk = 100 << 10
	z, err := Open(ZoneConfig{Path: dir, Levels: []int{1}, Name: "one", KeysZoneSize: 1 << 20, MinFree: 70 << 10},
		Options{Now: clock.Now, ManagerInterval: -1, Statfs: func(string) (int64, error) { return disk - z.Size(), nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	<-z.Loaded()
	tz := &testZone{Zone: z, clock: clock, log: &logRecorder{}}
	for i := 0; i < 5; i++ {
		tz.fill(t, key(fmt.Sprint(i)), basePolicy, strings.Repeat("x", 10<<10))
		clock.Add(time.Second)
	}
	tz.Sweep()
	if free := disk - z.Size(); free < 70<<10 {
		t.Fatalf("free %d after sweep", free)
	}
	if st, _ := tz.get(t, key("4"), basePolicy); st != StatusHit {
		t.Fatalf("most recent removed: %v", st)
	}
	if st, _ := tz.get(t, key("0"), basePolicy); st != StatusMiss {
		t.Fatalf("oldest kept: %v", st)
	}
}

// TestKeysZoneFull: the index holds KeysPerMiB keys per MiB; past that the
// least recently used keys and their files go.
func TestKeysZoneFull(t *testing.T) {
	tz := openZone(t, ZoneConfig{KeysZoneSize: 8192})
	capacity := 8192 * KeysPerMiB >> 20 // 62
	for i := 0; i < capacity+10; i++ {
		tz.fill(t, key(fmt.Sprint(i)), basePolicy, "x")
	}
	if n := tz.Len(); n != capacity {
		t.Fatalf("%d keys, want %d", n, capacity)
	}
	files := 0
	filepath.WalkDir(tz.Config().Path, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if files != capacity {
		t.Fatalf("%d files on disk, want %d", files, capacity)
	}
	if st, _ := tz.get(t, key(fmt.Sprint(capacity+9)), basePolicy); st != StatusHit {
		t.Fatalf("newest: %v", st)
	}
	// A lookup takes a node too (as in nginx), so this MISS evicts one
	// more entry.
	if st, _ := tz.get(t, key("0"), basePolicy); st != StatusMiss {
		t.Fatalf("least recently used kept: %v", st)
	}
}

func TestManagerGoroutine(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	z, err := Open(ZoneConfig{Path: t.TempDir(), Name: "one", KeysZoneSize: 1 << 20, Inactive: time.Minute},
		Options{Now: clock.Now, ManagerInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	<-z.Loaded()
	tz := &testZone{Zone: z, clock: clock, log: &logRecorder{}}
	tz.fill(t, key("k"), basePolicy, "x")
	clock.Add(2 * time.Minute)
	for z.Len() != 0 {
		time.Sleep(time.Millisecond) // until the manager has swept
	}
}

func TestPurge(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	for _, k := range []string{"httpGETexample.com/", "httpGETexample.com/blog/a", "httpGETexample.com/blog/b", "httpGETexample.com/shop"} {
		tz.fill(t, key(k), basePolicy, k)
	}
	if n := tz.Purge("httpGETexample.com/nothing"); n != 0 {
		t.Fatalf("purged %d for an unknown key", n)
	}
	if n := tz.Purge("httpGETexample.com/shop"); n != 1 {
		t.Fatalf("exact: %d", n)
	}
	if n := tz.Purge("httpGETexample.com/blog/*"); n != 2 {
		t.Fatalf("prefix: %d", n)
	}
	if st, _ := tz.get(t, key("httpGETexample.com/"), basePolicy); st != StatusHit {
		t.Fatalf("prefix purge removed the front page: %v", st)
	}
	if st, _ := tz.get(t, key("httpGETexample.com/blog/a"), basePolicy); st != StatusMiss {
		t.Fatalf("purged entry served: %v", st)
	}
	tz.fill(t, key("other"), basePolicy, "x")
	if n := tz.PurgeAll(); n != 2 {
		t.Fatalf("all: %d", n)
	}
	if tz.Size() != 0 {
		t.Fatalf("size %d after purge all", tz.Size())
	}
}

// TestPurgeAfterRestart: purge finds entries the loader indexed.
func TestPurgeAfterRestart(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("/a"), basePolicy, "x")
	tz.Close()
	tz2 := openZone(t, ZoneConfig{Path: tz.Config().Path})
	if n := tz2.Purge("/*"); n != 1 {
		t.Fatalf("purged %d", n)
	}
}

// The fault tests: a failing disk means "not cached", reported once,
// never a failed lookup. Tests run as root, so permissions do not stop
// writes: a file stands where a level directory should be, a 64 KiB tmpfs
// fills up, and the tmpfs is remounted read-only.

func TestFaultFileForDirectory(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	root := tz.Config().Path
	h := HashKey("k")
	level1 := filepath.Dir(filepath.Dir(filePath(root, []int{1, 2}, h)))
	if err := os.WriteFile(level1, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		l := tz.Lookup(context.Background(), key("k"), basePolicy)
		if l.Status != StatusMiss {
			t.Fatalf("%d: %v", i, l.Status)
		}
		w := l.Store(200, nil, l.Decide(200, nil), StoreOptions{})
		io.WriteString(w, "body")
		if err := w.Commit(); err == nil {
			t.Fatal("commit under a file succeeded")
		}
		l.Done()
	}
	if lines := tz.log.Lines(); len(lines) != 1 || !strings.Contains(lines[0], "not stored") {
		t.Fatalf("want one report, got %q", lines)
	}
	// Other keys are stored, and the next failure is reported again.
	tz.fill(t, key("elsewhere-1"), basePolicy, "x")
	l := tz.Lookup(context.Background(), key("k"), basePolicy)
	w := l.Store(200, nil, l.Decide(200, nil), StoreOptions{})
	w.Commit()
	l.Done()
	if n := len(tz.log.Lines()); n != 2 {
		t.Fatalf("%d reports after recovery and a new failure", n)
	}
}

// mountTmpfs mounts a small tmpfs for the test, or skips when the test
// cannot mount (not root).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

func TestFaultDiskFull(t *testing.T) {
	dir := mountTmpfs(t, "64k")
	tz := openZone(t, ZoneConfig{Path: dir})
	page := strings.Repeat("y", 40<<10)
	tz.fill(t, key("first"), basePolicy, page)
	for i := 0; i < 3; i++ {
		l := tz.Lookup(context.Background(), key(fmt.Sprint(i)), basePolicy)
		w := l.Store(200, nil, l.Decide(200, nil), StoreOptions{})
		if w != nil {
			io.WriteString(w, page)
			if err := w.Commit(); err == nil {
				t.Fatalf("%d: stored on a full disk", i)
			}
		}
		l.Done()
	}
	if lines := tz.log.Lines(); len(lines) != 1 || !strings.Contains(lines[0], "no space") {
		t.Fatalf("want one report, got %q", lines)
	}
	tz.want(t, key("first"), basePolicy, StatusHit, page)
	// No temporary file is left to fill the disk.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("left %s", e.Name())
		}
	}
	// Purging makes room; storing works again.
	tz.PurgeAll()
	tz.fill(t, key("again"), basePolicy, page)
}

func TestFaultReadOnly(t *testing.T) {
	dir := mountTmpfs(t, "1m")
	tz := openZone(t, ZoneConfig{Path: dir})
	tz.fill(t, key("first"), basePolicy, "stored before")
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount ro: %v %s", err, out)
	}
	for i := 0; i < 3; i++ {
		l := tz.Lookup(context.Background(), key(fmt.Sprint(i)), basePolicy)
		if l.Status != StatusMiss {
			t.Fatalf("%v", l.Status)
		}
		if w := l.Store(200, nil, l.Decide(200, nil), StoreOptions{}); w != nil {
			t.Fatal("a writer on a read-only disk")
		}
		l.Done()
	}
	if lines := tz.log.Lines(); len(lines) != 1 || !strings.Contains(lines[0], "read-only") {
		t.Fatalf("want one report, got %q", lines)
	}
	tz.want(t, key("first"), basePolicy, StatusHit, "stored before")
	exec.Command("mount", "-o", "remount,rw", dir).Run()
	tz.fill(t, key("again"), basePolicy, "x")
}

// TestFaultDirectoryRemoved: the cache directory goes away while serving;
// the entry is a MISS, and the next fill makes the directory again.
func TestFaultDirectoryRemoved(t *testing.T) {
	tz := openZone(t, ZoneConfig{})
	tz.fill(t, key("k"), basePolicy, "x")
	os.RemoveAll(tz.Config().Path)
	tz.want(t, key("k"), basePolicy, StatusMiss, "")
	if tz.Size() != 0 {
		t.Fatalf("size %d for a vanished entry", tz.Size())
	}
	tz.fill(t, key("k"), basePolicy, "again")
	tz.want(t, key("k"), basePolicy, StatusHit, "again")
	if lines := tz.log.Lines(); len(lines) != 0 {
		t.Fatalf("reports %q", lines)
	}
}

// BenchmarkHit is the cost of a HIT on a 45 KB page (issue 16's cached
// page): the lookup alone, and the lookup with the identity or the gzip
// body read, from memory (the zone keeps the entry, memory.go) and, under
// "file/", from the entry's file with the zone keeping none (the
// sendfile path copies the same bytes in the kernel). The gzip HIT costs
// no compression.
func BenchmarkHit(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchmarkHit(b, ZoneConfig{}) })
	b.Run("file", func(b *testing.B) { benchmarkHit(b, ZoneConfig{MemoryBytes: -1}) })
}

func benchmarkHit(b *testing.B, cfg ZoneConfig) {
	tz := openZone(b, cfg)
	page := strings.Repeat("<p>A cached page with some text on it.</p>\n", 45<<10/44)
	ae := func(v string) Request {
		return Request{Key: "httpGETexample.com/", Header: func(string) string { return v }}
	}
	fields := []Field{{"Content-Type", "text/html"}, {"Vary", "Accept-Encoding"}}
	l := tz.Lookup(context.Background(), ae("gzip"), basePolicy)
	w := l.Store(200, fields, l.Decide(200, fields), StoreOptions{GzipLevel: 6})
	io.WriteString(w, page)
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	l.Done()
	for _, c := range []struct {
		name string
		ae   string
		body bool
	}{{"lookup", "", false}, {"identity", "", true}, {"gzip", "gzip, deflate, br", true}} {
		req := ae(c.ae)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, 64<<10)
				for pb.Next() {
					l := tz.Lookup(context.Background(), req, basePolicy)
					if l.Status != StatusHit {
						b.Fatal(l.Status)
					}
					if c.body {
						s, _ := l.Entry.Body(AcceptsGzip(c.ae))
						if _, err := l.Entry.Section(s).ReadAt(buf[:s.Len], 0); err != nil {
							b.Fatal(err)
						}
					}
					l.Entry.Close()
					l.Done()
				}
			})
		})
	}
}

// BenchmarkStore is the cost of storing a 45 KB page with its gzip
// variant, written in one piece (a buffered response) or in 32 KiB
// pieces (a body read from a temporary file), kept in memory by the
// zone: the bytes allocated count the copies of the body.
func BenchmarkStore(b *testing.B) {
	page := []byte(strings.Repeat("<p>A cached page with some text on it.</p>\n", 45<<10/44))
	fields := []Field{{"Content-Type", "text/html"}}
	for _, c := range []struct {
		name  string
		piece int
	}{{"whole", len(page)}, {"pieces", 32 << 10}} {
		b.Run(c.name, func(b *testing.B) {
			tz := openZone(b, ZoneConfig{})
			b.ReportAllocs()
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				l := tz.Lookup(context.Background(), Request{Key: "k"}, basePolicy)
				w := l.Store(200, fields, l.Decide(200, fields), StoreOptions{GzipLevel: 1})
				for p := page; len(p) > 0; {
					n := min(c.piece, len(p))
					w.Write(p[:n])
					p = p[n:]
				}
				if err := w.Commit(); err != nil {
					b.Fatal(err)
				}
				l.Done()
				tz.Purge("k")
			}
		})
	}
}
