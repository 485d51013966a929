// This file tests the MariaDB starter and the WordPress docroot layout;
// WordPress itself runs end to end in testenv/fcgitest.

package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuoting(t *testing.T) {
	tests := []struct {
		in, php, sql string
	}{
		{"plain", "'plain'", "plain"},
		{"it's", `'it\'s'`, `it\'s`},
		{`back\slash`, `'back\\slash'`, `back\\slash`},
		{"", "''", ""},
	}
	for _, tt := range tests {
		if got := phpString(tt.in); got != tt.php {
			t.Errorf("phpString(%q) = %s, want %s", tt.in, got, tt.php)
		}
		if got := sqlQuote(tt.in); got != tt.sql {
			t.Errorf("sqlQuote(%q) = %s, want %s", tt.in, got, tt.sql)
		}
	}
}

func TestMariaDBCreateDatabase(t *testing.T) {
	m := StartMariaDB(t)
	m.CreateDatabase(t, "app", "appuser", "it's secret")
	if got := m.Exec(t, "SHOW DATABASES LIKE 'app'"); strings.TrimSpace(got) != "app" {
		t.Errorf("SHOW DATABASES = %q", got)
	}
	// The new user logs in over the socket with its password.
	out, err := exec.Command(Binary(t, "mariadb-client", "mariadb", "mysql"), "--no-defaults",
		"--socket="+m.Socket, "--user=appuser", "--password=it's secret", "app",
		"--batch", "--skip-column-names", "--execute=SELECT DATABASE()").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "app" {
		t.Errorf("login as appuser: %v: %s", err, out)
	}
	if !strings.HasPrefix(m.DataDir(), m.Dir) {
		t.Errorf("data directory %s outside %s", m.DataDir(), m.Dir)
	}
}

func TestNewWordPressLayout(t *testing.T) {
	wp := NewWordPress(t, WordPressOptions{
		DB: &MariaDB{Socket: "/run/test.sock"}, DBName: "wp", DBUser: "u", DBPassword: "p'w",
		SiteURL: "http://127.0.0.1:1234",
	})
	// Copied: PHP finds ABSPATH, and so wp-config.php, from their real
	// location.
	for _, name := range []string{"wp-load.php", "index.php", "wp-admin/admin.php"} {
		st, err := os.Lstat(filepath.Join(wp.Root, name))
		if err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v, want a regular file", name, err)
		}
	}
	if st, err := os.Lstat(filepath.Join(wp.Root, "wp-includes")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("wp-includes: %v, want a symlink", err)
	}
	if st, err := os.Stat(wp.Uploads); err != nil || !st.IsDir() {
		t.Errorf("uploads: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(wp.Root, ".htaccess")); !os.IsNotExist(err) {
		t.Errorf(".htaccess (Debian's, into /etc/wordpress) was copied: %v", err)
	}
	config, err := os.ReadFile(filepath.Join(wp.Root, "wp-config.php"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`define('DB_HOST', 'localhost:/run/test.sock');`, `define('DB_PASSWORD', 'p\'w');`,
		`define('WP_HOME', 'http://127.0.0.1:1234');`, "require_once ABSPATH . 'wp-settings.php';"} {
		if !strings.Contains(string(config), want) {
			t.Errorf("wp-config.php lacks %s", want)
		}
	}
	if strings.Contains(string(config), "/etc/wordpress") {
		t.Errorf("wp-config.php refers to /etc/wordpress")
	}
	// PHP itself accepts it.
	php := Binary(t, "php8.2-cli", "php8.2", "php")
	if out, err := exec.Command(php, "-l", filepath.Join(wp.Root, "wp-config.php")).CombinedOutput(); err != nil {
		t.Errorf("php -l wp-config.php: %v\n%s", err, out)
	}
}
