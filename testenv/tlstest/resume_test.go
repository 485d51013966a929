// Session resumption seen by OpenSSL's own client: openssl s_client
// -sess_out saves the session of a first connection and -sess_in offers
// it on a second, which prints "Reused". Across two edge processes given
// the same ssl_session_ticket_key file, a session from one resumes on the
// other (what several instances behind a load balancer need).

package tlstest

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"edge/testenv"
)

// sClient runs one openssl s_client connection that sends a request, and
// returns whether the session was "New" or "Reused".
func sClient(t *testing.T, caFile string, port int, version string, sessFlag, sessFile string) string {
	t.Helper()
	openssl := testenv.Binary(t, "openssl", "openssl")
	cmd := exec.Command(openssl, "s_client", "-connect", listen(port), "-servername", "localhost",
		"-CAfile", caFile, "-verify_return_error", "-ign_eof", version, sessFlag, sessFile)
	// Reading the response also reads the TLS 1.3 tickets sent after the
	// handshake, before s_client saves the session.
	cmd.Stdin = strings.NewReader("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
	out, err := cmd.CombinedOutput()
	m := regexp.MustCompile(`(?m)^(New|Reused), (TLSv1\.[23])`).FindSubmatch(out)
	if m == nil || !bytes.Contains(out, []byte("hello over TLS")) {
		t.Fatalf("openssl s_client %s: %v\n%s", version, err, out)
	}
	return string(m[1]) + " " + string(m[2])
}

func TestSessionResumptionOpenSSL(t *testing.T) {
	dir, _ := siteDir(t)
	port := testenv.FreePort(t)
	startEdge(t, dir, "edge", edgeMain+fmt.Sprintf(`
http {
    access_log logs/access.log;
    ssl_session_cache shared:SSL:10m;
    ssl_session_timeout 4h;
    server {
        listen %s ssl;
        server_name localhost;
        ssl_certificate ec.crt;
        ssl_certificate_key ec.key;
        root html;
    }
}
`, listen(port)), port)
	ca := filepath.Join(dir, "ca.crt")
	for _, v := range []struct{ flag, name string }{{"-tls1_2", "TLSv1.2"}, {"-tls1_3", "TLSv1.3"}} {
		t.Run(v.name, func(t *testing.T) {
			sess := filepath.Join(t.TempDir(), "session.pem")
			if got := sClient(t, ca, port, v.flag, "-sess_out", sess); got != "New "+v.name {
				t.Errorf("first connection: %s", got)
			}
			if got := sClient(t, ca, port, v.flag, "-sess_in", sess); got != "Reused "+v.name {
				t.Errorf("second connection: %s, want Reused", got)
			}
		})
	}
}

func TestSessionResumptionAcrossProcesses(t *testing.T) {
	dir, _ := siteDir(t)
	// An nginx ticket key file: 80 bytes (name, HMAC key, AES key).
	key := make([]byte, 80)
	rand.Read(key)
	writeFile(t, filepath.Join(dir, "ticket.key"), key)
	ports := []int{testenv.FreePort(t), testenv.FreePort(t)}
	for i, port := range ports {
		startEdge(t, dir, fmt.Sprintf("edge%d", i+1), edgeMain+fmt.Sprintf(`
http {
    access_log logs/access%d.log;
    ssl_session_ticket_key ticket.key;
    server {
        listen %s ssl;
        server_name localhost;
        ssl_certificate ec.crt;
        ssl_certificate_key ec.key;
        root html;
    }
}
`, i+1, listen(port)), port)
	}
	ca := filepath.Join(dir, "ca.crt")
	for _, v := range []struct{ flag, name string }{{"-tls1_2", "TLSv1.2"}, {"-tls1_3", "TLSv1.3"}} {
		t.Run(v.name, func(t *testing.T) {
			sess := filepath.Join(t.TempDir(), "session.pem")
			sClient(t, ca, ports[0], v.flag, "-sess_out", sess)
			if got := sClient(t, ca, ports[1], v.flag, "-sess_in", sess); got != "Reused "+v.name {
				t.Errorf("a session from the first edge on the second: %s, want Reused", got)
			}
		})
	}
}
