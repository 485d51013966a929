// master.go reads what a running php-fpm master says about itself in
// /proc: its process title "php-fpm: master process (PATH)" names the
// configuration it runs (readable by any user), and /proc/PID/exe its
// binary. Discovery (discover.go) and applying tuned settings (apply.go)
// both start from here.
package fpm

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// masterTitle starts a php-fpm master's process title.
const masterTitle = "php-fpm: master process ("

// masterConfig returns the configuration file named in the process
// title of pid (a directory name under procRoot), resolved against the
// master's working directory when relative, and the title itself; ok is
// false when pid is not a php-fpm master.
func masterConfig(pid string) (config, title string, ok bool) {
	b, err := os.ReadFile(filepath.Join(procRoot, pid, "cmdline"))
	if err != nil {
		return "", "", false
	}
	title = strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ")
	rest, found := strings.CutPrefix(title, masterTitle)
	if !found {
		return "", title, false
	}
	config = strings.TrimSuffix(rest, ")")
	if !filepath.IsAbs(config) {
		if cwd, err := os.Readlink(filepath.Join(procRoot, pid, "cwd")); err == nil {
			config = filepath.Join(cwd, config)
		}
	}
	return config, title, true
}

// masterCommand finds a running master's binary and main configuration:
// /proc/PID/exe, and configFile when set, else the one its title names.
func masterCommand(pid int, configFile string) (bin, mainConf string, err error) {
	bin, err = os.Readlink(filepath.Join(procRoot, strconv.Itoa(pid), "exe"))
	if err != nil {
		return "", "", fmt.Errorf("php-fpm master %d: %w", pid, err)
	}
	bin = strings.TrimSuffix(bin, " (deleted)")
	if configFile != "" {
		return bin, configFile, nil
	}
	mainConf, title, ok := masterConfig(strconv.Itoa(pid))
	if !ok {
		if title == "" {
			return "", "", fmt.Errorf("php-fpm master %d: cannot read its process title", pid)
		}
		return "", "", fmt.Errorf("php-fpm master %d: cannot tell its configuration from %q; set config_file", pid, title)
	}
	return bin, mainConf, nil
}
