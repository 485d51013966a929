// This file holds the scenario about what a static response is made of:
// MIME types (types{} overrides, default_type), charset, internal
// locations, try_files in its forms (=code, @named, $uri/, a final URI,
// with alias) and index lists.

package difftest

const contentHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    charset utf-8;

    location / { }
    location /types/ {
        types {
            text/x-custom html;
            application/x-foo txt json;
        }
        default_type application/x-default;
        alias {{ROOT}}/;
    }
    location /dt/ { default_type text/x-dt; alias {{ROOT}}/; }
    location /nocharset/ { charset off; alias {{ROOT}}/; }
    location /latin/ { charset windows-1251; alias {{ROOT}}/; }
    location /ctypes/ { charset_types text/css; alias {{ROOT}}/; }
    location /internal/ { internal; alias {{ROOT}}/; }
    location = /to-internal { rewrite ^ /internal/hello.txt last; }
    location = /to-internal-redirect { return 302 /internal/hello.txt; }

    location /tf/ {
        try_files $uri $uri/ =404;
        alias {{ROOT}}/;
    }
    location /tf-root/ {
        root {{ROOT}}/dir;
        try_files $uri $uri/ =404;
    }
    location /tf-named/ { try_files $uri @tfnamed; }
    location @tfnamed { return 200 "named uri=$uri args=$args\n"; }
    location /tf-uri/ { try_files /nonexistent /hello.txt; }
    location /tf-uri-args/ { try_files /nonexistent /show-args?from=tf&$args; }
    location = /show-args { return 200 "uri=$uri args=$args\n"; }
    location /tf-dir/ { try_files /dir/ =403; }
    location /tf-code/ { try_files /nope =418; }
    location /tf-first/ { try_files /about.html /hello.txt =404; }
    location /tf-var/ { try_files /$arg_f =404; }
    location /tf-alias/ {
        alias {{ROOT}}/dir/;
        try_files $uri $uri/ =404;
    }

    location /ix/ {
        alias {{ROOT}}/dir/;
        index missing.html page.html;
    }
    location /ix-abs/ {
        index /about.html;
    }
    location /ix-none/ {
        alias {{ROOT}}/noindex/;
        index missing1.html missing2.html;
    }
    location /ix-var/ {
        alias {{ROOT}}/dir/;
        index $arg_i;
    }
    location /alias-regex/ {
        alias {{ROOT}}/static/;
    }
    location /alias-noslash {
        alias {{ROOT}}/dir;
    }
    location /alias-file {
        alias {{ROOT}}/hello.txt;
    }
    location = /alias-exact {
        alias {{ROOT}}/about.html;
    }
    location ~ ^/re-alias/(.*)$ {
        alias {{ROOT}}/dir/$1;
    }

    # alias and try_files in a regex location (http_try_files.t 9): the
    # name tried follows the alias, and the file found is served.
    location ~ ^/re-tf/ {
        alias {{ROOT}}/dir;
        try_files $uri $uri/ =404;
    }
    location ~ ^/re-tf-cap/(.*)$ {
        alias {{ROOT}}/$1;
        try_files $uri =404;
    }
    location ~ /tf-page\.html$ {
        alias {{ROOT}}/dir;
        try_files /page.html =404;
    }
    # A nested location, or an if block, keeps the alias of the location
    # it was written in and the length of that location's name
    # (http_try_files.t 10).
    location /alias-nest/ {
        alias {{ROOT}}/dir/;
        location ~ html$ { try_files $uri =404; }
        location /alias-nest/sub/ { }
    }
    location /alias-if/ {
        alias {{ROOT}}/dir/;
        if ($arg_x) { add_header X-If yes; }
    }
    location /alias-tf-static/ {
        alias {{ROOT}}/dir/;
        try_files /page.html /alias-tf-static/page.html =404;
    }
}
`

var _ = addScenario(scenario{
	name: "content",
	http: contentHTTP,
	cases: []reqCase{
		get("html_charset", "/index.html"),
		get("text_charset", "/hello.txt"),
		get("css_no_charset", "/style.css"),
		get("js_charset", "/app.js"),
		get("xml_charset", "/feed.xml"),
		get("json_type", "/data.json"),
		get("png_type", "/logo.png"),
		get("upper_ext", "/UPPER.HTML"),
		get("upper_ext_jpg", "/photo.JPG"),
		get("no_ext_default", "/noext"),
		get("unknown_ext_default", "/file.unknownext"),
		get("types_override_html", "/types/index.html"),
		get("types_override_txt", "/types/hello.txt"),
		get("types_override_json", "/types/data.json"),
		get("types_block_drops_css", "/types/style.css"),
		get("types_default", "/types/noext"),
		get("default_type", "/dt/noext"),
		get("default_type_known_ext", "/dt/index.html"),
		get("charset_off", "/nocharset/index.html"),
		get("charset_other", "/latin/index.html"),
		get("charset_types_css", "/ctypes/style.css"),
		get("charset_types_html_dropped", "/ctypes/index.html"),
		get("charset_on_404", "/missing.html"),
		get("charset_on_redirect", "/dir"),
		get("internal_direct", "/internal/hello.txt"),
		get("internal_via_rewrite", "/to-internal"),
		get("internal_via_redirect", "/to-internal-redirect"),
		get("tf_file", "/tf/hello.txt"),
		get("tf_dir", "/tf/dir"),
		get("tf_dir_slash", "/tf/dir/"),
		get("tf_missing", "/tf/nope"),
		get("tf_root_file", "/tf-root/page.html"),
		get("tf_named", "/tf-named/nope?a=1"),
		get("tf_named_file_exists", "/tf-named/hello.txt"),
		get("tf_final_uri", "/tf-uri/x"),
		get("tf_final_uri_args", "/tf-uri-args/x?orig=1"),
		get("tf_dir_only", "/tf-dir/x"),
		get("tf_code", "/tf-code/x"),
		get("tf_first_existing", "/tf-first/x"),
		get("tf_var", "/tf-var/x?f=about.html"),
		get("re_alias_try_files", "/re-tf/dir/page.html"),
		get("re_alias_try_files_missing", "/re-tf/nope.html"),
		get("re_alias_try_files_dir", "/re-tf/sub"),
		get("re_alias_capture_try_files", "/re-tf-cap/page.html"),
		get("re_alias_static_name", "/x/tf-page.html"),
		get("alias_nested_regex", "/alias-nest/page.html"),
		get("alias_nested_regex_sub", "/alias-nest/sub/page.html"),
		get("alias_nested_prefix", "/alias-nest/sub/"),
		get("alias_if_block", "/alias-if/page.html?x=1"),
		get("alias_try_files_static_name", "/alias-tf-static/x"),
		get("tf_var_missing", "/tf-var/x?f=nope"),
		get("tf_alias_file", "/tf-alias/page.html"),
		get("tf_alias_dir", "/tf-alias/sub/"),
		get("tf_alias_root", "/tf-alias/"),
		get("index_second", "/ix/"),
		get("index_absolute", "/ix-abs/"),
		get("index_none_found", "/ix-none/"),
		get("index_var", "/ix/?i=page.html"),
		get("index_var_loc", "/ix-var/?i=page.html"),
		get("alias_prefix", "/alias-regex/app.js"),
		get("alias_prefix_sub", "/alias-regex/sub/x.txt"),
		get("alias_regex_capture", "/re-alias/page.html"),
		get("alias_noslash_sub", "/alias-noslash/page.html"),
		get("alias_noslash_glued", "/alias-noslashpage.html"),
		get("alias_noslash_dir", "/alias-noslash"),
		get("alias_noslash_dir_slash", "/alias-noslash/"),
		get("alias_file", "/alias-file"),
		get("alias_file_more", "/alias-file/x"),
		get("alias_exact", "/alias-exact"),
		get("alias_regex_missing", "/re-alias/nope.html"),
	},
})
