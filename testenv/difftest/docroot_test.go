// This file builds the docroot every scenario serves: pages, assets of
// each type the seed's asset block names, a 100 KiB text file for ranges
// and gzip, a 300 KiB file that edge sends from disk instead of memory,
// directories with and without an index, names with spaces, "%", "+" and
// UTF-8, a directory to list (corpus_autoindex_test.go), error pages, PHP scripts that print what they were given, and a
// file outside the docroot that traversal attempts aim at.

package difftest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// phpInfo prints the CGI parameters both servers must pass alike; the
// ones that name the server or its port are left out on purpose.
const phpInfo = `<?php
header('Content-Type: text/plain');
foreach (['REQUEST_URI', 'DOCUMENT_URI', 'DOCUMENT_ROOT', 'SCRIPT_NAME', 'SCRIPT_FILENAME',
          'PATH_INFO', 'QUERY_STRING', 'REQUEST_METHOD', 'CONTENT_TYPE', 'CONTENT_LENGTH',
          'HTTP_HOST', 'SERVER_NAME', 'SERVER_PROTOCOL', 'REQUEST_SCHEME', 'HTTPS',
          'GATEWAY_INTERFACE', 'REDIRECT_STATUS', 'REMOTE_ADDR', 'SERVER_ADDR',
          'HTTP_X_TEST', 'HTTP_X_UNDER', 'HTTP_X_FORWARDED_FOR', 'HTTP_COOKIE', 'HTTP_PROXY'] as $k) {
    echo $k, '=', $_SERVER[$k] ?? '', "\n";
}
echo 'q=', $_GET['q'] ?? '', "\n";
echo 'body=', file_get_contents('php://input'), "\n";
`

// phpStatus answers with the status in ?code= and a short body.
const phpStatus = `<?php
http_response_code((int)($_GET['code'] ?? 200));
header('Content-Type: text/plain');
echo "status ", http_response_code(), "\n";
`

// phpValidators sends the validators and range header a static file
// would, so the suite can show what nginx does (not) do with them on a
// FastCGI response.
const phpValidators = `<?php
http_response_code((int)($_GET['code'] ?? 200));
if (isset($_GET['code']) && $_GET['code'] == 301) header('Location: /dir/');
header('Content-Type: text/plain');
header('Last-Modified: Fri, 01 Mar 2024 12:00:00 GMT');
header('ETag: "php-etag"');
header('Accept-Ranges: bytes');
header('Cache-Control: max-age=60');
echo str_repeat("a line of php output that compresses\n", 40);
`

// phpAccel hands the request to a static file with X-Accel-Redirect.
const phpAccel = `<?php
header('X-Accel-Redirect: ' . ($_GET['to'] ?? '/hello.txt'));
header('Cache-Control: private');
header('X-Dropped: yes');
echo "not sent\n";
`

// phpRedirect sends a Location: PHP turns it into a 302.
const phpRedirect = `<?php
header('Location: ' . ($_GET['to'] ?? '/hello.txt'));
`

// phpBig writes 300 KiB in pieces, flushing between them.
const phpBig = `<?php
header('Content-Type: text/plain');
for ($i = 0; $i < 3000; $i++) { printf("%05d: php output line of about one hundred bytes, filled up with words to reach it....\n", $i); if ($i % 500 == 0) flush(); }
`

