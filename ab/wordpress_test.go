// This file runs the WordPress scenarios of issue 16 end to end: a real
// WordPress (Debian's package on MariaDB, installed through edge), then
// edge ab's built-in site with --wordpress timing its front page
// uncached and from fastcgi_cache, with gzip accepted. As in ab_test.go
// the figures are not asserted, only that both servers served HITs and
// the comparison was made.

package ab

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"testing"
	"time"

	"edge/testenv"
)

// installWordPress lays out and installs a WordPress whose address is
// http://localhost (the Host the built-in site's WordPress servers get,
// whatever port they listen on), and returns its docroot. The installer
// runs through an edge of its own, stopped before the docroot is handed
// on.
func installWordPress(t *testing.T) string {
	t.Helper()
	db := testenv.StartMariaDB(t)
	db.CreateDatabase(t, "wordpress", "wp", "wp-db-secret")
	wp := testenv.NewWordPress(t, testenv.WordPressOptions{DB: db, DBName: "wordpress", DBUser: "wp",
		DBPassword: "wp-db-secret", SiteURL: "http://localhost"})
	fpm := testenv.StartFPM(t, testenv.FPMOptions{})
	defer fpm.Proc.Stop()
	pass := fpm.Address
	if fpm.Network == "unix" {
		pass = "unix:" + pass
	}
	port := testenv.FreePort(t)
	prefix := testenv.EdgePrefix(t)
	edge := testenv.StartEdge(t, testenv.EdgeOptions{Prefix: prefix, Global: "daemon off;", Ports: []int{port},
		Conf: testenv.NginxMain(1) + fmt.Sprintf(`http {
    include %s;
    server {
        listen 127.0.0.1:%d;
        server_name localhost;
        root %s;
        index index.php;
        location ~ \.php$ {
            fastcgi_pass %s;
            include %s;
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        }
    }
}
`, filepath.Join(testenv.RepoRoot(t), "conf", "mime.types"), port, wp.Root, pass,
			filepath.Join(testenv.RepoRoot(t), "conf", "fastcgi_params"))})
	defer edge.Stop()
	jar, _ := cookiejar.New(nil)
	addr := edge.Addr()
	client := &http.Client{Jar: jar, Timeout: time.Minute,
		Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	(&testenv.WPBrowser{T: t, Base: "http://localhost", HTTP: client}).Install("edge ab", "admin", "admin-secret-1")
	return wp.Root
}

func TestRunWordPressCached(t *testing.T) {
	root := installWordPress(t)
	o := shortOptions(t)
	o.WordPress = root
	o.Scenarios = []string{"wordpress-cache"}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed() {
		t.Errorf("the run did not pass; notes %q", rep.Notes)
	}
	checkTimed(t, rep, "wordpress-gzip", "wordpress-cached")
	if len(rep.Comparisons) != 1 || rep.Comparisons[0].Scenario != "wordpress-cached" || rep.Comparisons[0].Baseline != "wordpress-gzip" {
		t.Errorf("comparisons %+v, want wordpress-cached against wordpress-gzip", rep.Comparisons)
	}
	for _, res := range rep.Rows[0].Results {
		if res.Scenario.Name == "wordpress-gzip" && len(res.Runs) > 0 {
			// The uncached front page really came from WordPress.
			if res.Edge.FPMCPU <= 0 {
				t.Errorf("wordpress-gzip used no php-fpm CPU under edge")
			}
		}
	}
}
