// This file runs WordPress end to end behind edge: Debian's wordpress
// package on a MariaDB started as a plain process, installed through
// install.php, then the front page, a /%postname%/ permalink, a wp-admin
// login with cookies that lands on the dashboard, assets with expires, and
// PHP under uploads refused.

package fcgitest

import (
	"fmt"
	"net/http/cookiejar"
	"path/filepath"
	"strings"
	"testing"

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

func TestWordPress(t *testing.T) {
	db, wp, edge, s := startWordPress(t, func(string) string { return wordpressSite })

	t.Run("install", func(t *testing.T) {
		s.T = t
		s.Install(wpTitle, wpUser, wpPassword)
		// WordPress turns pretty permalinks on at install only when it
		// recognises nginx in SERVER_SOFTWARE and a request to the site
		// itself (back through edge, to a second PHP worker) succeeds.
		got := strings.TrimSpace(db.Exec(t, "SELECT option_value FROM wordpress.wp_options WHERE option_name = 'permalink_structure'"))
		if got == "" {
			t.Errorf("install left plain permalinks: SERVER_SOFTWARE or the loopback request failed")
		}
	})
	t.Run("front page", func(t *testing.T) {
		s.T = t
		s.Expect("GET", "/", nil, 200, "<title>"+wpTitle, "Hello world!")
	})
	t.Run("login lands on dashboard", func(t *testing.T) {
		s.T = t
		s.Login(wpUser, wpPassword)
	})
	t.Run("permalink", func(t *testing.T) {
		s.T = t
		s.SetPostnamePermalinks()
		s.ExpectPermalink()
	})
	t.Run("assets expire", func(t *testing.T) {
		s.T = t
		s.ExpectExpires("/wp-includes/css/dashicons.min.css", "/wp-content/themes/twentytwentythree/style.css")
	})
	t.Run("no PHP from uploads", func(t *testing.T) {
		s.T = t
		writeFile(t, filepath.Join(wp.Uploads, "2024", "01", "shell.php"), `<?php echo "PWN" . "ED";`)
		writeFile(t, filepath.Join(wp.Uploads, "2024", "01", "cat.jpg"), `<?php echo "PWN" . "ED";`)
		for _, target := range []string{"/wp-content/uploads/2024/01/shell.php", "/wp-content/uploads/2024/01/cat.jpg/x.php",
			"/wp-content/uploads/2024/01/SHELL.PHP"} {
			resp, body := s.Do("GET", target, nil)
			if resp.StatusCode != 403 || strings.Contains(body, "PWNED") {
				t.Errorf("%s: %d %.200q, want 403 and nothing run", target, resp.StatusCode, body)
			}
		}
		// The image itself is a static file: its bytes, not run.
		s.Expect("GET", "/wp-content/uploads/2024/01/cat.jpg", nil, 200, `<?php echo "PWN" . "ED";`)
	})
	if t.Failed() {
		t.Logf("edge error log:\n%s", edge.errorLogText(t))
	}
}

// startWordPress installs Debian's WordPress files on a new MariaDB
// database and runs edge with the site configuration conf gives for the
// cache directory it is handed; the browser keeps cookies.
func startWordPress(t *testing.T, conf func(cacheDir string) string) (*testenv.MariaDB, *testenv.WordPress, *server, *testenv.WPBrowser) {
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
	return db, wp, edge, &testenv.WPBrowser{T: t, Base: base, HTTP: c}
}
