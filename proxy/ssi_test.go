package proxy

import (
	"strings"
	"testing"
	"time"
)

// ssiConf serves SSI pages whose includes reach a return, a rewrite, an
// internal location and a nested SSI page.
const ssiConf = `events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080;
        server_name example.com;
        root {{ROOT}}/html;
        location / { ssi on; }
        location /lm/ { ssi on; ssi_last_modified on; }
        location = /vars { return 200 "uri=$uri args=$args ru=$request_uri m=$request_method"; }
        location /rw/ { rewrite ^/rw/(.*)$ /vars?from=$1 last; }
        location /hidden/ { internal; return 200 "internal ok"; }
        location = /big { subrequest_output_buffer_size 8; return 200 "0123456789"; }
        location = /fits { subrequest_output_buffer_size 10; return 200 "0123456789"; }
    }
}
`

func TestSSISubrequests(t *testing.T) {
	rt, _ := testPipeline(t, ssiConf, map[string]string{
		"a.html":      `[<!--#include virtual="/vars?x=1" -->][<!--#include virtual="/rw/p" -->][<!--#include virtual="/hidden/x" -->]`,
		"set.html":    `<!--#include virtual="/fits" set="f" -->f=<!--#echo var="f" -->`,
		"big.html":    `<!--#include virtual="/big" set="b" -->b=<!--#echo var="b" -->`,
		"nested.html": `n(<!--#include virtual="inner.html" -->)`,
		"inner.html":  `i:<!--#echo var="uri" -->`,
		"lm/p.html":   `lm`,
	})
	for _, tc := range []struct{ target, want string }{
		{"/a.html?q=2", "[uri=/vars args=x=1 ru=/a.html?q=2 m=GET][uri=/vars args=from=p ru=/a.html?q=2 m=GET][internal ok]"},
		{"/set.html", "f=0123456789"},
		{"/nested.html", "n(i:/inner.html)"},
	} {
		r := serveFake(t, rt, "GET", tc.target, nil)
		if r.resp.Status != 200 || r.resp.Kind != BodyStream || r.resp.Length != -1 {
			t.Errorf("%s: status %d kind %d length %d, want a 200 stream of unknown length", tc.target, r.resp.Status, r.resp.Kind, r.resp.Length)
		}
		if got := body(t, r); got != tc.want {
			t.Errorf("%s: body %q, want %q", tc.target, got, tc.want)
		}
		for _, h := range []string{"Content-Length", "Last-Modified", "ETag", "Accept-Ranges"} {
			if r.resp.Header.Has(h) {
				t.Errorf("%s: %s is kept", tc.target, h)
			}
		}
	}
	// Past subrequest_output_buffer_size before any output: no response.
	if r := serveFake(t, rt, "GET", "/big.html", nil); !r.resp.Drop {
		t.Errorf("/big.html: not dropped (status %d)", r.resp.Status)
	}
	// ssi_last_modified on keeps Last-Modified and weakens the ETag.
	r := serveFake(t, rt, "GET", "/lm/p.html", nil)
	if !r.resp.Header.Has("Last-Modified") || r.resp.Header.Get("ETag")[:2] != "W/" {
		t.Errorf("/lm/p.html: Last-Modified %q ETag %q", r.resp.Header.Get("Last-Modified"), r.resp.Header.Get("ETag"))
	}
	// HEAD runs no command and has no length.
	r = serveFake(t, rt, "HEAD", "/a.html", nil)
	if r.resp.Header.Has("Content-Length") || body(t, r) != "" {
		t.Errorf("HEAD /a.html: Content-Length %q, body %q", r.resp.Header.Get("Content-Length"), body(t, r))
	}
}

func TestSSIStrftime(t *testing.T) {
	at := time.Date(2024, 3, 1, 9, 5, 7, 0, time.UTC)
	for f, want := range map[string]string{
		ssiDefaultTimefmt:            "Friday, 01-Mar-2024 09:05:07 GMT",
		"%a %b %e %j %y %C %p %u %w": "Fri Mar  1 061 24 20 AM 5 5",
		"%D %F %R %T %%":             "03/01/24 2024-03-01 09:05 09:05:07 %",
		"%I %k %s %z":                "09  9 1709283907 +0000",
	} {
		if got := strftime(f, at); got != want {
			t.Errorf("strftime(%q) = %q, want %q", f, got, want)
		}
	}
}

// TestSSISubrequestLimits: limit_req counts once per main request, so a
// subrequest to a limited location passes when its main request was not
// limited, and the next one of the same main request is not counted.
func TestSSISubrequestLimits(t *testing.T) {
	rt, _ := testPipeline(t, `events {}
http {
    access_log off;
    limit_req_zone $binary_remote_addr zone=one:1m rate=1r/m;
    server {
        listen 127.0.0.1:8080;
        server_name example.com;
        root {{ROOT}}/html;
        location / { ssi on; }
        location = /limited.txt { limit_req zone=one; }
    }
}
`, map[string]string{"limited.txt": "in",
		"two.html": `<!--#include virtual="/limited.txt" -->,<!--#include virtual="/limited.txt" -->`})
	r := serveFake(t, rt, "GET", "/two.html", nil)
	if got := body(t, r); got != "in,in" {
		t.Errorf("first page: %q, want both includes in", got)
	}
	r = serveFake(t, rt, "GET", "/two.html", nil)
	if got := body(t, r); !strings.Contains(got, "503") {
		t.Errorf("second page: %q, want the limit's 503 page", got)
	}
}