// docFiles maps docroot-relative paths to their content.
func docFiles() map[string]string {
	return map[string]string{
		"index.html":           "<html><body>home</body></html>\n",
		"about.html":           "<html><body>about</body></html>\n",
		"UPPER.HTML":           "<html><body>upper</body></html>\n",
		"hello.txt":            strings.Repeat("Hallo Welt, nginx Feintuning. ", 19) + "1234567890x\n",
		"small.txt":            "tiny\n",
		"text100k.txt":         lines(100<<10, "line %06d: the quick brown fox jumps over the lazy dog\n"),
		"page.html":            lines(8<<10, "<p>paragraph %05d of a page that compresses well</p>\n"),
		"style.css":            lines(2<<10, ".c%04d { color: #123456; margin: 0 auto; }\n"),
		"app.js":               lines(2<<10, "function f%04d() { return 42; }\n"),
		"logo.png":             "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00IDATpng-bytes", 40),
		"photo.JPG":            "\xff\xd8\xff\xe0" + strings.Repeat("jpeg", 64),
		"favicon.ico":          "\x00\x00\x01\x00" + strings.Repeat("i", 60),
		"feed.xml":             `<?xml version="1.0"?><rss><channel><title>feed</title></channel></rss>` + "\n",
		"data.json":            `{"a": 1, "b": [1, 2, 3]}` + "\n",
		"noext":                "no extension here\n",
		"file.unknownext":      "unknown extension\n",
		".hidden":              "hidden file\n",
		"with space.html":      "<p>space</p>\n",
		"100%.html":            "<p>percent</p>\n",
		"a+b.html":             "<p>plus</p>\n",
		"ünïcode.html":         "<p>unicode</p>\n",
		"dir/index.html":       "<p>dir index</p>\n",
		"dir/page.html":        "<p>dir page</p>\n",
		"dir/sub/page.html":    "<p>dir sub page</p>\n",
		"noindex/a.txt":        "a\n",
		"onlyphp/index.php":    phpInfo,
		"static/app.js":        "var fromStatic = 1;\n",
		"static/logo.png":      "\x89PNG\r\n\x1a\nstatic",
		"static/sub/x.txt":     "static sub\n",
		"images/pic.png":       "\x89PNG\r\n\x1a\nimages",
		"images/deep/a.gif":    "GIF89a-deep",
		"docs/guide.txt":       "guide\n",
		"docs/api/index.txt":   "api index\n",
		"errors/404.html":      "<h1>custom 404</h1>\n",
		"errors/403.html":      "<h1>custom 403</h1>\n",
		"errors/50x.html":      "<h1>custom 50x</h1>\n",
		"errors/gone.html":     "<h1>gone</h1>\n",
		"index.php":            phpInfo,
		"info.php":             phpInfo,
		"blog/index.php":       phpInfo,
		"status.php":           phpStatus,
		"validators.php":       phpValidators,
		"accel.php":            phpAccel,
		"redirect.php":         phpRedirect,
		"big.php":              phpBig,
		"limitrate.php":        phpLimitRate,
		"intercept/status.php": phpStatus,
		"exec.sh":              "#!/bin/sh\necho hi\n",
	}
}

// lines repeats a numbered line until the text is n bytes long.
func lines(n int, format string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()[:n]
}

// bigFileSize is above edge's in-memory limit (256 KiB), so ranges and
// gzip also run over a file sent from disk.
const bigFileSize = 300 << 10

// fixedMtime gives every file the same Last-Modified and ETag on both
// servers and on every run.
var fixedMtime = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// buildDocroot writes the files under root and the traversal target
// outside it.
func buildDocroot(t *testing.T, root, outside string) {
	t.Helper()
	files := docFiles()
	big := make([]byte, bigFileSize)
	for i := range big {
		big[i] = byte(i*7 + i/251)
	}
	files["big.bin"] = string(big)
	for rel, content := range ssiFiles {
		files[rel] = content
	}
	for rel, content := range files {
		writeFile(t, filepath.Join(root, rel), content, 0o644)
	}
	for rel, content := range projectFiles() {
		writeFile(t, filepath.Join(root, rel), content, 0o644)
	}
	for _, dir := range []string{"empty", "noindex/sub"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatalf("difftest: %v", err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "exec.sh"), 0o755); err != nil {
		t.Fatalf("difftest: %v", err)
	}
	buildListing(t, root)
	writeFile(t, filepath.Join(outside, "secret.txt"), "outside the docroot\n", 0o644)
	// A file of geo entries that corpus_geo_test.go includes.
	writeFile(t, filepath.Join(outside, "geo-include.conf"), "172.16.0.0/12 included;\ndelete 172.16.5.0/24;\n", 0o644)
	// The user file of corpus_access_test.go.
	writeFile(t, filepath.Join(outside, "htpasswd"), accessUsers, 0o644)
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("difftest: %v", err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatalf("difftest: %v", err)
	}
	if err := os.Chtimes(path, fixedMtime, fixedMtime); err != nil {
		t.Fatalf("difftest: %v", err)
	}
}

// etagFor is the ETag both servers give a docroot file of size bytes:
// hex mtime, "-", hex size.
func etagFor(size int) string {
	return `"` + strconv.FormatInt(fixedMtime.Unix(), 16) + "-" + strconv.FormatInt(int64(size), 16) + `"`
}

// etagOf is etagFor for a file of docFiles.
func etagOf(rel string) string { return etagFor(len(docFiles()[rel])) }

func itoa(n int) string { return strconv.Itoa(n) }
