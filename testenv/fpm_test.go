// This file tests StartFPM: php-fpm listens where FPM says, and stopping it
// leaves no master or worker behind.

package testenv

import (
	"net"
	"strings"
	"testing"
)

func TestFPMListensAndStopsCleanly(t *testing.T) {
	tests := []struct {
		name        string
		opts        FPMOptions
		wantNetwork string
		wantWorkers int
	}{
		{"unix static default", FPMOptions{}, "unix", 4},
		{"tcp static", FPMOptions{Listen: "127.0.0.1:0", MaxChildren: 2}, "tcp", 2},
		{"unix dynamic", FPMOptions{PM: "dynamic", MaxChildren: 3, Extra: "pm.status_path = /status"}, "unix", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := StartFPM(t, tt.opts)
			if f.Network != tt.wantNetwork {
				t.Errorf("Network %q, want %q", f.Network, tt.wantNetwork)
			}
			c, err := net.Dial(f.Network, f.Address)
			if err != nil {
				t.Fatalf("dial %s %s: %v", f.Network, f.Address, err)
			}
			c.Close()
			master := f.Proc.PID()
			var workers []int
			poll(t, "php-fpm workers", func() bool {
				workers = childPIDs(t, master)
				return len(workers) == tt.wantWorkers
			})
			f.Proc.Stop()
			for _, pid := range append(workers, master) {
				waitGone(t, pid)
			}
		})
	}
}

func TestFPMConfig(t *testing.T) {
	f := &FPM{Dir: "/d"}
	tests := []struct {
		name string
		opts FPMOptions
		want []string
	}{
		{"defaults", FPMOptions{}, []string{"pm = static\n", "pm.max_children = 4\n", "listen = L\n", "daemonize = no\n", "clear_env = no\n", "php_admin_value[error_log] = /d/php-error.log\n"}},
		{"dynamic", FPMOptions{PM: "dynamic", MaxChildren: 8}, []string{"pm = dynamic\n", "pm.max_spare_servers = 8\n"}},
		{"extra last", FPMOptions{Extra: "pm.status_path = /s", Global: "log_level = debug"}, []string{"log_level = debug\n\n[www]", "pm.status_path = /s\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fpmConfig(f, "L", tt.opts)
			for _, want := range tt.want {
				if !strings.Contains(got, want) {
					t.Errorf("config lacks %q:\n%s", want, got)
				}
			}
			if tt.opts.Extra != "" && !strings.HasSuffix(got, tt.opts.Extra+"\n") {
				t.Errorf("Extra is not last, so it cannot override:\n%s", got)
			}
		})
	}
}

func TestFPMBadConfFailsFast(t *testing.T) {
	ft := newFakeTB(t)
	if ft.run(func() { StartFPM(ft, FPMOptions{PM: "no-such-pm"}) }) {
		t.Fatal("StartFPM returned for a config php-fpm rejects")
	}
	ft.runCleanups()
	if logs := ft.logText(); !strings.Contains(logs, "exited before listening") || !strings.Contains(logs, "no-such-pm") {
		t.Errorf("failure does not show php-fpm's complaint:\n%s", logs)
	}
}
