// This file checks ngx_brotli's negotiation with gzip in a running edge.
// Debian packages no ngx_brotli, so there is no nginx to compare with: the
// expected answers are the rules read from google/ngx_brotli's source
// (docs/nginx-differences.md, "brotli has no nginx to compare with"):
// the brotli filter runs before gzip and takes any client naming br not at
// q=0, whatever gzip's q; it has none of gzip's HTTP-version check;
// gzip_vary gives one Vary for both; brotli_static sends "file.br" to a
// client whose first "br" is a token, reading no q-value. And with
// fastcgi_cache, a HIT sends the variant stored for the client's coding.

package difftest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"edge/testenv"
)

func TestBrotliNegotiation(t *testing.T) {
	root := t.TempDir()
	html := strings.Repeat("<p>WordPress-like markup, compressed by brotli or by gzip</p>\n", 200)
	big := strings.Repeat("<p>a page larger than the file cache keeps in memory</p>\n", 6000)
	for name, data := range map[string]string{
		"index.html": html, "big.html": big, "app.js": html, "plain.txt": html,
		"static/site.css": html, "static/site.css.br": "precompressed",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// php-fpm's workers read the docroot as any user.
	for _, dir := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	phpBody := strings.Repeat("<p>made by PHP, cached by edge</p>\n", 400)
	php := `<?php header("Content-Type: text/html"); echo str_repeat("<p>made by PHP, cached by edge</p>\n", 400);`
	if err := os.WriteFile(filepath.Join(root, "page.php"), []byte(php), 0o644); err != nil {
		t.Fatal(err)
	}
	fpm := testenv.StartFPM(t, testenv.FPMOptions{})
	fpmAddr := "unix:" + fpm.Address
	if fpm.Network == "tcp" {
		fpmAddr = fpm.Address
	}
	repo := testenv.RepoRoot(t)
	port := testenv.FreePort(t)
	body := fmt.Sprintf(`access_log off;
fastcgi_cache_path %s/cache keys_zone=C:1m;
gzip on;
gzip_vary on;
brotli on;
brotli_comp_level 4;
brotli_types application/javascript text/css;
server {
    listen 127.0.0.1:%d;
    root %s;
    location /static/ { brotli_static on; }
    location = /page.php {
        include %s/conf/fastcgi_params;
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        fastcgi_pass %s;
        fastcgi_cache C;
        fastcgi_cache_valid 200 1m;
        add_header X-Cache $upstream_cache_status;
    }
}
`, t.TempDir(), port, root, repo, fpmAddr)
	addr := startEdge(t, body, filepath.Join(repo, "conf", "mime.types"), port)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 10 * time.Second}
	for _, tc := range []struct {
		path, ae, proto string
		enc             string // the Content-Encoding the rules give
		want            string // the body once decoded
		vary            bool
	}{
		{"/index.html", "gzip, deflate, br", "", "br", html, true},
		{"/index.html", "gzip;q=1.0, br;q=0.1", "", "br", html, true},
		{"/index.html", "gzip, br;q=0", "", "gzip", html, true},
		{"/index.html", "br;q=0.000", "", "", html, true},
		{"/index.html", "gzip", "", "gzip", html, true},
		{"/index.html", "", "", "", html, true},
		{"/index.html", "br", "HTTP/1.0", "br", html, true}, // brotli has no http_version check
		{"/index.html", "gzip", "HTTP/1.0", "", html, true}, // gzip_http_version 1.1
		{"/app.js", "gzip, br", "", "br", html, true},       // in brotli_types only
		{"/app.js", "gzip", "", "", html, true},
		{"/plain.txt", "gzip, br", "", "", html, false},
		{"/big.html", "br", "", "br", big, true}, // streamed from disk
		{"/static/site.css", "br;q=0", "", "br", "precompressed", true},
		{"/static/site.css", "gzip", "", "", html, true},
		// The MISS is compressed by the filter; the HITs send the
		// variants stored with the entry.
		{"/page.php", "gzip, br", "", "br", phpBody, true},
		{"/page.php", "gzip, br", "", "br", phpBody, true},
		{"/page.php", "gzip", "", "gzip", phpBody, true},
		{"/page.php", "", "", "", phpBody, true},
	} {
		name := tc.path + " " + tc.ae + " " + tc.proto
		var resp *http.Response
		var raw []byte
		var err error
		if tc.proto == "HTTP/1.0" {
			resp, raw, err = brGet10(addr, tc.path, tc.ae)
		} else {
			req, _ := http.NewRequest("GET", "http://"+addr+tc.path, nil)
			if tc.ae != "" {
				req.Header.Set("Accept-Encoding", tc.ae)
			}
			resp, err = client.Do(req)
			if err == nil {
				raw, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d", name, resp.StatusCode)
			continue
		}
		if got := resp.Header.Get("Content-Encoding"); got != tc.enc {
			t.Errorf("%s: Content-Encoding %q, want %q", name, got, tc.enc)
			continue
		}
		if vary := resp.Header.Values("Vary"); tc.vary != (len(vary) == 1 && vary[0] == "Accept-Encoding") {
			t.Errorf("%s: Vary %q, want one Accept-Encoding: %v", name, vary, tc.vary)
		}
		if tc.path == "/page.php" {
			// A compressed body goes chunked, as nginx's filters send
			// it, the HIT's stored variant as well.
			if tc.enc != "" && (resp.ContentLength != -1 || !slices.Equal(resp.TransferEncoding, []string{"chunked"})) {
				t.Errorf("%s: Content-Length %d, Transfer-Encoding %v; want chunked", name, resp.ContentLength, resp.TransferEncoding)
			}
			t.Logf("%s: %s, Content-Length %d, %d bytes", name, resp.Header.Get("X-Cache"), resp.ContentLength, len(raw))
		}
		got := raw
		if tc.want != "precompressed" {
			got = decodeBody(t, name, tc.enc, raw)
		}
		if string(got) != tc.want {
			t.Errorf("%s: body of %d bytes once decoded, want %d", name, len(got), len(tc.want))
		}
	}
}

// brGet10 sends an HTTP/1.0 GET and reads the answer to the close.
func brGet10(addr, path, ae string) (*http.Response, []byte, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.0\r\nHost: localhost\r\nAccept-Encoding: %s\r\n\r\n", path, ae)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func decodeBody(t *testing.T, name, enc string, b []byte) []byte {
	t.Helper()
	var rd io.Reader = bytes.NewReader(b)
	switch enc {
	case "br":
		rd = brotli.NewReader(rd)
	case "gzip":
		zr, err := gzip.NewReader(rd)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rd = zr
	}
	out, err := io.ReadAll(rd)
	if err != nil {
		t.Fatalf("%s: decoding %s: %v", name, enc, err)
	}
	return out
}
