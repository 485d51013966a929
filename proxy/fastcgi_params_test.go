// This file checks cgiParams, the pure builder of a FastCGI request's
// params, against the names and order of nginx's fastcgi_params and
// fastcgi.conf, and the rules for the HTTP_* params made of headers.
package proxy

import (
	"crypto/tls"
	"slices"
	"strings"
	"testing"

	"edge/conf"
)

// nginxFastCGIParams are the names of upstream nginx 1.22's
// conf/fastcgi_params, in its order (Debian's copy adds HTTP_HOST; see
// conf/fastcgi_params for why edge's does not).
var nginxFastCGIParams = []string{
	"QUERY_STRING", "REQUEST_METHOD", "CONTENT_TYPE", "CONTENT_LENGTH",
	"SCRIPT_NAME", "REQUEST_URI", "DOCUMENT_URI", "DOCUMENT_ROOT",
	"SERVER_PROTOCOL", "REQUEST_SCHEME", "HTTPS", "GATEWAY_INTERFACE",
	"SERVER_SOFTWARE", "REMOTE_ADDR", "REMOTE_PORT", "REMOTE_USER",
	"SERVER_ADDR", "SERVER_PORT", "SERVER_NAME", "REDIRECT_STATUS",
}

// paramsConf passes /app/ with fastcgi.conf, /plain/ with fastcgi_params
// and a SCRIPT_FILENAME of its own, and other locations with variations.
const paramsConf = `events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080;
        server_name example.com www.example.com;
        root {{ROOT}}/html;
        location /app/ { include fastcgi.conf; fastcgi_pass 127.0.0.1:9; fastcgi_index index.php; }
        location /plain/ {
            include fastcgi_params;
            fastcgi_param SCRIPT_FILENAME /srv/run.php;
            fastcgi_pass 127.0.0.1:9;
        }
        location /ua/ { fastcgi_param HTTP_USER_AGENT edge-test; fastcgi_param EMPTY $arg_none if_not_empty; fastcgi_pass 127.0.0.1:9; }
        location /noheaders/ { fastcgi_param A 1; fastcgi_pass_request_headers off; fastcgi_pass 127.0.0.1:9; }
    }
    server {
        listen 127.0.0.1:8080;
        server_name under.test;
        underscores_in_headers on;
        location / { fastcgi_param A 1; fastcgi_pass 127.0.0.1:9; }
    }
}
`

// without drops names from a list.
func without(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(n string) bool { return slices.Contains(drop, n) })
}

