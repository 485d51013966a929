package h1_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"edge/proxy/h1"
	"edge/proxy/internal/plantest"
)

// TestMirroredFileBySendfile: over plain TCP, a cached file of at least
// proxy.MirrorMin bytes, or a range of it that long, goes out from the
// file the cache keeps open (sendfile), and arrives whole; a short file,
// a short range and a gzipped body are written from memory.
func TestMirroredFileBySendfile(t *testing.T) {
	big := bytes.Repeat([]byte("mirror line 0123456789\n"), 3000) // 69 KB
	root := plantest.Root(t, map[string]string{"big.txt": string(big), "small.txt": "small\n"})
	plan := plantest.Load(t, root, `events {}
http {
    include mime.types;
    error_log `+root+`/logs/error.log;
    access_log off;
    gzip on;
    gzip_types text/plain;
    server {
        listen 127.0.0.1:8080;
        root `+root+`/html;
    }
}
`)
	var mu sync.Mutex
	var sent []bool
	h1.SetMirrorHook(func(fromFile bool) {
		mu.Lock()
		sent = append(sent, fromFile)
		mu.Unlock()
	})
	defer h1.SetMirrorHook(nil)
	c, br := dialServed(t, plan, 10*time.Second)
	for _, tt := range []struct {
		path, extra string
		want        []byte
		byFile      bool
	}{
		{"/big.txt", "", big, true},
		{"/big.txt", "Range: bytes=1000-40999\r\n", big[1000:41000], true},
		{"/big.txt", "Range: bytes=10-99\r\n", big[10:100], false},
		{"/small.txt", "", []byte("small\n"), false},
		{"/big.txt", "Accept-Encoding: gzip\r\n", big, false},
		{"/big.txt", "", big, true},
		{"park", "", nil, false},
		{"/big.txt", "", big, true}, // on the connection served again
	} {
		if tt.path == "park" {
			time.Sleep(3 * h1.ParkAfter)
			continue
		}
		mu.Lock()
		sent = nil
		mu.Unlock()
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n", tt.path, tt.extra)
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil {
			t.Fatalf("%s %q: %v", tt.path, tt.extra, err)
		}
		var body io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			if body, err = gzip.NewReader(resp.Body); err != nil {
				t.Fatal(err)
			}
		}
		got, err := io.ReadAll(body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("%s %q: %d bytes (%v), want %d, the same", tt.path, tt.extra, len(got), err, len(tt.want))
		}
		// The hook runs once the body went, which the client may have read
		// first: a body sent from a mirror is waited for.
		var byFile bool
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
			mu.Lock()
			byFile = len(sent) == 1 && sent[0]
			mu.Unlock()
			if byFile || !tt.byFile || time.Now().After(deadline) {
				break
			}
		}
		if byFile != tt.byFile {
			t.Errorf("%s %q: sent from the file %v (%v), want %v", tt.path, tt.extra, byFile, sent, tt.byFile)
		}
	}
	// The file replaced on disk: its next check (after open_file_cache's
	// second) serves the new content, by the new entry's own file.
	newer := bytes.Repeat([]byte("replaced 0123456789\n"), 2500)
	tmp := filepath.Join(root, "html", "big.tmp")
	if err := os.WriteFile(tmp, newer, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "html", "big.txt")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		fmt.Fprintf(c, "GET /big.txt HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, newer) && !bytes.Equal(got, big) {
			t.Fatalf("after the replace: %d bytes (%v), neither the old file nor the new", len(got), err)
		}
		if bytes.Equal(got, newer) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replaced file was still served after 5 s")
		}
	}
}
