// This file holds the PHP scenario beyond the seed and WordPress sites:
// CGI parameters, PATH_INFO, request bodies (sized and chunked), statuses
// and headers chosen by the script, X-Accel-Redirect, error interception,
// gzip of FastCGI output, and what nginx does not do to a FastCGI
// response (no 304/412, no ranges).

package difftest

import "strings"

const phpHTTP = `
gzip on;
gzip_types text/plain;
gzip_min_length 100;

# fastcgi_pass with variables (issue 14): an address, an upstream's name,
# or what nginx cannot resolve
upstream php_up { server {{FPM}}; }
map $arg_to $php_target {
    default {{FPM}};
    up      php_up;
    nohost  nosuch.test;
    named   nosuch.test:9000;
    badport 127.0.0.1:0;
    empty   "";
    upper   PHP_UP;
    upport  php_up:9000;
    nopath  "unix:";
}

server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    index index.php index.html;

    location /varpass/ {
        fastcgi_pass $php_target;
        fastcgi_param SCRIPT_FILENAME $document_root/info.php;
        include {{FASTCGI_PARAMS}};
    }

    location ~ ^/intercept/.+\.php$ {
        fastcgi_intercept_errors on;
        error_page 404 /errors/404.html;
        error_page 500 503 /errors/50x.html;
        fastcgi_pass {{FPM}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        include {{FASTCGI_PARAMS}};
    }

    location ~ ^(.+\.php)(/.*)$ {
        fastcgi_split_path_info ^(.+\.php)(/.*)$;
        try_files $fastcgi_script_name =404;
        fastcgi_pass {{FPM}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        fastcgi_param PATH_INFO $fastcgi_path_info;
        include {{FASTCGI_PARAMS}};
    }

    # $request_body: the body read into memory (client_body_buffer_size),
    # empty when it went to a file
    location ~ ^/rb/(small|file)/ {
        client_body_buffer_size 16;
        add_header X-Body "[$request_body]" always;
        fastcgi_pass {{FPM}};
        fastcgi_param SCRIPT_FILENAME $document_root/info.php;
        include {{FASTCGI_PARAMS}};
    }

    location ~ \.php$ {
        try_files $uri =404;
        fastcgi_pass {{FPM}};
        fastcgi_index index.php;
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        include {{FASTCGI_PARAMS}};
    }
}
`

