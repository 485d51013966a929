// This file checks directory listings over HTTP/2 against nginx's (the
// differential suite covers HTTP/1.1 byte for byte, with every format
// and name rule): the same listing, status and body, reaches an HTTP/2
// client from both servers.
package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestH2Autoindex(t *testing.T) {
	e := newH2Env(t)
	e.extra = `location /list/ { autoindex on; charset utf-8; }
        location /list-json/ { alias ` + e.root + `/list/; autoindex on; autoindex_format jsonp; }`
	mtime := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	for name, data := range map[string]string{
		"list/a&b.txt":                    "ab",
		"list/" + strings.Repeat("é", 51): "long",
		"list/sub/x.txt":                  "x",
		"list/.hidden":                    "h",
	} {
		p := filepath.Join(e.root, name)
		writeFile(t, p, data)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"list/sub", "list"} {
		if err := os.Chtimes(filepath.Join(e.root, d), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{"/list/", "/list/sub/", "/list-json/?callback=cb", "/list-json/?callback=a-b", "/list", "/"}
	type answer struct {
		status int
		body   string
	}
	got := map[string][]answer{}
	for _, s := range []*h2Server{e.nginx(), e.edge()} {
		c := dialH2(t, s)
		for i, path := range paths {
			id := uint32(2*i + 1)
			c.Request(id, "GET", path)
			c.Flush()
			st, body := c.Response(id, waitTimeout)
			body = strings.ReplaceAll(body, "edge/0.1.0", "nginx/1.22.1")
			got[s.name] = append(got[s.name], answer{st, body})
		}
	}
	for i, path := range paths {
		ng, ed := got["nginx"][i], got["edge"][i]
		if ng != ed {
			t.Errorf("GET %s over HTTP/2:\nnginx %d %q\nedge  %d %q", path, ng.status, ng.body, ed.status, ed.body)
		}
	}
	if a := got["edge"][0]; a.status != 200 || !strings.Contains(a.body, `<a href="a%26b.txt">a&amp;b.txt</a>`) {
		t.Errorf("edge's listing over HTTP/2: %d %q", a.status, a.body)
	}
}
