// This file tests headers-more's commands through the pipeline: the
// response's headers with -s, -t, wildcards, Server and the order
// against add_header; the request's headers as variables and CGI params
// see them; inheritance across levels.
package proxy

import (
	"strings"
	"testing"

	"edge/conf"
)

const headersMoreConf = `events {}
http {
    access_log off;
    default_type text/plain;
    more_set_headers 'X-Http: h';
    server {
        listen 127.0.0.1:8080;
        server_name example.com;
        root {{ROOT}}/html;
        charset utf-8;
        more_clear_headers 'X-Hidden-*';
        location /set { more_set_headers 'X-A: $uri' 'X-B: b'; add_header X-Hidden-Add kept; return 200 "set\n"; }
        location /replace {
            add_header X-Powered-By php;
            more_set_headers 'Content-Type: text/x-more' 'Cache-Control: no-store';
            expires 1h;
            return 200 "r\n";
        }
        location /status {
            more_set_headers -s '404 500' -s 503 'X-Err: yes';
            more_set_headers -s 200 'X-Ok: yes';
            return 404;
        }
        location /type {
            more_set_headers -t 'text/html' 'X-Html: yes';
            more_set_headers -t 'text/plain text/css' 'X-Plain: yes';
            more_set_headers -t 'text/html; charset=utf-8' 'X-Html-Charset: yes';
        }
        location /server { more_clear_headers Server; return 200 "s\n"; }
        location /myserver { more_set_headers 'Server: my-server'; return 200 "s\n"; }
        location /input {
            more_set_input_headers 'X-In: $arg_v' 'User-Agent: faked';
            more_clear_input_headers 'X-Drop-*' Cookie;
            more_set_input_headers -r 'X-Only: replaced' 'X-Present: replaced';
            add_header X-Seen "in=$http_x_in ua=$http_user_agent drop=$http_x_drop_a cookie=$http_cookie only=$http_x_only present=$http_x_present";
            try_files /f.txt =404;
        }
        location /host {
            more_set_input_headers 'Host: Other.Example:81';
            add_header X-Seen "host=$host http_host=$http_host";
            try_files /f.txt =404;
        }
        location /ctype {
            more_set_input_headers -t 'application/json' 'X-Json: yes';
            add_header X-Seen "json=$http_x_json";
            try_files /f.txt =404;
        }
        # "return" ends the rewrite phase before headers-more's input
        # commands run, so the request's headers are unchanged.
        location /return {
            more_set_input_headers 'X-In: set';
            return 200 "in=$http_x_in";
        }
        location /inherit {
            more_set_headers 'X-Loc: l';
            if ($arg_x) { more_set_headers 'X-If: i'; }
            return 200 "i\n";
        }
    }
}
`

func TestHeadersMoreOutput(t *testing.T) {
	rt, _ := testPipeline(t, headersMoreConf, map[string]string{
		"type/index.html": "<p>html</p>\n",
		"type/a.txt":      "text\n",
		"type/a.css":      "p{}\n",
	})
	for _, tc := range []struct {
		target string
		status int
		want   map[string]string // "" means absent
	}{
		// add_header runs after headers-more, so X-Hidden-Add survives
		// the server's more_clear_headers X-Hidden-*.
		{"/set", 200, map[string]string{"X-Http": "h", "X-A": "/set", "X-B": "b", "X-Hidden-Add": "kept"}},
		// expires runs after too, and replaces the Cache-Control.
		{"/replace", 200, map[string]string{"Content-Type": "text/x-more", "Cache-Control": "max-age=3600", "X-Powered-By": "php"}},
		{"/status", 404, map[string]string{"X-Err": "yes", "X-Ok": ""}},
		// -t sees the type before charset adds its parameter, and reads
		// "text/html; charset=utf-8" as the types text/html and charset=utf-8.
		{"/type/", 200, map[string]string{"X-Html": "yes", "X-Html-Charset": "yes", "X-Plain": "", "Content-Type": "text/html; charset=utf-8"}},
		{"/type/a.txt", 200, map[string]string{"X-Html": "", "X-Plain": "yes"}},
		{"/type/a.css", 200, map[string]string{"X-Plain": "yes"}},
		{"/server", 200, map[string]string{"Server": ""}},
		{"/myserver", 200, map[string]string{"Server": "my-server"}},
		{"/inherit", 200, map[string]string{"X-Http": "h", "X-Loc": "l", "X-If": ""}},
		{"/inherit?x=1", 200, map[string]string{"X-Http": "h", "X-Loc": "l", "X-If": "i"}},
	} {
		r := serveFake(t, rt, "GET", tc.target, nil)
		if r.resp.Status != tc.status {
			t.Errorf("%s: status %d, want %d", tc.target, r.resp.Status, tc.status)
		}
		for name, want := range tc.want {
			if got := r.resp.Header.Get(name); got != want || (want == "" && r.resp.Header.Has(name)) {
				t.Errorf("%s: %s = %q, want %q", tc.target, name, got, want)
			}
		}
	}
}

func TestHeadersMoreInput(t *testing.T) {
	rt, _ := testPipeline(t, headersMoreConf, map[string]string{"f.txt": "f\n"})
	for _, tc := range []struct {
		target  string
		headers benchHeaders
		want    string
	}{
		{"/input?v=1", benchHeaders{{"User-Agent", "curl"}, {"X-Drop-A", "x"}, {"Cookie", "a=1"}, {"Cookie", "b=2"}, {"X-Present", "old"}},
			"in=1 ua=faked drop= cookie= only= present=replaced"},
		{"/host", nil, "host=other.example http_host=Other.Example:81"},
		{"/ctype", benchHeaders{{"Content-Type", "application/json"}}, "json=yes"},
		{"/ctype", benchHeaders{{"Content-Type", "application/json; charset=utf-8"}}, "json="},
	} {
		r := serveFake(t, rt, "GET", tc.target, tc.headers)
		if got := r.resp.Header.Get("X-Seen"); got != tc.want {
			t.Errorf("%s: X-Seen %q, want %q", tc.target, got, tc.want)
		}
	}
	if got := body(t, serveFake(t, rt, "GET", "/return", benchHeaders{{"X-In", "sent"}})); got != "in=sent" {
		t.Errorf("/return: body %q, want the header as sent", got)
	}
}

// TestHeadersMoreCGIParams: PHP sees the changed request headers as its
// HTTP_* params.
func TestHeadersMoreCGIParams(t *testing.T) {
	rt, _ := testPipeline(t, strings.Replace(headersMoreConf, "location /host {",
		"location /php { more_set_input_headers 'X-Site: one'; more_clear_input_headers Cookie; include fastcgi_params; fastcgi_pass 127.0.0.1:9; }\n        location /host {", 1), nil)
	r := routeFake(t, rt, "GET", "/php", benchHeaders{{"Cookie", "a=1"}, {"X-Site", "zero"}, {"Accept", "*/*"}})
	params := map[string]string{}
	r.headers = r.Header.AppendAll(r.headers[:0])
	for _, p := range cgiParams(nil, &r.loc.FastCGI, r.srv, r.headers, func(s *conf.Script) string { return rt.eval(r, s) }) {
		params[p.Name] = p.Value
	}
	if params["HTTP_X_SITE"] != "one" || params["HTTP_ACCEPT"] != "*/*" {
		t.Errorf("params: HTTP_X_SITE=%q HTTP_ACCEPT=%q", params["HTTP_X_SITE"], params["HTTP_ACCEPT"])
	}
	if v, ok := params["HTTP_COOKIE"]; ok {
		t.Errorf("HTTP_COOKIE = %q after more_clear_input_headers", v)
	}
}
