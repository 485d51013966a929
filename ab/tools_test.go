// This file tests finding the outside tools: what is installed is found,
// what is missing is installed after a message naming it, or reported
// with the Debian package to install.

package ab

import (
	"bytes"
	"edge/internal/childproc"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestToolFinder(t *testing.T) {
	tests := []struct {
		name         string
		installed    []string
		allowInstall bool
		installErr   error
		wantErr      string
		wantLog      string
		wantPkgs     []string
	}{
		{name: "all there", installed: []string{"nginx", "wrk"}},
		{name: "missing, installed", installed: []string{"nginx"}, allowInstall: true,
			wantLog: "wrk not installed; installing the Debian package(s) wrk with apt-get", wantPkgs: []string{"wrk"}},
		{name: "missing, no install", installed: []string{"nginx"},
			wantErr: "wrk not installed: install the Debian package(s) wrk (apt-get install wrk), or run edge ab --install"},
		{name: "install fails", installed: []string{"nginx"}, allowInstall: true, installErr: errors.New("no network"),
			wantErr: "installing wrk: no network", wantPkgs: []string{"wrk"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have := slices.Clone(tt.installed)
			var gotPkgs []string
			var log bytes.Buffer
			f := toolFinder{
				look: func(names ...string) (string, error) {
					for _, n := range names {
						if slices.Contains(have, n) {
							return "/usr/bin/" + n, nil
						}
					}
					return "", childproc.ErrNotFound
				},
				install: func(pkgs []string) error {
					gotPkgs = append(gotPkgs, pkgs...)
					if tt.installErr != nil {
						return tt.installErr
					}
					have = append(have, "wrk")
					return nil
				},
				allowInstall: tt.allowInstall, log: &log,
			}
			paths, err := f.find([]outsideTool{toolNginx, toolWrkBin})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
			} else if err != nil || paths["wrk"] != "/usr/bin/wrk" || paths["nginx"] != "/usr/bin/nginx" {
				t.Fatalf("paths %v, error %v", paths, err)
			}
			if !strings.Contains(log.String(), tt.wantLog) {
				t.Errorf("log %q lacks %q", log.String(), tt.wantLog)
			}
			if !slices.Equal(gotPkgs, tt.wantPkgs) {
				t.Errorf("installed %v, want %v", gotPkgs, tt.wantPkgs)
			}
		})
	}
}

func TestToolsFor(t *testing.T) {
	list, err := Select([]string{"static-1k", "https-1k", "h2-1k", "ab-php", "cps-http"}, false)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, tool := range toolsFor(list) {
		pkgs = append(pkgs, tool.pkg)
	}
	want := []string{"nginx", "util-linux", "php8.2-fpm", "wrk", "nghttp2-client", "apache2-utils"}
	if !slices.Equal(pkgs, want) {
		t.Errorf("packages %v, want %v", pkgs, want)
	}
}

func TestLookPathFindsInstalledTools(t *testing.T) {
	// The harness's own dependencies: a missing one fails here, naming
	// what to install, never a skip.
	for _, tool := range []outsideTool{toolNginx, toolFPM, toolWrkBin, toolH2Bin, toolAbBin, toolTaskset} {
		if _, err := childproc.LookPath(tool.names...); err != nil {
			t.Errorf("%v: install the Debian package %s (./scripts/deps.sh test)", err, tool.pkg)
		}
	}
	if _, err := childproc.LookPath("no-such-tool-edge-ab"); !errors.Is(err, childproc.ErrNotFound) {
		t.Errorf("LookPath of a missing tool: %v", err)
	}
}
