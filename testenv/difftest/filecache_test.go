// This file checks that a file created after a request found it missing
// is served at once by both servers: nginx looks at the disk for every
// request (its open_file_cache is off by default, and with it on,
// open_file_cache_errors off keeps errors out of it), and edge's
// always-on file cache looks again at every path it found missing.

package difftest

import (
	"os"
	"path/filepath"
	"testing"

	"edge/testenv"
)

const fileCreatedConf = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    location /created/ { }
    location /fallback/ { try_files /created/late.txt /created/none =404; }
}
`

// TestFileCreatedServedAtOnce asks for a missing file, a directory without
// its index and a try_files list, creates the files, and asks again at
// once (nginx-tests proxy_cache_valid.t 12 does this with an index file).
func TestFileCreatedServedAtOnce(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.root, "created")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := e.startPair(t, fileCreatedConf)
	// before and after are the statuses both must answer; each request
	// goes twice, so that the miss is surely in edge's file cache.
	cases := []struct {
		target        string
		before, after int
	}{
		{"/created/late.txt", 404, 200},
		{"/created/", 403, 200}, // no index.html yet, no autoindex
		{"/fallback/x", 404, 200},
	}
	ask := func(after bool) {
		t.Helper()
		for _, c := range cases {
			want := c.before
			if after {
				want = c.after
			}
			raw := "GET " + c.target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
			for range 2 {
				ng, nerr := testenv.DoRaw(p.nginxAddr, raw)
				ed, eerr := testenv.DoRaw(p.edgeAddr, raw)
				if nerr != nil || eerr != nil {
					t.Fatalf("%s: nginx %v, edge %v", c.target, nerr, eerr)
				}
				if ng.Status != want || ed.Status != want || after && string(ng.Body) != string(ed.Body) {
					t.Errorf("%s: nginx %d %q, edge %d %q; want %d from both", c.target, ng.Status, ng.Body, ed.Status, ed.Body, want)
				}
			}
		}
	}
	ask(false)
	for name, body := range map[string]string{"late.txt": "late\n", "index.html": "index\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ask(true)
}
