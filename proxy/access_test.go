// This file tests the access modules' phases through the pipeline:
// realip (post-read and the location's), allow/deny with auth_basic under
// satisfy, and the variables they set.
package proxy

import (
	"os"
	"path/filepath"
	"testing"

	"edge/proxy/authbasic"
)

const accessConf = `events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080;
        root {{ROOT}}/html;
        set_real_ip_from 192.0.2.0/24;
        real_ip_header X-Forwarded-For;
        location / { return 200 "$remote_addr|$remote_port|$realip_remote_addr|$realip_remote_port"; }
        location /deny/ { deny 203.0.113.7; }
        location /auth/ {
            auth_basic "staging";
            auth_basic_user_file {{ROOT}}/htpasswd;
            location /auth/off/ { auth_basic off; }
        }
        location /any/ {
            satisfy any;
            allow 198.51.100.1;
            deny all;
            auth_basic "any";
            auth_basic_user_file {{ROOT}}/htpasswd;
        }
        location /all/ {
            allow 198.51.100.1;
            deny all;
            auth_basic "all";
            auth_basic_user_file {{ROOT}}/htpasswd;
        }
        location /missing/ {
            auth_basic "m";
            auth_basic_user_file {{ROOT}}/nothere;
        }
    }
}
`

// TestAccessPhases: each row is a request from 192.0.2.10:50000 (a
// trusted sender) with the X-Forwarded-For and credentials given; the
// status, the challenge and the body are what nginx's handlers give
// (ngx_http_realip_handler, ngx_http_core_access_phase with satisfy).
func TestAccessPhases(t *testing.T) {
	rt, root := testPipeline(t, accessConf, map[string]string{
		"deny/index.html": "in", "auth/index.html": "auth", "auth/off/index.html": "open",
		"any/index.html": "any", "all/index.html": "all", "missing/index.html": "m"})
	// "{PLAIN}" is nginx's own scheme: the password follows as written.
	if err := os.WriteFile(filepath.Join(root, "htpasswd"), []byte("alice:{PLAIN}secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := authbasic.EncodeCredentials("alice", "secret")
	bad := authbasic.EncodeCredentials("alice", "wrong")
	for _, tc := range []struct {
		target, xff, auth string
		status            int
		challenge, body   string
	}{
		{"/", "", "", 200, "", "192.0.2.10|50000|192.0.2.10|50000"},
		{"/", "203.0.113.7", "", 200, "", "203.0.113.7||192.0.2.10|50000"},
		{"/", "203.0.113.7:1234", "", 200, "", "203.0.113.7|1234|192.0.2.10|50000"},
		{"/", "junk", "", 200, "", "192.0.2.10|50000|192.0.2.10|50000"},
		{"/deny/", "203.0.113.7", "", 403, "", ""},
		{"/deny/", "203.0.113.8", "", 200, "", "in"},
		{"/auth/", "", "", 401, `Basic realm="staging"`, ""},
		{"/auth/", "", bad, 401, `Basic realm="staging"`, ""},
		{"/auth/", "", good, 200, "", "auth"},
		{"/auth/off/", "", "", 200, "", "open"},
		{"/any/", "198.51.100.1", "", 200, "", "any"},
		{"/any/", "203.0.113.7", "", 401, `Basic realm="any"`, ""},
		{"/any/", "203.0.113.7", good, 200, "", "any"},
		{"/all/", "198.51.100.1", "", 401, `Basic realm="all"`, ""},
		{"/all/", "198.51.100.1", good, 200, "", "all"},
		{"/all/", "203.0.113.7", good, 403, "", ""},
		{"/missing/", "", good, 403, "", ""},
	} {
		var h benchHeaders
		if tc.xff != "" {
			h = append(h, [2]string{"X-Forwarded-For", tc.xff})
		}
		if tc.auth != "" {
			h = append(h, [2]string{"Authorization", tc.auth})
		}
		r := serveFake(t, rt, "GET", tc.target, h)
		got := body(t, r)
		if r.resp.Status != tc.status || tc.body != "" && got != tc.body {
			t.Errorf("%s xff=%q: %d %q, want %d %q", tc.target, tc.xff, r.resp.Status, got, tc.status, tc.body)
		}
		if ch := r.resp.Header.Get("WWW-Authenticate"); ch != tc.challenge {
			t.Errorf("%s xff=%q: WWW-Authenticate %q, want %q", tc.target, tc.xff, ch, tc.challenge)
		}
	}
}

// TestLimitPhases: limit_req with burst and nodelay, its status and
// $limit_req_status, once per main request across an internal redirect
// (the error_page to a limited location is not limited again); limit_conn
// counts a request until its end; "set $limit_rate".
func TestLimitPhases(t *testing.T) {
	rt, _ := testPipeline(t, `events {}
http {
    access_log off;
    limit_req_zone $binary_remote_addr zone=one:32k rate=1r/m;
    limit_conn_zone $binary_remote_addr zone=addr:32k;
    server {
        listen 127.0.0.1:8080;
        root {{ROOT}}/html;
        add_header X-Status "$limit_req_status" always;
        location = /login.html { limit_req zone=one burst=1 nodelay; limit_req_status 429; error_page 429 /again.html; }
        location = /again.html { limit_req zone=one; }
        location = /conn.html { limit_conn addr 1; add_header X-Conn "$limit_conn_status"; }
        location = /rate { set $limit_rate 30k; return 200 "$limit_rate"; }
        location = /rate-bad { set $limit_rate 3x; return 200 "$limit_rate"; }
    }
}
`, map[string]string{"login.html": "login", "again.html": "again", "conn.html": "conn"})
	for i, want := range []struct {
		status int
		body   string
		limit  string
	}{{200, "login", "PASSED"}, {200, "login", "PASSED"}, {429, "again", "REJECTED"}} {
		r := serveFake(t, rt, "GET", "/login.html", nil)
		if got := body(t, r); r.resp.Status != want.status || got != want.body || r.resp.Header.Get("X-Status") != want.limit {
			t.Errorf("request %d: %d %q %q, want %d %q %q", i+1, r.resp.Status, got, r.resp.Header.Get("X-Status"), want.status, want.body, want.limit)
		}
	}
	// "set $limit_rate" sets the request's rate; a value that is not a
	// size changes nothing (ngx_http_variable_request_set_size).
	for target, want := range map[string]string{"/rate": "30720", "/rate-bad": "0"} {
		if r := serveFake(t, rt, "GET", target, nil); body(t, r) != want {
			t.Errorf("%s: $limit_rate %q, want %q", target, body(t, r), want)
		}
	}
	held := serveFake(t, rt, "GET", "/conn.html", nil)
	if held.resp.Status != 200 || held.resp.Header.Get("X-Conn") != "PASSED" {
		t.Fatalf("first limit_conn request: %d %q", held.resp.Status, held.resp.Header.Get("X-Conn"))
	}
	if r := serveFake(t, rt, "GET", "/conn.html", nil); r.resp.Status != 503 {
		t.Errorf("second request while the first is in progress: %d, want 503", r.resp.Status)
	}
	held.acc.lim.release()
	if r := serveFake(t, rt, "GET", "/conn.html", nil); r.resp.Status != 200 {
		t.Errorf("request after the first ended: %d, want 200", r.resp.Status)
	}
}
