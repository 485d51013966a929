package conf

import (
	"strings"
	"testing"
	"time"
)

// TestAccessLogSharesFileBuffer: nginx's buffer belongs to the file, so
// an access_log without buffer= to a file that another access_log
// buffers (earlier or later in the file) is buffered the same way, and a
// log to another file is not.
func TestAccessLogSharesFileBuffer(t *testing.T) {
	plan, err := LoadText("logs.conf", []byte(`events {}
http {
    server {
        listen 127.0.0.1:8080;
        server_name a;
        access_log logs/shared.log;
        location /other/ { access_log logs/other.log; }
    }
    server {
        listen 127.0.0.1:8080;
        server_name b;
        access_log logs/shared.log combined buffer=4k flush=5s;
    }
}
`), LoadOptions{Prefix: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = plan.EachLocation(func(l *Location) error {
		for _, al := range l.AccessLogs {
			seen++
			want := AccessLog{Buffer: 4096, Flush: 5 * time.Second}
			if strings.HasSuffix(al.Path.Raw, "other.log") {
				want = AccessLog{}
			}
			if al.Buffer != want.Buffer || al.Flush != want.Flush {
				t.Errorf("location %q, %q: buffer %d flush %v, want %d %v", l.Name, al.Path.Raw,
					al.Buffer, al.Flush, want.Buffer, want.Flush)
			}
		}
		return nil
	})
	if err != nil || seen != 3 {
		t.Fatalf("walked %d access logs (%v), want 3", seen, err)
	}
}
