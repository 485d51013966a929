// This file tests edge ab's flags: defaults, --quick, CPU rows, and that
// flags given with --quick win over it.
package main

import (
	"slices"
	"testing"
	"time"

	"edge/ab"
)

func TestParseABArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, o ab.Options)
		wantErr bool
	}{
		{"defaults", nil, func(t *testing.T, o ab.Options) {
			if o.Rounds != 3 || o.Duration != 10*time.Second || o.RampDuration != time.Minute || o.Warmup != time.Second {
				t.Errorf("defaults: %+v", o)
			}
			if o.Config != "" || o.Out == "" || o.ServerCPUs != nil {
				t.Errorf("defaults: config %q, out %q, cpus %v", o.Config, o.Out, o.ServerCPUs)
			}
		}, false},
		{"quick", []string{"--quick"}, func(t *testing.T, o ab.Options) {
			if o.Rounds != 1 || o.Duration != 2*time.Second || o.RampDuration != 10*time.Second || o.Warmup >= 0 {
				t.Errorf("quick: %+v", o)
			}
		}, false},
		{"quick with explicit rounds", []string{"--quick", "--rounds", "2", "-duration=3s"}, func(t *testing.T, o ab.Options) {
			if o.Rounds != 2 || o.Duration != 3*time.Second {
				t.Errorf("explicit flags lost to --quick: %+v", o)
			}
		}, false},
		{"everything", []string{"-c", "site.conf", "--scenarios", "matrix,ramp", "--server-cpus", "0/0-1",
			"--client-cpus", "2-3", "--out", "o", "--wordpress", "/wp", "--warmup", "0", "--ramp-duration", "30s"},
			func(t *testing.T, o ab.Options) {
				if o.Config != "site.conf" || !slices.Equal(o.Scenarios, []string{"matrix", "ramp"}) || o.Out != "o" ||
					o.WordPress != "/wp" || o.Warmup >= 0 || o.RampDuration != 30*time.Second {
					t.Errorf("options: %+v", o)
				}
				if len(o.ServerCPUs) != 2 || o.ServerCPUs[1].String() != "0-1" || o.ClientCPUs.String() != "2-3" {
					t.Errorf("cpus: %v / %v", o.ServerCPUs, o.ClientCPUs)
				}
			}, false},
		{"bad cpus", []string{"--server-cpus", "x"}, nil, true},
		{"stray argument", []string{"site.conf"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, err := parseABArgs(tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v", err)
			}
			if tt.check != nil {
				tt.check(t, o)
			}
		})
	}
}
