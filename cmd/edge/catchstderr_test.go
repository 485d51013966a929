// This file compares fastcgi_catch_stderr with nginx's: a message PHP
// logs before its response header that holds a caught string turns the
// response into a 502, one logged after the header has gone does not,
// and one that matches nothing is only logged.
package main

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"
)

const catchStderrHTTP = `
    server {
        listen 127.0.0.1:%[1]d;
        root %[2]s;
        location ~ ^/nocatch/(.+\.php)$ {
            fastcgi_pass %[3]s;
            include %[4]s;
            fastcgi_param SCRIPT_FILENAME $document_root/$1;
        }
        location ~ \.php$ {
            fastcgi_pass %[3]s;
            include %[4]s;
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
            fastcgi_catch_stderr "DB ERROR:";
            fastcgi_catch_stderr "Fatal";
        }
    }
`

func TestFastCGICatchStderr(t *testing.T) {
	root := t.TempDir()
	scripts := map[string]string{
		"early.php":  `<?php error_log("DB ERROR: connection refused"); echo "early body\n";`,
		"second.php": `<?php error_log("a notice"); error_log("Fatal: out of memory"); echo "second body\n";`,
		"late.php":   `<?php echo "late body\n"; ob_flush(); flush(); error_log("DB ERROR: after the header");`,
		"other.php":  `<?php error_log("just a notice"); echo "other body\n";`,
	}
	for name, src := range scripts {
		writeFile(t, filepath.Join(root, name), src)
	}
	fpm := testenv.StartFPM(t, testenv.FPMOptions{Listen: "127.0.0.1:0", StderrToServer: true})

	params := filepath.Join(testenv.RepoRoot(t), "conf", "fastcgi_params")
	port := testenv.FreePort(t)
	ng := testenv.StartNginx(t, testenv.NginxMain(1)+"http {\n"+testenv.NginxHTTPTemps("")+"access_log off;\n"+
		fmt.Sprintf(catchStderrHTTP, port, root, fpm.Address, params)+"}\n", port)
	s := newSite(t, "")
	s.writeConf("daemon off;\nerror_log logs/error.log info;\nevents {}\nhttp {\naccess_log off;\n" +
		fmt.Sprintf(catchStderrHTTP, s.port, root, fpm.Address, params) + "}\n")
	s.start()

	for _, path := range []string{"/early.php", "/second.php", "/late.php", "/other.php", "/nocatch/early.php"} {
		raw := "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
		ng := testenv.RawHTTP(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), raw)
		ed := testenv.RawHTTP(t, s.addr, raw)
		if ng.Status != ed.Status || ng.Status == 200 && string(ng.Body) != string(ed.Body) {
			t.Errorf("GET %s: nginx %d %q, edge %d %q", path, ng.Status, ng.Body, ed.Status, ed.Body)
		}
		want := 200
		if path == "/early.php" || path == "/second.php" {
			want = 502
		}
		if ed.Status != want {
			t.Errorf("GET %s: edge %d, want %d", path, ed.Status, want)
		}
	}
	// Both log what PHP sent, and nothing more for the 502: the message
	// before the header "while reading response header from upstream",
	// the one after it "while reading upstream".
	for _, log := range []string{ng.ErrorLog(), s.errorLog()} {
		waitLog(t, log, `FastCGI sent in stderr: "PHP message: DB ERROR: after the header" while reading upstream`)
		text := waitLog(t, log, `FastCGI sent in stderr: "PHP message: DB ERROR: connection refused" while reading response header from upstream`)
		if strings.Contains(text, "invalid header") {
			t.Errorf("%s logs an invalid header:\n%s", log, text)
		}
	}
}
