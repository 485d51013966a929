// This file is a browser on a WordPress site for tests: a cookie jar, no
// automatic redirects (so every hop is checked), and the steps an
// administrator takes: the web installer, the login, Settings >
// Permalinks, and the assets' expiry. testenv/fcgitest drives WordPress behind edge with it, and
// testenv/compose the docker-compose stack.

package testenv

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// WPBrowser is one browser session on the site at Base
// ("http://127.0.0.1:PORT"). T is the test it reports to; a subtest sets
// its own.
type WPBrowser struct {
	T    testing.TB
	Base string
	// HTTP must have a cookie jar and return redirects unfollowed
	// (CheckRedirect returning http.ErrUseLastResponse).
	HTTP *http.Client
}

// Do sends one request (a form when form is not nil) and reads the body.
func (s *WPBrowser) Do(method, target string, form url.Values) (*http.Response, string) {
	s.T.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, s.Base+target, body)
	if err != nil {
		s.T.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := s.HTTP.Do(req)
	if err != nil {
		s.T.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.T.Fatalf("%s %s: %v", method, target, err)
	}
	return resp, string(b)
}

// Expect is Do that fails the test unless the status is status and the
// body holds every string of contains.
func (s *WPBrowser) Expect(method, target string, form url.Values, status int, contains ...string) (*http.Response, string) {
	s.T.Helper()
	resp, body := s.Do(method, target, form)
	if resp.StatusCode != status {
		s.T.Fatalf("%s %s: status %d, want %d; Location %q; body %.500q", method, target, resp.StatusCode, status,
			resp.Header.Get("Location"), body)
	}
	for _, want := range contains {
		if !strings.Contains(body, want) {
			s.T.Fatalf("%s %s: body lacks %q: %.800q", method, target, want, body)
		}
	}
	return resp, body
}

// Install runs the web installer of a site not installed yet: / redirects
// to it, and its second step creates the administrator.
func (s *WPBrowser) Install(title, user, password string) {
	s.T.Helper()
	resp, _ := s.Expect("GET", "/", nil, 302)
	if loc := resp.Header.Get("Location"); loc != s.Base+"/wp-admin/install.php" {
		s.T.Fatalf("before install / redirects to %q", loc)
	}
	s.Expect("GET", "/wp-admin/install.php", nil, 200, "weblog_title")
	s.Expect("POST", "/wp-admin/install.php?step=2", url.Values{
		"weblog_title": {title}, "user_name": {user},
		"admin_password": {password}, "admin_password2": {password}, "pw_weak": {"1"},
		"admin_email": {"admin@example.com"}, "blog_public": {"0"}, "language": {""},
	}, 200, "Success!")
}

// Login logs in through wp-login.php and checks that the session cookies
// are set and the dashboard shows.
func (s *WPBrowser) Login(user, password string) {
	s.T.Helper()
	s.Expect("GET", "/wp-login.php", nil, 200, `name="log"`)
	resp, _ := s.Expect("POST", "/wp-login.php", url.Values{
		"log": {user}, "pwd": {password}, "wp-submit": {"Log In"},
		"redirect_to": {s.Base + "/wp-admin/"}, "testcookie": {"1"},
	}, 302)
	if loc := resp.Header.Get("Location"); loc != s.Base+"/wp-admin/" {
		s.T.Fatalf("login redirects to %q", loc)
	}
	var names []string
	for _, ck := range resp.Cookies() {
		names = append(names, ck.Name)
	}
	if !hasCookiePrefix(names, "wordpress_logged_in_") || !hasCookiePrefix(names, "wordpress_") {
		s.T.Fatalf("login set cookies %q, want wordpress_ and wordpress_logged_in_", names)
	}
	s.Expect("GET", "/wp-admin/", nil, 200, "<title>Dashboard", "wp-admin-bar-my-account")
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

// SetPostnamePermalinks switches permalinks to /%postname%/ through
// Settings > Permalinks, as an administrator would (after Login).
func (s *WPBrowser) SetPostnamePermalinks() {
	s.T.Helper()
	_, page := s.Expect("GET", "/wp-admin/options-permalink.php", nil, 200, "permalink_structure")
	m := wpNonceRE.FindStringSubmatch(page)
	if m == nil {
		s.T.Fatalf("no _wpnonce on options-permalink.php")
	}
	resp, _ := s.Expect("POST", "/wp-admin/options-permalink.php", url.Values{
		"_wpnonce": {m[1]}, "_wp_http_referer": {"/wp-admin/options-permalink.php"},
		"selection": {"/%postname%/"}, "permalink_structure": {"/%postname%/"},
		"category_base": {""}, "tag_base": {""}, "submit": {"Save Changes"},
	}, 302)
	loc := resp.Header.Get("Location")
	if !strings.Contains(loc, "settings-updated=true") {
		s.T.Fatalf("saving permalinks redirects to %q", loc)
	}
	// The settings page flushes the rewrite rules when it is shown again.
	s.Expect("GET", strings.TrimPrefix(loc, s.Base), nil, 200, "Permalink structure updated")
}

// ExpectPermalink checks the first post's /%postname%/ permalink after
// SetPostnamePermalinks: ?p=1 redirects to it, it shows the post, and a
// post that does not exist is a 404 from WordPress.
func (s *WPBrowser) ExpectPermalink() {
	s.T.Helper()
	resp, _ := s.Expect("GET", "/?p=1", nil, 301)
	if loc := resp.Header.Get("Location"); loc != s.Base+"/hello-world/" {
		s.T.Errorf("/?p=1 redirects to %q, want the permalink", loc)
	}
	s.Expect("GET", "/hello-world/", nil, 200, "Hello world!", "<title>Hello world!")
	s.Expect("GET", "/no-such-post/", nil, 404)
}

// ExpectExpires fetches each asset and checks that it carries the expiry
// of "expires 30d": Cache-Control max-age=2592000 and an Expires header
// 30 days ahead.
func (s *WPBrowser) ExpectExpires(assets ...string) {
	s.T.Helper()
	for _, asset := range assets {
		resp, _ := s.Expect("GET", asset, nil, 200)
		if cc := resp.Header.Get("Cache-Control"); cc != "max-age=2592000" {
			s.T.Errorf("%s: Cache-Control %q, want max-age=2592000", asset, cc)
		}
		exp, err := http.ParseTime(resp.Header.Get("Expires"))
		if err != nil || exp.Before(time.Now().Add(29*24*time.Hour)) {
			s.T.Errorf("%s: Expires %q, want 30 days ahead", asset, resp.Header.Get("Expires"))
		}
	}
}
