package fpm

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMasterConfig reads the configuration a master names in its process
// title, absolute or relative to its working directory, and nothing for
// a process that is not a master.
func TestMasterConfig(t *testing.T) {
	proc := t.TempDir()
	mk := func(pid, cmdline, cwd string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(proc, pid), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proc, pid, "cmdline"), []byte(cmdline), 0o644); err != nil {
			t.Fatal(err)
		}
		if cwd != "" {
			if err := os.Symlink(cwd, filepath.Join(proc, pid, "cwd")); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("10", "php-fpm: master process (/etc/php/8.2/fpm/php-fpm.conf)\x00\x00\x00", "")
	mk("11", "php-fpm: master process (conf/php-fpm.conf)\x00", "/srv/site")
	mk("12", "php-fpm: pool www\x00", "")
	old := procRoot
	procRoot = proc
	defer func() { procRoot = old }()
	for _, c := range []struct {
		pid, want string
		ok        bool
	}{
		{"10", "/etc/php/8.2/fpm/php-fpm.conf", true},
		{"11", "/srv/site/conf/php-fpm.conf", true},
		{"12", "", false},
		{"13", "", false},
	} {
		if got, _, ok := masterConfig(c.pid); got != c.want || ok != c.ok {
			t.Errorf("masterConfig(%s) = %q, %v; want %q, %v", c.pid, got, ok, c.want, c.ok)
		}
	}
}

// TestRewritePoolINI sets the pm.* keys of the first pool section only,
// keeps comments and other keys, and adds missing keys before the
// section's trailing blank lines.
func TestRewritePoolINI(t *testing.T) {
	in := "[global]\npm = static\n\n[www]\n; pm = ondemand\npm = static\nlisten = /run/x.sock\npm.max_children = 5\n\n[other]\npm = static\n"
	s := Settings{PM: "dynamic", MaxChildren: 8, StartServers: 3, MinSpareServers: 2, MaxSpareServers: 4, MaxRequests: 500}
	want := "[global]\npm = static\n\n[www]\n; pm = ondemand\npm = dynamic\nlisten = /run/x.sock\npm.max_children = 8\n" +
		"pm.max_requests = 500\npm.start_servers = 3\npm.min_spare_servers = 2\npm.max_spare_servers = 4\n\n[other]\npm = static\n"
	if got := rewritePoolINI(in, s); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
