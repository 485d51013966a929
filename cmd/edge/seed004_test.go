// This file is the acceptance test of seed 004 ("nginx: Feintuning Tips &
// Tricks"): the article's configuration text, unchanged except for the
// root, the listen port and the php-fpm address, runs on edge. Assets get
// "expires 30d" and no access log lines; a missing pretty URL is rewritten
// to /index.php?q=...; PHP goes to php-fpm over FastCGI.
package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// seed004Conf is the article's text (testenv.Seed004Conf): its
// main-context lines, its asset location, its WordPress rewrite and its PHP
// location, verbatim. The server{} around the snippets names what the
// article leaves to the reader: listen, root, index. {{PORT}}, {{DIR}} and
// {{FPM}} are filled in by the test; {{EXTRA}} takes a test-only location.
var seed004Conf = testenv.Seed004Conf(testenv.Seed004Options{
	Server:      "listen 127.0.0.1:{{PORT}};\nroot {{DIR}}/www;\nindex index.php index.html;\n{{EXTRA}}\n",
	FastCGIPass: "{{FPM}}",
})

// seed004Site writes the seed configuration and a document root with
// assets, a text file and PHP scripts. The run adds "daemon off" with -g,
// so the configuration text stays the article's.
func seed004Site(t *testing.T, fpm, extra string) *site {
	t.Helper()
	conf := strings.NewReplacer("{{FPM}}", fpm, "{{EXTRA}}", extra).Replace(seed004Conf)
	s := newSite(t, conf)
	files := map[string]string{
		"www/style.css":  "body { color: #333; }\n",
		"www/app.js":     "console.log('hi');\n",
		"www/logo.png":   "\x89PNG\r\n\x1a\n fake png bytes",
		"www/hello.txt":  strings.Repeat("a", 590) + "\n", // the article's 591-byte file
		"www/index.php":  "<?php echo $_GET['q'] ?? '(no q)';\n",
		"www/hello.php":  "<?php echo 'hello from php';\n",
		"www/index.html": "<p>static index</p>\n",
	}
	for name, data := range files {
		s.write(name, data)
	}
	return s
}

