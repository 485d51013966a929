// This file holds the scenarios taken from what users run: seed 004's site
// (its asset block with expires 30d, access_log off and log_not_found off,
// the server-level WordPress `if (!-e $request_filename)` rewrite and its
// PHP location, unchanged except for paths and ports) and the
// WordPress-style try_files site.

package difftest

import "edge/testenv"

// seed004HTTP is seed 004's configuration: the article's server-level
// text verbatim (testenv.Seed004Locations) in a server{} naming listen,
// server_name and root.
var seed004HTTP = "\nkeepalive_timeout 6;\nserver {\n" +
	"    listen {{LISTEN}};\n    server_name localhost;\n    root {{ROOT}};\n\n" +
	testenv.Seed004Locations("{{FPM}}", "{{FASTCGI_PARAMS}}") +
	"}\n"

var _ = addScenario(scenario{
	name: "seed004",
	http: seed004HTTP,
	cases: cases([]reqCase{
		get("root", "/"),
		get("index_html", "/index.html"),
		get("hello_txt", "/hello.txt"),
		head("hello_txt_head", "/hello.txt"),
		get("asset_css", "/style.css"),
		get("asset_js", "/app.js"),
		get("asset_png", "/logo.png"),
		get("asset_jpg_upper", "/photo.JPG"),
		get("asset_ico", "/favicon.ico"),
		get("asset_xml", "/feed.xml"),
		get("asset_png_nested", "/images/pic.png"),
		get("asset_gif_deep", "/images/deep/a.gif"),
		get("asset_missing_png", "/missing.png"),
		get("asset_missing_css_args", "/nope/style.css?v=3"),
		head("asset_head", "/style.css"),
		get("asset_args", "/style.css?ver=5.2"),
		get("asset_ims", "/logo.png", "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
		get("asset_inm", "/logo.png", "If-None-Match: "+etagOf("logo.png")),
		get("dir_with_index", "/dir/"),
		get("dir_without_slash", "/dir"),
		get("dir_without_slash_args", "/dir?x=1"),
		get("dir_page", "/dir/page.html"),
		get("dir_noindex", "/noindex/"),
		get("json", "/data.json"),
		get("noext", "/noext"),
		get("unknown_ext", "/file.unknownext"),
		get("space_encoded", "/with%20space.html"),
		get("percent_encoded", "/100%25.html"),
		get("plus", "/a+b.html"),
		get("unicode", "/%C3%BCn%C3%AFcode.html"),
		post("post_static", "POST", "/hello.txt", "a=1"),
		post("put_static", "PUT", "/hello.txt", "data"),
		req("options_static", "OPTIONS", "/hello.txt"),
		req("delete_static", "DELETE", "/index.html"),
		get("traversal_dotdot", "/../secret.txt"),
		get("traversal_encoded", "/%2e%2e/secret.txt"),
	}, viaPHP(
		get("php_index", "/index.php"),
		get("php_info_args", "/info.php?a=1&b=2"),
		get("permalink", "/2024/03/hello-world/"),
		get("permalink_no_slash", "/about-us"),
		get("permalink_args", "/category/news/?page=2"),
		get("permalink_encoded", "/caf%C3%A9/"),
		get("missing_php", "/missing.php"),
		get("missing_html", "/missing.html"),
		get("empty_dir", "/empty/"),
		get("php_dir_index", "/onlyphp/"),
		post("php_post", "POST", "/info.php", "name=value", "Content-Type: application/x-www-form-urlencoded"),
		head("php_head", "/info.php"),
	)),
})

// wordpressHTTP is the try_files form WordPress documents for nginx.
const wordpressHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    index index.php index.html;

    location / {
        try_files $uri $uri/ /index.php?$args;
    }

    location ~ \.php$ {
        try_files $uri =404;
        fastcgi_pass {{FPM}};
        fastcgi_index index.php;
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        include {{FASTCGI_PARAMS}};
    }

    location ~* \.(js|css|png|jpg|jpeg|gif|ico)$ {
        expires max;
        log_not_found off;
    }

    # the hardening lines of the usual WordPress recipe
    location = /favicon.ico { log_not_found off; access_log off; }
    location = /robots.txt { allow all; log_not_found off; access_log off; }
    location ~ /\. { deny all; }
    location ~* /(?:uploads|files)/.*\.php$ { deny all; }
}
`

var _ = addScenario(scenario{
	name: "wordpress",
	http: wordpressHTTP,
	cases: cases([]reqCase{
		get("file", "/hello.txt"),
		get("asset", "/style.css"),
		get("asset_missing", "/missing.css"),
		get("dir_slash", "/dir/"),
		get("dir_no_slash", "/dir"),
		get("dir_no_slash_args", "/dir?a=1&b=2"),
		get("noindex_dir", "/noindex/"),
		get("missing_php_404", "/nope.php"),
		get("missing_php_in_dir", "/dir/nope.php"),
		get("html_file", "/about.html"),
		head("head_file", "/about.html"),
		get("favicon", "/favicon.ico"),
		get("robots_missing", "/robots.txt"),
		get("dotfile_denied", "/.hidden"),
		get("dot_dir_denied", "/.git/config"),
		get("uploads_php_denied", "/wp-content/uploads/shell.php"),
		get("dir_slash_encoded_args", "/dir?redirect_to=%2Fwp-admin%2F"),
	}, viaPHP(
		get("front", "/"),
		get("permalink", "/2024/03/hello-world/"),
		get("permalink_args", "/hello-world/?replytocom=5"),
		get("index_php", "/index.php?p=1"),
		get("wp_admin_like", "/blog/"),
		get("missing_dir", "/empty/"),
		get("dir_with_php_index", "/onlyphp/"),
		get("args_plus_encoded", "/hello-world/?s=a+b%20c&x=%3F"),
		post("post_comment", "POST", "/wp-comments-post.php", "c=1"),
		post("post_permalink", "POST", "/contact/", "c=1", "Content-Type: application/x-www-form-urlencoded"),
	)),
})
