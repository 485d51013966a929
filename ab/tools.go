// This file finds the outside programs the harness runs (nginx, php-fpm,
// wrk, h2load, ab, taskset). When some are missing it names the Debian
// packages that provide them and stops; only when asked (edge ab
// --install) does it install them with apt-get, the way scripts/deps.sh
// does: services the packages would start (nginx on port 80, php-fpm) are
// kept from starting by a temporary policy-rc.d.

package ab

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// outsideTool is a program and the Debian package that installs it.
type outsideTool struct {
	names []string // tried in order
	pkg   string
}

var (
	toolNginx   = outsideTool{[]string{"nginx"}, "nginx"}
	toolFPM     = outsideTool{[]string{"php-fpm8.2", "php-fpm"}, "php8.2-fpm"}
	toolWrkBin  = outsideTool{[]string{"wrk"}, "wrk"}
	toolH2Bin   = outsideTool{[]string{"h2load"}, "nghttp2-client"}
	toolAbBin   = outsideTool{[]string{"ab"}, "apache2-utils"}
	toolTaskset = outsideTool{[]string{"taskset"}, "util-linux"}
)

// toolFinder finds tools and, when allowed, installs the missing ones.
// Its function fields are what tests replace; look is childproc.LookPath
// in the harness.
type toolFinder struct {
	look    func(names ...string) (string, error)
	install func(pkgs []string) error
	// allowInstall false (the default of edge ab) turns a missing tool
	// into an error naming the packages to install.
	allowInstall bool
	log          io.Writer
}

// find returns the path of each tool, by its first name.
func (f toolFinder) find(tools []outsideTool) (map[string]string, error) {
	paths := map[string]string{}
	var missing []outsideTool
	for _, t := range tools {
		if p, err := f.look(t.names...); err == nil {
			paths[t.names[0]] = p
		} else {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return paths, nil
	}
	var names, pkgs []string
	for _, t := range missing {
		names = append(names, t.names[0])
		if !slices.Contains(pkgs, t.pkg) {
			pkgs = append(pkgs, t.pkg)
		}
	}
	if !f.allowInstall {
		return nil, fmt.Errorf("ab: %s not installed: install the Debian package(s) %s (apt-get install %s), or run edge ab --install to have it do that",
			strings.Join(names, ", "), strings.Join(pkgs, " "), strings.Join(pkgs, " "))
	}
	fmt.Fprintf(f.log, "edge ab: %s not installed; installing the Debian package(s) %s with apt-get\n",
		strings.Join(names, ", "), strings.Join(pkgs, " "))
	if err := f.install(pkgs); err != nil {
		return nil, fmt.Errorf("ab: installing %s: %w", strings.Join(pkgs, " "), err)
	}
	for _, t := range missing {
		p, err := f.look(t.names...)
		if err != nil {
			return nil, fmt.Errorf("ab: the package %s was installed but %s is still missing", t.pkg, t.names[0])
		}
		paths[t.names[0]] = p
	}
	return paths, nil
}

// policyRCD is where Debian's invoke-rc.d asks whether it may start a
// service; exit 101 means "action forbidden" (Debian policy 9.3.3.1).
const policyRCD = "/usr/sbin/policy-rc.d"

// aptInstall installs pkgs with apt-get, through sudo when not root,
// without starting the services they ship.
func aptInstall(out io.Writer) func(pkgs []string) error {
	return func(pkgs []string) error {
		asRoot := func(argv ...string) error {
			if os.Geteuid() != 0 {
				if _, err := exec.LookPath("sudo"); err != nil {
					return fmt.Errorf("need root (or sudo) to run: %s", strings.Join(argv, " "))
				}
				argv = append([]string{"sudo"}, argv...)
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Stdout, cmd.Stderr = out, out
			cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			return cmd.Run()
		}
		if _, err := os.Stat(policyRCD); os.IsNotExist(err) {
			if err := asRoot("sh", "-c", "printf '#!/bin/sh\\nexit 101\\n' > "+policyRCD+" && chmod 755 "+policyRCD); err != nil {
				return err
			}
			defer asRoot("rm", "-f", policyRCD)
		}
		if err := asRoot("apt-get", "update"); err != nil {
			return err
		}
		return asRoot(append([]string{"apt-get", "install", "-y", "--no-install-recommends"}, pkgs...)...)
	}
}

// toolsFor lists the tools a run of these scenarios needs.
func toolsFor(list []Scenario) []outsideTool {
	tools := []outsideTool{toolNginx, toolTaskset}
	if needsPHP(list) {
		tools = append(tools, toolFPM)
	}
	for _, s := range list {
		var t outsideTool
		switch s.Tool {
		case ToolWrk:
			t = toolWrkBin
		case ToolH2load:
			t = toolH2Bin
		case ToolAb:
			t = toolAbBin
		default:
			continue
		}
		if !slices.ContainsFunc(tools, func(x outsideTool) bool { return x.pkg == t.pkg }) {
			tools = append(tools, t)
		}
	}
	return tools
}
