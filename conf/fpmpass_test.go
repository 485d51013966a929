package conf

import (
	"fmt"
	"strings"
	"testing"
)

// The pools behind fastcgi_pass: each address once, named by the
// fastcgi_pass argument or its upstream, none for fastcgi_pass with
// variables, and none at all beside an fpm_pool.
func TestPassPools(t *testing.T) {
	const body = `
upstream php { server 127.0.0.1:9001; }
upstream two { server 10.0.0.5:9000; server unix:/run/b.sock; }
server {
    listen 127.0.0.1:8080;
    location /a { fastcgi_pass localhost:9000; }
    location /b { fastcgi_pass unix:/run/php/php8.2-fpm.sock; }
    location /c { fastcgi_pass php; }
    location /d { fastcgi_pass two; }
    location /e { fastcgi_pass $arg_x; }
    location /f { fastcgi_pass localhost:9000; }
    location /g { fastcgi_pass 127.0.0.1:9001; }
    location = /fpm { fpm_status two; }
}
`
	plan, err := LoadText("edge.conf", []byte("events {}\nhttp {\n"+body+"}\n"), LoadOptions{Prefix: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plan.HTTP.PassPools {
		got = append(got, fmt.Sprintf("%s pass=%s %s:%s status=%s:%s%s external=%v", p.Name, p.Pass, p.Network, p.Address,
			p.StatusNetwork, p.StatusAddress, p.StatusPath, p.External))
	}
	want := []string{
		"localhost:9000 pass=localhost:9000 tcp:localhost:9000 status=tcp:localhost:9000 external=true",
		"unix:/run/php/php8.2-fpm.sock pass=unix:/run/php/php8.2-fpm.sock unix:/run/php/php8.2-fpm.sock status=unix:/run/php/php8.2-fpm.sock external=true",
		"php pass=php tcp:127.0.0.1:9001 status=tcp:127.0.0.1:9001 external=true",
		"two/10.0.0.5:9000 pass=two tcp:10.0.0.5:9000 status=tcp:10.0.0.5:9000 external=true",
		"two/unix:/run/b.sock pass=two unix:/run/b.sock status=unix:/run/b.sock external=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pass pools:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(plan.HTTP.ReportPoolsNamed("two")); n != 2 {
		t.Errorf("%d pools named two, want 2", n)
	}
	if len(plan.HTTP.Pools) != 0 {
		t.Errorf("pass pools among the fpm_pool blocks: %d", len(plan.HTTP.Pools))
	}

	// Beside an fpm_pool, the pools are the fpm_pool blocks only.
	withPool := "fpm_pool www { external 127.0.0.1:9002; }\n" + body
	plan, err = LoadText("edge.conf", []byte("events {}\nhttp {\n"+strings.Replace(withPool, "fpm_status two;", "fpm_status www;", 1)+"}\n"),
		LoadOptions{Prefix: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.HTTP.PassPools) != 0 || len(plan.HTTP.ReportPools()) != 1 {
		t.Errorf("with an fpm_pool: %d pass pools, %d report pools", len(plan.HTTP.PassPools), len(plan.HTTP.ReportPools()))
	}

	// fpm_status names a pool that is not there; and needs one.
	for _, c := range []struct{ body, want string }{
		{"server { location /a { fastcgi_pass 127.0.0.1:9000; } location = /f { fpm_status nosuch; } }", `no fpm_pool "nosuch" for "fpm_status"`},
		{"server { location = /f { fpm_status; } }", `"fpm_status" needs an fpm_pool or a fastcgi_pass`},
	} {
		_, err := LoadText("edge.conf", []byte("events {}\nhttp {\n"+c.body+"\n}\n"), LoadOptions{Prefix: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
}
