// This file runs WordPress end to end behind edge: Debian's wordpress
// package on a MariaDB started as a plain process, installed through
// install.php, then the front page, a /%postname%/ permalink, a wp-admin
// login with cookies that lands on the dashboard, assets with expires, and
// PHP under uploads refused.

package fcgitest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// wordpressSite is the nginx configuration WordPress documents, as users
// run it: pretty permalinks through index.php, PHP only for scripts that
// exist, no PHP from uploads, and assets cached for 30 days.
const wordpressSite = `
client_max_body_size 64m;
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    index index.php;

    location / {
        try_files $uri $uri/ /index.php?$args;
    }
    location ~* /(?:uploads|files)/.*\.php$ {
        deny all;
    }
    location ~ \.php$ {
        try_files $uri =404;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
    location ~* \.(?:js|css|png|jpg|jpeg|gif|ico|svg|woff2?)$ {
        expires 30d;
        access_log off;
        log_not_found off;
    }
}
`

const (
	wpTitle    = "Edge Feintuning Blog"
	wpUser     = "admin"
	wpPassword = "edge-Test-passw0rd-4711"
)

// wpSession is a browser on the WordPress site: a cookie jar and no
// automatic redirects, so every hop is checked.
type wpSession struct {
	t    *testing.T
	base string // "http://127.0.0.1:PORT"
	http *http.Client
}

func (s *wpSession) do(method, target string, form url.Values) (*http.Response, string) {
	s.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, s.base+target, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := s.http.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, target, err)
	}
	return resp, string(b)
}

func (s *wpSession) expect(method, target string, form url.Values, status int, contains ...string) (*http.Response, string) {
	s.t.Helper()
	resp, body := s.do(method, target, form)
	if resp.StatusCode != status {
		s.t.Fatalf("%s %s: status %d, want %d; Location %q; body %.500q", method, target, resp.StatusCode, status,
			resp.Header.Get("Location"), body)
	}
	for _, want := range contains {
		if !strings.Contains(body, want) {
			s.t.Fatalf("%s %s: body lacks %q: %.800q", method, target, want, body)
		}
	}
	return resp, body
}

func TestWordPress(t *testing.T) {
	db, wp, edge, s := startWordPress(t, func(string) string { return wordpressSite })
	base := s.base

	t.Run("install", func(t *testing.T) {
		s.t = t
		resp, _ := s.expect("GET", "/", nil, 302)
		if loc := resp.Header.Get("Location"); loc != base+"/wp-admin/install.php" {
			t.Fatalf("before install / redirects to %q", loc)
		}
		installWordPress(s)
		// WordPress turns pretty permalinks on at install only when it
		// recognises nginx in SERVER_SOFTWARE and a request to the site
		// itself (back through edge, to a second PHP worker) succeeds.
		got := strings.TrimSpace(db.Exec(t, "SELECT option_value FROM wordpress.wp_options WHERE option_name = 'permalink_structure'"))
		if got == "" {
			t.Errorf("install left plain permalinks: SERVER_SOFTWARE or the loopback request failed")
		}
	})
	t.Run("front page", func(t *testing.T) {
		s.t = t
		s.expect("GET", "/", nil, 200, "<title>"+wpTitle, "Hello world!")
	})
	t.Run("login lands on dashboard", func(t *testing.T) {
		s.t = t
		s.expect("GET", "/wp-login.php", nil, 200, `name="log"`)
		resp, _ := s.expect("POST", "/wp-login.php", url.Values{
			"log": {wpUser}, "pwd": {wpPassword}, "wp-submit": {"Log In"},
			"redirect_to": {base + "/wp-admin/"}, "testcookie": {"1"},
		}, 302)
		if loc := resp.Header.Get("Location"); loc != base+"/wp-admin/" {
			t.Fatalf("login redirects to %q", loc)
		}
		var names []string
		for _, ck := range resp.Cookies() {
			names = append(names, ck.Name)
		}
		if !hasCookiePrefix(names, "wordpress_logged_in_") || !hasCookiePrefix(names, "wordpress_") {
			t.Fatalf("login set cookies %q, want wordpress_ and wordpress_logged_in_", names)
		}
		s.expect("GET", "/wp-admin/", nil, 200, "<title>Dashboard", "wp-admin-bar-my-account")
	})
	t.Run("permalink", func(t *testing.T) {
		s.t = t
		setPostnamePermalinks(s)
		resp, _ := s.expect("GET", "/?p=1", nil, 301)
		if loc := resp.Header.Get("Location"); loc != base+"/hello-world/" {
			t.Errorf("/?p=1 redirects to %q, want the permalink", loc)
		}
		s.expect("GET", "/hello-world/", nil, 200, "Hello world!", "<title>Hello world!")
		s.expect("GET", "/no-such-post/", nil, 404)
	})
	t.Run("assets expire", func(t *testing.T) {
		s.t = t
		for _, asset := range []string{"/wp-includes/css/dashicons.min.css", "/wp-content/themes/twentytwentythree/style.css"} {
			resp, _ := s.expect("GET", asset, nil, 200)
			if cc := resp.Header.Get("Cache-Control"); cc != "max-age=2592000" {
				t.Errorf("%s: Cache-Control %q, want max-age=2592000", asset, cc)
			}
			exp, err := http.ParseTime(resp.Header.Get("Expires"))
			if err != nil || exp.Before(time.Now().Add(29*24*time.Hour)) {
				t.Errorf("%s: Expires %q, want 30 days ahead", asset, resp.Header.Get("Expires"))
			}
		}
	})
	t.Run("no PHP from uploads", func(t *testing.T) {
		s.t = t
		writeFile(t, filepath.Join(wp.Uploads, "2024", "01", "shell.php"), `<?php echo "PWN" . "ED";`)
		writeFile(t, filepath.Join(wp.Uploads, "2024", "01", "cat.jpg"), `<?php echo "PWN" . "ED";`)
		for _, target := range []string{"/wp-content/uploads/2024/01/shell.php", "/wp-content/uploads/2024/01/cat.jpg/x.php",
			"/wp-content/uploads/2024/01/SHELL.PHP"} {
			resp, body := s.do("GET", target, nil)
			if resp.StatusCode != 403 || strings.Contains(body, "PWNED") {
				t.Errorf("%s: %d %.200q, want 403 and nothing run", target, resp.StatusCode, body)
			}
		}
		// The image itself is a static file: its bytes, not run.
		s.expect("GET", "/wp-content/uploads/2024/01/cat.jpg", nil, 200, `<?php echo "PWN" . "ED";`)
	})
	if t.Failed() {
		t.Logf("edge error log:\n%s", edge.errorLogText(t))
	}
}

