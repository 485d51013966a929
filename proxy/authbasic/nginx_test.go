// This file puts one user file and a set of Authorization headers through
// Debian's nginx and through Check, and compares the status and the
// WWW-Authenticate header of each.

package authbasic

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edge/testenv"
)

// userFile exercises nginx's scanner: comments, a CR line, a comment
// field, a line that is a prefix of "trent:" (which hides the next line),
// a leading space, a CRLF line and a last line without a newline.
var userFile = strings.Join([]string{
	"# comment",
	"alice:{PLAIN}wonderland",
	"bob:$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/:Bob, a comment field",
	"carol:$1$saltsalt$9xy1btjgzLYfb7hivXtC//",
	"dave:$5$saltstring$C3o4O1TC6aRHF4FI.QSZMXtHbaj2gSXr4sUc/3NcUi.",
	"erin:$6$saltstring$AIsRs/Ee56G/tC8MEHhvReZTfx8u3rXXMl6eYrjCG9ibix19DxoMBLogdTET5Ukw9Sf7eZTITsuk0Ry5qulYz.",
	"frank:$2y$05$9GF4mNGvB8qL34Bl7KnzxOALCpSntd04QS37IwEEbUsDcYuD5r0fS",
	"grace:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=",
	"heidi:{SSHA}gVK8WC9YyFT1gMsQHTGCgT3sSv5zYWx0",
	"ivan:$9$abc$def",
	"\rnotme:{PLAIN}x",
	"tre",
	"trent:{PLAIN}first",
	"trent:{PLAIN}second",
	" oscar:{PLAIN}space",
	"peggy:{PLAIN}crlf\r",
	"victor:$5$rounds=999$ab$cd",
	"alice:{PLAIN}shadowed",
	"judy:$y$j9T$abcdefghijklmnop$3dL1LkYnZM.OVXuVdnnaKVDlLYT92dRwOzDZ5XiVCe.",
	"des:AomWQxERVFjdc",
	"plain:secret",
	"",
	"zed:{PLAIN}last",
}, "\n")

type authCase struct {
	name, path, authorization string
	// edge is edge's status where it knowingly differs from nginx: a
	// scheme libxcrypt computes and edge does not (ErrUnsupportedHash).
	edge int
}

