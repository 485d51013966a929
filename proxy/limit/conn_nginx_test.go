// This file holds requests open in Debian's nginx (a slow download under
// limit_rate) to count them with limit_conn, and runs the same sequence of
// acquisitions through the engine.

package limit_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/proxy/limit"
	"edge/testenv"
)

func TestLimitConnAgainstNginx(t *testing.T) {
	// Each query is sent and its response headers read; the body, held
	// back by limit_rate, keeps the request in progress until the end.
	seq := []string{"k=a&j=x", "k=a&j=x", "k=a&j=y", "k=a&j=z", "k=b&j=z", "k=&j=", "k=c&j="}
	for _, dry := range []bool{false, true} {
		t.Run(fmt.Sprintf("dry run %v", dry), func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "big"), make([]byte, 1<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			port := testenv.FreePort(t)
			dryLine := ""
			if dry {
				dryLine = "limit_conn_dry_run on;\n"
			}
			conf := testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs("") +
				"limit_conn_zone $arg_k zone=c:32k;\nlimit_conn_zone $arg_j zone=d:32k;\n" +
				fmt.Sprintf("server {\nlisten 127.0.0.1:%d;\nroot %s;\n", port, root) +
				"location / {\nlimit_conn c 2;\nlimit_conn d 1;\n" + dryLine +
				"limit_rate_after 1k;\nlimit_rate 100;\nadd_header X-Conn $limit_conn_status always;\n}\n}\n}\n"
			n := testenv.StartNginx(t, conf, port)

			var nginx []string
			for _, q := range seq {
				c, err := net.Dial("tcp", n.Addr())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				fmt.Fprintf(c, "GET /big?%s HTTP/1.1\r\nHost: a\r\n\r\n", q)
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Fatal(err)
				}
				nginx = append(nginx, fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("X-Conn")))
			}

			cz, _ := limit.NewConnZone("c", 32<<10)
			dz, _ := limit.NewConnZone("d", 32<<10)
			limits := []limit.ConnLimit{{Zone: cz, Conn: 2}, {Zone: dz, Conn: 1}}
			var engine []string
			for _, q := range seq {
				v, _ := url.ParseQuery(q)
				var hold limit.ConnHold
				d := limit.AcquireConn(limits, [][]byte{[]byte(v.Get("k")), []byte(v.Get("j"))}, dry, &hold)
				code := 200
				if d.Status == limit.ConnRejected {
					code = 503
				}
				engine = append(engine, fmt.Sprintf("%d %s", code, d.Status))
			}
			if strings.Join(nginx, ",") != strings.Join(engine, ",") {
				t.Fatalf("nginx  %v\nengine %v", nginx, engine)
			}
			t.Logf("%v", nginx)
		})
	}
}
