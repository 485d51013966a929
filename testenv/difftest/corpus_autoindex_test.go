// This file holds the autoindex scenario: directory listings in nginx's
// four formats over a directory of awkward names (HTML and URI escaping,
// 50-character truncation in bytes and in UTF-8 characters, invalid
// UTF-8, control bytes), sizes on both sides of the K/M/G rounding,
// subdirectories, links (to a file, to a directory, to nothing) and a
// FIFO; and what wins over a listing (an index file) or replaces it (403
// with autoindex off, 301 without the slash, 405 and 403 for other
// methods, 400 for a bad JSONP callback).

package difftest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const autoindexHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    autoindex on;

    location / { }
    location /off/ { autoindex off; alias {{ROOT}}/; }
    location /utf8/ { charset utf-8; alias {{ROOT}}/; }
    location /approx/ { autoindex_exact_size off; alias {{ROOT}}/; }
    location /local/ { autoindex_localtime on; alias {{ROOT}}/; }
    location /json/ { autoindex_format json; alias {{ROOT}}/; }
    location /jsonp/ { autoindex_format jsonp; charset utf-8; alias {{ROOT}}/; }
    location /xml/ { autoindex_format xml; alias {{ROOT}}/; }
    location /xml-koi/ { autoindex_format xml; charset koi8-r; alias {{ROOT}}/; }
    location /html/ { autoindex_format json; alias {{ROOT}}/; location /html/listing/ { autoindex_format html; alias {{ROOT}}/listing/; } }
    location /gz/ { gzip on; gzip_min_length 1; alias {{ROOT}}/; }
    location /tf/ { try_files $uri $uri/ =404; alias {{ROOT}}/; }
    location /ix/ { index missing.html; alias {{ROOT}}/; }
    location /hdr/ { add_header X-Listed yes; expires 1h; alias {{ROOT}}/; }
}
`

// listingFiles are the files of the listed directory, by name and size.
var listingFiles = map[string]int64{
	`a&b<c>"q".txt`:          0,
	"col:on.txt":             0,
	"sp ace%25+.txt":         1,
	"Zed":                    2,
	"zed":                    3,
	"!$'()*,;=@[]^`{|}~.txt": 4,
	strings.Repeat("n", 50):  5,
	strings.Repeat("n", 51):  6,
	"ñandú-日本語.txt":          7,
	strings.Repeat("é", 50):  8,
	strings.Repeat("é", 51):  9,
	"bad\xff\xfename":        10,
	"lax\xc3\xc3utf8":        10, // what nginx's UTF-8 decoder takes for one character
	"surrogate\xed\xa0\x80":  10,
	"tab\tname\x01":          11,
	strings.Repeat("&", 56):  12,
	".hidden":                13,
	"k9999":                  9999,
	"k10000":                 10000,
	"k10752":                 10752,
	"m1":                     1<<20 - 1,
	"m15":                    3 << 19,
	"g3":                     3 << 30, // sparse
}

// listingDirs are its subdirectories.
var listingDirs = []string{"Adir", strings.Repeat("d", 49), strings.Repeat("d", 50), strings.Repeat("d", 51),
	"q?x#y", `<x>&"y`, "sp ace", ".hiddendir"}

// buildListing makes ROOT/listing: the files above with the docroot's
// fixed time, links to a file, a directory and nothing, and a FIFO.
func buildListing(t *testing.T, root string) {
	t.Helper()
	dir := filepath.Join(root, "listing")
	for _, d := range listingDirs {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatalf("difftest: %v", err)
		}
	}
	writeFile(t, filepath.Join(dir, "sp ace", "inner.txt"), "inner\n", 0o644)
	for name, size := range listingFiles {
		p := filepath.Join(dir, name)
		writeFile(t, p, "", 0o644)
		if err := os.Truncate(p, size); err != nil {
			t.Fatalf("difftest: %v", err)
		}
	}
	for link, target := range map[string]string{"link": "zed", "dirlink": "Adir", "broken": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatalf("difftest: %v", err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatalf("difftest: %v", err)
	}
	for _, p := range append(listingDirs, "fifo", "", "../noindex", "../empty") {
		if err := os.Chtimes(filepath.Join(dir, p), fixedMtime, fixedMtime); err != nil {
			t.Fatalf("difftest: %v", err)
		}
	}
}

var _ = addScenario(scenario{
	name: "autoindex",
	http: autoindexHTTP,
	cases: []reqCase{
		get("html", "/listing/"),
		get("html_args", "/listing/?a=b"),
		get("html_small_dir", "/noindex/"),
		get("html_empty_dir", "/empty/"),
		get("html_title_escaped", "/listing/%3Cx%3E&%22y/"),
		get("html_title_space", "/listing/sp%20ace/"),
		get("html_utf8", "/utf8/listing/"),
		get("html_approx_sizes", "/approx/listing/"),
		get("html_localtime", "/local/listing/"),
		get("html_nested_location", "/html/listing/"),
		get10("html_http10", "/listing/"),
		head("head", "/listing/"),
		head("head_json", "/json/listing/"),
		get("json", "/json/listing/"),
		get("json_empty", "/json/empty/"),
		get("jsonp", "/jsonp/listing/?callback=my.cb_1"),
		get("jsonp_no_callback", "/jsonp/listing/"),
		get("jsonp_empty_callback", "/jsonp/listing/?callback="),
		get("jsonp_bad_callback", "/jsonp/listing/?callback=a-b"),
		get("jsonp_escaped_callback", "/jsonp/listing/?callback=a%2Eb"),
		get("jsonp_long_callback", "/jsonp/listing/?callback="+strings.Repeat("c", 129)),
		get("jsonp_128_callback", "/jsonp/empty/?callback="+strings.Repeat("c", 128)),
		get("xml", "/xml/listing/"),
		get("xml_charset", "/xml-koi/listing/"),
		get("gzip", "/gz/listing/", ae("gzip")),
		get("range", "/listing/", "Range: bytes=0-10"),
		get("if_none_match_star", "/listing/", "If-None-Match: *"),
		get("if_modified_since", "/listing/", "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
		get("if_match", "/listing/", `If-Match: "x"`),
		get("add_header_expires", "/hdr/listing/"),
		get("try_files_dir", "/tf/listing/"),
		get("try_files_file", "/tf/listing/zed"),
		get("index_missing", "/ix/noindex/"),
		get("index_wins", "/dir/"),
		get("no_slash", "/listing"),
		get("no_slash_args", "/listing?x=1"),
		get("missing_dir", "/nope/"),
		get("file_as_dir", "/hello.txt/"),
		get("off", "/off/noindex/"),
		post("post", "POST", "/listing/", "x=1"),
		req("delete", "DELETE", "/listing/"),
		get("subdir", "/listing/Adir/"),
		get("dir_link", "/listing/dirlink/"),
	},
})
