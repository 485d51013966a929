// This file tests that a file that is not a PHP script never runs as one
// through edge where the configuration says scripts must exist
// (try_files ... =404): an uploaded image with PHP code in it, reached by
// the cgi.fix_pathinfo paths ("/evil.jpg/x.php"), by the case-folding
// split a Caddy advisory described (characters whose lower case is longer
// in UTF-8, which moves an index found in the folded path), and by a line
// break in the path (CVE-2019-11043, where php-fpm's PATH_INFO handling
// underflowed a buffer). The pool's security.limit_extensions is widened
// to .jpg, so that php-fpm's own guard is out of the way and only edge
// stands between the request and the payload. nginx, run with the same
// configurations, must agree on every status.

package fcgitest

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"
)

// securitySites are the configurations users run, each with the
// existence check the PHP docs and nginx's wiki recommend.
var securitySites = []struct {
	name     string
	pathInfo bool // the site passes /script.php/path/info
	body     string
}{
	{"try_files uri", false, `
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~ \.php$ {
        try_files $uri =404;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
}
`},
	{"split path info", true, `
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~ [^/]\.php(/|$) {
        fastcgi_split_path_info ^(.+?\.php)(/.*)$;
        set $path_info $fastcgi_path_info;
        try_files $fastcgi_script_name =404;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        fastcgi_param PATH_INFO $path_info;
    }
}
`},
	{"case-insensitive location", true, `
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~* \.php($|/) {
        fastcgi_split_path_info ^(.+\.php)(/.+)$;
        try_files $fastcgi_script_name =404;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        fastcgi_param PATH_INFO $fastcgi_path_info;
    }
}
`},
}

// attackTargets reach uploads/evil.jpg and "uploads/ȺȺȺȺ.php.jpg", both
// holding PHP code. Ⱥ (U+023A, 2 bytes) folds to ⱥ (U+2C65, 3 bytes).
var attackTargets = []string{
	"/uploads/evil.jpg/x.php",
	"/uploads/evil.jpg/x.PHP",
	"/uploads/evil.jpg/.php",
	"/uploads/evil.jpg/x.php/y",
	"/uploads/evil.jpg%2Fx.php",
	"/uploads/evil.jpg%20/x.php",
	"/uploads/evil.jpg/%2e%2e/x.php",
	"/uploads/%C8%BA%C8%BA%C8%BA%C8%BA.php.jpg/x.php",
	"/uploads/%C8%BA%C8%BA%C8%BA%C8%BA.php.jpg/x.PHP",
	"/uploads/%C8%BA%C8%BA%C8%BA%C8%BA.php.jpg",
	"/uploads/%C8%BA%C8%BA%C8%BA%C8%BA.PHP.jpg/x.php",
}

// widePool lets php-fpm run any .jpg it is handed.
var widePool = testenv.FPMOptions{Extra: "security.limit_extensions = .php .jpg\n"}