func TestSeed004(t *testing.T) {
	// Nothing listens on 127.0.0.1:9 (discard): the asset and log checks
	// need no PHP.
	s := seed004Site(t, "127.0.0.1:9", "")
	if res := s.edge("-t"); res.code != 0 || !strings.Contains(res.stderr, "test is successful") {
		t.Fatalf("edge -t on the seed config: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	s.start("-g", "daemon off;")

	t.Run("assets expire in 30 days", func(t *testing.T) {
		for _, tt := range []struct{ path, ctype string }{
			{"/style.css", "text/css"},
			{"/app.js", "application/javascript"},
			{"/logo.png", "image/png"},
		} {
			before := time.Now()
			resp := s.get(tt.path)
			after := time.Now()
			if resp.Status != 200 {
				t.Errorf("GET %s: status %d", tt.path, resp.Status)
				continue
			}
			if got := resp.Header.Get("Content-Type"); got != tt.ctype {
				t.Errorf("GET %s: Content-Type %q, want %q", tt.path, got, tt.ctype)
			}
			if got := resp.Header.Get("Cache-Control"); got != "max-age=2592000" {
				t.Errorf("GET %s: Cache-Control %q, want max-age=2592000", tt.path, got)
			}
			checkExpires(t, tt.path, resp, before, after)
		}
	})

	t.Run("no access log for assets", func(t *testing.T) {
		for _, p := range []string{"/style.css", "/app.js", "/logo.png"} {
			s.get(p)
		}
		// Lines are buffered: the line of a later logged request shows
		// that everything before it was written.
		if resp := s.get("/hello.txt"); resp.Status != 200 || len(resp.Body) != 591 {
			t.Fatalf("GET /hello.txt: %d, %d bytes", resp.Status, len(resp.Body))
		}
		text := waitLog(t, s.accessLog(), `"GET /hello.txt HTTP/1.1" 200 591`)
		for _, asset := range []string{"style.css", "app.js", "logo.png"} {
			if strings.Contains(text, asset) {
				t.Errorf("the access log has a line for %s:\n%s", asset, text)
			}
		}
	})

	t.Run("existing files are not rewritten", func(t *testing.T) {
		if resp := s.get("/hello.txt"); resp.Status != 200 || !strings.HasPrefix(string(resp.Body), "aaaa") {
			t.Errorf("GET /hello.txt: %d %q", resp.Status, resp.Body)
		}
	})
}

// TestSeed004Rewrite checks the WordPress rewrite without PHP: a test-only
// exact location answers for /index.php with the arguments it got.
func TestSeed004Rewrite(t *testing.T) {
	s := seed004Site(t, "127.0.0.1:9", `location = /index.php { return 200 "$args"; }`)
	s.start("-g", "daemon off;")
	for _, tt := range []struct{ path, want string }{
		{"/some/pretty/url/", "q=some/pretty/url"},
		{"/some/pretty/url", "q=some/pretty/url"},
		{"/2024/01/hello-world/", "q=2024/01/hello-world"},
	} {
		resp := s.get(tt.path)
		if resp.Status != 200 || string(resp.Body) != tt.want {
			t.Errorf("GET %s = %d %q, want 200 %q", tt.path, resp.Status, resp.Body, tt.want)
		}
	}
	// An existing directory is not rewritten: index.php is its index, and
	// the internal redirect to it carries no arguments.
	if resp := s.get("/"); resp.Status != 200 || string(resp.Body) != "" {
		t.Errorf("GET / = %d %q, want 200 \"\"", resp.Status, resp.Body)
	}
}

// TestSeed004PHP runs the seed's PHP location against php-fpm: the pretty
// URL reaches index.php as $_GET['q'], and hello.php (the article's ab
// target) runs.
func TestSeed004PHP(t *testing.T) {
	fpm := testenv.StartFPM(t, testenv.FPMOptions{Listen: "127.0.0.1:0"})
	s := seed004Site(t, fpm.Address, "")
	s.start("-g", "daemon off;")
	for _, tt := range []struct{ path, want string }{
		{"/hello.php", "hello from php"},
		{"/some/pretty/url/", "some/pretty/url"},
		{"/some/pretty/url", "some/pretty/url"},
	} {
		resp := s.get(tt.path)
		if resp.Status != 200 || string(resp.Body) != tt.want {
			t.Errorf("GET %s = %d %q, want 200 %q", tt.path, resp.Status, resp.Body, tt.want)
		}
	}
}

// checkExpires: Expires is 30 days after the response's Date and after the
// time of the request (within the few seconds the request took).
func checkExpires(t *testing.T, path string, resp *testenv.RawResponse, before, after time.Time) {
	t.Helper()
	const thirtyDays = 30 * 24 * time.Hour
	exp, err := http.ParseTime(resp.Header.Get("Expires"))
	if err != nil {
		t.Errorf("GET %s: Expires %q: %v", path, resp.Header.Get("Expires"), err)
		return
	}
	if date, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		if d := exp.Sub(date); d < thirtyDays-time.Second || d > thirtyDays+time.Second {
			t.Errorf("GET %s: Expires %s is %v after Date %s, want 30 days", path, exp, d, date)
		}
	} else {
		t.Errorf("GET %s: Date %q: %v", path, resp.Header.Get("Date"), err)
	}
	// HTTP dates have whole seconds.
	lo, hi := before.Add(thirtyDays).Truncate(time.Second).Add(-time.Second), after.Add(thirtyDays+time.Second)
	if exp.Before(lo) || exp.After(hi) {
		t.Errorf("GET %s: Expires %s, want between %s and %s", path, exp, lo, hi)
	}
}
