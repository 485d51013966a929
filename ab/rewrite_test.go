// This file tests the per-server copy of a configuration: listen
// addresses, fastcgi_pass and its upstream, logs, relative paths and the
// main-context directives the harness owns.

package ab

import (
	"os"
	"strings"
	"testing"

	"edge/conf"
)

const rewriteInput = `user www-data;
worker_processes 8;
pid /run/nginx.pid;
daemon on;
worker_cpu_affinity auto;
error_log /var/log/nginx/error.log warn;
http {
    access_log /var/log/nginx/access.log;
    fastcgi_temp_path /var/lib/nginx/fastcgi;
    upstream php {
        server 127.0.0.1:9000;
        server 127.0.0.1:9001 backup;
        keepalive 8;
    }
    fpm_pool www {
        listen /run/php.sock;
    }
    upstream unused {
        server 10.0.0.1:80;
    }
    server {
        listen 80 default_server;
        listen [::]:80 default_server ipv6only=on;
        server_name example.com;
        root html;
        ssl_certificate certs/site.crt;
        access_log logs/site.log main;
        location ~ \.php$ { fastcgi_pass php; }
        location /direct.php { fastcgi_pass 127.0.0.1:9000; }
        location /off { access_log off; }
        location /pool.php { fastcgi_pass www; }
        location = /fpm-status { fpm_status; }
    }
    server {
        listen 80 default_server;
        listen 443 ssl;
        access_log /var/log/nginx/access.log;
    }
}
`

func TestRewriteSite(t *testing.T) {
	tree, err := conf.ParseBytes("site.conf", []byte(rewriteInput), conf.ParseOptions{Prefix: "/etc/nginx"})
	if err != nil {
		t.Fatal(err)
	}
	sc := sideConfig{Ports: map[string]int{"80": 40080, "443": 40443}, Workers: 2,
		FastCGI: "unix:/tmp/fpm.sock", LogDir: "/out/logs", Prefix: "/srv/site", ConfDir: "/etc/nginx"}
	got := conf.Format(rewriteSite(tree.Main, sc), false)
	wantLines := []string{
		"worker_processes 2;",
		"error_log /out/logs/error.log warn;",
		"events {\n}",
		"access_log /out/logs/access.log;",
		"server unix:/tmp/fpm.sock;",
		"keepalive 8;",
		"listen 127.0.0.1:40080 default_server;",
		"listen 127.0.0.1:40443 ssl;",
		"root /srv/site/html;",
		"ssl_certificate /etc/nginx/certs/site.crt;",
		"access_log /out/logs/access-2.log main;",
		"fastcgi_pass php;",
		"fastcgi_pass unix:/tmp/fpm.sock;",
		"access_log off;",
		"location /pool.php {\n            fastcgi_pass unix:/tmp/fpm.sock;",
		// An upstream{} that no fastcgi_pass names keeps its servers.
		"server 10.0.0.1:80;",
	}
	for _, w := range wantLines {
		if !strings.Contains(got, w) {
			t.Errorf("rewritten config lacks %q:\n%s", w, got)
		}
	}
	for _, gone := range []string{"www-data", "pid ", "daemon", "worker_cpu_affinity", "fastcgi_temp_path",
		"fpm_pool", "fpm_status", "9001", "[::]", "ipv6only", "worker_processes 8"} {
		if strings.Contains(got, gone) {
			t.Errorf("rewritten config still has %q:\n%s", gone, got)
		}
	}
	// One listen per address per server, one default_server per address.
	if n := strings.Count(got, "listen 127.0.0.1:40080"); n != 2 {
		t.Errorf("%d listens on the http port, want one per server:\n%s", n, got)
	}
	if n := strings.Count(got, "40080 default_server"); n != 1 {
		t.Errorf("%d default_server on one address:\n%s", n, got)
	}
	// The same log path written twice maps to the same file.
	if n := strings.Count(got, "access_log /out/logs/access.log;"); n != 2 {
		t.Errorf("the shared access log appears %d times, want 2:\n%s", n, got)
	}
	if wantUser := os.Geteuid() == 0; strings.Contains(got, "user root;") != wantUser {
		t.Errorf("user root as euid %d:\n%s", os.Geteuid(), got)
	}
}

func TestListenKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"80", "80"},
		{"*:8080", "8080"},
		{"127.0.0.1:443", "443"},
		{"[::]:443", "443"},
		{"[::1]", "80"},
		{"localhost", "80"},
		{"example.com:81", "81"},
		{"unix:/run/edge.sock", "unix:/run/edge.sock"},
	}
	for _, tt := range tests {
		if got := listenKey(tt.in); got != tt.want {
			t.Errorf("listenKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestInsertIntoHTTP(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{"after main", "events {\n}\nhttp {\n    a b;\n}\n", "events {\n}\nhttp {\n    x y;\n    a b;\n}\n", false},
		{"first", "http {\n}\n", "http {\n    x y;\n}\n", false},
		{"none", "events {\n}\n", "", true},
		// A server's nested block named like http is not the http block.
		{"indented only", "events {\n    http {\n}\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := insertIntoHTTP(tt.in, "    x y;\n")
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("insertIntoHTTP = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestAbsolute(t *testing.T) {
	tests := []struct{ in, want string }{
		{"html", "/p/html"},
		{"/srv/www", "/srv/www"},
		{"$document_root/x", "$document_root/x"},
		{"data:$cert", "data:$cert"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := absolute(tt.in, "/p"); got != tt.want {
			t.Errorf("absolute(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
