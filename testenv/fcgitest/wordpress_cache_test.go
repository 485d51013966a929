// This file runs docs/cache.md's WordPress recipe on a real WordPress
// (Debian's package, on MariaDB): an anonymous visitor gets cached pages;
// a logged-in administrator, a commenter's cookie, a cart cookie and a
// POST never see or fill a cached page; editing a post and purging its
// URL makes the next visit a MISS with the new content.

package fcgitest

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"edge/testenv"
)

// wordpressCacheSite is docs/cache.md's recipe ({{CACHE}} is the cache
// directory).
const wordpressCacheSite = `
fastcgi_cache_path {{CACHE}} levels=1:2 keys_zone=WP:32m inactive=1d max_size=1g;
fastcgi_cache_key "$scheme$request_method$host$request_uri";

server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    index index.php;

    set $skip_cache 0;
    if ($request_method = POST) {
        set $skip_cache 1;
    }
    if ($query_string != "") {
        set $skip_cache 1;
    }
    if ($request_uri ~* "/wp-admin/|/xmlrpc.php|wp-.*\.php|/feed/|index\.php|sitemap(_index)?\.xml|/wp-json/|/cart/|/checkout/|/my-account/|/wc-api/") {
        set $skip_cache 1;
    }
    if ($http_cookie ~* "comment_author|wordpress_[a-f0-9]+|wp-postpass|wordpress_no_cache|wordpress_logged_in|woocommerce_items_in_cart|woocommerce_cart_hash|edd_items_in_cart") {
        set $skip_cache 1;
    }

    location / {
        try_files $uri $uri/ /index.php?$args;
    }
    location ~ ^/purge(/.*) {
        allow 127.0.0.1;
        deny all;
        fastcgi_cache_purge WP "$scheme$request_method$host$1";
    }
    location ~ \.php$ {
        try_files $uri =404;
        fastcgi_pass {{PASS}};
        include {{PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;

        fastcgi_cache WP;
        fastcgi_cache_valid 200 24h;
        fastcgi_cache_valid 301 302 30m;
        fastcgi_cache_valid 404 1h;
        fastcgi_cache_bypass $skip_cache;
        fastcgi_no_cache $skip_cache;
        fastcgi_cache_lock on;
        fastcgi_cache_use_stale error timeout updating http_500 http_503;
        fastcgi_cache_background_update on;
        add_header X-Cache $upstream_cache_status;
    }
}
`

func TestWordPressCache(t *testing.T) {
	db, _, edge, s := startWordPress(t, func(dir string) string { return strings.ReplaceAll(wordpressCacheSite, "{{CACHE}}", dir) })
	base := s.Base
	anon := &testenv.WPBrowser{T: t, Base: base, HTTP: client()}
	cacheStatus := func(s *testenv.WPBrowser, method, target string, form url.Values, hdrs ...string) (string, string) {
		t.Helper()
		var body *strings.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		} else {
			body = strings.NewReader("")
		}
		req, err := http.NewRequest(method, base+target, body)
		if err != nil {
			t.Fatal(err)
		}
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for _, h := range hdrs {
			k, v, _ := strings.Cut(h, ": ")
			req.Header.Set(k, v)
		}
		resp, err := s.HTTP.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		return resp.Header.Get("X-Cache"), string(b)
	}

	// The installer's two steps, without the GET / before them that
	// Install checks: its 302 would be cached and served to the visitor.
	s.Expect("GET", "/wp-admin/install.php", nil, 200, "weblog_title")
	s.Expect("POST", "/wp-admin/install.php?step=2", url.Values{
		"weblog_title": {wpTitle}, "user_name": {wpUser},
		"admin_password": {wpPassword}, "admin_password2": {wpPassword}, "pw_weak": {"1"},
		"admin_email": {"admin@example.com"}, "blog_public": {"0"}, "language": {""},
	}, 200, "Success!")

	check := func(name, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s: X-Cache %q, want %q", name, got, want)
		}
	}
	xc, body := cacheStatus(anon, "GET", "/", nil)
	check("anonymous first visit", xc, "MISS")
	if !strings.Contains(body, "Hello world!") {
		t.Fatalf("front page: %.300q", body)
	}
	xc, _ = cacheStatus(anon, "GET", "/", nil)
	check("anonymous second visit", xc, "HIT")

	// A logged-in administrator gets the page with the admin bar, never
	// from the cache, and never stores it.
	s.Login(wpUser, wpPassword)
	xc, body = cacheStatus(s, "GET", "/", nil)
	check("administrator", xc, "BYPASS")
	if !strings.Contains(body, "wp-admin-bar") {
		t.Errorf("the administrator's front page has no admin bar: %.300q", body)
	}
	xc, body = cacheStatus(anon, "GET", "/", nil)
	check("anonymous after the administrator", xc, "HIT")
	if strings.Contains(body, "wp-admin-bar") {
		t.Errorf("an anonymous visitor got the administrator's page")
	}
	xc, _ = cacheStatus(anon, "GET", "/", nil, "Cookie: comment_author_abc=Bob")
	check("commenter cookie", xc, "BYPASS")
	xc, _ = cacheStatus(anon, "GET", "/", nil, "Cookie: woocommerce_items_in_cart=1")
	check("cart cookie", xc, "BYPASS")
	xc, _ = cacheStatus(anon, "POST", "/", url.Values{"s": {"x"}})
	check("POST", xc, "")

	// Editing the post: the cached page stays until its URL is purged.
	db.Exec(t, "UPDATE wordpress.wp_posts SET post_title = 'Edited by edge' WHERE ID = 1")
	xc, body = cacheStatus(anon, "GET", "/", nil)
	check("after the edit, before the purge", xc, "HIT")
	if strings.Contains(body, "Edited by edge") {
		t.Errorf("the cached page changed before the purge")
	}
	if st, body := cacheStatus(anon, "GET", "/purge/", nil); !strings.Contains(body, "Successful purge") {
		t.Errorf("GET /purge/: %q %.200q", st, body)
	}
	xc, body = cacheStatus(anon, "GET", "/", nil)
	check("after the purge", xc, "MISS")
	if !strings.Contains(body, "Edited by edge") {
		t.Errorf("after the purge the front page lacks the new title: %.300q", body)
	}
	if t.Failed() {
		t.Logf("edge error log:\n%s", edge.errorLogText(t))
	}
}
