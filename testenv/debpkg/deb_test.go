// Package debpkg tests edge's Debian package (scripts/package.sh, from
// deploy/debian) as Debian would use it: lintian without errors, the
// systemd unit verified by systemd-analyze (offline: systemd is not PID 1
// here), the logrotate file read by logrotate, and dpkg -i, edge -t and
// dpkg -P in a container from the debootstrap'd base image that
// scripts/deps.sh test makes (debian:bookworm-slim). A missing tool fails
// the test; it never skips.
package debpkg

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

func need(t *testing.T, cmds ...string) {
	t.Helper()
	for _, c := range cmds {
		if _, err := exec.LookPath(c); err != nil {
			t.Fatalf("%s not found: ./scripts/deps.sh test installs it", c)
		}
	}
}

// run runs a command and returns its stdout and stderr.
func run(t *testing.T, dir string, name string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

func TestPackage(t *testing.T) {
	need(t, "lintian", "dpkg-deb", "systemd-analyze", "logrotate", "docker")
	root := testenv.RepoRoot(t)
	out := t.TempDir()
	// package.sh runs lintian --fail-on error itself.
	stdout, stderr := run(t, root, "./scripts/package.sh", out)
	deb := strings.TrimSpace(stdout)
	if filepath.Dir(deb) != out || !strings.HasSuffix(deb, ".deb") {
		t.Fatalf("package.sh printed %q, want a .deb in %s", deb, out)
	}
	t.Logf("lintian:\n%s", lintianLines(stderr))
	if strings.Contains(stderr, "\nE: ") {
		t.Errorf("lintian reports errors:\n%s", lintianLines(stderr))
	}

	t.Run("contents", func(t *testing.T) {
		list, _ := run(t, "", "dpkg-deb", "--contents", deb)
		for _, path := range []string{"./usr/sbin/edge", "./lib/systemd/system/edge.service", "./etc/logrotate.d/edge",
			"./etc/edge/edge.conf", "./etc/edge/mime.types", "./etc/edge/fastcgi_params", "./etc/edge/sites-available/default",
			"./etc/default/edge", "./usr/share/doc/edge/copyright"} {
			if !strings.Contains(list, " "+path+"\n") && !strings.Contains(list, " "+path+" ") {
				t.Errorf("the package lacks %s:\n%s", path, list)
			}
		}
		conffiles, _ := run(t, "", "dpkg-deb", "--info", deb, "conffiles")
		for _, f := range []string{"/etc/edge/edge.conf", "/etc/logrotate.d/edge", "/etc/default/edge"} {
			if !strings.Contains(conffiles, f+"\n") {
				t.Errorf("%s is not a conffile: %q", f, conffiles)
			}
		}
	})

	t.Run("systemd-analyze verify", func(t *testing.T) {
		// The unit in a root made of the package's files and this
		// machine's units (the targets it names) and /bin/kill.
		dir := t.TempDir()
		run(t, "", "dpkg-deb", "-x", deb, dir)
		run(t, "", "cp", "-rn", "/lib/systemd/system/.", filepath.Join(dir, "lib/systemd/system"))
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		run(t, "", "cp", "/bin/kill", filepath.Join(dir, "bin/kill"))
		// systemd-analyze exits 0 on warnings such as an unknown key:
		// anything it says is a failure.
		o, e := run(t, "", "systemd-analyze", "verify", "--root="+dir, "/lib/systemd/system/edge.service")
		if strings.TrimSpace(o+e) != "" {
			t.Errorf("systemd-analyze verify edge.service:\n%s%s", o, e)
		}
		unit, err := os.ReadFile(filepath.Join(dir, "lib/systemd/system/edge.service"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Type=notify\n", "ExecStartPre=/usr/sbin/edge -t -q ", "ExecReload=/usr/sbin/edge -t -q ",
			"ExecReload=/bin/kill -HUP $MAINPID\n", "NoNewPrivileges=true\n", "ProtectSystem=full\n"} {
			if !strings.Contains(string(unit), want) {
				t.Errorf("edge.service lacks %q", want)
			}
		}
	})

	t.Run("logrotate", func(t *testing.T) {
		// The logrotate file with its paths moved into a temp
		// directory, run for real against a running edge: the logs are
		// rotated and USR1 makes edge write to the new ones.
		dir := t.TempDir()
		logs := filepath.Join(dir, "log")
		pid := filepath.Join(dir, "edge.pid")
		src, err := os.ReadFile(filepath.Join(root, "deploy/debian/edge.logrotate"))
		if err != nil {
			t.Fatal(err)
		}
		conf := strings.NewReplacer("/var/log/edge", logs, "/run/edge.pid", pid,
			"edge.service", "edge-no-such-unit.service").Replace(string(src))
		if conf == string(src) {
			t.Fatalf("edge.logrotate names neither /var/log/edge nor /run/edge.pid")
		}
		testenv.WriteFile(t, filepath.Join(dir, "logrotate.conf"), []byte(conf), 0o644)
		if err := os.MkdirAll(logs, 0o755); err != nil {
			t.Fatal(err)
		}
		port := testenv.FreePort(t)
		errorLog := filepath.Join(logs, "error.log")
		testenv.StartEdge(t, testenv.EdgeOptions{
			Prefix:   dir,
			ErrorLog: errorLog,
			Conf: fmt.Sprintf("daemon off;\npid %s;\nerror_log %s notice;\nevents {}\nhttp {\n"+
				"  access_log %s/access.log;\n  server { listen 127.0.0.1:%d; }\n}\n", pid, errorLog, logs, port),
			PidFile: pid,
			Ports:   []int{port},
		})
		o, e := run(t, "", "logrotate", "--verbose", "--force", "--state", filepath.Join(dir, "state"),
			filepath.Join(dir, "logrotate.conf"))
		if !strings.Contains(o+e, "running postrotate script") {
			t.Fatalf("logrotate did not run the postrotate script:\n%s%s", o, e)
		}
		if _, err := os.Stat(errorLog + ".1"); err != nil {
			t.Fatalf("error.log was not rotated: %v\n%s%s", err, o, e)
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			data, _ := os.ReadFile(errorLog)
			if strings.Contains(string(data), "reopening logs") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("edge did not reopen its logs after logrotate's USR1: error.log holds %q", data)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("dpkg -i, edge -t, dpkg -P in a container", func(t *testing.T) {
		script := `set -eu
dpkg -i /pkg/` + filepath.Base(deb) + `
test -L /etc/edge/sites-enabled/default
edge -t -c /etc/edge/edge.conf
edge -t -q -c /etc/edge/edge.conf -p /var/lib/edge/
edge -v
dpkg -P edge
for f in /usr/sbin/edge /etc/edge /lib/systemd/system/edge.service /etc/logrotate.d/edge /var/lib/edge; do
	if [ -e "$f" ]; then echo "left after dpkg -P: $f"; exit 1; fi
done
echo purged
`
		o, e := run(t, "", "docker", "run", "--rm", "--network", "none", "-v", out+":/pkg:ro",
			"debian:bookworm-slim", "sh", "-c", script)
		text := o + e
		for _, want := range []string{"Setting up edge (", "configuration file /etc/edge/edge.conf test is successful",
			"Purging configuration files for edge", "purged"} {
			if !strings.Contains(text, want) {
				t.Errorf("the container's output lacks %q:\n%s", want, text)
			}
		}
		t.Logf("in the container:\n%s", text)
	})
}

// lintianLines keeps lintian's tagged lines of package.sh's stderr.
func lintianLines(stderr string) string {
	var b strings.Builder
	for _, l := range strings.Split(stderr, "\n") {
		if len(l) > 3 && l[1] == ':' && strings.ContainsRune("EWIPXN", rune(l[0])) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
