// This file holds the scenarios about what is added to a response:
// error_page in all its forms, add_header with and without "always" across
// statuses and through inheritance (a level with its own add_header
// replaces the inherited list), and every form of expires, including a
// value taken from a map on $sent_http_content_type and one from an
// argument, with and without "modified".

package difftest

const errorPageHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};

    error_page 404 /errors/404.html;
    error_page 403 /errors/403.html;
    error_page 500 502 503 504 /errors/50x.html;

    location /errors/ {
        add_header X-Error-Page yes;
        add_header X-Error-Page-Always yes always;
        expires 1h;
    }
    location /e/code/ { error_page 404 =200 /errors/404.html; }
    location /e/eq/ { error_page 404 = /e-created; }
    location = /e-created { return 201 "created by the error page\n"; }
    location /e/named/ { error_page 404 @fallback; }
    location @fallback { return 200 "fallback uri=$uri args=$args method=$request_method\n"; }
    location /e/named-status/ { error_page 404 = @status; }
    location @status { return 202 "accepted in named\n"; }
    location /e/abs/ { error_page 404 http://example.com/notfound; }
    location /e/abs301/ { error_page 404 =301 http://example.com/moved; }
    location /e/abs-var/ { error_page 404 http://example.com/from$uri; }
    location /e/args/ { error_page 404 /show?from=404; }
    location = /show { return 200 "show uri=$uri args=$args\n"; }
    location /e/missing-page/ { error_page 404 /errors/nope.html; }
    location /e/recursive/ {
        recursive_error_pages on;
        error_page 404 /e/second/page;
    }
    location /e/not-recursive/ {
        error_page 404 /e/second/page;
    }
    location /e/second/ { error_page 404 /errors/gone.html; }
    location /e/ret/ { return 404; }
    location /e/ret500/ { return 500; }
    location /e/ret-text/ { return 404 "text, no error page\n"; }
    location /e/post/ { error_page 405 = /e-method; }
    location = /e-method { return 200 "method=$request_method\n"; }
    location /e/loop/ { rewrite ^ /e/loop/x last; }
    location /e/to-internal/ { error_page 404 /internal-page; }
    location = /internal-page { internal; return 200 "internal page\n"; }
    location /e/redirect-code/ { error_page 404 =302 /errors/404.html; }
    location /e/override-403/ { error_page 404 =403 /errors/404.html; }

    # The status an error page keeps, or the one its own answer gives
    # (rewrite.t 10-20, http_error_page.t 8): a special response (return
    # of a code, a redirect, a directory redirect) answers with its own
    # status; a page that answers by itself keeps the error's.
    location /e/to405/ { error_page 404 /e-405; return 404; }
    location = /e-405 { return 405; }
    location /e/to302text/ { error_page 405 /e-302text; return 405; }
    location = /e-302text { return 302 "text"; }
    location /e/to-rewrite/ { error_page 405 /e-rewrite; return 405; }
    location = /e-rewrite { rewrite ^ http://example.com/ redirect; }
    location /e/to-dir/ { error_page 405 /dir; return 405; }
    location /e/302-to-dir/ { error_page 302 /dir; return 302 "first"; }
    location /e/to200/ { error_page 405 /e-200; return 405; }
    location = /e-200 { return 200; }
    location /e/to200text/ { error_page 405 /e-200text; return 405; }
    location = /e-200text { return 200 "text\n"; }
    location /e/to204/ { error_page 405 /e-204; return 405; }
    location = /e-204 { return 204; }
    location /e/302-to-200text/ { error_page 302 /e-200text; return 302 "first"; }
}
`

var _ = addScenario(scenario{
	name: "error_page",
	http: errorPageHTTP,
	cases: []reqCase{
		get("server_404", "/missing"),
		head("server_404_head", "/missing"),
		get("server_403", "/noindex/"),
		get("error_dir_direct", "/errors/404.html"),
		get("code_override", "/e/code/missing"),
		get("equals_status_of_page", "/e/eq/missing"),
		get("named", "/e/named/missing?a=1"),
		post("named_post", "POST", "/e/named/missing", "x=1"),
		get("named_equals", "/e/named-status/missing"),
		get("absolute_url", "/e/abs/missing"),
		get("absolute_url_301", "/e/abs301/missing"),
		get("absolute_url_var", "/e/abs-var/missing"),
		get("page_with_args", "/e/args/missing?orig=1"),
		get("page_missing", "/e/missing-page/x"),
		get("recursive_on", "/e/recursive/x"),
		get("recursive_off", "/e/not-recursive/x"),
		get("return_404", "/e/ret/x"),
		get("return_500", "/e/ret500/x"),
		get("return_text_skips_page", "/e/ret-text/x"),
		post("post_405_to_get", "POST", "/e/post/hello.txt", "x"),
		post("post_static_405", "POST", "/hello.txt", "x"),
		get("loop_500", "/e/loop/x"),
		get("to_internal", "/e/to-internal/x"),
		get("redirect_code", "/e/redirect-code/x"),
		get("override_403", "/e/override-403/x"),
		get("missing_with_args", "/missing?q=1"),
		get("page_returns_405", "/e/to405/x"),
		get("page_returns_302_text", "/e/to302text/x"),
		get("page_rewrite_redirect", "/e/to-rewrite/x"),
		get("page_directory_redirect", "/e/to-dir/x"),
		get("page_directory_redirect_after_302", "/e/302-to-dir/x"),
		get("page_return_200_keeps", "/e/to200/x"),
		get("page_return_200_text_keeps", "/e/to200text/x"),
		get("page_return_204_keeps", "/e/to204/x"),
		get("page_after_302_keeps_location", "/e/302-to-200text/x"),
	},
})

const headersHTTP = `
map $sent_http_content_type $expires_by_type {
    default         off;
    text/html       epoch;
    text/css        max;
    ~image/         30d;
    text/plain      1h;
}

server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};

    add_header X-Server srv;
    add_header X-Server-Always srv always;
    expires 1h;

    location / { }
    location /dir/ {
        add_header X-Loc loc;
    }
    location /noindex/ {
        add_header X-Loc403 no;
        add_header X-Loc403-Always yes always;
    }
    location = /h/404 { return 404; }
    location = /h/201 { add_header X-Created yes; return 201 "made\n"; }
    location = /h/204 { add_header X-204 yes; return 204; }
    location = /h/302 { add_header X-Redirect r; return 302 /x; }
    location = /h/500 { add_header X-500 no; add_header X-500-Always yes always; return 500; }
    location = /h/empty { add_header X-Empty ""; add_header X-Empty-Var $arg_none; return 200 "e\n"; }
    location = /h/var { add_header X-Uri $uri; add_header X-Args "a=$arg_a"; return 200 "v\n"; }
    location = /h/multi { add_header X-M one; add_header X-M two; return 200 "m\n"; }
    location = /h/cc { add_header Cache-Control "no-transform"; try_files /hello.txt =404; }
    location = /h/lm { add_header Last-Modified "Wed, 01 Jan 2020 00:00:00 GMT"; try_files /hello.txt =404; }
    location = /h/lm-clear { add_header Last-Modified ""; try_files /hello.txt =404; }
    location = /h/etag { add_header ETag '"custom"'; try_files /hello.txt =404; }
    location /h/nested/ {
        add_header X-Outer outer;
        location /h/nested/inner/ { add_header X-Inner inner; return 200 "inner\n"; }
        location /h/nested/plain/ { return 200 "plain\n"; }
    }
    location /h/if/ {
        if ($arg_x) { add_header X-If yes; }
        add_header X-Loc loc;
        return 200 "if\n";
    }

    location = /exp/30d { expires 30d; try_files /hello.txt =404; }
    location = /exp/max { expires max; try_files /hello.txt =404; }
    location = /exp/epoch { expires epoch; try_files /hello.txt =404; }
    location = /exp/neg { expires -1; try_files /hello.txt =404; }
    location = /exp/zero { expires 0; try_files /hello.txt =404; }
    location = /exp/modified { expires modified +1d; try_files /hello.txt =404; }
    location = /exp/modified-far { expires modified 3650d; try_files /hello.txt =404; }
    location = /exp/daily { expires @15h30m; try_files /hello.txt =404; }
    location = /exp/off { expires off; try_files /hello.txt =404; }
    location = /exp/units { expires 1y2M3w4d5h6m7s; try_files /hello.txt =404; }
    location /exp/var/ {
        expires $expires_by_type;
        alias {{ROOT}}/;
    }
    location = /exp/404 { expires 30d; return 404; }
    location = /exp/return { expires 30d; return 200 "text\n"; }
    location = /exp/redirect { expires 30d; return 301 /x; }
    location = /exp/modified-return { expires modified 1h; return 200 "no last-modified\n"; }
    location = /exp/modified-zero { expires modified 0; try_files /hello.txt =404; }
    location = /exp/arg { expires $arg_e; try_files /hello.txt =404; }
    location = /exp/arg-modified { expires modified $arg_e; try_files /hello.txt =404; }
    location = /exp/with-cc { expires 1h; add_header Cache-Control public; try_files /hello.txt =404; }
}
`

var _ = addScenario(scenario{
	name: "headers",
	http: headersHTTP,
	cases: []reqCase{
		get("inherit_server", "/hello.txt"),
		get("inherit_server_404", "/missing.txt"),
		get("inherit_server_301", "/dir"),
		get("child_replaces", "/dir/page.html"),
		get("child_replaces_index", "/dir/"),
		get("only_always_on_403", "/noindex/"),
		get("only_always_on_404", "/h/404"),
		get("on_201", "/h/201"),
		get("on_204", "/h/204"),
		get("on_302", "/h/302"),
		get("only_always_on_500", "/h/500"),
		get("empty_values", "/h/empty"),
		get("variables", "/h/var?a=7"),
		get("repeated", "/h/multi"),
		get("cache_control_appended", "/h/cc"),
		get("last_modified_replaced", "/h/lm"),
		get("last_modified_cleared", "/h/lm-clear"),
		get("etag_replaced", "/h/etag"),
		get("nested_inner", "/h/nested/inner/"),
		get("nested_plain_inherits", "/h/nested/plain/"),
		get("if_block_own_list", "/h/if/?x=1"),
		get("if_block_false", "/h/if/"),
		get("not_modified_keeps", "/hello.txt", "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
		get("exp_30d", "/exp/30d"),
		get("exp_max", "/exp/max"),
		get("exp_epoch", "/exp/epoch"),
		get("exp_negative", "/exp/neg"),
		get("exp_zero", "/exp/zero"),
		get("exp_modified_past", "/exp/modified"),
		get("exp_modified_future", "/exp/modified-far"),
		get("exp_daily", "/exp/daily"),
		get("exp_off", "/exp/off"),
		get("exp_units", "/exp/units"),
		get("exp_var_html", "/exp/var/index.html"),
		get("exp_var_css", "/exp/var/style.css"),
		get("exp_var_png", "/exp/var/logo.png"),
		get("exp_var_text", "/exp/var/hello.txt"),
		get("exp_var_default", "/exp/var/data.json"),
		get("exp_var_404", "/exp/var/missing.html"),
		get("exp_404", "/exp/404"),
		get("exp_return", "/exp/return"),
		get("exp_redirect", "/exp/redirect"),
		get("exp_modified_no_lm", "/exp/modified-return"),
		get("exp_with_cache_control", "/exp/with-cc"),
		get("exp_modified_zero", "/exp/modified-zero"),
		get("exp_arg_epoch", "/exp/arg?e=epoch"),
		get("exp_arg_max", "/exp/arg?e=max"),
		get("exp_arg_off", "/exp/arg?e=off"),
		get("exp_arg_access", "/exp/arg?e=2048"),
		get("exp_arg_negative", "/exp/arg?e=-2048"),
		get("exp_arg_daily", "/exp/arg?e=@15h30m"),
		get("exp_arg_empty", "/exp/arg"),
		get("exp_arg_bad", "/exp/arg?e=bad"),
		get("exp_arg_ms", "/exp/arg?e=500ms"),
		get("exp_arg_plus", "/exp/arg?e=%2B1h"),
		get("exp_arg_modified_access", "/exp/arg-modified?e=2h"),
		get("exp_arg_modified_negative", "/exp/arg-modified?e=-1h"),
		get("exp_arg_modified_epoch", "/exp/arg-modified?e=epoch"),
		get("exp_arg_modified_max", "/exp/arg-modified?e=max"),
		get("exp_arg_modified_off", "/exp/arg-modified?e=off"),
		get("exp_arg_modified_daily", "/exp/arg-modified?e=@10h"),
		get("exp_arg_modified_zero", "/exp/arg-modified?e=0"),
		head("exp_head", "/exp/30d"),
		get("exp_304", "/exp/30d", "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
	},
})
