// This file checks the warnings a geo block draws at -t against Debian's
// nginx: the same lines, in the same order, naming the same file and line,
// including those from a file the block includes by a relative path.
package main

import (
	"regexp"
	"strings"
	"testing"

	"edge/testenv"
)

// geoWarnConf draws every warning the geo module has.
const geoWarnConf = `events {}
http {
    geo $arg_ip $g {
        default a;
        default b;
        10.0.0.0/8 c;
        10.0.0.0/16 d;
        10.0.0.0/8 e;
        10.1.2.3/8 f;
        delete 192.168.0.0/16;
        delete 8.0.0.0/6;
        proxy 127.0.0.1/8;
        ::1 g;
        ::1/128 h;
        include geo/nets.conf;
    }
    geo $arg_ip $r {
        ranges;
        default a;
        default b;
        10.0.0.0-10.0.0.255 c;
        10.0.0.0-10.0.0.255 d;
        10.0.1.0-10.1.255.255 e;
        10.1.0.0-10.1.255.255 f;
        delete 10.0.0.0-10.0.0.255;
        delete 10.2.0.0-10.2.0.1;
    }
}
`

var warnRE = regexp.MustCompile(`\[warn\] (?:\d+#\d+: )?(.*)`)

func warnings(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if m := warnRE.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

func TestConfigTestGeoWarningsMatchNginx(t *testing.T) {
	s := newSite(t, geoWarnConf)
	s.write("geo/nets.conf", "172.16.0.0/12 x;\n172.16.0.0/12 y;\ndelete 172.16.5.0/24;\n")
	res := s.edge("-t")
	if res.code != 0 {
		t.Fatalf("edge -t: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	nres := runCommand(t, s.dir, testenv.NginxBinary(t), "-t", "-p", s.dir+"/", "-e", "stderr", "-c", s.conf)
	if nres.code != 0 {
		t.Fatalf("nginx -t: exit %d, stderr:\n%s", nres.code, nres.stderr)
	}
	got, want := warnings(res.stderr), warnings(nres.stderr)
	if len(want) < 15 {
		t.Fatalf("nginx printed %d warnings, the config draws more:\n%s", len(want), nres.stderr)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("edge warns:\n%s\nnginx warns:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