// startWordPress installs Debian's WordPress files on a new MariaDB
// database and runs edge with the site configuration conf gives for the
// cache directory it is handed; the session is a browser with cookies.
func startWordPress(t *testing.T, conf func(cacheDir string) string) (*testenv.MariaDB, *testenv.WordPress, *server, *wpSession) {
	t.Helper()
	db := testenv.StartMariaDB(t)
	db.CreateDatabase(t, "wordpress", "wp", "wp-db-secret")
	port := testenv.FreePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	wp := testenv.NewWordPress(t, testenv.WordPressOptions{
		DB: db, DBName: "wordpress", DBUser: "wp", DBPassword: "wp-db-secret", SiteURL: base,
	})
	site := newSiteAt(t, wp.Root, testenv.FPMOptions{})
	edge := site.startEdgeOn(t, conf(filepath.Join(t.TempDir(), "cache")), port)
	jar, _ := cookiejar.New(nil)
	c := client()
	c.Jar = jar
	return db, wp, edge, &wpSession{t: t, base: base, http: c}
}

// installWordPress runs install.php's two steps.
func installWordPress(s *wpSession) {
	s.t.Helper()
	s.expect("GET", "/wp-admin/install.php", nil, 200, "weblog_title")
	s.expect("POST", "/wp-admin/install.php?step=2", url.Values{
		"weblog_title": {wpTitle}, "user_name": {wpUser},
		"admin_password": {wpPassword}, "admin_password2": {wpPassword}, "pw_weak": {"1"},
		"admin_email": {"admin@example.com"}, "blog_public": {"0"}, "language": {""},
	}, 200, "Success!")
}

func hasCookiePrefix(names []string, prefix string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, prefix) && !strings.HasPrefix(n, "wordpress_test_cookie") {
			return true
		}
	}
	return false
}

var wpNonceRE = regexp.MustCompile(`name="_wpnonce" value="([0-9a-f]+)"`)

// setPostnamePermalinks switches permalinks to /%postname%/ through
// Settings > Permalinks, as an administrator would.
func setPostnamePermalinks(s *wpSession) {
	s.t.Helper()
	_, page := s.expect("GET", "/wp-admin/options-permalink.php", nil, 200, "permalink_structure")
	m := wpNonceRE.FindStringSubmatch(page)
	if m == nil {
		s.t.Fatalf("no _wpnonce on options-permalink.php")
	}
	resp, _ := s.expect("POST", "/wp-admin/options-permalink.php", url.Values{
		"_wpnonce": {m[1]}, "_wp_http_referer": {"/wp-admin/options-permalink.php"},
		"selection": {"/%postname%/"}, "permalink_structure": {"/%postname%/"},
		"category_base": {""}, "tag_base": {""}, "submit": {"Save Changes"},
	}, 302)
	loc := resp.Header.Get("Location")
	if !strings.Contains(loc, "settings-updated=true") {
		s.t.Fatalf("saving permalinks redirects to %q", loc)
	}
	// The settings page flushes the rewrite rules when it is shown again.
	s.expect("GET", strings.TrimPrefix(loc, s.base), nil, 200, "Permalink structure updated")
}
