// This file finds the php-fpm pool behind an address edge was only given
// as "fastcgi_pass 127.0.0.1:9000" or "unix:/run/php/php8.2-fpm.sock". A
// php-fpm master names its configuration file in its process title
// ("php-fpm: master process (/etc/php/8.2/fpm/php-fpm.conf)"), which any
// user can read in /proc; its pool sections say where each pool listens
// and pm.max_children. Knowing that number lets edge keep connections to
// every worker and queue the excess itself, instead of dialing a fresh
// connection per request that waits in php-fpm's listen queue.
package fpm

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DiscoveredPool is what edge learned of a running php-fpm pool.
type DiscoveredPool struct {
	Name        string // the pool section, e.g. "www"
	ConfigFile  string // the file the section is in
	MaxChildren int    // pm.max_children
	PM          string // static, dynamic or ondemand
	// StatusPath is pm.status_path ("" = the pool has no status page);
	// StatusListen is pm.status_listen ("" = the pool's own listen).
	StatusPath   string
	StatusListen string
	// MasterPID is the php-fpm master running the configuration.
	MasterPID int
}

// DiscoverPool looks for a php-fpm pool listening on network/address
// among the php-fpm masters running on this machine. ok is false when none
// is found (not running yet, another machine, or unreadable files).
func DiscoverPool(network, address string) (DiscoveredPool, bool) {
	for _, m := range fpmMasters() {
		for _, p := range readFPMConfig(m.config) {
			if p.MaxChildren > 0 && listenMatches(p.listen, network, address) {
				p.MasterPID = m.pid
				return p.DiscoveredPool, true
			}
		}
	}
	return DiscoveredPool{}, false
}

// runningMaster is a php-fpm master and its configuration file.
type runningMaster struct {
	pid    int
	config string
}

// fpmMasters returns the running php-fpm masters, each configuration
// file once, from their process titles.
func fpmMasters() []runningMaster {
	dirs, err := os.ReadDir(procRoot)
	if err != nil {
		return nil
	}
	var out []runningMaster
	seen := map[string]bool{}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cfg, _, ok := masterConfig(d.Name())
		if ok && !seen[cfg] {
			seen[cfg] = true
			out = append(out, runningMaster{pid, cfg})
		}
	}
	return out
}

// fpmPoolSection is one [pool] of a php-fpm configuration.
type fpmPoolSection struct {
	DiscoveredPool
	listen string
}

// readFPMConfig reads the pool sections of a php-fpm configuration file
// and the files it includes (ini syntax: "[name]" sections, "key = value",
// ";" comments, include=GLOB, "$pool" in values).
func readFPMConfig(path string) []fpmPoolSection {
	var pools []fpmPoolSection
	seen := map[string]bool{}
	var read func(file string, depth int)
	read = func(file string, depth int) {
		if depth > 8 || seen[file] {
			return
		}
		seen[file] = true
		f, err := os.Open(file)
		if err != nil {
			return
		}
		defer f.Close()
		var cur *fpmPoolSection
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || line[0] == ';' || line[0] == '#' {
				continue
			}
			if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
				name := line[1 : len(line)-1]
				cur = nil
				if !strings.EqualFold(name, "global") {
					pools = append(pools, fpmPoolSection{DiscoveredPool: DiscoveredPool{Name: name, ConfigFile: file, PM: "dynamic"}})
					cur = &pools[len(pools)-1]
				}
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			k = strings.TrimSpace(k)
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			if k == "include" {
				pattern := v
				if !filepath.IsAbs(pattern) {
					pattern = filepath.Join(filepath.Dir(path), pattern)
				}
				matches, _ := filepath.Glob(pattern)
				for _, m := range matches {
					read(m, depth+1)
				}
				continue
			}
			if cur == nil {
				continue
			}
			v = strings.ReplaceAll(v, "$pool", cur.Name)
			switch k {
			case "listen":
				cur.listen = v
			case "pm":
				cur.PM = v
			case "pm.max_children":
				cur.MaxChildren, _ = strconv.Atoi(v)
			case "pm.status_path":
				cur.StatusPath = v
			case "pm.status_listen":
				cur.StatusListen = v
			}
		}
	}
	read(path, 0)
	return pools
}

// listenMatches compares a php-fpm listen value ("/run/x.sock", "9000",
// "127.0.0.1:9000", "[::]:9000") with edge's dial address.
func listenMatches(listen, network, address string) bool {
	if listen == "" {
		return false
	}
	if network == "unix" {
		if !strings.HasPrefix(listen, "/") {
			return false
		}
		return samePath(listen, address)
	}
	if strings.HasPrefix(listen, "/") {
		return false
	}
	lhost, lport := "", listen
	if i := strings.LastIndex(listen, ":"); i >= 0 {
		lhost, lport = strings.Trim(listen[:i], "[]"), listen[i+1:]
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil || port != lport {
		return false
	}
	switch lhost {
	case "", "*", "0.0.0.0", "::":
		return true
	}
	if lhost == host {
		return true
	}
	a, b := net.ParseIP(lhost), net.ParseIP(host)
	return a != nil && b != nil && a.Equal(b)
}

// samePath compares two socket paths, following symlinks.
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
