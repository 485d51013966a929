package conf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNginxTextPointsPoolsAtSockets: "edge -T --nginx" leaves fpm_pool out
// and sends fastcgi_pass to the pool's address, so nginx can run the same
// site against the php-fpm edge supervises.
func TestNginxTextPointsPoolsAtSockets(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "edge.conf")
	src := `events { }
http {
    fpm_pool php { }
    fpm_pool tcp { listen 127.0.0.1:9100; }
    server {
        location ~ \.php$ { fastcgi_pass php; }
        location /t { fastcgi_pass tcp; }
        location /u { fastcgi_pass unix:/run/other.sock; }
        location /r { resolver 127.0.0.1 valid=30s ipv4=off ipv6=on status_zone=dns; }
    }
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Load(path, LoadOptions{Prefix: dir})
	if err != nil {
		t.Fatal(err)
	}
	got := plan.NginxText()
	for _, want := range []string{
		"fastcgi_pass unix:" + plan.HTTP.Pools[0].Address + ";",
		"fastcgi_pass 127.0.0.1:9100;",
		"fastcgi_pass unix:/run/other.sock;",
		"resolver 127.0.0.1 valid=30s ipv6=on;",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "fpm_pool") {
		t.Errorf("fpm_pool left in nginx's text:\n%s", got)
	}
}
