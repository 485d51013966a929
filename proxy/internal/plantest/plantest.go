// Package plantest makes what the tests of proxy and its packages start
// from: a plan compiled from a configuration text, a document root with
// files, and an error log that writes nowhere. Tests only; it imports no
// server, so the pipeline's own tests can use it.
package plantest

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edge/conf"
	"edge/proxy/logs"
)

// Load compiles a configuration text written into dir (which is also the
// prefix), with edge's built-in mime.types and fastcgi_params.
func Load(tb testing.TB, dir, text string) *conf.Plan {
	tb.Helper()
	path := filepath.Join(dir, "edge.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	readFile := func(p string) ([]byte, error) {
		data, _, err := conf.ReadFileWithBuiltins(p)
		return data, err
	}
	plan, err := conf.Load(path, conf.LoadOptions{Prefix: dir, ReadFile: readFile})
	if err != nil {
		tb.Fatalf("loading the test plan: %v", err)
	}
	return plan
}

// SilentLog is an error log with no destination.
func SilentLog() *logs.ErrorLog {
	l, _ := logs.NewErrorLog(nil, nil)
	return l
}

// Root makes a temporary directory holding logs/ and html/ with files
// (names relative to html/), and returns it.
func Root(tb testing.TB, files map[string]string) string {
	tb.Helper()
	root := tb.TempDir()
	for _, d := range []string{"html", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for name, data := range files {
		path := filepath.Join(root, "html", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

// benchSiteConf is a WordPress-style server with the locations such sites
// carry: exact, prefix, "^~", regexes for assets, dot files and PHP.
const benchSiteConf = `events {}
http {
    include mime.types;
    error_log {{ROOT}}/logs/error.log;
    access_log {{ROOT}}/logs/access.log;
    server {
        listen 127.0.0.1:8080;
        server_name example.com;
        root {{ROOT}}/html;
        index index.php index.html;
        location / { try_files $uri $uri/ /index.php?$args; }
        location = /favicon.ico { log_not_found off; access_log off; }
        location = /robots.txt { access_log off; }
        location ^~ /wp-content/uploads/ { expires 30d; }
        location /wp-admin/ { }
        location /api/v1/ { }
        location /static/ { expires 7d; }
        location ~* \.(jpg|jpeg|gif|png|css|js|ico|xml|svg|woff2?)$ { expires 30d; access_log off; }
        location ~ /\.ht { deny all; }
        location ~ \.php$ { fastcgi_pass 127.0.0.1:9000; include fastcgi_params; }
        location @fallback { return 404; }
    }
}
`

// BenchSite compiles benchSiteConf in a temporary directory holding a
// 1 KiB html/1k.txt.
func BenchSite(b testing.TB) (*conf.Plan, string) {
	b.Helper()
	return benchSite(b, "")
}

// BenchSiteH2 is BenchSite with HTTP/2 on its listener (h2c with prior
// knowledge).
func BenchSiteH2(b testing.TB) (*conf.Plan, string) {
	b.Helper()
	return benchSite(b, " http2")
}

func benchSite(b testing.TB, listen string) (*conf.Plan, string) {
	b.Helper()
	root := b.TempDir()
	for _, d := range []string{"html", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "html", "1k.txt"), []byte(strings.Repeat("x", 1023)+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	text := strings.ReplaceAll(benchSiteConf, "{{ROOT}}", root)
	text = strings.Replace(text, "listen 127.0.0.1:8080;", "listen 127.0.0.1:8080"+listen+";", 1)
	return Load(b, root, text), root
}

// BrowserHeaders are the header lines of a browser's GET of
// example.com.
var BrowserHeaders = [][2]string{
	{"Host", "example.com"},
	{"User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"},
	{"Accept", "text/plain,*/*;q=0.8"},
	{"Accept-Language", "en-US,en;q=0.5"},
	{"Accept-Encoding", "gzip, deflate, br"},
}

// ReadHead reads an HTTP/1 request or response head, up to and with its
// empty line.
func ReadHead(br *bufio.Reader) (string, error) {
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return head.String(), err
		}
		head.WriteString(line)
		if line == "\r\n" {
			return head.String(), nil
		}
	}
}

// Loopback accepts connections on a free loopback port until the
// test ends and runs serve on each (numbered from 1), closing it after;
// it returns the address.
func Loopback(t testing.TB, serve func(c net.Conn, n int)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for n := 1; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c, n)
			}()
		}
	}()
	return ln.Addr().String()
}
