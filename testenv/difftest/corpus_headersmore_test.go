// This file holds the headers-more scenario (nginx runs Debian's
// libnginx-mod-http-headers-more-filter, loaded by the harness's
// load_module line, which edge accepts as built in): more_set_headers
// and more_clear_headers with -s, -t, wildcards, Server, Content-Type and
// their order against add_header and expires; the input directives as
// variables, static files, PHP and proxy_pass see them; and the
// module's inheritance, where a level's commands extend its parent's.

package difftest

const headersMoreHTTP = `
more_set_headers 'X-Http: h';
more_clear_headers X-Powered-By;

server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    charset utf-8;
    more_clear_headers 'X-Hidden-*';
    error_page 404 /errors/404.html;

    location = /hm/set {
        more_set_headers 'X-A: $uri' 'X-B: b' 'X-Hidden-Mine: x' X-Empty-Form 'X-Colon-Form:';
        add_header X-Hidden-Add kept;
        return 200 "set\n";
    }
    location = /hm/order {
        more_set_headers 'Cache-Control: no-store' 'X-Order: first';
        more_set_headers 'X-Order: second';
        expires 1h;
        return 200 "order\n";
    }
    location = /hm/cc {
        more_set_headers 'Cache-Control: no-store';
        return 200 "cc\n";
    }
    location /hm/status {
        alias {{ROOT}}/dir;
        more_set_headers -s '404 500' -s 503 'X-Err: yes';
        more_set_headers -s 200 'X-Ok: yes';
        more_set_headers -s 301 'X-Moved: yes';
    }
    location = /hm/ret500 {
        more_set_headers -s 500 'X-Err: 500';
        return 500;
    }
    location /hm/type/ {
        alias {{ROOT}}/;
        more_set_headers -t 'text/html' 'X-Html: yes';
        more_set_headers -t 'text/plain text/css' 'X-Plain-Css: yes';
        more_set_headers -t 'text/html; charset=utf-8' 'X-Html-Charset: yes';
        more_set_headers -t 'TEXT/HTML' 'X-Upper: yes';
        more_set_headers -t 'text/css' -s 404 'X-Css-404: yes';
    }
    location = /hm/ctype {
        more_set_headers 'Content-Type: application/x-more';
        return 200 "ct\n";
    }
    location = /hm/ctype-clear {
        more_clear_headers Content-Type;
        return 200 "no type\n";
    }
    location = /hm/server-clear {
        more_clear_headers Server;
        return 200 "no server\n";
    }
    location = /hm/server-set {
        more_set_headers 'Server: my-server';
        return 200 "my server\n";
    }
    location = /hm/server-404 {
        more_set_headers -s 404 'Server: not-found-server';
    }
    location = /hm/wildcard {
        add_header X-Wild-A a;
        more_clear_headers 'X-Wild-*' 'Last-*';
        alias {{ROOT}}/about.html;
    }
    location = /hm/lastmod {
        more_clear_headers Last-Modified ETag Accept-Ranges;
        alias {{ROOT}}/hello.txt;
    }
    location = /hm/location {
        more_set_headers 'Location: /elsewhere';
        return 200 "located\n";
    }
    location /hm/inherit/ {
        more_set_headers 'X-Loc: l';
        if ($arg_x) {
            more_set_headers 'X-If: i';
        }
        location /hm/inherit/inner/ {
            more_clear_headers X-Http;
            return 200 "inner\n";
        }
        return 200 "inherit\n";
    }
    location /hm/in/ {
        alias {{ROOT}}/;
        more_set_input_headers 'X-Test: set-by-more' 'Host: Other.Example:81';
        more_clear_input_headers 'X-Drop-*' Cookie;
        more_set_input_headers -r 'X-Only: replaced' 'X-Present: replaced';
        more_set_input_headers -t 'application/json' 'X-Json: json';
        add_header X-Seen "test=$http_x_test host=$host http_host=$http_host drop=$http_x_drop_a cookie=$http_cookie only=$http_x_only present=$http_x_present json=$http_x_json" always;
    }
    location = /hm/in-return {
        more_set_input_headers 'X-Test: too-late';
        return 200 "test=$http_x_test\n";
    }
    location /hm/proxy/ {
        more_set_input_headers 'X-Test: to-backend' 'User-Agent: more-agent';
        more_clear_input_headers Cookie 'X-Drop-*';
        more_clear_headers 'X-Pa*';
        more_set_headers 'X-Shown: replaced';
        proxy_pass http://{{BACKEND}}/;
    }
    location ~ ^/hm/php/(.+\.php)$ {
        more_set_input_headers 'X-Test: from-more' 'X-Forwarded-For: 203.0.113.9';
        more_clear_input_headers Cookie;
        more_set_headers -t 'text/plain' 'X-Php-Plain: yes';
        more_set_headers 'X-Php: $1';
        fastcgi_pass {{FPM}};
        fastcgi_param SCRIPT_FILENAME {{ROOT}}/$1;
        include {{FASTCGI_PARAMS}};
    }
}
`

