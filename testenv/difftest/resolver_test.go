// This file compares what nginx and edge log and answer when a
// proxy_pass with variables resolves its host: the status and the
// error line of each failure ("could not be resolved (3: Host not
// found)", "no resolver defined to resolve"), that an answer is kept
// for its TTL (one question for several requests), and that a name
// with a dead address and a live one is served by trying the next.

package difftest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"edge/testenv"
)

func TestResolverAgainstNginx(t *testing.T) {
	e := newEnv(t)
	dns := testenv.StartDNS(t, map[string]testenv.DNSRecord{
		"backend.test": {Addrs: []string{"127.0.0.1"}, TTL: 60},
		"fail.test":    {RCode: 2},
		"empty.test":   {TTL: 60},
		"slow.test":    {Silent: true},
		// 127.0.0.2 has no backend: the request goes on to 127.0.0.1.
		"half.test": {Addrs: []string{"127.0.0.2", "127.0.0.1"}, TTL: 60},
	})
	fpm := testenv.StartFPM(t, testenv.FPMOptions{Listen: "127.0.0.1:0"})
	_, fpmPort, _ := strings.Cut(fpm.Address, ":")
	body := strings.ReplaceAll(proxyResolver, "{{DNS}}", dns.Addr)
	// fastcgi_pass resolves the same way.
	body = strings.Replace(body, "    location /r/ {", `    location /php/ {
        root {{ROOT}};
        fastcgi_param SCRIPT_FILENAME {{ROOT}}/info.php;
        fastcgi_pass $arg_name:`+fpmPort+`;
    }
    location /r/ {`, 1)
	body = strings.ReplaceAll(body, "resolver_timeout 5s;", "resolver_timeout 1s;")
	pNg, pEd := testenv.FreePort(t), testenv.FreePort(t)
	ngConf := loadModules + testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs("") +
		"include " + e.mime + ";\n" + e.render(body, pNg) + "}\n"
	ng := testenv.StartNginx(t, ngConf, pNg)
	prefix := testenv.EdgePrefix(t)
	ed := testenv.StartEdge(t, testenv.EdgeOptions{Prefix: prefix, Conf: edgeConf(prefix, e.render(body, pEd), e.mime), Global: "daemon off;", Ports: []int{pEd}})
	logs := map[string]string{"nginx": ng.ErrorLog(), "edge": filepath.Join(prefix, "logs", "error.log")}
	addrs := map[string]string{"nginx": ng.Addr(), "edge": ed.Addr()}

	cases := []struct {
		target, host string
		status       int
		line         string // the error line's message, "" for none
	}{
		{"/r/x?name=backend.test", "localhost", 200, ""},
		{"/r/y?name=backend.test", "localhost", 200, ""},
		{"/r/x?name=nx.test", "localhost", 502, "nx.test could not be resolved (3: Host not found)"},
		{"/r/x?name=fail.test", "localhost", 502, "fail.test could not be resolved (2: Server failure)"},
		{"/r/x?name=empty.test", "localhost", 502, "empty.test could not be resolved (3: Host not found)"},
		{"/r/x?name=slow.test", "localhost", 502, "slow.test could not be resolved (110: Operation timed out)"},
		{"/x", "nores", 502, "no resolver defined to resolve backend.test"},
		{"/implicit/x", "nores", 200, ""},
		{"/php/?name=backend.test", "localhost", 200, ""},
		{"/php/?name=nx2.test", "localhost", 502, "nx2.test could not be resolved (3: Host not found)"},
	}
	for _, server := range []string{"nginx", "edge"} {
		for _, c := range cases {
			resp, err := testenv.DoRaw(addrs[server], "GET "+c.target+" HTTP/1.1\r\nHost: "+c.host+"\r\nConnection: close\r\n\r\n")
			if err != nil {
				t.Fatalf("%s %s: %v", server, c.target, err)
			}
			if resp.Status != c.status {
				t.Errorf("%s %s: status %d, want %d", server, c.target, resp.Status, c.status)
			}
		}
		// Both addresses of half.test, whichever comes first: 200.
		for range 3 {
			resp, err := testenv.DoRaw(addrs[server], "GET /r/h?name=half.test HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
			if err != nil || resp.Status != 200 {
				t.Errorf("%s half.test: %v %v, want 200", server, resp, err)
			}
		}
	}
	for server, path := range logs {
		testenv.Eventually(t, server+"'s error lines", func() bool {
			b, _ := os.ReadFile(path)
			return strings.Contains(string(b), "no resolver defined")
		})
		b, _ := os.ReadFile(path)
		for _, c := range cases {
			if c.line == "" {
				continue
			}
			re := regexp.MustCompile(`\[error\] .*` + regexp.QuoteMeta(c.line) + `, client: 127\.0\.0\.1, server: \w+, request: "GET `)
			if !re.Match(b) {
				t.Errorf("%s's error log has no line %q:\n%s", server, c.line, b)
			}
		}
	}
	// One question per name within its TTL, from each server.
	if n := dns.Asked("backend.test"); n > 2 {
		t.Errorf("backend.test asked %d times by two servers within its TTL, want 2", n)
	}
}
