// This file tests StartEdge against the real edge binary (serving, the pid
// file, a wrapped command, a configuration edge refuses), its command line,
// and the PKI and seed 004 helpers the test packages share.

package testenv

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// edgeTestConf is a one-location site; {{PORT}} is filled in.
const edgeTestConf = `events { worker_connections 64; }
http {
    access_log logs/access.log;
    server {
        listen 127.0.0.1:{{PORT}};
        location = /ping { return 200 "pong"; }
    }
}
`

func TestStartEdgeServesAndWritesPidFile(t *testing.T) {
	port := FreePort(t)
	prefix := EdgePrefix(t)
	e := StartEdge(t, EdgeOptions{
		Prefix:  prefix,
		Conf:    strings.ReplaceAll(edgeTestConf, "{{PORT}}", strconv.Itoa(port)),
		Global:  "daemon off; pid logs/edge.pid;",
		PidFile: filepath.Join(prefix, "logs", "edge.pid"),
		Ports:   []int{port},
		// A wrapper that execs edge, as taskset does: the PID stays edge's.
		Prep: func(cmd *exec.Cmd) {
			env := Binary(t, "coreutils", "env")
			cmd.Path, cmd.Args = env, append([]string{env}, cmd.Args...)
		},
	})
	if e.ConfPath != filepath.Join(prefix, "edge.conf") || e.Addr() != "127.0.0.1:"+strconv.Itoa(port) {
		t.Errorf("ConfPath %s, Addr %s", e.ConfPath, e.Addr())
	}
	if resp := RawHTTP(t, e.Addr(), "GET /ping HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"); resp.Status != 200 || string(resp.Body) != "pong" {
		t.Errorf("GET /ping: %d %q", resp.Status, resp.Body)
	}
	pid, err := os.ReadFile(filepath.Join(prefix, "logs", "edge.pid"))
	if err != nil || strings.TrimSpace(string(pid)) != strconv.Itoa(e.PID()) {
		t.Errorf("pid file holds %q (%v), edge runs as %d", pid, err, e.PID())
	}
	if err := e.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	if err := e.Proc.Wait(); err != nil {
		t.Errorf("edge after QUIT: %v", err)
	}
}

// TestStartEdgeFailsAtOnce: a configuration edge refuses ends the wait
// with edge's own message, not with a timeout.
func TestStartEdgeFailsAtOnce(t *testing.T) {
	ft := newFakeTB(t)
	port := FreePort(t)
	returned := ft.run(func() {
		StartEdge(ft, EdgeOptions{Conf: "events {}\nhttp { no_such_directive on; }\n", Global: "daemon off;", Ports: []int{port}})
	})
	ft.fail()
	ft.runCleanups()
	logs := ft.logText()
	if returned || !strings.Contains(logs, "exited before listening") || !strings.Contains(logs, `unknown directive "no_such_directive"`) {
		t.Errorf("StartEdge returned %v; logs:\n%s", returned, logs)
	}
}

func TestEdgeArgs(t *testing.T) {
	tests := []struct {
		prefix, conf, global string
		args                 []string
		want                 []string
	}{
		{"/p", "", "", nil, []string{"-p", "/p/"}},
		{"/p/", "/p/edge.conf", "", nil, []string{"-p", "/p/", "-c", "/p/edge.conf"}},
		{"/p", "/c", "daemon off;", []string{"-q"}, []string{"-p", "/p/", "-c", "/c", "-g", "daemon off;", "-q"}},
	}
	for _, tt := range tests {
		if got := edgeArgs(tt.prefix, tt.conf, tt.global, tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("edgeArgs(%q, %q, %q, %q) = %q, want %q", tt.prefix, tt.conf, tt.global, tt.args, got, tt.want)
		}
	}
}

func TestPKILeaves(t *testing.T) {
	dir := t.TempDir()
	p := NewPKI(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "ca.crt")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		rsa     bool
		ocsp    string
		names   []string
		wantAlg x509.PublicKeyAlgorithm
	}{
		{"ec", false, "", []string{"localhost", "127.0.0.1"}, x509.ECDSA},
		{"rsa", true, "", []string{"example.com", "www.example.com"}, x509.RSA},
		{"stapled", false, "http://127.0.0.1:1/ocsp", []string{"example.com"}, x509.ECDSA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			certFile, keyFile := p.LeafWithOCSP(t, tt.name, tt.rsa, tt.ocsp, tt.names...)
			pair, err := tls.LoadX509KeyPair(certFile, keyFile)
			if err != nil {
				t.Fatal(err)
			}
			if len(pair.Certificate) != 2 {
				t.Errorf("chain of %d certificates, want leaf and CA", len(pair.Certificate))
			}
			leaf := pair.Leaf
			if leaf.PublicKeyAlgorithm != tt.wantAlg || leaf.Subject.CommonName != tt.names[0] {
				t.Errorf("leaf %s for %s", leaf.PublicKeyAlgorithm, leaf.Subject.CommonName)
			}
			for _, name := range tt.names {
				if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: p.Pool}); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
			if tt.ocsp != "" && !slices.Equal(leaf.OCSPServer, []string{tt.ocsp}) {
				t.Errorf("OCSP servers %q", leaf.OCSPServer)
			}
		})
	}
}

func TestSeed004Conf(t *testing.T) {
	filledIn := Seed004Options{HTTP: "error_log e;\n", Server: "listen 1;\n", FastCGIPass: "unix:/s", FastCGIParams: "/p"}
	tests := []struct {
		name string
		o    Seed004Options
		want []string
	}{
		{"the article", Seed004Options{}, []string{
			"http {\nkeepalive_timeout 6;\ninclude mime.types;\nserver {\nlocation ~* ",
			"\t\tfastcgi_pass 127.0.0.1:9000;\n",
			"\t\tinclude fastcgi_params;\n\t}\n}\n}\n",
		}},
		{"filled in", filledIn, []string{
			"include mime.types;\nerror_log e;\nserver {\nlisten 1;\nlocation ~* ",
			"fastcgi_pass unix:/s;",
			"include /p;\n\t}\n}\n}\n",
		}},
	}
	for _, tt := range tests {
		text := Seed004Conf(tt.o)
		for _, want := range tt.want {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the text lacks %q:\n%s", tt.name, want, text)
			}
		}
		if !strings.HasSuffix(text, Seed004Locations(tt.o.FastCGIPass, tt.o.FastCGIParams)+"}\n}\n") {
			t.Errorf("%s: the server{} does not end with the article's locations:\n%s", tt.name, text)
		}
	}
}