var _ = addScenario(scenario{
	name: "headers_more",
	http: headersMoreHTTP,
	cases: cases(
		[]reqCase{
			get("set_and_clear", "/hm/set"),
			get("order_expires_after", "/hm/order"),
			get("cache_control_set", "/hm/cc"),
			get("status_200_index", "/hm/status/"),
			get("status_404_error_page", "/hm/status/missing"),
			get("status_301_dir", "/hm/status"),
			get("status_500_return", "/hm/ret500"),
			get("type_html", "/hm/type/about.html"),
			get("type_txt", "/hm/type/small.txt"),
			get("type_css", "/hm/type/style.css"),
			get("type_css_404", "/hm/type/missing.css"),
			get("type_json", "/hm/type/data.json"),
			head("type_head", "/hm/type/about.html"),
			get("type_not_modified", "/hm/type/about.html", "If-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT"),
			get("content_type_set", "/hm/ctype"),
			get("content_type_clear", "/hm/ctype-clear"),
			get("server_clear", "/hm/server-clear"),
			get("server_set", "/hm/server-set"),
			get("server_404", "/hm/server-404"),
			get("wildcard", "/hm/wildcard"),
			get("last_modified_cleared", "/hm/lastmod"),
			get("last_modified_cleared_range", "/hm/lastmod", "Range: bytes=0-9"),
			get("location_set", "/hm/location"),
			get("inherit", "/hm/inherit/"),
			get("inherit_if", "/hm/inherit/?x=1"),
			get("inherit_nested", "/hm/inherit/inner/"),
			get("input_headers", "/hm/in/small.txt",
				"X-Test: sent", "X-Drop-A: a", "X-Drop-Bb: b", "Cookie: a=1", "Cookie: b=2", "X-Present: old"),
			get("input_headers_json", "/hm/in/small.txt", "Content-Type: application/json"),
			get("input_headers_json_charset", "/hm/in/small.txt", "Content-Type: application/json; charset=utf-8"),
			get("input_headers_404", "/hm/in/missing.txt", "X-Test: sent"),
			get("input_before_return", "/hm/in-return", "X-Test: sent"),
			get("proxy_input_headers", "/hm/proxy/echo/x",
				"X-Test: sent", "User-Agent: curl", "Cookie: a=1", "X-Drop-Me: d", "X-Kept: k"),
			get("proxy_output_headers", "/hm/proxy/hidden"),
		},
		viaPHP(
			get("php_input_headers", "/hm/php/info.php", "X-Test: sent", "Cookie: a=1", "X-Forwarded-For: 192.0.2.1"),
			get("php_status_404", "/hm/php/status.php?code=404"),
			get("php_missing", "/hm/php/nope.php"),
		),
	),
})