func TestNonScriptsNeverRun(t *testing.T) {
	s := newSite(t, phpScripts, widePool)
	t.Run("control", func(t *testing.T) {
		// Without an existence check php-fpm's cgi.fix_pathinfo walks
		// back from the missing x.php to the image and runs it: the pool
		// is as exposed as the test means it to be.
		ng := s.startNginx(t, cveSite)
		resp := testenv.RawHTTP(t, ng.addr, "GET /uploads/evil.jpg/x.php HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
		if !strings.Contains(string(resp.Body), "PWNED") {
			t.Fatalf("nginx without try_files: %d %.100q; want the payload to run", resp.Status, resp.Body)
		}
	})
	for _, site := range securitySites {
		t.Run(site.name, func(t *testing.T) {
			ed := s.startEdge(t, site.body)
			ng := s.startNginx(t, site.body)
			for _, target := range attackTargets {
				raw := "GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
				er, err := testenv.DoRaw(ed.addr, raw)
				if err != nil {
					t.Fatalf("edge: %s: %v", target, err)
				}
				nr, err := testenv.DoRaw(ng.addr, raw)
				if err != nil {
					t.Fatalf("nginx: %s: %v", target, err)
				}
				if strings.Contains(string(er.Body), "PWNED") {
					t.Errorf("%s: edge ran the image as PHP (status %d)", target, er.Status)
				}
				if strings.Contains(string(nr.Body), "PWNED") {
					t.Errorf("%s: nginx ran the image as PHP: the configuration does not test what it should", target)
				}
				if er.Status != nr.Status {
					t.Errorf("%s: edge %d, nginx %d", target, er.Status, nr.Status)
				}
			}
			// The real script still runs, PATH_INFO and all.
			target := "/env.php"
			if site.pathInfo {
				target += "/a/b"
			}
			resp := testenv.RawHTTP(t, ed.addr, "GET "+target+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
			if resp.Status != 200 || !strings.Contains(string(resp.Body), "SCRIPT_NAME=%2Fenv.php\n") {
				t.Errorf("%s: %d, want env.php to run", target, resp.Status)
			}
		})
	}
}

// cveSite is the configuration CVE-2019-11043 was shown on: PATH_INFO
// split without any existence check.
const cveSite = `
server {
    listen {{LISTEN}};
    root {{ROOT}};
    location ~ [^/]\.php(/|$) {
        fastcgi_split_path_info ^(.+?\.php)(/.*)$;
        fastcgi_param PATH_INFO $fastcgi_path_info;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
}
`

// TestLineBreakNeverReachesPHP: with a %0A in the path the split regexp
// fails (its "." stops at a line break) and php-fpm got an empty PATH_INFO
// with a script name it mis-measured. nginx passes such a request on;
// edge refuses it, so the exploit's requests never reach a worker.
func TestLineBreakNeverReachesPHP(t *testing.T) {
	s := newSite(t, phpScripts, widePool)
	ed := s.startEdge(t, cveSite)
	for _, target := range []string{
		"/env.php/PHP%0Ais_the_shittiest_lang.php?QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ",
		"/env.php%0A/x.php",
		"/uploads/evil.jpg%0Ax.php",
		"/env.php/a%0Db.php",
	} {
		raw := "GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
		resp := testenv.RawHTTP(t, ed.addr, raw)
		if resp.Status != 404 || strings.Contains(string(resp.Body), "PWNED") || strings.Contains(string(resp.Body), "SCRIPT_NAME") {
			t.Errorf("%s: %d %.100q, want 404 without running PHP", target, resp.Status, resp.Body)
		}
	}
	if log := ed.errorLogText(t); strings.Count(log, "refusing to pass a URI with a line break") != 4 {
		t.Errorf("error log does not record the four refusals:\n%s", log)
	}
}

// TestBuiltinSiteChecksScripts runs edge without -c: its built-in site
// (conf/default.conf with default-php.conf) serves the docroot with a
// php-fpm pool edge starts itself, and must pass PHP only scripts that
// exist.
func TestBuiltinSiteChecksScripts(t *testing.T) {
	root := t.TempDir()
	for name, content := range phpScripts {
		writeFile(t, filepath.Join(root, name), content)
	}
	dir := t.TempDir()
	port := testenv.FreePort(t)
	addr := testenv.StartEdge(t, testenv.EdgeOptions{
		Prefix: filepath.Join(dir, "prefix"),
		Dir:    dir,
		// The local CA for the HTTPS side goes under the test's directory,
		// not the user's home.
		Env: []string{"EDGE_ROOT=" + root, "EDGE_HTTP_PORT=" + strconv.Itoa(port),
			"EDGE_HTTPS_PORT=" + strconv.Itoa(testenv.FreePort(t)), "HOME=" + dir, "XDG_DATA_HOME=" + filepath.Join(dir, "data")},
		Ports:        []int{port},
		ReadyTimeout: readyTimeout,
	}).Addr()
	get := func(target string) *testenv.RawResponse {
		return testenv.RawHTTP(t, addr, "GET "+target+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
	}
	// The pool may still be starting when the listener is up.
	poll(t, "the built-in PHP pool", func() bool { return get("/hello.php").Status == 200 })
	if resp := get("/hello.php"); string(resp.Body) != "hello" {
		t.Errorf("/hello.php: %q", resp.Body)
	}
	for _, target := range []string{"/uploads/evil.jpg/x.php", "/missing.php", "/uploads/evil.jpg%0Ax.php"} {
		if resp := get(target); resp.Status != 404 || strings.Contains(string(resp.Body), "PWNED") {
			t.Errorf("%s: %d %.100q, want 404", target, resp.Status, resp.Body)
		}
	}
}