func TestCGIParams(t *testing.T) {
	rt, root := testPipeline(t, paramsConf, nil)
	headers := benchHeaders{
		{"Host", "example.com:8080"},
		{"User-Agent", "curl/8"},
		{"Cookie", "a=1"},
		{"Accept", "*/*"},
		{"Cookie", "b=2"},
		{"X_Under", "dropped unless underscores_in_headers"},
		{"Proxy", "http://evil.test"}, // httpoxy: never passed
		{"Content-Type", "text/plain"},
		{"Content-Length", "3"},
	}
	withHost := func(host string) benchHeaders {
		h := slices.Clone(headers)
		h[0][1] = host
		return h
	}
	for _, tc := range []struct {
		name, target string
		headers      benchHeaders
		tls          bool
		// names the params must start with (the conf file's, in order);
		// want the values of some of them; absent names that must not be there.
		names  []string
		want   map[string]string
		absent []string
	}{
		{
			name: "fastcgi.conf", target: "/app/x.php?a=1&b=2", headers: headers,
			// HTTPS is "if_not_empty": over plain HTTP it is left out.
			names: append([]string{"SCRIPT_FILENAME"}, without(nginxFastCGIParams, "HTTPS")...),
			want: map[string]string{
				"SCRIPT_FILENAME": root + "/html/app/x.php", "SCRIPT_NAME": "/app/x.php",
				"QUERY_STRING": "a=1&b=2", "REQUEST_METHOD": "POST", "REQUEST_URI": "/app/x.php?a=1&b=2",
				"DOCUMENT_URI": "/app/x.php", "DOCUMENT_ROOT": root + "/html", "SERVER_PROTOCOL": "HTTP/1.1",
				"REQUEST_SCHEME": "http", "GATEWAY_INTERFACE": "CGI/1.1", "REMOTE_ADDR": "192.0.2.10",
				"REMOTE_PORT": "50000", "SERVER_ADDR": "127.0.0.1", "SERVER_PORT": "8080",
				"SERVER_NAME": "example.com", "REDIRECT_STATUS": "200", "CONTENT_TYPE": "text/plain",
				"CONTENT_LENGTH": "3", "REMOTE_USER": "",
				// Headers follow, Host with its port; repeated ones joined.
				"HTTP_HOST": "example.com:8080", "HTTP_USER_AGENT": "curl/8", "HTTP_COOKIE": "a=1; b=2",
				"HTTP_ACCEPT": "*/*", "HTTP_CONTENT_TYPE": "text/plain", "HTTP_CONTENT_LENGTH": "3",
			},
			absent: []string{"HTTPS", "HTTP_X_UNDER", "HTTP_PROXY"},
		},
		{
			name: "fastcgi.conf over TLS", target: "/app/x.php", headers: headers, tls: true,
			names: append([]string{"SCRIPT_FILENAME"}, nginxFastCGIParams...),
			want:  map[string]string{"HTTPS": "on", "REQUEST_SCHEME": "https"},
		},
		{
			name: "fastcgi.conf, index", target: "/app/", headers: headers,
			want: map[string]string{"SCRIPT_NAME": "/app/index.php", "SCRIPT_FILENAME": root + "/html/app/index.php"},
		},
		{
			name: "fastcgi_params", target: "/plain/run", headers: withHost("www.example.com"),
			names: append(without(nginxFastCGIParams, "HTTPS"), "SCRIPT_FILENAME"),
			want:  map[string]string{"SCRIPT_FILENAME": "/srv/run.php", "SERVER_NAME": "example.com", "HTTP_HOST": "www.example.com"},
		},
		{
			name: "a fastcgi_param HTTP_* wins over the header", target: "/ua/", headers: headers,
			names:  []string{"HTTP_USER_AGENT", "HTTP_HOST"},
			want:   map[string]string{"HTTP_USER_AGENT": "edge-test"},
			absent: []string{"EMPTY"},
		},
		{
			name: "fastcgi_pass_request_headers off", target: "/noheaders/", headers: headers,
			names: []string{"A"}, want: map[string]string{"A": "1"},
			absent: []string{"HTTP_HOST", "HTTP_COOKIE"},
		},
		{
			name: "underscores_in_headers on", target: "/", headers: withHost("under.test"),
			want: map[string]string{"HTTP_X_UNDER": "dropped unless underscores_in_headers"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := routeFake(t, rt, "POST", tc.target, tc.headers)
			if tc.tls {
				r.Conn.TLS = &tls.ConnectionState{ServerName: "example.com"}
			}
			if r.loc.Content.Kind != conf.ContentFastCGI {
				t.Fatalf("%s: location %q does not pass to FastCGI", tc.target, r.loc.Name)
			}
			r.headers = r.Header.AppendAll(r.headers[:0])
			params := cgiParams(nil, &r.loc.FastCGI, r.srv, r.headers, func(s *conf.Script) string { return rt.eval(r, s) })
			got := map[string]string{}
			var names []string
			for _, p := range params {
				if _, dup := got[p.Name]; dup {
					t.Errorf("%s passed twice", p.Name)
				}
				got[p.Name] = p.Value
				names = append(names, p.Name)
			}
			if len(tc.names) > 0 && !slices.Equal(names[:min(len(names), len(tc.names))], tc.names) {
				t.Errorf("names\n got %s\nwant %s ...", strings.Join(names, " "), strings.Join(tc.names, " "))
			}
			for name, want := range tc.want {
				if v, ok := got[name]; want != "" && !ok || v != want {
					t.Errorf("%s = %q, want %q", name, v, want)
				}
			}
			for _, name := range tc.absent {
				if _, ok := got[name]; ok {
					t.Errorf("%s passed (%q), want none", name, got[name])
				}
			}
		})
	}
}
