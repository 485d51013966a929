package fpm

import (
	"os"
	"path/filepath"
	"testing"

	"edge/testenv"
)

// TestDiscoverRunningPool: a real php-fpm master started for the test is
// found by its socket, with its pm.max_children.
func TestDiscoverRunningPool(t *testing.T) {
	pool := testenv.StartFPM(t, testenv.FPMOptions{MaxChildren: 3})
	p, ok := DiscoverPool(pool.Network, pool.Address)
	if !ok {
		t.Fatalf("pool on %s not found", pool.Address)
	}
	if p.MaxChildren != 3 || p.PM != "static" {
		t.Errorf("found %+v, want static with 3 children", p)
	}
	if _, ok := DiscoverPool(pool.Network, pool.Address+".other"); ok {
		t.Error("found a pool for a socket nobody listens on")
	}
}

// TestDiscoverConfigs reads Debian-style configs (include of pool.d,
// $pool in listen, TCP forms) from a fake /proc.
func TestDiscoverConfigs(t *testing.T) {
	dir := t.TempDir()
	proc := filepath.Join(dir, "proc")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main := filepath.Join(dir, "etc/php-fpm.conf")
	write(main, "[global]\npid = /run/x.pid\ninclude=pool.d/*.conf\n")
	write(filepath.Join(dir, "etc/pool.d/www.conf"), "[www]\nlisten = "+dir+"/run/php-$pool.sock\npm = dynamic\npm.max_children = 5\n; pm.max_children = 99\n")
	write(filepath.Join(dir, "etc/pool.d/api.conf"), "[api]\nlisten = 9000\npm = static\npm.max_children = 7\n[v6]\nlisten = [::1]:9001\npm.max_children = 2\n")
	write(filepath.Join(proc, "123/cmdline"), "php-fpm: master process ("+main+")\x00\x00")
	write(filepath.Join(proc, "124/cmdline"), "php-fpm: pool www\x00")
	write(filepath.Join(proc, "self/cmdline"), "x")
	old := procRoot
	procRoot = proc
	defer func() { procRoot = old }()

	cases := []struct {
		network, address string
		want             int
		name             string
	}{
		{"unix", dir + "/run/php-www.sock", 5, "www"},
		{"tcp", "127.0.0.1:9000", 7, "api"},
		{"tcp", "[::1]:9001", 2, "v6"},
		{"tcp", "127.0.0.1:9001", 0, ""},
		{"unix", dir + "/run/php-api.sock", 0, ""},
	}
	for _, c := range cases {
		p, ok := DiscoverPool(c.network, c.address)
		if ok != (c.want > 0) || p.MaxChildren != c.want || p.Name != c.name {
			t.Errorf("%s %s: got %+v %v, want %d children of %q", c.network, c.address, p, ok, c.want, c.name)
		}
	}
}
