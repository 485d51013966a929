// This file runs seed 004's PHP configuration as the article prints it:
// the asset block with expires, the WordPress "if (!-e $request_filename)"
// rewrites and the PHP location with "fastcgi_pass 127.0.0.1:9000" and
// "include fastcgi_params" (found among edge's shipped files, as no such
// file sits next to the configuration). Only the server{} frame around it
// (listen, root) is the test's. It runs against a php-fpm on
// 127.0.0.1:9000 and against one on a unix socket.

package fcgitest

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"
)

// seed004 is the article's text (testenv.Seed004Conf), tabs and blank
// line included, with the test's error and access logs.
var seed004 = testenv.Seed004Conf(testenv.Seed004Options{
	HTTP:   "error_log {{ERRLOG}} info;\naccess_log {{ACCESSLOG}};\n",
	Server: "listen {{LISTEN}};\nroot {{ROOT}};\nindex index.php index.html;\n\n",
})

// seedFiles is a small site: a front controller, a script, assets.
var seedFiles = map[string]string{
	"index.php": `<?php echo "q=", $_GET['q'] ?? '', " uri=", $_SERVER['REQUEST_URI'];`,
	"hello.php": `<?php echo "hello";`,
	"hello.txt": "Hallo Welt\n",
	"style.css": "body { margin: 0; }\n",
	"logo.png":  "\x89PNG\r\n\x1a\n",
}

// seedAddress is the address the article passes PHP to.
const seedAddress = testenv.Seed004Address

func TestSeed004PHPConfig(t *testing.T) {
	for _, tt := range []struct{ name, listen string }{
		{"tcp 127.0.0.1:9000", seedAddress},
		{"unix socket", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			listen := tt.listen
			conf := seed004
			if listen == seedAddress && !portFree(seedAddress) {
				// Another test run (or a system php-fpm) holds 9000: the
				// text stays the article's but for the port.
				listen = "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t))
				t.Logf("%s is taken; using %s", seedAddress, listen)
			}
			s := newSite(t, seedFiles, testenv.FPMOptions{Listen: listen})
			if s.pass != seedAddress {
				conf = strings.Replace(conf, "fastcgi_pass "+seedAddress+";", "fastcgi_pass "+s.pass+";", 1)
			}
			port := testenv.FreePort(t)
			edge := startEdgeConf(t, func(errLog string) string {
				return strings.NewReplacer("{{ERRLOG}}", errLog, "{{ACCESSLOG}}", "logs/access.log",
					"{{LISTEN}}", "127.0.0.1:"+strconv.Itoa(port), "{{ROOT}}", s.root).Replace(conf)
			}, port)
			checkSeedSite(t, edge)
		})
	}
}

func checkSeedSite(t *testing.T, edge *server) {
	c := client()
	for _, tt := range []struct {
		target, body, cacheControl string
	}{
		{"/hello.php", "hello", ""},
		{"/", "q= uri=/", ""},
		{"/2012/03/feintuning/", "q=2012/03/feintuning uri=/2012/03/feintuning/", ""},
		{"/impressum", "q=impressum uri=/impressum", ""},
		{"/hello.txt", "Hallo Welt\n", ""},
		{"/style.css", "body { margin: 0; }\n", "max-age=2592000"},
	} {
		resp, err := c.Get(edge.url(tt.target))
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		if resp.StatusCode != 200 || body != tt.body {
			t.Errorf("%s: %d %q, want 200 %q", tt.target, resp.StatusCode, body, tt.body)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != tt.cacheControl {
			t.Errorf("%s: Cache-Control %q, want %q", tt.target, cc, tt.cacheControl)
		}
	}
	// Everything that does not exist goes to the front controller, assets
	// included: the server-level rewrite runs before any location.
	resp, err := c.Get(edge.url("/missing.png"))
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); resp.StatusCode != 200 || body != "q=missing.png uri=/missing.png" {
		t.Errorf("/missing.png: %d %q, want the front controller", resp.StatusCode, body)
	}
}

// portFree reports whether nothing listens on addr now.
func portFree(addr string) bool {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", resp.Request.URL, err)
	}
	return string(b)
}
