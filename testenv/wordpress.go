// This file lays out a WordPress docroot from Debian's wordpress package
// (/usr/share/wordpress) in the test's temp directory, with a wp-config.php
// of its own, so that nothing under /etc/wordpress or /var/lib/wordpress is
// read or written.
//
// Debian's own wp-config.php loads /etc/wordpress/config-HOST.php, and PHP
// resolves symlinks in __FILE__: wp-load.php and wp-admin/*.php find
// ABSPATH (and so wp-config.php) from their own real location. So the
// top-level files and wp-admin are copied, while wp-includes (46 MiB,
// found through ABSPATH only) and the themes and plugins are symlinked.
// wp-content/uploads is a real, writable directory.

package testenv

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wordpressSource is where Debian's wordpress package installs WordPress.
const wordpressSource = "/usr/share/wordpress"

// WordPressOptions configures NewWordPress.
type WordPressOptions struct {
	// DB is the database server; its Socket becomes DB_HOST.
	DB *MariaDB
	// DBName, DBUser and DBPassword name a database DB already has (see
	// MariaDB.CreateDatabase).
	DBName, DBUser, DBPassword string
	// SiteURL, if not empty, is fixed as WP_HOME and WP_SITEURL, for
	// example "http://127.0.0.1:8080". Empty lets WordPress take the
	// address from the install request (HTTP_HOST), and keep it in the
	// database.
	SiteURL string
	// ExtraConfig holds PHP lines added to wp-config.php before
	// wp-settings.php is loaded.
	ExtraConfig string
}

// WordPress is a docroot ready for install.php.
type WordPress struct {
	// Root is the docroot (ABSPATH).
	Root string
	// Uploads is wp-content/uploads under Root.
	Uploads string
}

// NewWordPress builds the docroot in a fresh directory under t.TempDir().
// It fails the test naming the Debian package when WordPress or its
// default theme is not installed.
func NewWordPress(t testing.TB, o WordPressOptions) *WordPress {
	t.Helper()
	if _, err := os.Stat(filepath.Join(wordpressSource, "wp-settings.php")); err != nil {
		t.Fatalf("testenv: wordpress: %v: install the Debian package wordpress (./scripts/deps.sh test)", err)
	}
	themes, _ := filepath.Glob(filepath.Join(wordpressSource, "wp-content", "themes", "*", "style.css"))
	if len(themes) == 0 {
		// The wordpress package ships no theme; without one the front
		// page is empty.
		t.Fatalf("testenv: wordpress: no theme in %s/wp-content/themes: install the Debian package wordpress-theme-twentytwentythree (./scripts/deps.sh test)", wordpressSource)
	}
	wp := &WordPress{Root: filepath.Join(t.TempDir(), "wordpress")}
	wp.Uploads = filepath.Join(wp.Root, "wp-content", "uploads")
	if err := layOutWordPress(wordpressSource, wp.Root); err != nil {
		t.Fatalf("testenv: wordpress: %v", err)
	}
	if err := os.WriteFile(filepath.Join(wp.Root, "wp-config.php"), []byte(wpConfig(o)), 0o644); err != nil {
		t.Fatalf("testenv: wordpress: %v", err)
	}
	return wp
}

// layOutWordPress builds dst from src as the file header describes.
func layOutWordPress(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		switch e.Name() {
		case "wp-config.php", ".htaccess":
			// Debian's: they point into /etc/wordpress.
		case "wp-includes":
			err = os.Symlink(from, to)
		case "wp-content":
			err = layOutContent(from, to)
		default:
			err = copyTree(from, to)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// layOutContent makes wp-content with every theme and plugin of src
// symlinked and an empty uploads directory.
func layOutContent(src, dst string) error {
	for _, dir := range []string{"themes", "plugins"} {
		if err := os.MkdirAll(filepath.Join(dst, dir), 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(filepath.Join(src, dir))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		for _, e := range entries {
			if err := os.Symlink(filepath.Join(src, dir, e.Name()), filepath.Join(dst, dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.MkdirAll(filepath.Join(dst, "uploads"), 0o755)
}

// copyTree copies a file or a directory tree, keeping symlinks as they are
// (Debian replaces bundled libraries by links into /usr/share).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		default:
			return copyFile(path, to)
		}
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// wpSecretNames are the keys and salts wp-config.php must define.
var wpSecretNames = []string{"AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY",
	"AUTH_SALT", "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT"}

// wpConfig renders wp-config.php.
func wpConfig(o WordPressOptions) string {
	var b strings.Builder
	b.WriteString("<?php\n// Written by edge's testenv for one test run.\n")
	def := func(name, value string) { fmt.Fprintf(&b, "define(%s, %s);\n", phpString(name), value) }
	def("DB_NAME", phpString(o.DBName))
	def("DB_USER", phpString(o.DBUser))
	def("DB_PASSWORD", phpString(o.DBPassword))
	def("DB_HOST", phpString("localhost:"+o.DB.Socket))
	def("DB_CHARSET", phpString("utf8mb4"))
	def("DB_COLLATE", phpString(""))
	for _, name := range wpSecretNames {
		def(name, phpString(randomHex(32)))
	}
	b.WriteString("$table_prefix = 'wp_';\n")
	if o.SiteURL != "" {
		def("WP_HOME", phpString(o.SiteURL))
		def("WP_SITEURL", phpString(o.SiteURL))
	}
	// Tests reach loopback only: WordPress's calls to wordpress.org
	// (update and browser checks, translations) are refused at once, while
	// its requests to the site itself (the permalink check at install)
	// still go through.
	def("WP_HTTP_BLOCK_EXTERNAL", "true")
	def("AUTOMATIC_UPDATER_DISABLED", "true")
	def("WP_AUTO_UPDATE_CORE", "false")
	// wp-cron would fire requests of its own in the middle of a test.
	def("DISABLE_WP_CRON", "true")
	def("FS_METHOD", phpString("direct"))
	def("WP_DEBUG", "false")
	b.WriteString(o.ExtraConfig)
	b.WriteString("\nif (!defined('ABSPATH')) {\n\tdefine('ABSPATH', __DIR__ . '/');\n}\nrequire_once ABSPATH . 'wp-settings.php';\n")
	return b.String()
}

// phpString quotes s as a single-quoted PHP string.
func phpString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
