// The seeds' TLS configurations through the edge binary: seed 002's
// nginx.conf (Kalasearch's "high performance nginx TLS tuning": listen 443
// ssl http2, a shared session cache, TLS 1.2/1.3, an OpenSSL cipher string
// with DHE, OCSP stapling, ssl_buffer_size 4k) passes "edge -t" with the
// certificate paths filled in and serves HTTP/2; seed 000's cipher strings
// (and nginx's old default) get a [warn] naming what Go does not do and
// what edge uses instead.

package tlstest

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"
)

// seed002Conf is seed 002's nginx.conf with its placeholders
// (/etc/nginx/YOUR_PEM.pem, ...) and ports made into template fields.
const seed002Conf = `events {
}

http {
    server {
        gzip on;
        gzip_disable "msie6";

        gzip_comp_level 6;
        gzip_min_length 1100;
        gzip_buffers 16 8k;
        gzip_proxied any;
        gzip_types
            text/plain
            text/css
            text/js
            text/xml
            text/javascript
            application/javascript
            application/json
            application/xml
            application/rss+xml
            image/svg+xml;

        access_log {{DIR}}/logs/access.log combined;

        listen {{HTTP}};

        # enable HTTP2 to speed up (multiplexing feature etc)
        listen {{HTTPS}} ssl http2;

        # Enable SSL cache to speed up for return visitors
        ssl_session_cache   shared:SSL:50m; # speed up first time. 1m ~= 4000 connections
        ssl_session_timeout 4h;
        ssl_protocols TLSv1.2 TLSv1.3;

        # Specify cipher
        ssl_prefer_server_ciphers on;  # prefer a list of ciphers to prevent old and slow ciphers
        ssl_ciphers 'EECDH+AESGCM:EDH+AESGCM:AES256+EECDH:AES256+EDH';

        # Enable TLS
        charset utf-8;
        ssl_certificate {{DIR}}/ec.crt;
        ssl_certificate_key {{DIR}}/ec.key;

        # OCSP
        ssl_stapling on;
        ssl_stapling_verify on;
        ssl_trusted_certificate  {{DIR}}/ca.crt;

        # To serve smaller requests (json/html/images etc) smaller ssl_buffer_size reduces latency but adds overhead
        ssl_buffer_size 4k;

        root {{DIR}}/html;
    }
}
`

// edgeTest runs "edge -t" on a configuration file and returns its exit
// code and stderr.
func edgeTest(t *testing.T, dir, confPath string) (int, string) {
	t.Helper()
	cmd := exec.Command(testenv.EdgeBinary(t), "-t", "-p", dir+"/", "-c", confPath)
	cmd.Env = append(cmd.Environ(), "EDGE_DATA_DIR="+filepath.Join(dir, "data"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String()
}

func TestSeed002(t *testing.T) {
	dir, _ := siteDir(t)
	httpPort, httpsPort := testenv.FreePort(t), testenv.FreePort(t)
	conf := strings.NewReplacer("{{DIR}}", dir, "{{HTTP}}", listen(httpPort), "{{HTTPS}}", listen(httpsPort)).Replace(seed002Conf)
	confPath := filepath.Join(dir, "seed002.conf")
	writeFile(t, confPath, []byte(conf))

	code, stderr := edgeTest(t, dir, confPath)
	if code != 0 || !strings.Contains(stderr, "test is successful") {
		t.Fatalf("edge -t: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		// EDH+AESGCM asks for DHE: named, with what edge does instead.
		"DHE suites (kEDH) are not supported by Go's crypto/tls; ECDHE is used instead",
		// The test certificate names no OCSP responder: nginx's warning.
		"\"ssl_stapling\" ignored, no OCSP responder URL in the certificate",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("edge -t does not say %q:\n%s", want, stderr)
		}
	}
	t.Logf("edge -t on seed 002:\n%s", stderr)

	startEdge(t, dir, "seed002", conf, httpPort, httpsPort)
	curl := testenv.Binary(t, "curl", "curl")
	out, err := exec.Command(curl, "-sS", "--http2", "--cacert", filepath.Join(dir, "ca.crt"),
		"--resolve", "localhost:"+strconv.Itoa(httpsPort)+":127.0.0.1",
		"-o", "/dev/null", "-w", "%{http_version} %{http_code} %{ssl_verify_result}",
		fmt.Sprintf("https://localhost:%d/", httpsPort)).CombinedOutput()
	if err != nil || string(out) != "2 200 0" {
		t.Errorf("curl --http2: %v: %q, want \"2 200 0\"", err, out)
	}
	out, err = exec.Command(curl, "-sS", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
		fmt.Sprintf("http://%s/", listen(httpPort))).CombinedOutput()
	if err != nil || string(out) != "1.1 200" {
		t.Errorf("plain HTTP on the same server: %v: %q", err, out)
	}
}

func TestSeed000CipherStrings(t *testing.T) {
	dir, _ := siteDir(t)
	tests := []struct {
		name, ciphers string
		want          []string
	}{
		{"seed 000, first version", "ALL:!kEDH!ADH:RC4+RSA:+HIGH:+SSLv2:+EXP", []string{
			"EXPORT suites (EXP) are not supported by Go's crypto/tls",
			"RC4 suites are broken (RFC 7465) and not enabled by edge; AES-GCM and ChaCha20-Poly1305 are used instead",
			"3DES suites are weak (SWEET32, CVE-2016-2183) and not enabled by edge",
			"anonymous suites (aNULL, ADH, AECDH) are not supported",
		}},
		{"seed 000, with MEDIUM and LOW", "ALL:!kEDH!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP", []string{
			"single-DES suites (LOW) are not supported by Go's crypto/tls",
			"RC4 suites are broken",
		}},
		{"nginx's old default, with DHE", "HIGH:!aNULL:!MD5", []string{
			"DHE suites (kEDH) are not supported by Go's crypto/tls; ECDHE is used instead",
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			confPath := filepath.Join(dir, fmt.Sprintf("seed000-%d.conf", i))
			writeFile(t, confPath, []byte(edgeMain+fmt.Sprintf(`
http {
    access_log off;
    ssl_ciphers %s;
    server {
        listen 127.0.0.1:%d ssl;
        server_name localhost;
        ssl_certificate ec.crt;
        ssl_certificate_key ec.key;
    }
}
`, tt.ciphers, testenv.FreePort(t))))
			code, stderr := edgeTest(t, dir, confPath)
			if code != 0 {
				t.Fatalf("edge -t: exit %d\n%s", code, stderr)
			}
			for _, want := range tt.want {
				if !strings.Contains(stderr, "[warn] ssl_ciphers: "+want) && !strings.Contains(stderr, want) {
					t.Errorf("no warning %q:\n%s", want, stderr)
				}
			}
		})
	}
	t.Run("DHE only is an error", func(t *testing.T) {
		confPath := filepath.Join(dir, "dhe.conf")
		writeFile(t, confPath, []byte(edgeMain+"http { ssl_ciphers DHE-RSA-AES256-GCM-SHA384; }\n"))
		code, stderr := edgeTest(t, dir, confPath)
		want := "[emerg] ssl_ciphers \"DHE-RSA-AES256-GCM-SHA384\" selects no cipher suite that Go's crypto/tls supports, only DHE suites"
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr:\n%s\nwant %q", code, stderr, want)
		}
	})
}
