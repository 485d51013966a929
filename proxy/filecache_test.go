package proxy

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// get and stat look path up at the cache's own clock.
func (c *fileCache) get(path string) *fileEntry { return c.getAt(path, time.Time{}) }
func (c *fileCache) stat(path string) fileInfo  { return c.statAt(path, time.Time{}) }

// TestFileCacheErrorsNotCached: a path that is missing is looked at again
// on every use, as nginx's open_file_cache_errors off has it (nginx-tests
// proxy_cache_valid.t 12 creates an index file and asks for it at once),
// while a file that exists is trusted for the validity. The clock does not
// move, so only the rule decides.
func TestFileCacheErrorsNotCached(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1700000000, 0)
	c := newFileCache(time.Second, func() time.Time { return now })
	path := filepath.Join(dir, "index.html")

	if fi := c.stat(path); fi.exists || fi.err != errNotFound {
		t.Fatalf("missing file: exists %v, err %v", fi.exists, fi.err)
	}
	// Asked again while still missing: the same entry, no new one.
	e1 := c.get(path)
	if e2 := c.get(path); e2 != e1 {
		t.Errorf("a path still missing got a new entry")
	}
	if err := os.WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := c.get(path)
	if !e.info.exists || string(e.data) != "new" {
		t.Fatalf("file created after a miss: exists %v, data %q; want it at once", e.info.exists, e.data)
	}
	// A file that exists is trusted for the validity (the documented
	// difference "Files changed less than a second ago").
	if err := os.WriteFile(path, []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if e := c.get(path); string(e.data) != "new" {
		t.Errorf("within the validity got %q, want the entry as cached", e.data)
	}
	now = now.Add(time.Second)
	if e := c.get(path); string(e.data) != "changed" {
		t.Errorf("after the validity got %q, want %q", e.data, "changed")
	}
	// Removed: seen once the entry is checked again, then looked at on
	// every use until it comes back.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Second)
	if fi := c.stat(path); fi.exists {
		t.Fatalf("removed file still exists after the validity")
	}
	if err := os.WriteFile(path, []byte("back"), 0o644); err != nil {
		t.Fatal(err)
	}
	if e := c.get(path); string(e.data) != "back" {
		t.Errorf("file back after removal got %q, want %q at once", e.data, "back")
	}
}

// BenchmarkFileCacheMissing is the cost of a path that does not exist,
// which try_files $uri $uri/ /index.php pays twice for every pretty URL.
func BenchmarkFileCacheMissing(b *testing.B) {
	c := newFileCache(time.Second, time.Now)
	path := filepath.Join(b.TempDir(), "missing")
	b.ReportAllocs()
	for b.Loop() {
		c.stat(path)
	}
}

// TestFileCacheRequestClock: a request's lookups judge the validity by
// the time they are given (the request's start), not by the cache's
// clock, which they do not read.
func TestFileCacheRequestClock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newFileCache(time.Second, func() time.Time {
		t.Fatal("a lookup given its time read the cache's clock")
		return time.Time{}
	})
	start := time.Unix(1700000000, 0)
	if e := c.getAt(path, start); string(e.data) != "old" {
		t.Fatalf("got %q", e.data)
	}
	if err := os.WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi := c.statAt(path, start.Add(500*time.Millisecond)); fi.size != 3 {
		t.Fatalf("size %d", fi.size)
	}
	if e := c.getAt(path, start.Add(500*time.Millisecond)); string(e.data) != "old" {
		t.Errorf("within the validity got %q, want the entry as cached", e.data)
	}
	if e := c.getAt(path, start.Add(time.Second)); string(e.data) != "new" {
		t.Errorf("a request a second later got %q, want %q", e.data, "new")
	}
}