var _ = addScenario(scenario{
	name: "php",
	http: phpHTTP,
	cases: cases([]reqCase{
		get("missing_script", "/missing.php"),
		get("missing_script_path_info", "/missing.php/x"),
		get("not_php", "/hello.txt"),
	}, viaPHP(
		get("info", "/info.php"),
		get("info_query", "/info.php?a=%20b&c=d+e"),
		get("info_encoded_path", "/inf%6F.php"),
		get("path_info", "/info.php/extra/path?x=1"),
		get("index", "/"),
		get("varpass_address", "/varpass/x"),
		get("varpass_upstream", "/varpass/x?to=up"),
		get("varpass_no_resolver", "/varpass/x?to=nohost"),
		get("varpass_no_resolver_port", "/varpass/x?to=named"),
		get("varpass_bad_port", "/varpass/x?to=badport"),
		get("varpass_empty", "/varpass/x?to=empty"),
		get("varpass_upstream_case", "/varpass/x?to=upper"),
		get("varpass_upstream_port", "/varpass/x?to=upport"),
		get("varpass_unix_no_path", "/varpass/x?to=nopath"),
		get("dir_index", "/blog/"),
		head("head", "/info.php"),
		post("post_form", "POST", "/info.php", "a=1&b=2", "Content-Type: application/x-www-form-urlencoded"),
		post("post_empty", "POST", "/info.php", ""),
		post("put_body", "PUT", "/info.php", "put body"),
		post("request_body_memory", "POST", "/rb/small/x", "in memory"),
		post("request_body_preread", "POST", "/rb/file/x", "longer than sixteen bytes"),
		post("request_body_file", "POST", "/rb/file/x", strings.Repeat("longer than the head's buffer ", 50)),
		get("request_body_none", "/rb/small/x"),
		raw("post_chunked", "POST /info.php HTTP/1.1\nHost: localhost\nTransfer-Encoding: chunked\nContent-Type: text/plain\n\n5\nhello\n6\n world\n0\n\n"),
		req("delete", "DELETE", "/info.php"),
		get("headers_passed", "/info.php", "X-Test: yes", "Cookie: a=1", "Cookie: b=2").with(cookieJoined),
		get("underscore_header_dropped", "/info.php", "X_Under: 1"),
		// header names (issue 20): what PHP must never see
		get("header_name_space", "/info.php", "X Forwarded For: 6.6.6.6"),
		get("header_name_dot_dropped", "/info.php", "X.Forwarded-For: 6.6.6.6"),
		get("header_name_underscore_xff_dropped", "/info.php", "X_Forwarded_For: 6.6.6.6"),
		get("header_name_dot_beside_real", "/info.php", "X-Forwarded-For: 1.1.1.1", "X.Forwarded-For: 6.6.6.6"),
		get("header_folded", "/info.php", "X-Test: a", " X-Forwarded-For: 6.6.6.6"),
		req("trace", "TRACE", "/info.php"),
		raw("absolute_form_userinfo", "GET http://u:p@evil.example/info.php HTTP/1.1\nHost: localhost\n\n"),
		get("headers_over_max", "/info.php", shortHeaders(1000)...),
		get("httpoxy", "/info.php", "Proxy: http://evil.test"),
		get("host_with_port", "/info.php", "Host: localhost:8080"),
		get10("http10", "/info.php"),
		get("status_404", "/status.php?code=404"),
		get("status_500", "/status.php?code=500"),
		get("status_204", "/status.php?code=204"),
		get("status_201", "/status.php?code=201"),
		get("intercepted_404", "/intercept/status.php?code=404"),
		get("intercepted_503", "/intercept/status.php?code=503"),
		get("not_intercepted_418", "/intercept/status.php?code=418"),
		get("validators", "/validators.php"),
		get("validators_inm", "/validators.php", `If-None-Match: "php-etag"`),
		get("validators_ims", "/validators.php", "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
		get("validators_if_match", "/validators.php", `If-Match: "other"`),
		get("validators_range", "/validators.php", "Range: bytes=0-9"),
		get("validators_gzip", "/validators.php", ae("gzip")),
		get("validators_404", "/validators.php?code=404"),
		get("validators_301_relative", "/validators.php?code=301"),
		get("accel_redirect", "/accel.php").with(accelType("text/html; charset=UTF-8", "text/plain")),
		get("accel_redirect_missing", "/accel.php?to=/missing.txt").with(accelType("text/html; charset=UTF-8", "text/html")),
		get("accel_redirect_range", "/accel.php", "Range: bytes=0-9").with(accelType("text/html; charset=UTF-8", "text/plain")),
		get("php_redirect", "/redirect.php"),
		get("php_redirect_absolute", "/redirect.php?to=http://example.com/x"),
		get("big_output", "/big.php"),
		get("big_output_gzip", "/big.php", ae("gzip")),
	)),
})

// keepInvalidHTTP turns ignore_invalid_headers off: nginx then keeps
// headers with invalid names, "_" ones among them, and passes them on.
const keepInvalidHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    ignore_invalid_headers off;

    location ~ \.php$ {
        fastcgi_pass {{FPM}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        include {{FASTCGI_PARAMS}};
    }
}
`

var _ = addScenario(scenario{
	name: "ignore_invalid_headers_off",
	http: keepInvalidHTTP,
	cases: viaPHP(
		get("underscore_kept", "/info.php", "X_Under: 1"),
		get("dot_kept", "/info.php", "X.Forwarded-For: 6.6.6.6"),
		get("space_refused", "/info.php", "X Forwarded For: 6.6.6.6"),
		get("plain", "/info.php", "X-Test: yes"),
	),
})