func authCases() []authCase {
	c := func(user, pw string) string { return EncodeCredentials(user, pw) }
	return []authCase{
		{"no header", "/a/f.txt", "", 0},
		{"plain", "/a/f.txt", c("alice", "wonderland"), 0},
		{"plain wrong", "/a/f.txt", c("alice", "shadowed"), 0},
		{"apr1 with comment field", "/a/f.txt", c("bob", "secret"), 0},
		{"md5-crypt", "/a/f.txt", c("carol", "secret"), 0},
		{"sha256-crypt", "/a/f.txt", c("dave", "secret"), 0},
		{"sha512-crypt", "/a/f.txt", c("erin", "secret"), 0},
		{"sha512-crypt wrong", "/a/f.txt", c("erin", "Secret"), 0},
		{"bcrypt", "/a/f.txt", c("frank", "secret"), 0},
		{"sha", "/a/f.txt", c("grace", "secret"), 0},
		{"ssha", "/a/f.txt", c("heidi", "secret"), 0},
		{"unknown scheme", "/a/f.txt", c("ivan", "secret"), 0},
		{"line after CR start", "/a/f.txt", c("notme", "x"), 0},
		{"hidden by a prefix line", "/a/f.txt", c("trent", "first"), 0},
		{"line after the hidden one", "/a/f.txt", c("trent", "second"), 0},
		{"prefix line itself", "/a/f.txt", c("tre", ""), 0},
		{"leading space kept", "/a/f.txt", c(" oscar", "space"), 0},
		{"trimmed user not found", "/a/f.txt", c("oscar", "space"), 0},
		{"crlf", "/a/f.txt", c("peggy", "crlf"), 0},
		{"rounds under 1000", "/a/f.txt", c("victor", "secret"), 0},
		{"last line", "/a/f.txt", c("zed", "last"), 0},
		{"unknown user", "/a/f.txt", c("nobody", "x"), 0},
		{"empty user", "/a/f.txt", "Basic " + b64(":wonderland"), 0},
		{"no colon", "/a/f.txt", "Basic " + b64("alice"), 0},
		{"lower-case scheme", "/a/f.txt", "basic " + b64("alice:wonderland"), 0},
		{"spaces before credentials", "/a/f.txt", "Basic    " + b64("alice:wonderland"), 0},
		{"no padding", "/a/f.txt", "Basic " + strings.TrimRight(b64("alice:wonderland1"), "="), 0},
		{"junk after padding", "/a/f.txt", "Basic " + b64("alice:wonderland1") + "junk", 0},
		{"bad base64", "/a/f.txt", "Basic !!!!", 0},
		{"scheme only", "/a/f.txt", "Basic", 0},
		{"other scheme", "/a/f.txt", "Bearer abc", 0},
		{"password with colon", "/a/f.txt", c("alice", "wonder:land"), 0},
		{"missing file", "/missing/f.txt", c("alice", "wonderland"), 0},
		{"missing file, no header", "/missing/f.txt", "", 0},
		{"realm with quotes", "/q/f.txt", "", 0},
		{"yescrypt", "/a/f.txt", c("judy", "secret"), 500},
		{"traditional DES", "/a/f.txt", c("des", "secret"), 0},
		{"traditional DES wrong", "/a/f.txt", c("des", "secreT"), 0},
		{"plain text as DES", "/a/f.txt", c("plain", "secret"), 0},
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestAgainstNginx(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "htpasswd")
	if err := os.WriteFile(file, []byte(userFile), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	for _, d := range []string{"a", "missing", "q"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, d, "f.txt"), []byte("ok\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "nonexistent")
	const qRealm = `a "quoted" realm`
	port := testenv.FreePort(t)
	conf := testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs("") +
		fmt.Sprintf("server {\nlisten 127.0.0.1:%d;\nroot %s;\n", port, root) +
		fmt.Sprintf("location /a/ { auth_basic \"Restricted\"; auth_basic_user_file %s; }\n", file) +
		fmt.Sprintf("location /missing/ { auth_basic \"Restricted\"; auth_basic_user_file %s; }\n", missing) +
		fmt.Sprintf("location /q/ { auth_basic 'a \"quoted\" realm'; auth_basic_user_file %s; }\n", file) +
		"}\n}\n"
	n := testenv.StartNginx(t, conf, port)

	files := map[string]string{"/a/": file, "/missing/": missing, "/q/": file}
	realms := map[string]string{"/a/": "Restricted", "/missing/": "Restricted", "/q/": qRealm}
	for _, tc := range authCases() {
		prefix := tc.path[:strings.Index(tc.path[1:], "/")+2]
		status, challenge := nginxGet(t, n.Addr(), tc.path, tc.authorization)
		if status == 200 {
			status = 0
		}
		r := Check(files[prefix], tc.authorization)
		got := ""
		if r.Status == 401 {
			got = Challenge(realms[prefix])
		}
		t.Logf("%-28s nginx %3d, edge %3d %s", tc.name, status, r.Status, r.Message)
		if tc.edge != 0 {
			if status != 0 || r.Status != tc.edge || r.Level != "crit" {
				t.Errorf("%s: edge %d [%s] %s, nginx %d; want edge %d [crit]", tc.name, r.Status, r.Level, r.Message, status, tc.edge)
			}
			continue
		}
		if r.Status != status || got != challenge {
			t.Errorf("%s: edge %d %q (%s), nginx %d %q", tc.name, r.Status, got, r.Message, status, challenge)
		}
	}
}

func nginxGet(t *testing.T, addr, path, authorization string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "GET " + path + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
	if authorization != "" {
		req += "Authorization: " + authorization + "\r\n"
	}
	fmt.Fprint(c, req+"\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}
