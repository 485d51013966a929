// This file is the corpus of real PHP projects' nginx configurations
// (issue 14, item 6): for each project, the server block it publishes in
// its own documentation or repository for nginx with php-fpm (for Drupal,
// MediaWiki and CodeIgniter, the nginx wiki's recipe), written out
// directive by directive as published. Only what ties a configuration to
// one machine is changed: listen addresses ({{LISTEN}}; IPv6 listeners
// dropped, the test listens on loopback only), root paths ({{ROOT}}/<project>),
// log paths (logs/ in each server's prefix), the php-fpm address ({{FPM}})
// and the included parameter files ({{FASTCGI_PARAMS}}, {{FASTCGI_CONF}},
// {{FASTCGI_PHP}} for Debian's snippets/fastcgi-php.conf, {{MIME_TYPES}}).
// The test client speaks plain HTTP only, so a TLS server block becomes a
// plain listener (its ssl_* lines go) and the port-80 block that only
// redirects to https is left out; each such change is said above the
// project.
//
// Each project gets a directory of its own in the docroot
// (projectFiles), and requests for what its configuration does: the front
// page, a pretty URL, PATH_INFO where the configuration passes it, the
// dotfiles and paths it denies, assets with their expiry, a 404, and the
// project's own rules. The run prints one line per project:
// "PROJECT name: edge -t ok|FAIL, N/M requests identical (K documented)".
// Run only these with -run 'TestDifferential/project_'.

package difftest

// projectPHP is the front controller every project's PHP files run: the
// CGI parameters a project's application reads, including those its
// configuration sets itself.
const projectPHP = `<?php
header('Content-Type: text/plain');
foreach (['REQUEST_URI', 'DOCUMENT_URI', 'DOCUMENT_ROOT', 'SCRIPT_NAME', 'SCRIPT_FILENAME',
          'PATH_INFO', 'PATH_TRANSLATED', 'QUERY_STRING', 'REQUEST_METHOD', 'CONTENT_TYPE',
          'CONTENT_LENGTH', 'HTTP_HOST', 'SERVER_NAME', 'SERVER_PROTOCOL', 'REQUEST_SCHEME',
          'HTTPS', 'GATEWAY_INTERFACE', 'REDIRECT_STATUS', 'REMOTE_ADDR', 'HTTP_PROXY',
          'MAGE_MODE', 'PHP_VALUE', 'PHP_FLAG', 'modHeadersAvailable', 'front_controller_active'] as $k) {
    echo $k, '=', $_SERVER[$k] ?? '(unset)', "\n";
}
echo 'GET=', json_encode($_GET), "\n";
`

// projectFiles maps docroot-relative paths of the projects' directories
// to their content.
func projectFiles() map[string]string {
	css := "body { color: #333; }\n"
	js := "console.log('asset');\n"
	png := "\x89PNG\r\n\x1a\nproject"
	files := map[string]string{}
	add := func(dir string, m map[string]string) {
		for rel, content := range m {
			files[dir+"/"+rel] = content
		}
	}
	add("wordpress", map[string]string{
		"index.php":                          projectPHP,
		"wp-login.php":                       projectPHP,
		"wp-admin/index.php":                 projectPHP,
		"wp-content/themes/twenty/style.css": css,
		"wp-content/uploads/2024/03/a.png":   png,
		"wp-content/uploads/shell.php":       projectPHP,
		".htaccess":                          "# apache rules\n",
		"favicon.ico":                        "\x00\x00\x01\x00icon",
		"readme.html":                        "<p>readme</p>\n",
	})
	add("laravel/public", map[string]string{
		"index.php":                  projectPHP,
		"css/app.css":                css,
		"js/app.js":                  js,
		".env":                       "APP_KEY=secret\n",
		".well-known/security.txt":   "Contact: mailto:security@example.com\n",
		"favicon.ico":                "\x00\x00\x01\x00icon",
		"storage/avatar.png":         png,
		"other.php":                  projectPHP,
		"vendor/x/.git/HEAD":         "ref: refs/heads/main\n",
		"docs/index.html":            "<p>docs</p>\n",
		"phpinfo-in-subdir/info.php": projectPHP,
	})
	add("symfony/public", map[string]string{
		"index.php":           projectPHP,
		"other.php":           projectPHP,
		"bundles/app/app.css": css,
		"build/app.js":        js,
		"robots.txt":          "User-agent: *\n",
	})
	add("drupal", map[string]string{
		"index.php":           projectPHP,
		"update.php":          projectPHP,
		"CHANGELOG.txt":       "Drupal 7.x\n",
		"core/misc/drupal.js": js,
		"misc/druplicon.png":  png,
		"sites/default/files/styles/thumb/public/a.png": png,
		"sites/default/files/a.css":                     css,
		"sites/default/private/secret.pdf":              "%PDF-1.4 secret\n",
		"sites/all/modules/x.y/evil.php":                projectPHP,
		".git/config":                                   "[core]\n",
		"sites/default/.settings.php.swp":               "swap\n",
		"robots.txt":                                    "User-agent: *\n",
		"favicon.ico":                                   "\x00\x00\x01\x00icon",
	})
	add("nextcloud", map[string]string{
		"index.php":                           projectPHP,
		"remote.php":                          projectPHP,
		"public.php":                          projectPHP,
		"status.php":                          projectPHP,
		"cron.php":                            projectPHP,
		"ocs/v1.php":                          projectPHP,
		"apps/files/ajax/list.php":            projectPHP,
		"core/js/app.js":                      js,
		"core/js/mod.mjs":                     js,
		"core/css/style.css":                  css,
		"core/img/logo.svg":                   "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n",
		"core/fonts/font.woff2":               "wOF2font",
		"core/vendor/lib.wasm":                "\x00asm\x01\x00\x00\x00",
		"config/config.php":                   projectPHP,
		"data/admin/files/a.txt":              "user data\n",
		"lib/base.php":                        projectPHP,
		".htaccess":                           "# apache rules\n",
		"occ":                                 "#!/usr/bin/env php\n",
		".well-known/acme-challenge/token123": "acme-token\n",
		"robots.txt":                          "User-agent: *\nDisallow: /\n",
		"apps/theming/index.html":             "<p>theming</p>\n",
	})
	add("nextcloud_subdir", map[string]string{
		"nextcloud/index.php":                 projectPHP,
		"nextcloud/remote.php":                projectPHP,
		"nextcloud/status.php":                projectPHP,
		"nextcloud/apps/files/ajax/list.php":  projectPHP,
		"nextcloud/core/js/app.js":            js,
		"nextcloud/core/fonts/font.woff2":     "wOF2font",
		"nextcloud/core/vendor/lib.wasm":      "\x00asm\x01\x00\x00\x00",
		"nextcloud/config/config.php":         projectPHP,
		"nextcloud/.htaccess":                 "# apache rules\n",
		".well-known/acme-challenge/token123": "acme-token\n",
		"index.html":                          "<p>domain root</p>\n",
	})
	add("magento", map[string]string{
		"pub/index.php":  projectPHP,
		"pub/static.php": projectPHP,
		"pub/get.php":    projectPHP,
		"pub/cron.php":   projectPHP,
		"pub/static/frontend/Magento/luma/styles.css": css,
		"pub/static/frontend/Magento/luma/export.csv": "a,b\n",
		"pub/media/catalog/product/a.jpg":             "\xff\xd8\xff\xe0jpeg",
		"pub/media/customer/a.txt":                    "customer file\n",
		"pub/media/import/a.csv":                      "a,b\n",
		"pub/media/theme_customization/a.xml":         "<xml/>\n",
		"pub/media/feed.xml":                          "<xml/>\n",
		"setup/index.php":                             projectPHP,
		"setup/pub/app.js":                            js,
		"setup/config.txt":                            "setup config\n",
		"update/index.php":                            projectPHP,
		"update/pub/app.js":                           js,
		"update/secret.txt":                           "update secret\n",
	})
	add("matomo", map[string]string{
		"index.php":                   projectPHP,
		"matomo.php":                  projectPHP,
		"piwik.php":                   projectPHP,
		"js/index.php":                projectPHP,
		"other.php":                   projectPHP,
		"config/config.ini.php":       projectPHP,
		"core/Piwik.php":              projectPHP,
		"matomo.js":                   js,
		"plugins/CoreHome/a.js":       js,
		"js/container_abc_preview.js": js,
		"misc/user/logo.png":          png,
		"misc/logo.png":               png,
		"LEGALNOTICE":                 "legal notice\n",
		"CHANGELOG.md":                "# changelog\n",
		".git/HEAD":                   "ref: refs/heads/5.x-dev\n",
		".well-known/security.txt":    "Contact: mailto:security@example.com\n",
		"tmp/cache.txt":               "cache\n",
	})
	add("prestashop", map[string]string{
		"index.php":                     projectPHP,
		"webservice/dispatcher.php":     projectPHP,
		"admin-dev/index.php":           projectPHP,
		"img/p/1/2/12-home_default.jpg": "\xff\xd8\xff\xe0jpeg",
		"img/x.php":                     projectPHP,
		"src/Kernel.php":                projectPHP,
		"themes/classic/a.tpl":          "{$smarty}\n",
		"themes/classic/font.woff2":     "wOF2font",
		"docs.pdf":                      "%PDF-1.4\n",
		".git/config":                   "[core]\n",
		"favicon.ico":                   "\x00\x00\x01\x00icon",
	})
	add("grav", map[string]string{
		"index.php":                       projectPHP,
		"user/pages/01.home/default.md":   "---\ntitle: Home\n---\n",
		"user/themes/quark/css/theme.css": css,
		"user/themes/quark/images/a.png":  png,
		"system/config/system.yaml":       "home: home\n",
		"system/assets/grav.png":          png,
		"vendor/autoload.php":             projectPHP,
		"cache/compiled/a.php":            projectPHP,
		"logs/grav.log":                   "log\n",
		"LICENSE.txt":                     "MIT\n",
		"composer.json":                   "{}\n",
		".htaccess":                       "# apache rules\n",
		"robots.txt":                      "User-agent: *\n",
	})
	add("mediawiki", map[string]string{
		"index.php":                 projectPHP,
		"load.php":                  projectPHP,
		"maintenance/update.php":    projectPHP,
		"skins/Vector/main.css":     css,
		"resources/assets/logo.png": png,
		"cache/l10n.cdb":            "cache\n",
		"local/dumps/enwiki.xml.gz": "\x1f\x8b\x08dump",
		"local/dumps/README.txt":    "dumps\n",
		"images/a/ab/Example.jpg":   "\xff\xd8\xff\xe0jpeg",
	})
	add("shopware/public", map[string]string{
		"index.php":                          projectPHP,
		"shopware-installer.phar.php":        projectPHP,
		"theme/abc/css/all.css":              css,
		"media/ab/cd/product.png":            png,
		"media/ab/evil.php":                  projectPHP,
		"bundles/storefront/logo.svg":        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n",
		"thumbnail/a/b/c_400x400.webp":       "RIFFwebp",
		".env":                               "APP_SECRET=secret\n",
		"recovery/install/index.php":         projectPHP,
		"recovery/update/index.php":          projectPHP,
		"recovery/update/assets/update.js":   js,
		"sitemap/salesChannel-1/sitemap.xml": "<urlset/>\n",
		"robots.txt":                         "User-agent: *\n",
	})
	add("codeigniter", map[string]string{
		"index.php":       projectPHP,
		"css/style.css":   css,
		"images/logo.PNG": png,
		"other.php":       projectPHP,
		"docs/index.html": "<p>docs</p>\n",
	})
	add("kirby", map[string]string{
		"index.php":                projectPHP,
		"content/1_home/home.txt":  "Title: Home\n",
		"site/config/config.php":   projectPHP,
		"kirby/bootstrap.php":      projectPHP,
		".git/config":              "[core]\n",
		".well-known/security.txt": "Contact: mailto:security@example.com\n",
		"assets/css/index.css":     css,
		"assets/js/index.js":       js,
		"assets/data.unknownext":   "unknown type\n",
		"app.webmanifest":          "{\"name\": \"kirby\"}\n",
		"media/pages/home/a.jpg":   "\xff\xd8\xff\xe0jpeg",
		"composer.json":            "{}\n",
		"robots.txt":               "User-agent: *\n",
	})
	add("cakephp/webroot", map[string]string{
		"index.php":    projectPHP,
		"css/cake.css": css,
		"img/cake.png": png,
		"test.php":     projectPHP,
		"favicon.ico":  "\x00\x00\x01\x00icon",
	})
	return files
}

// hostEx is the Host header of the projects whose server_name is
// example.com.
const hostEx = "Host: example.com"

// WordPress: the Advanced Administration Handbook's nginx page, its
// per-site server (the catch-all server that redirects to the main site,
// and the main site with global/restrictions.conf and the single-site
// global/wordpress.conf included, their locations written in place of the
// includes) and the upstream of its main file, which names the php-fpm
// pool. Source (read 2026-12-01):
// https://github.com/WordPress/Advanced-administration-handbook/blob/1c8cb4bba57c83f9883105fd0759478e13f3bf22/server/web-server/nginx.md
// (rendered at https://developer.wordpress.org/advanced-administration/server/web-server/nginx/).
// The upstream's two servers (a unix socket and 127.0.0.1:9000) are the
// one php-fpm pool here; wordpress.conf's "upstream php" and "server {}"
// wrappers, which cannot be included inside the per-site server, are the
// handbook's own upstream and server.
const wordpressProjectHTTP = `
upstream php {
    server {{FPM}};
}

server {
    listen {{LISTEN}};
    server_name  _;
    return 302 $scheme://example.com$request_uri;
}

server {
    listen {{LISTEN}};
    server_name example.com;
    root {{ROOT}}/wordpress;

    index index.php;

    location = /favicon.ico {
        log_not_found off;
        access_log off;
    }

    location = /robots.txt {
        allow all;
        log_not_found off;
        access_log off;
    }

    location ~ /\. {
        deny all;
    }

    location ~* /(?:uploads|files)/.*\.php$ {
        deny all;
    }

    location / {
        try_files $uri $uri/ /index.php?$args;
    }

    location ~ \.php$ {
        include {{FASTCGI_CONF}};
        fastcgi_intercept_errors on;
        fastcgi_pass php;
    }

    location ~* \.(js|css|png|jpg|jpeg|gif|ico)$ {
        expires max;
        log_not_found off;
    }
}
`

var _ = addScenario(scenario{
	name:   "project_wordpress",
	source: "https://github.com/WordPress/Advanced-administration-handbook/blob/1c8cb4bba57c83f9883105fd0759478e13f3bf22/server/web-server/nginx.md",
	http:   wordpressProjectHTTP,
	cases: cases([]reqCase{
		get("other_host_redirect", "/some/page?x=1"),
		get("dotfile_denied", "/.htaccess", hostEx),
		get("dotfile_encoded_denied", "/%2ehtaccess", hostEx),
		post("post_static_405", "POST", "/readme.html", "a=1", hostEx),
		get("uploads_php_denied", "/wp-content/uploads/shell.php", hostEx),
		get("uploads_php_missing_denied", "/wp-content/files/x.php", hostEx),
		get("asset_css_expires_max", "/wp-content/themes/twenty/style.css", hostEx),
		get("asset_png", "/wp-content/uploads/2024/03/a.png", hostEx),
		get("asset_missing_404", "/wp-content/themes/twenty/missing.css", hostEx),
		get("favicon", "/favicon.ico", hostEx),
		get("robots_missing", "/robots.txt", hostEx),
		get("static_html", "/readme.html", hostEx),
		get("wp_admin_no_slash", "/wp-admin", hostEx),
	}, viaPHP(
		get("front_page", "/", hostEx),
		get("pretty_url", "/2024/03/hello-world/", hostEx),
		get("pretty_url_args", "/category/news/?paged=2", hostEx),
		get("query_post", "/?p=1", hostEx),
		get("wp_login", "/wp-login.php?action=lostpassword", hostEx),
		get("wp_admin_dir", "/wp-admin/", hostEx),
		get("encoded_dot_segments_php", "/wp-content/%2e%2e/wp-login.php", hostEx),
		get("upper_php_not_matched", "/WP-LOGIN.PHP", hostEx),
		get("path_info_to_front", "/index.php/2024/03/hello-world/", hostEx),
		get("missing_php_404", "/nope.php", hostEx),
		post("post_login", "POST", "/wp-login.php", "log=admin&pwd=x", hostEx, "Content-Type: application/x-www-form-urlencoded"),
	)),
})

// Laravel: the nginx server block of the deployment page. Source (read 2026-12-01):
// https://github.com/laravel/docs/blob/003da79085393f91ed3e9b36efe964fb0afd5c31/deployment.md
// (rendered at https://laravel.com/docs/deployment#nginx).
const laravelProjectHTTP = `
server {
    listen {{LISTEN}};
    server_name example.com;
    root {{ROOT}}/laravel/public;

    add_header X-Frame-Options "SAMEORIGIN";
    add_header X-XSS-Protection "1; mode=block";
    add_header X-Content-Type-Options "nosniff";

    index index.php;

    charset utf-8;

    location / {
        try_files $uri $uri/ /index.php?$query_string;
    }

    location = /favicon.ico { access_log off; log_not_found off; }
    location = /robots.txt  { access_log off; log_not_found off; }

    error_page 404 /index.php;

    location ~ \.php$ {
        fastcgi_pass {{FPM}};
        fastcgi_param SCRIPT_FILENAME $realpath_root$fastcgi_script_name;
        include {{FASTCGI_PARAMS}};
    }

    location ~ /\.(?!well-known).* {
        deny all;
    }
}
`

var _ = addScenario(scenario{
	name:   "project_laravel",
	source: "https://github.com/laravel/docs/blob/003da79085393f91ed3e9b36efe964fb0afd5c31/deployment.md",
	http:   laravelProjectHTTP,
	cases: cases([]reqCase{
		get("dotenv_denied", "/.env", hostEx),
		get("dot_git_in_subdir_denied", "/vendor/x/.git/HEAD", hostEx),
		get("well_known_allowed", "/.well-known/security.txt", hostEx),
		get("well_known_missing", "/.well-known/missing.txt", hostEx),
		get("asset_css", "/css/app.css", hostEx),
		get("asset_js", "/js/app.js?id=abc", hostEx),
		get("asset_png", "/storage/avatar.png", hostEx),
		get("favicon", "/favicon.ico", hostEx),
		get("dir_index_html_no_php_index", "/docs/", hostEx),
		get("dir_no_slash", "/docs", hostEx),
		get("dir_no_slash_args", "/docs?x=1", hostEx),
		head("head_asset", "/css/app.css", hostEx),
	}, viaPHP(
		get("front_page", "/", hostEx),
		get("pretty_url", "/users/42", hostEx),
		get("pretty_url_query", "/users?page=2&sort=name", hostEx),
		get("pretty_url_encoded", "/search/caf%C3%A9?q=a%20b", hostEx),
		get("path_info_to_front", "/index.php/users/42", hostEx),
		get("other_php", "/other.php?x=1", hostEx),
		get("php_in_subdir", "/phpinfo-in-subdir/info.php", hostEx),
		get("missing_php_404", "/nope.php", hostEx),
		get("missing_asset_to_front", "/css/missing.css", hostEx),
		get("favicon_missing_dir", "/img/favicon.ico", hostEx),
		post("post_form", "POST", "/login", "email=a%40b.c&password=x", hostEx, "Content-Type: application/x-www-form-urlencoded"),
		req("delete_route", "DELETE", "/users/42", hostEx),
		get("robots_missing_error_page_to_front", "/robots.txt", hostEx),
		head("head_front", "/users/42", hostEx),
		get("double_slash", "//users//42", hostEx),
		get("dot_segments", "/css/../users/42", hostEx),
	)),
})

// Symfony: the "minimum configuration" for nginx of "Configuring a Web
// Server". Source (read 2026-12-01):
// https://github.com/symfony/symfony-docs/blob/035af33a75685f21e785818ff3c447de71c6417d/setup/web_server_configuration.rst
// (rendered at https://symfony.com/doc/current/setup/web_server_configuration.html).
// The block names no listen (nginx's default is *:80); {{LISTEN}} is added.
const symfonyProjectHTTP = `
server {
    listen {{LISTEN}};
    server_name domain.tld www.domain.tld;
    root {{ROOT}}/symfony/public;

    location / {
        try_files $uri /index.php$is_args$args;
    }

    location ~ ^/index\.php(/|$) {
        fastcgi_pass {{FPM}};
        fastcgi_split_path_info ^(.+\.php)(/.*)$;
        include {{FASTCGI_PARAMS}};

        fastcgi_param SCRIPT_FILENAME $realpath_root$fastcgi_script_name;
        fastcgi_param DOCUMENT_ROOT $realpath_root;
        internal;
    }

    location ~ \.php$ {
        return 404;
    }

    error_log logs/project_error.log;
    access_log logs/project_access.log;
}
`

const hostSymfony = "Host: domain.tld"

var _ = addScenario(scenario{
	name:   "project_symfony",
	source: "https://github.com/symfony/symfony-docs/blob/035af33a75685f21e785818ff3c447de71c6417d/setup/web_server_configuration.rst",
	http:   symfonyProjectHTTP,
	cases: cases([]reqCase{
		get("front_controller_direct_404", "/index.php", hostSymfony),
		get("front_controller_path_info_404", "/index.php/blog/post-1", hostSymfony),
		get("other_php_404", "/other.php", hostSymfony),
		get("missing_php_404", "/missing.php", hostSymfony),
		get("asset_css", "/bundles/app/app.css", hostSymfony),
		get("asset_js", "/build/app.js", hostSymfony),
		get("robots", "/robots.txt", hostSymfony),
		get("asset_ims", "/build/app.js", hostSymfony, "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
	}, viaPHP(
		get("front_page", "/", hostSymfony),
		get("pretty_url", "/blog/post-1", hostSymfony),
		get("pretty_url_query", "/blog?page=2", hostSymfony),
		get("missing_asset_to_front", "/build/missing.js", hostSymfony),
		get("dir_to_front", "/bundles/", hostSymfony),
		get("www_host", "/blog/post-1", "Host: www.domain.tld"),
		post("post_form", "POST", "/login", "_username=a&_password=b", hostSymfony, "Content-Type: application/x-www-form-urlencoded"),
	)),
})

// Drupal: the nginx wiki's Drupal recipe (a recipe nginx's wiki keeps,
// not a file of Drupal's own).
// Source (read 2026-12-01):
// https://github.com/nginxinc/nginx-wiki/blob/012bee25ee63af5b6af7370e106136590ed3e616/source/start/topics/recipes/drupal.rst
// (rendered at https://www.nginx.com/resources/wiki/start/topics/recipes/drupal/).
// The block names no listen; {{LISTEN}} is added.
const drupalProjectHTTP = `
server {
    listen {{LISTEN}};
    server_name example.com;
    root {{ROOT}}/drupal;

    location = /favicon.ico {
        log_not_found off;
        access_log off;
    }

    location = /robots.txt {
        allow all;
        log_not_found off;
        access_log off;
    }

    location ~* \.(txt|log)$ {
        allow 192.168.0.0/16;
        deny all;
    }

    location ~ \..*/.*\.php$ {
        return 403;
    }

    location ~ ^/sites/.*/private/ {
        return 403;
    }

    location ~ (^|/)\. {
        return 403;
    }

    location / {
        try_files $uri /index.php;
    }

    location @rewrite {
        rewrite ^/(.*)$ /index.php?q=$1;
    }

    location ~ \.php$ {
        fastcgi_split_path_info ^(.+\.php)(/.+)$;
        include {{FASTCGI_PARAMS}};
        fastcgi_param SCRIPT_FILENAME $request_filename;
        fastcgi_intercept_errors on;
        fastcgi_pass {{FPM}};
    }

    location ~ ^/sites/.*/files/styles/ {
        try_files $uri @rewrite;
    }

    location ~* \.(js|css|png|jpg|jpeg|gif|ico)$ {
        expires max;
        log_not_found off;
    }
}
`

var _ = addScenario(scenario{
	name:   "project_drupal",
	source: "https://github.com/nginxinc/nginx-wiki/blob/012bee25ee63af5b6af7370e106136590ed3e616/source/start/topics/recipes/drupal.rst",
	http:   drupalProjectHTTP,
	cases: cases([]reqCase{
		get("txt_denied_outside_lan", "/CHANGELOG.txt", hostEx),
		get("robots_allowed", "/robots.txt", hostEx),
		get("favicon", "/favicon.ico", hostEx),
		get("private_files_denied", "/sites/default/private/secret.pdf", hostEx),
		get("php_below_dotted_dir_denied", "/sites/all/modules/x.y/evil.php", hostEx),
		get("dot_git_denied", "/.git/config", hostEx),
		get("dot_file_in_subdir_denied", "/sites/default/.settings.php.swp", hostEx),
		get("asset_js_expires_max", "/core/misc/drupal.js", hostEx),
		get("asset_js_ims", "/core/misc/drupal.js", hostEx, "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
		get("asset_png", "/misc/druplicon.png", hostEx),
		get("asset_missing_404", "/misc/missing.png", hostEx),
		get("files_css", "/sites/default/files/a.css", hostEx),
		get("image_style_exists", "/sites/default/files/styles/thumb/public/a.png", hostEx),
	}, viaPHP(
		get("front_page", "/", hostEx),
		get("pretty_url", "/node/1", hostEx),
		get("pretty_url_query", "/node?page=1", hostEx),
		get("image_style_generated", "/sites/default/files/styles/thumb/public/new.png?itok=abc", hostEx),
		get("update_php", "/update.php?op=info", hostEx),
		get("index_php_path_info", "/index.php/node/1", hostEx),
		get("missing_php_intercepted", "/missing.php", hostEx),
		post("post_form", "POST", "/user/login", "name=a&pass=b", hostEx, "Content-Type: application/x-www-form-urlencoded"),
	)),
})

// Nextcloud: nginx-root.conf.sample of the admin manual ("Nextcloud in
// the webroot of nginx", version 2024-07-17). Source (read 2026-12-01):
// https://github.com/nextcloud/documentation/blob/003f80e10be7353e4b46e2ad3e9a46ee6ebf8ea3/admin_manual/installation/nginx-root.conf.sample
// (rendered at https://docs.nextcloud.com/server/latest/admin_manual/installation/nginx.html).
// The TLS server ("listen 443 ssl http2") is a plain listener here, its
// ssl_certificate lines gone, and the port-80 server that only redirects
// to https is left out; "fastcgi_param HTTPS on" stays as published.
const nextcloudProjectHTTP = `
upstream php-handler {
    server {{FPM}};
}

map $arg_v $asset_immutable {
    "" "";
    default ", immutable";
}

server {
    listen {{LISTEN}};
    server_name cloud.example.com;

    root {{ROOT}}/nextcloud;

    server_tokens off;

    client_max_body_size 512M;
    client_body_timeout 300s;
    fastcgi_buffers 64 4K;

    gzip on;
    gzip_vary on;
    gzip_comp_level 4;
    gzip_min_length 256;
    gzip_proxied expired no-cache no-store private no_last_modified no_etag auth;
    gzip_types application/atom+xml text/javascript application/javascript application/json application/ld+json application/manifest+json application/rss+xml application/vnd.geo+json application/vnd.ms-fontobject application/wasm application/x-font-ttf application/x-web-app-manifest+json application/xhtml+xml application/xml font/opentype image/bmp image/svg+xml image/x-icon text/cache-manifest text/css text/plain text/vcard text/vnd.rim.location.xloc text/vtt text/x-component text/x-cross-domain-policy;

    client_body_buffer_size 512k;

    add_header Referrer-Policy                   "no-referrer"       always;
    add_header X-Content-Type-Options            "nosniff"           always;
    add_header X-Frame-Options                   "SAMEORIGIN"        always;
    add_header X-Permitted-Cross-Domain-Policies "none"              always;
    add_header X-Robots-Tag                      "noindex, nofollow" always;
    add_header X-XSS-Protection                  "1; mode=block"     always;

    fastcgi_hide_header X-Powered-By;

    include {{MIME_TYPES}};
    types {
        text/javascript mjs;
        application/wasm wasm;
    }

    index index.php index.html /index.php$request_uri;

    location = / {
        if ( $http_user_agent ~ ^DavClnt ) {
            return 302 /remote.php/webdav/$is_args$args;
        }
    }

    location = /robots.txt {
        allow all;
        log_not_found off;
        access_log off;
    }

    location ^~ /.well-known {
        absolute_redirect off;

        location = /.well-known/carddav { return 301 /remote.php/dav/; }
        location = /.well-known/caldav  { return 301 /remote.php/dav/; }

        location /.well-known/acme-challenge    { try_files $uri $uri/ =404; }
        location /.well-known/pki-validation    { try_files $uri $uri/ =404; }

        return 301 /index.php$request_uri;
    }

    location ~ ^/(?:build|tests|config|lib|3rdparty|templates|data)(?:$|/)  { return 404; }
    location ~ ^/(?:\.|autotest|occ|issue|indie|db_|console)                { return 404; }

    location ~ \.php(?:$|/) {
        rewrite ^/(?!index|remote|public|cron|core\/ajax\/update|status|ocs\/v[12]|updater\/.+|ocs-provider\/.+|.+\/richdocumentscode(_arm64)?\/proxy) /index.php$request_uri;

        fastcgi_split_path_info ^(.+?\.php)(/.*)$;
        set $path_info $fastcgi_path_info;

        try_files $fastcgi_script_name =404;

        include {{FASTCGI_PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        fastcgi_param PATH_INFO $path_info;
        fastcgi_param HTTPS on;

        fastcgi_param modHeadersAvailable true;
        fastcgi_param front_controller_active true;
        fastcgi_pass php-handler;

        fastcgi_intercept_errors on;
        fastcgi_request_buffering off;

        fastcgi_max_temp_file_size 0;
    }

    location ~ \.(?:css|js|mjs|svg|gif|ico|jpg|png|webp|wasm|tflite|map|ogg|flac)$ {
        try_files $uri /index.php$request_uri;
        add_header Cache-Control                     "public, max-age=15778463$asset_immutable";
        add_header Referrer-Policy                   "no-referrer"       always;
        add_header X-Content-Type-Options            "nosniff"           always;
        add_header X-Frame-Options                   "SAMEORIGIN"        always;
        add_header X-Permitted-Cross-Domain-Policies "none"              always;
        add_header X-Robots-Tag                      "noindex, nofollow" always;
        add_header X-XSS-Protection                  "1; mode=block"     always;
        access_log off;
    }

    location ~ \.(otf|woff2?)$ {
        try_files $uri /index.php$request_uri;
        expires 7d;
        access_log off;
    }

    location /remote {
        return 301 /remote.php$request_uri;
    }

    location / {
        try_files $uri $uri/ /index.php$request_uri;
    }
}
`

const hostCloud = "Host: cloud.example.com"

var _ = addScenario(scenario{
	name:   "project_nextcloud",
	source: "https://github.com/nextcloud/documentation/blob/003f80e10be7353e4b46e2ad3e9a46ee6ebf8ea3/admin_manual/installation/nginx-root.conf.sample",
	http:   nextcloudProjectHTTP,
	cases: cases([]reqCase{
		get("dav_client_redirect", "/", hostCloud, "User-Agent: DavClnt"),
		get("dav_client_redirect_args", "/?x=1", hostCloud, "User-Agent: DavClnt"),
		get("robots", "/robots.txt", hostCloud),
		get("well_known_carddav", "/.well-known/carddav", hostCloud),
		get("well_known_caldav", "/.well-known/caldav", hostCloud),
		get("well_known_webfinger", "/.well-known/webfinger?resource=acct:a", hostCloud),
		get("well_known_nodeinfo", "/.well-known/nodeinfo", hostCloud),
		get("well_known_acme", "/.well-known/acme-challenge/token123", hostCloud),
		get("well_known_acme_missing", "/.well-known/acme-challenge/nope", hostCloud),
		get("config_hidden", "/config/config.php", hostCloud),
		get("data_hidden", "/data/admin/files/a.txt", hostCloud),
		get("lib_hidden", "/lib", hostCloud),
		get("dotfile_hidden", "/.htaccess", hostCloud),
		get("occ_hidden", "/occ", hostCloud),
		get("asset_js", "/core/js/app.js", hostCloud),
		get("asset_js_versioned_immutable", "/core/js/app.js?v=abc123", hostCloud),
		get("asset_mjs_type", "/core/js/mod.mjs", hostCloud),
		get("asset_wasm_type", "/core/vendor/lib.wasm", hostCloud),
		get("asset_css_gzip", "/core/css/style.css", hostCloud, "Accept-Encoding: gzip"),
		get("asset_svg", "/core/img/logo.svg", hostCloud),
		get("font_expires_7d", "/core/fonts/font.woff2", hostCloud),
		get("remote_redirect", "/remote/dav", hostCloud),
		get("app_dir_index_html", "/apps/theming/", hostCloud),
		head("asset_head_gzip", "/core/css/style.css", hostCloud, "Accept-Encoding: gzip"),
	}, viaPHP(
		get("front_page", "/", hostCloud),
		get("pretty_url", "/apps/files/", hostCloud),
		get("pretty_url_query", "/apps/files/?dir=/Photos", hostCloud),
		get("pretty_url_dir_no_slash", "/apps/files", hostCloud),
		get("index_path_info", "/index.php/apps/files/", hostCloud),
		get("remote_dav_path_info", "/remote.php/dav/files/admin/a.txt", hostCloud),
		req("remote_propfind", "PROPFIND", "/remote.php/dav/files/admin/", hostCloud, "Depth: 1"),
		get("status", "/status.php", hostCloud),
		raw("remote_put_chunked", "PUT /remote.php/dav/files/admin/up.txt HTTP/1.1\nHost: cloud.example.com\nTransfer-Encoding: chunked\n\n5\nhello\n0\n\n"),
		get("path_info_encoded", "/index.php/apps/files%20x/a%2Fb", hostCloud),
		head("head_status", "/status.php", hostCloud),
		get("ocs_v1", "/ocs/v1.php/cloud/capabilities?format=json", hostCloud),
		get("legacy_php_to_front", "/apps/files/ajax/list.php?dir=/", hostCloud),
		get("missing_php_to_front", "/nope.php", hostCloud),
		get("missing_asset_to_front", "/core/js/missing.js", hostCloud),
		get("missing_font_to_front", "/core/fonts/missing.woff", hostCloud),
		post("post_login", "POST", "/index.php/login", "user=admin&password=x", hostCloud, "Content-Type: application/x-www-form-urlencoded"),
	)),
})

// Nextcloud in a subdirectory: nginx-subdir.conf.sample of the admin
// manual ("Nextcloud in a subdir of the NGINX webroot"). Source (read 2026-12-01):
// https://github.com/nextcloud/documentation/blob/00eb6409e949958fc609b8755eadbdbf3cf2dfa8/admin_manual/installation/nginx-subdir.conf.sample
// As for the webroot sample, the TLS server is a plain listener here, its
// ssl_certificate lines gone, and the port-80 server (its one location
// redirects /nextcloud to https) is left out.
const nextcloudSubdirProjectHTTP = `
upstream php-handler {
    server {{FPM}};
}

map $arg_v $asset_immutable {
    "" "";
    default "immutable";
}

server {
    listen {{LISTEN}};
    server_name cloud.example.com;

    root {{ROOT}}/nextcloud_subdir;

    server_tokens off;

    location = /robots.txt {
        allow all;
        log_not_found off;
        access_log off;
    }

    location ^~ /.well-known {
        location = /.well-known/carddav { return 301 /nextcloud/remote.php/dav/; }
        location = /.well-known/caldav  { return 301 /nextcloud/remote.php/dav/; }

        location /.well-known/acme-challenge    { try_files $uri $uri/ =404; }
        location /.well-known/pki-validation    { try_files $uri $uri/ =404; }

        return 301 /nextcloud/index.php$request_uri;
    }

    location ^~ /nextcloud {
        client_max_body_size 512M;
        client_body_timeout 300s;
        fastcgi_buffers 64 4K;

        gzip on;
        gzip_vary on;
        gzip_comp_level 4;
        gzip_min_length 256;
        gzip_proxied expired no-cache no-store private no_last_modified no_etag auth;
        gzip_types application/atom+xml application/javascript application/json application/ld+json application/manifest+json application/rss+xml application/vnd.geo+json application/vnd.ms-fontobject application/wasm application/x-font-ttf application/x-web-app-manifest+json application/xhtml+xml application/xml font/opentype image/bmp image/svg+xml image/x-icon text/cache-manifest text/css text/plain text/vcard text/vnd.rim.location.xloc text/vtt text/x-component text/x-cross-domain-policy;

        add_header Referrer-Policy                      "no-referrer"   always;
        add_header X-Content-Type-Options               "nosniff"       always;
        add_header X-Download-Options                   "noopen"        always;
        add_header X-Frame-Options                      "SAMEORIGIN"    always;
        add_header X-Permitted-Cross-Domain-Policies    "none"          always;
        add_header X-Robots-Tag                         "none"          always;
        add_header X-XSS-Protection                     "1; mode=block" always;

        fastcgi_hide_header X-Powered-By;

        index index.php index.html /nextcloud/index.php$request_uri;

        location = /nextcloud {
            if ( $http_user_agent ~ ^DavClnt ) {
                return 302 /nextcloud/remote.php/webdav/$is_args$args;
            }
        }

        location ~ ^/nextcloud/(?:build|tests|config|lib|3rdparty|templates|data)(?:$|/)    { return 404; }
        location ~ ^/nextcloud/(?:\.|autotest|occ|issue|indie|db_|console)                  { return 404; }

        location ~ \.php(?:$|/) {
            rewrite ^/nextcloud/(?!index|remote|public|cron|core\/ajax\/update|status|ocs\/v[12]|updater\/.+|oc[ms]-provider\/.+|.+\/richdocumentscode\/proxy) /nextcloud/index.php$request_uri;

            fastcgi_split_path_info ^(.+?\.php)(/.*)$;
            set $path_info $fastcgi_path_info;

            try_files $fastcgi_script_name =404;

            include {{FASTCGI_PARAMS}};
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
            fastcgi_param PATH_INFO $path_info;
            fastcgi_param HTTPS on;

            fastcgi_param modHeadersAvailable true;
            fastcgi_param front_controller_active true;
            fastcgi_pass php-handler;

            fastcgi_intercept_errors on;
            fastcgi_request_buffering off;

            fastcgi_max_temp_file_size 0;
        }

        location ~ \.(?:css|js|svg|gif|png|jpg|ico|wasm|tflite|map)$ {
            try_files $uri /nextcloud/index.php$request_uri;
            add_header Cache-Control "public, max-age=15778463, $asset_immutable";
            access_log off;

            location ~ \.wasm$ {
                default_type application/wasm;
            }
        }

        location ~ \.woff2?$ {
            try_files $uri /nextcloud/index.php$request_uri;
            expires 7d;
            access_log off;
        }

        location /nextcloud/remote {
            return 301 /nextcloud/remote.php$request_uri;
        }

        location /nextcloud {
            try_files $uri $uri/ /nextcloud/index.php$request_uri;
        }
    }
}
`

var _ = addScenario(scenario{
	name:   "project_nextcloud_subdir",
	source: "https://github.com/nextcloud/documentation/blob/00eb6409e949958fc609b8755eadbdbf3cf2dfa8/admin_manual/installation/nginx-subdir.conf.sample",
	http:   nextcloudSubdirProjectHTTP,
	cases: cases([]reqCase{
		get("domain_root", "/", hostCloud),
		get("robots_missing", "/robots.txt", hostCloud),
		get("outside_nextcloud_404", "/other/page", hostCloud),
		get("subdir_no_slash", "/nextcloud", hostCloud),
		get("dav_client_redirect", "/nextcloud", hostCloud, "User-Agent: DavClnt"),
		get("well_known_carddav", "/.well-known/carddav", hostCloud),
		get("well_known_caldav", "/.well-known/caldav", hostCloud),
		get("well_known_webfinger", "/.well-known/webfinger?resource=acct:a", hostCloud),
		get("well_known_acme", "/.well-known/acme-challenge/token123", hostCloud),
		get("config_hidden", "/nextcloud/config/config.php", hostCloud),
		get("dotfile_hidden", "/nextcloud/.htaccess", hostCloud),
		get("asset_js", "/nextcloud/core/js/app.js", hostCloud),
		get("asset_js_versioned_immutable", "/nextcloud/core/js/app.js?v=abc123", hostCloud),
		get("asset_wasm_nested_type", "/nextcloud/core/vendor/lib.wasm", hostCloud),
		get("font_expires_7d", "/nextcloud/core/fonts/font.woff2", hostCloud),
		get("remote_redirect", "/nextcloud/remote/dav", hostCloud),
	}, viaPHP(
		get("front_page", "/nextcloud/", hostCloud),
		get("pretty_url", "/nextcloud/apps/files/", hostCloud),
		get("pretty_url_dir_no_slash", "/nextcloud/apps/files", hostCloud),
		get("index_path_info", "/nextcloud/index.php/apps/files/", hostCloud),
		get("remote_dav_path_info", "/nextcloud/remote.php/dav/files/admin/a.txt", hostCloud),
		get("status", "/nextcloud/status.php", hostCloud),
		get("legacy_php_to_front", "/nextcloud/apps/files/ajax/list.php?dir=/", hostCloud),
		get("missing_php_to_front", "/nextcloud/nope.php", hostCloud),
		get("missing_asset_to_front", "/nextcloud/core/js/missing.js", hostCloud),
	)),
})

// Magento 2: nginx.conf.sample from the repository's root, included by
// the example server its header describes (an upstream fastcgi_backend,
// a server that sets $MAGE_ROOT and $MAGE_MODE and includes the sample);
// the sample's directives are written here in place of the include.
// Source (read 2026-12-01):
// https://github.com/magento/magento2/blob/014b3f43d167016289d36b08e261383a25f396e5/nginx.conf.sample
const magentoProjectHTTP = `
upstream fastcgi_backend {
    server {{FPM}};
}

server {
    listen {{LISTEN}};
    server_name mage.dev;
    set $MAGE_ROOT {{ROOT}}/magento;
    set $MAGE_MODE developer;

    root $MAGE_ROOT/pub;

    index index.php;
    autoindex off;
    charset off;

    location /setup {
        root $MAGE_ROOT;
        location ~ ^/setup/index.php {
            fastcgi_pass   fastcgi_backend;
            fastcgi_index  index.php;
            fastcgi_param  SCRIPT_FILENAME  $document_root$fastcgi_script_name;
            include        {{FASTCGI_PARAMS}};
        }

        location ~ ^/setup/(?!pub/). {
            deny all;
        }

        location ~ ^/setup/pub/ {
            add_header X-Frame-Options "SAMEORIGIN";
        }
    }

    location /update {
        root $MAGE_ROOT;

        location ~ ^/update/index.php {
            fastcgi_split_path_info ^(/update/index.php)(/.+)$;
            fastcgi_pass   fastcgi_backend;
            fastcgi_index  index.php;
            fastcgi_param  SCRIPT_FILENAME  $document_root$fastcgi_script_name;
            fastcgi_param  PATH_INFO        $fastcgi_path_info;
            include        {{FASTCGI_PARAMS}};
        }

        location ~ ^/update/(?!pub/). {
            deny all;
        }

        location ~ ^/update/pub/ {
            add_header X-Frame-Options "SAMEORIGIN";
        }
    }

    location / {
        try_files $uri $uri/ /index.php?$args;
    }

    location /pub {
        location ~ ^/pub/media/(downloadable|customer|import|theme_customization/.*\.xml) {
            deny all;
        }
        alias $MAGE_ROOT/pub;
        add_header X-Frame-Options "SAMEORIGIN";
    }

    location /static/ {
        if ($MAGE_MODE = "production") {
            expires max;
        }
        location ~* \.(ico|jpg|jpeg|png|gif|svg|js|css|swf|eot|ttf|otf|woff|woff2)$ {
            add_header Cache-Control "public";
            add_header X-Frame-Options "SAMEORIGIN";
            expires +1y;

            if (!-f $request_filename) {
                rewrite ^/static/(version\d*/)?(.*)$ /static.php?resource=$2 last;
            }
        }
        location ~* \.(zip|gz|gzip|bz2|csv|xml)$ {
            add_header Cache-Control "no-store";
            add_header X-Frame-Options "SAMEORIGIN";
            expires    off;

            if (!-f $request_filename) {
               rewrite ^/static/(version\d*/)?(.*)$ /static.php?resource=$2 last;
            }
        }
        if (!-f $request_filename) {
            rewrite ^/static/(version\d*/)?(.*)$ /static.php?resource=$2 last;
        }
        add_header X-Frame-Options "SAMEORIGIN";
    }

    location /media/ {
        try_files $uri $uri/ /get.php?$args;

        location ~ ^/media/theme_customization/.*\.xml {
            deny all;
        }

        location ~* \.(ico|jpg|jpeg|png|gif|svg|js|css|swf|eot|ttf|otf|woff|woff2)$ {
            add_header Cache-Control "public";
            add_header X-Frame-Options "SAMEORIGIN";
            expires +1y;
            try_files $uri $uri/ /get.php?$args;
        }
        location ~* \.(zip|gz|gzip|bz2|csv|xml)$ {
            add_header Cache-Control "no-store";
            add_header X-Frame-Options "SAMEORIGIN";
            expires    off;
            try_files $uri $uri/ /get.php?$args;
        }
        add_header X-Frame-Options "SAMEORIGIN";
    }

    location /media/customer/ {
        deny all;
    }

    location /media/downloadable/ {
        deny all;
    }

    location /media/import/ {
        deny all;
    }

    location ~ cron\.php {
        deny all;
    }

    location ~ (index|get|static|report|404|503)\.php$ {
        try_files $uri =404;
        fastcgi_pass   fastcgi_backend;
        fastcgi_buffers 1024 4k;

        fastcgi_param  PHP_FLAG  "session.auto_start=off \n suhosin.session.cryptua=off";
        fastcgi_param  PHP_VALUE "memory_limit=768M \n max_execution_time=600";
        fastcgi_read_timeout 600s;
        fastcgi_connect_timeout 600s;
        fastcgi_param  MAGE_MODE $MAGE_MODE;

        fastcgi_index  index.php;
        fastcgi_param  SCRIPT_FILENAME  $document_root$fastcgi_script_name;
        include        {{FASTCGI_PARAMS}};
    }
}
`

const hostMage = "Host: mage.dev"

var _ = addScenario(scenario{
	name:   "project_magento",
	source: "https://github.com/magento/magento2/blob/014b3f43d167016289d36b08e261383a25f396e5/nginx.conf.sample",
	http:   magentoProjectHTTP,
	cases: cases([]reqCase{
		get("static_css_expires_1y", "/static/frontend/Magento/luma/styles.css", hostMage),
		get("static_css_range", "/static/frontend/Magento/luma/styles.css", hostMage, "Range: bytes=0-3"),
		get("static_css_inm", "/static/frontend/Magento/luma/styles.css", hostMage, "If-None-Match: "+etagFor(len("body { color: #333; }\n"))),
		get("static_csv_no_store", "/static/frontend/Magento/luma/export.csv", hostMage),
		get("static_other_type", "/static/frontend/Magento/luma/", hostMage),
		get("media_jpg_expires_1y", "/media/catalog/product/a.jpg", hostMage),
		get("media_xml_no_store", "/media/feed.xml", hostMage),
		get("media_customer_denied", "/media/customer/a.txt", hostMage),
		get("media_import_denied", "/media/import/a.csv", hostMage),
		get("media_theme_xml_denied", "/media/theme_customization/a.xml", hostMage),
		get("setup_pub_frame_options", "/setup/pub/app.js", hostMage),
		get("setup_other_denied", "/setup/config.txt", hostMage),
		get("setup_no_slash", "/setup", hostMage),
		get("update_pub", "/update/pub/app.js", hostMage),
		get("update_other_denied", "/update/secret.txt", hostMage),
		get("cron_denied", "/cron.php", hostMage),
		get("pub_alias_static", "/pub/static/frontend/Magento/luma/styles.css", hostMage),
		get("pub_alias_customer_denied", "/pub/media/customer/a.txt", hostMage),
		get("missing_report_php_404", "/report.php", hostMage),
	}, viaPHP(
		get("front_page", "/", hostMage),
		get("pretty_url", "/women/tops-women.html", hostMage),
		get("pretty_url_query", "/catalogsearch/result/?q=shirt", hostMage),
		get("static_versioned_to_static_php", "/static/version1700000000/frontend/Magento/luma/en_US/css/x.css", hostMage),
		get("static_versioned_existing_to_static_php", "/static/version1700000000/frontend/Magento/luma/styles.css", hostMage),
		get("static_missing_other_type", "/static/frontend/Magento/luma/en_US/requirejs-config.json", hostMage),
		get("media_missing_to_get_php", "/media/catalog/product/missing.jpg", hostMage),
		get("media_missing_dir_to_get_php", "/media/wysiwyg/", hostMage),
		get("setup_index", "/setup/", hostMage),
		get("update_path_info", "/update/index.php/session/start", hostMage),
		get("index_php_direct", "/index.php", hostMage),
		post("post_form", "POST", "/customer/account/loginPost/", "login%5Busername%5D=a", hostMage, "Content-Type: application/x-www-form-urlencoded"),
	)),
})

// Matomo: sites-available/matomo.conf of matomo-org/matomo-nginx.
// Source (read 2026-12-01):
// https://github.com/matomo-org/matomo-nginx/blob/04f05c54c6426a5c7096120c44de270d1b828af8/sites-available/matomo.conf
// The TLS server ("listen 443 ssl http2") is a plain listener here, its
// ssl_certificate lines and "include ssl.conf" gone, and the port-80
// server that only redirects to https is left out.
const matomoProjectHTTP = `
server {
    listen {{LISTEN}};
    server_name matomo.example.com;
    access_log logs/matomo.access.log;
    error_log logs/matomo.error.log;

    add_header Referrer-Policy "origin" always;
    add_header X-Content-Type-Options "nosniff" always;
    add_header X-Frame-Options "SAMEORIGIN" always;
    add_header X-XSS-Protection "1; mode=block" always;

    root {{ROOT}}/matomo;

    index index.php;
    try_files $uri $uri/ =404;

    location ~ ^/(index|matomo|piwik|js/index|plugins/HeatmapSessionRecording/configs).php {
        include {{FASTCGI_PHP}};
        fastcgi_param HTTP_PROXY "";
        fastcgi_pass {{FPM}};
    }

    location ~* ^.+\.php$ {
        deny all;
        return 403;
    }

    location ~ /\.well-known {
        allow all;
    }
    location ~ /(\.|config|tmp|core|lang|libs|vendor|plugins|misc/user) {
        deny all;
        return 403;
    }

    location ~ js/container_.*_preview\.js$ {
        expires off;
        add_header Cache-Control 'private, no-cache, no-store';
    }

    location ~ \.(gif|ico|jpg|png|svg|js|css|htm|html|mp3|mp4|wav|ogg|avi|ttf|eot|woff|woff2|json)$ {
        allow all;
        expires 1h;
        add_header Pragma public;
        add_header Cache-Control "public";
    }

    location ~/(.*\.md|LEGALNOTICE|LICENSE) {
        default_type text/plain;
    }
}
`

const hostMatomo = "Host: matomo.example.com"

var _ = addScenario(scenario{
	name:   "project_matomo",
	source: "https://github.com/matomo-org/matomo-nginx/blob/04f05c54c6426a5c7096120c44de270d1b828af8/sites-available/matomo.conf",
	http:   matomoProjectHTTP,
	cases: cases([]reqCase{
		get("other_php_denied", "/other.php", hostMatomo),
		get("config_php_denied", "/config/config.ini.php", hostMatomo),
		get("core_php_denied", "/core/Piwik.php", hostMatomo),
		get("tracker_js_expires_1h", "/matomo.js", hostMatomo),
		get("plugins_denied", "/plugins/CoreHome/a.js", hostMatomo),
		get("misc_user_denied", "/misc/user/logo.png", hostMatomo),
		get("misc_png", "/misc/logo.png", hostMatomo),
		get("preview_js_no_cache", "/js/container_abc_preview.js", hostMatomo),
		get("legalnotice_text", "/LEGALNOTICE", hostMatomo),
		get("markdown_text", "/CHANGELOG.md", hostMatomo),
		get("dot_git_denied", "/.git/HEAD", hostMatomo),
		get("well_known_allowed", "/.well-known/security.txt", hostMatomo),
		get("tmp_denied", "/tmp/cache.txt", hostMatomo),
		get("missing_404", "/missing.html", hostMatomo),
		get("dir_without_index_404", "/misc/", hostMatomo),
		get("missing_tracker_php_404", "/js/missing.php", hostMatomo),
	}, viaPHP(
		get("front_page", "/", hostMatomo),
		get("pretty_query", "/index.php?module=CoreHome&action=index&idSite=1&period=day&date=yesterday", hostMatomo),
		get("tracker", "/matomo.php?idsite=1&rec=1&url=http%3A%2F%2Fexample.com%2F", hostMatomo),
		get("tracker_path_info", "/matomo.php/extra/path", hostMatomo),
		get("legacy_tracker", "/piwik.php?idsite=1&rec=1", hostMatomo),
		get("js_index", "/js/index.php", hostMatomo),
		get("httpoxy_cleared", "/matomo.php", hostMatomo, "Proxy: http://evil.example"),
		post("tracker_post", "POST", "/matomo.php", "idsite=1&rec=1", hostMatomo, "Content-Type: application/x-www-form-urlencoded"),
	)),
})

// PrestaShop: the example server of "Configure Nginx" in the PrestaShop
// developer documentation. Source (read 2026-12-01):
// https://github.com/PrestaShop/docs/blob/17402c7a0ce205acd21488f4616c98188ac005b0/basics/installation/nginx.md
// (rendered at https://devdocs.prestashop-project.org/8/basics/installation/nginx/).
// Its "listen 443 ssl http2" and ssl_certificate lines go (plain HTTP
// only here).
const prestashopProjectHTTP = `
server {
    listen {{LISTEN}};

    server_name example.com www.example.com;

    access_log logs/example.com-access.log;
    error_log logs/example.com-error.log;

    root {{ROOT}}/prestashop;

    index index.php;

    error_page 404 /index.php?controller=404;

    location ~* \.(eot|otf|ttf|woff|woff2)$ {
        add_header Access-Control-Allow-Origin *;
    }

    location ~* \.pdf$ {
        add_header Content-Disposition Attachment;
        add_header X-Content-Type-Options nosniff;
    }

    location ~ ^/upload/ {
        add_header Content-Disposition Attachment;
        add_header X-Content-Type-Options nosniff;
    }

    location = /favicon.ico {
        access_log off;
        allow all;
        auth_basic off;
        log_not_found off;
    }

    location = /robots.txt {
        access_log off;
        allow all;
        auth_basic off;
        log_not_found off;
    }

    rewrite ^/([0-9])(-[_a-zA-Z0-9-]*)?(-[0-9]+)?/.+.jpg$ /img/p/$1/$1$2$3.jpg last;
    rewrite ^/([0-9])([0-9])(-[_a-zA-Z0-9-]*)?(-[0-9]+)?/.+.jpg$ /img/p/$1/$2/$1$2$3$4.jpg last;
    rewrite ^/([0-9])([0-9])([0-9])(-[_a-zA-Z0-9-]*)?(-[0-9]+)?/.+.jpg$ /img/p/$1/$2/$3/$1$2$3$4$5.jpg last;
    rewrite ^/([0-9])([0-9])([0-9])([0-9])(-[_a-zA-Z0-9-]*)?(-[0-9]+)?/.+.jpg$ /img/p/$1/$2/$3/$4/$1$2$3$4$5$6.jpg last;
    rewrite ^/([0-9])([0-9])([0-9])([0-9])([0-9])(-[_a-zA-Z0-9-]*)?(-[0-9]+)?/.+.jpg$ /img/p/$1/$2/$3/$4/$5/$1$2$3$4$5$6$7.jpg last;
    rewrite ^/([0-9])([0-9])([0-9])([0-9])([0-9])([0-9])(-[_a-zA-Z0-9-]*)?(-[0-9]+)?/.+.jpg$ /img/p/$1/$2/$3/$4/$5/$6/$1$2$3$4$5$6$7$8.jpg last;
    rewrite ^/([0-9])([0-9])([0-9])([0-9])([0-9])([0-9])([0-9])(-[_a-zA-Z0-9-]*)?(-[0-9]+)?/.+.jpg$ /img/p/$1/$2/$3/$4/$5/$6/$7/$1$2$3$4$5$6$7$8$9.jpg last;
    rewrite ^/([0-9])([0-9])([0-9])([0-9])([0-9])([0-9])([0-9])([0-9])(-[_a-zA-Z0-9-]*)?(-[0-9]+)?/.+.jpg$ /img/p/$1/$2/$3/$4/$5/$6/$7/$8/$1$2$3$4$5$6$7$8$9$10.jpg last;
    rewrite ^/c/([0-9]+)(-[.*_a-zA-Z0-9-]*)(-[0-9]+)?/.+.jpg$ /img/c/$1$2$3.jpg last;
    rewrite ^/c/([a-zA-Z_-]+)(-[0-9]+)?/.+.jpg$ /img/c/$1$2.jpg last;

    rewrite ^images_ie/?([^/]+)\.(gif|jpe?g|png)$ js/jquery/plugins/fancybox/images/$1.$2 last;

    rewrite ^/api/?(.*)$ /webservice/dispatcher.php?url=$1 last;

    rewrite ^(/install(?:-dev)?/sandbox)/(.*) /$1/test.php last;

    location / {
        try_files $uri $uri/ /index.php$is_args$args;
    }

    location /admin-dev/ {
        if (!-e $request_filename) {
            rewrite ^/.*$ /admin-dev/index.php last;
        }
    }

    location ~ /\. {
        deny all;
    }

    location ~ ^/(app|bin|cache|classes|config|controllers|docs|localization|override|src|tests|translations|var|vendor)/ {
        deny all;
    }

    location ~ ^/modules/.*/vendor/ {
        deny all;
    }

    location ~ \.(log|tpl|twig|sass|yml)$ {
        deny all;
    }

    location /img {
        location ~ \.php$ { deny all; }
    }

    location /upload {
        location ~ \.php$ { deny all; }
    }

    location ~ \.php$ {
        try_files $fastcgi_script_name /index.php$uri&$args =404;

        fastcgi_index  index.php;

        fastcgi_split_path_info ^(.+\.php)(/.+)$;

        include       {{FASTCGI_PARAMS}};

        fastcgi_param PATH_INFO       $fastcgi_path_info;
        fastcgi_param PATH_TRANSLATED $document_root$fastcgi_path_info;
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;

        fastcgi_pass {{FPM}};

        fastcgi_keep_conn on;
        fastcgi_read_timeout 30s;
        fastcgi_send_timeout 30s;

        client_max_body_size 10M;
    }
}
`

var _ = addScenario(scenario{
	name:   "project_prestashop",
	source: "https://github.com/PrestaShop/docs/blob/17402c7a0ce205acd21488f4616c98188ac005b0/basics/installation/nginx.md",
	http:   prestashopProjectHTTP,
	cases: cases([]reqCase{
		get("dot_git_denied", "/.git/config", hostEx),
		get("src_denied", "/src/Kernel.php", hostEx),
		get("tpl_denied", "/themes/classic/a.tpl", hostEx),
		get("img_php_denied", "/img/x.php", hostEx),
		get("favicon", "/favicon.ico", hostEx),
		get("font_cors", "/themes/classic/font.woff2", hostEx),
		get("pdf_attachment", "/docs.pdf", hostEx),
	}, viaPHP(
		get("front_page", "/", hostEx),
		get("pretty_url", "/3-clothes", hostEx),
		get("product_image_rewrite", "/12-home_default/hummingbird.jpg", hostEx),
		get("webservice_api", "/api/products?ws_key=x", hostEx),
		get("missing_php_to_index", "/nope.php", hostEx),
		get("index_path_info", "/index.php/x/y", hostEx),
		get("admin_dir", "/admin-dev/foo", hostEx),
		get("missing_page_404_to_index", "/nope.html", hostEx),
	)),
})

// Grav: webserver-configs/nginx.conf of the Grav repository. Source (read 2026-12-01):
// https://github.com/getgrav/grav/blob/1f32360e905c55c3781dfcca477816a5eba1dcfa/webserver-configs/nginx.conf
// Its listen line is published commented out ("#listen 80;", nginx then
// listens on *:80); {{LISTEN}} is added.
const gravProjectHTTP = `
server {
    listen {{LISTEN}};
    index index.html index.php;

    root {{ROOT}}/grav;
    server_name localhost;

    location / {
        try_files $uri $uri/ /index.php?$query_string;
    }

    location ~* /(\.git|cache|bin|logs|backup|tests)/.*$ { return 403; }
    location ~* /(system|vendor)/.*\.(txt|xml|md|html|yaml|yml|php|pl|py|cgi|twig|sh|bat)$ { return 403; }
    location ~* /user/.*\.(txt|md|yaml|yml|php|pl|py|cgi|twig|sh|bat)$ { return 403; }
    location ~ /(LICENSE\.txt|composer\.lock|composer\.json|nginx\.conf|web\.config|htaccess\.txt|\.htaccess) { return 403; }

    location ~ \.php$ {
        fastcgi_pass {{FPM}};

        fastcgi_split_path_info ^(.+\.php)(/.+)$;
        fastcgi_index index.php;
        include {{FASTCGI_PARAMS}};
        fastcgi_param SCRIPT_FILENAME $document_root/$fastcgi_script_name;
    }
}
`

var _ = addScenario(scenario{
	name:   "project_grav",
	source: "https://github.com/getgrav/grav/blob/1f32360e905c55c3781dfcca477816a5eba1dcfa/webserver-configs/nginx.conf",
	http:   gravProjectHTTP,
	cases: cases([]reqCase{
		get("user_page_md_denied", "/user/pages/01.home/default.md"),
		get("system_yaml_denied", "/system/config/system.yaml"),
		get("system_png_allowed", "/system/assets/grav.png"),
		get("vendor_php_denied", "/vendor/autoload.php"),
		get("cache_denied", "/cache/compiled/a.php"),
		get("logs_denied", "/logs/grav.log"),
		get("license_denied", "/LICENSE.txt"),
		get("composer_json_denied", "/composer.json"),
		get("htaccess_denied", "/.htaccess"),
		get("theme_css", "/user/themes/quark/css/theme.css"),
		get("theme_png", "/user/themes/quark/images/a.png"),
		get("robots", "/robots.txt"),
		get("git_upper_denied", "/.GIT/config"),
	}, viaPHP(
		get("front_page", "/"),
		get("pretty_url", "/blog/my-first-post"),
		get("pretty_url_query", "/blog?page=2"),
		get("pretty_url_params", "/blog/tag:grav"),
		get("index_php_direct", "/index.php"),
		get("index_php_path_info_to_front", "/index.php/blog"),
		get("missing_php", "/nope.php"),
		get("missing_asset_to_front", "/user/themes/quark/css/missing.css"),
		post("post_form", "POST", "/contact", "name=a&message=b", "Content-Type: application/x-www-form-urlencoded"),
	)),
})

// MediaWiki: the nginx wiki's MediaWiki recipe, "the basic configuration
// used for the NGINX wiki" (nginx's recipe, not mediawiki.org's own
// Manual:Short URL/Nginx page). Source (read 2026-12-01):
// https://github.com/nginxinc/nginx-wiki/blob/2dc513606a44fcd7f90e5ed34929f1d4ed703bd5/source/start/topics/recipes/mediawiki.rst
// (rendered at https://www.nginx.com/resources/wiki/start/topics/recipes/mediawiki/).
// The block names no listen; {{LISTEN}} is added. Its PHP location
// passes no SCRIPT_FILENAME (the recipe relies on a fastcgi_params that
// has one, which Debian's and edge's have not), so php-fpm answers every
// PHP request with its own 404, as it does under nginx.
const mediawikiProjectHTTP = `
server {
    listen {{LISTEN}};
    server_name wiki.nginx.org;
    root {{ROOT}}/mediawiki;

    client_max_body_size 5m;
    client_body_timeout 60;

    location / {
        try_files $uri $uri/ @rewrite;
    }

    location @rewrite {
        rewrite ^/(.*)$ /index.php?title=$1&$args;
    }

    location ^~ /maintenance/ {
        return 403;
    }

    location ~ \.php$ {
        include {{FASTCGI_PARAMS}};
        fastcgi_pass {{FPM}};
    }

    location ~* \.(js|css|png|jpg|jpeg|gif|ico)$ {
        try_files $uri /index.php;
        expires max;
        log_not_found off;
    }

    location = /_.gif {
        expires max;
        empty_gif;
    }

    location ^~ /cache/ {
        deny all;
    }

    location /dumps {
        root {{ROOT}}/mediawiki/local;
        autoindex on;
    }
}
`

const hostWiki = "Host: wiki.nginx.org"

var _ = addScenario(scenario{
	name:   "project_mediawiki",
	source: "https://github.com/nginxinc/nginx-wiki/blob/2dc513606a44fcd7f90e5ed34929f1d4ed703bd5/source/start/topics/recipes/mediawiki.rst",
	http:   mediawikiProjectHTTP,
	cases: cases([]reqCase{
		get("maintenance_denied", "/maintenance/update.php", hostWiki),
		get("cache_denied", "/cache/l10n.cdb", hostWiki),
		get("skin_css_expires_max", "/skins/Vector/main.css", hostWiki),
		get("logo_png", "/resources/assets/logo.png", hostWiki),
		get("upload_jpg", "/images/a/ab/Example.jpg", hostWiki),
		get("dumps_listing", "/dumps/", hostWiki),
		get("dumps_no_slash", "/dumps", hostWiki),
		get("dumps_file", "/dumps/README.txt", hostWiki),
		get("dumps_gz", "/dumps/enwiki.xml.gz", hostWiki),
		get("empty_gif", "/_.gif", hostWiki),
		get("empty_gif_ims", "/_.gif", hostWiki, "If-Modified-Since: Mon, 28 Sep 1970 06:00:00 GMT"),
	}, viaPHP(
		get("front_page", "/", hostWiki),
		get("pretty_url", "/Main_Page", hostWiki),
		get("pretty_url_args", "/Special:Search?search=nginx", hostWiki),
		get("index_php", "/index.php?title=Main_Page&action=edit", hostWiki),
		get("load_php", "/load.php?modules=startup&only=scripts", hostWiki),
		get("missing_asset_to_index", "/skins/Vector/missing.css", hostWiki),
	)),
})

// Shopware 6: the nginx reference configuration of the Shopware developer
// documentation. Source (read 2026-12-01):
// https://github.com/shopware/docs/blob/00aea5be80327d154401f1fc5ad22cee580712a6/resources/references/config-reference/server/nginx.md
// (rendered at https://developer.shopware.com/docs/resources/references/config-reference/server/nginx.html).
const shopwareProjectHTTP = `
server {
    listen {{LISTEN}};

    index index.php index.html;
    server_name localhost;

    client_max_body_size 128M;

    root {{ROOT}}/shopware/public;

    location /shopware-installer.phar.php {
    try_files $uri /shopware-installer.phar.php$is_args$args;
    }

    location ~ ^/shopware-installer\.phar\.php/.+\.(?:css|js|png|svg|woff)$ {
     try_files $uri /shopware-installer.phar.php$is_args$args;
    }

    location ~ /\. {
        deny all;
    }

    location ~ ^/(media|thumbnail|theme|bundles|sitemap).*\.php$ {
        deny all;
    }

    location /recovery/install {
        index index.php;
        try_files $uri /recovery/install/index.php$is_args$args;
    }

    location /recovery/update/ {
        location /recovery/update/assets {
        }
        if (!-e $request_filename){
            rewrite . /recovery/update/index.php last;
        }
    }

    location ~ ^/(theme|media|thumbnail|bundles|css|fonts|js|recovery|sitemap)/ {
        expires 1y;
        add_header Cache-Control "public, must-revalidate, proxy-revalidate";
        log_not_found off;
        tcp_nodelay off;
        open_file_cache max=3000 inactive=120s;
        open_file_cache_valid 45s;
        open_file_cache_min_uses 2;
        open_file_cache_errors off;

        location ~* ^.+\.svg {
            add_header Content-Security-Policy "script-src 'none'";
            add_header Cache-Control "public, must-revalidate, proxy-revalidate";
            log_not_found off;
        }
    }

    location ~* ^.+\.(?:css|cur|js|jpe?g|gif|ico|png|svg|webp|html|woff|woff2|xml)$ {
        expires 1y;
        add_header Cache-Control "public, must-revalidate, proxy-revalidate";

        access_log off;

        log_not_found off;

        tcp_nodelay off;

        open_file_cache max=3000 inactive=120s;
        open_file_cache_valid 45s;
        open_file_cache_min_uses 2;
        open_file_cache_errors off;

        try_files $uri /index.php$is_args$args;
    }

    location ~* ^.+\.svg$ {
        add_header Content-Security-Policy "script-src 'none'";
    }

    location / {
        try_files $uri /index.php$is_args$args;
    }

    location ~ \.php$ {
        fastcgi_split_path_info ^(.+\.php)(/.+)$;
        include {{FASTCGI_CONF}};
        fastcgi_param HTTP_PROXY "";
        fastcgi_buffers 8 16k;
        fastcgi_buffer_size 32k;
        proxy_connect_timeout 300s;
        proxy_send_timeout 300s;
        proxy_read_timeout 300s;
        send_timeout 300s;
        client_body_buffer_size 128k;
        fastcgi_pass {{FPM}};
    }
}
`

var _ = addScenario(scenario{
	name:   "project_shopware",
	source: "https://github.com/shopware/docs/blob/00aea5be80327d154401f1fc5ad22cee580712a6/resources/references/config-reference/server/nginx.md",
	http:   shopwareProjectHTTP,
	cases: cases([]reqCase{
		get("theme_css_expires_1y", "/theme/abc/css/all.css"),
		get("media_png", "/media/ab/cd/product.png"),
		get("media_php_denied", "/media/ab/evil.php"),
		get("media_missing_404", "/media/ab/cd/missing.png"),
		get("bundles_svg_csp", "/bundles/storefront/logo.svg"),
		get("thumbnail_webp", "/thumbnail/a/b/c_400x400.webp"),
		get("sitemap_xml", "/sitemap/salesChannel-1/sitemap.xml"),
		get("dotenv_denied", "/.env"),
		get("recovery_update_asset", "/recovery/update/assets/update.js"),
		get("robots", "/robots.txt"),
	}, viaPHP(
		get("front_page", "/"),
		get("pretty_url", "/Clothing/Shirt/SW10001"),
		get("pretty_url_query", "/search?search=shirt"),
		get("missing_asset_to_front", "/img/missing.png"),
		get("installer", "/shopware-installer.phar.php"),
		get("installer_asset_to_installer", "/shopware-installer.phar.php/assets/app.css"),
		get("recovery_install", "/recovery/install/"),
		get("recovery_update_rewrite", "/recovery/update/step/1"),
		get("index_php_path_info_to_front", "/index.php/detail/abc"),
		post("post_form", "POST", "/account/login", "username=a&password=b", "Content-Type: application/x-www-form-urlencoded"),
	)),
})

// CodeIgniter: the nginx wiki's CodeIgniter recipe, its first server
// (CodeIgniter's user guide has no nginx section: "Directions coming
// soon?" in user_guide_src/source/installation/running.rst at
// 007ac5a103587eab8d614e8dad2a72b579b9c144). Source (read 2026-12-01):
// https://github.com/nginxinc/nginx-wiki/blob/08977e0462a7a42cadc1e15c578267dcfdf5a669/source/start/topics/recipes/codeigniter.rst
// (rendered at https://www.nginx.com/resources/wiki/start/topics/recipes/codeigniter/).
// The block names no listen; {{LISTEN}} is added.
const codeigniterProjectHTTP = `
server {
        listen {{LISTEN}};
        server_name domain.tld;

        root {{ROOT}}/codeigniter;
        index index.html index.php;

        location ~* \.(ico|css|js|gif|jpe?g|png)(\?[0-9]+)?$ {
                expires max;
                log_not_found off;
        }

        location / {
                try_files $uri $uri/ /index.php;
        }

        location ~* \.php$ {
                fastcgi_pass {{FPM}};
                include {{FASTCGI_CONF}};
        }
}
`

var _ = addScenario(scenario{
	name:   "project_codeigniter",
	source: "https://github.com/nginxinc/nginx-wiki/blob/08977e0462a7a42cadc1e15c578267dcfdf5a669/source/start/topics/recipes/codeigniter.rst",
	http:   codeigniterProjectHTTP,
	cases: cases([]reqCase{
		get("asset_css_expires_max", "/css/style.css"),
		get("asset_css_query", "/css/style.css?123"),
		get("asset_upper_ext", "/images/logo.PNG"),
		get("asset_missing_404", "/css/missing.css"),
		get("dir_index_html", "/docs/"),
		get("dir_no_slash", "/docs"),
	}, viaPHP(
		get("front_page", "/"),
		get("pretty_url", "/welcome/index"),
		get("pretty_url_query", "/news/view/1?x=y"),
		get("other_php", "/other.php"),
		get("upper_php", "/OTHER.PHP"),
		get("missing_php", "/nope.php"),
		get("index_php_path_info_to_front", "/index.php/welcome"),
	)),
})

// CakePHP: the nginx example of the installation page's URL rewriting
// section, its first form (a server that redirects www to the bare
// domain, and the application's server). Source (read 2026-12-01):
// https://github.com/cakephp/docs/blob/67362a8507c3cc4628a57c4af54ba9c38d1aa63c/ja/installation.rst
// (rendered at https://book.cakephp.org/4/ja/installation.html#nginx).
const cakephpProjectHTTP = `
server {
    listen   {{LISTEN}};
    server_name www.example.com;
    rewrite ^(.*) http://example.com$1 permanent;
}

server {
    listen   {{LISTEN}};
    server_name example.com;

    root   {{ROOT}}/cakephp/webroot/;
    index  index.php;

    access_log logs/cakephp-access.log;
    error_log logs/cakephp-error.log;

    location / {
        try_files $uri $uri/ /index.php?$args;
    }

    location ~ \.php$ {
        try_files $uri =404;
        include {{FASTCGI_PARAMS}};
        fastcgi_pass    {{FPM}};
        fastcgi_index   index.php;
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
    }
}
`

var _ = addScenario(scenario{
	name:   "project_cakephp",
	source: "https://github.com/cakephp/docs/blob/67362a8507c3cc4628a57c4af54ba9c38d1aa63c/ja/installation.rst",
	http:   cakephpProjectHTTP,
	cases: cases([]reqCase{
		get("www_redirect", "/articles/view/1?x=1", "Host: www.example.com"),
		get("default_server_redirect", "/"),
		get("asset_css", "/css/cake.css", hostEx),
		get("asset_png", "/img/cake.png", hostEx),
		get("favicon", "/favicon.ico", hostEx),
		get("missing_php_404", "/nope.php", hostEx),
	}, viaPHP(
		get("front_page", "/", hostEx),
		get("pretty_url", "/articles/view/1", hostEx),
		get("pretty_url_query", "/articles?page=2&sort=title", hostEx),
		get("test_php", "/test.php", hostEx),
		get("index_php_path_info_to_front", "/index.php/articles", hostEx),
		get("missing_asset_to_front", "/css/missing.css", hostEx),
		post("post_form", "POST", "/users/login", "email=a&password=b", hostEx, "Content-Type: application/x-www-form-urlencoded"),
	)),
})

// Kirby: the nginx server block of the getkirby.com documentation (the
// snippet that sends readers on to the "Kirby meets nginx" cookbook
// recipe for a line-by-line explanation), a file of the getkirby/getkirby.com
// repository. Source (read 2026-12-01): https://github.com/getkirby/getkirby.com
// (rendered at https://getkirby.com/docs/guide/quickstart, "nginx").
const kirbyProjectHTTP = `
server {
  listen {{LISTEN}};
  index index.php index.html;
  server_name localhost;
  root {{ROOT}}/kirby;

  default_type text/plain;
  add_header X-Content-Type-Options nosniff;

  rewrite ^/(content|site|kirby)/(.*)$ /error last;
  rewrite /\.(?!well-known/) /error last;
  rewrite ^/(?!app\.webmanifest)[^/]+$ /index.php last;

  location / {
    try_files $uri $uri/ /index.php$is_args$args;
  }

  location ~* \.php$ {
    try_files $uri =404;
    fastcgi_pass {{FPM}};
    include {{FASTCGI_CONF}};
    fastcgi_split_path_info ^(.+\.php)(/.+)$;
    fastcgi_param PATH_INFO $fastcgi_path_info;
    fastcgi_param SERVER_PORT 8080;
  }
}
`

var _ = addScenario(scenario{
	name:   "project_kirby",
	source: "https://github.com/getkirby/getkirby.com",
	http:   kirbyProjectHTTP,
	cases: cases([]reqCase{
		get("asset_css", "/assets/css/index.css"),
		get("asset_js", "/assets/js/index.js"),
		get("asset_default_type_text", "/assets/data.unknownext"),
		get("asset_missing_404_to_front", "/assets/css/missing.css"),
		get("webmanifest_served", "/app.webmanifest"),
		get("media_jpg", "/media/pages/home/a.jpg"),
		get("well_known_allowed", "/.well-known/security.txt"),
		get("asset_dir_no_index_403", "/assets/"),
	}, viaPHP(
		get("front_page", "/"),
		get("pretty_url_one_segment", "/about"),
		get("pretty_url", "/blog/my-post"),
		get("pretty_url_query", "/blog/my-post?page=2"),
		get("panel", "/panel"),
		get("content_file_denied", "/content/1_home/home.txt"),
		get("site_config_denied", "/site/config/config.php"),
		get("kirby_core_denied", "/kirby/bootstrap.php"),
		get("dot_git_denied", "/.git/config"),
		get("dot_file_nested_denied", "/assets/.env"),
		get("root_file_to_front", "/composer.json"),
		get("robots_to_front", "/robots.txt"),
		get("index_php", "/index.php"),
		get("index_php_path_info_to_front", "/index.php/blog"),
		get("missing_php_404", "/assets/nope.php"),
		post("post_form", "POST", "/contact", "name=a&message=b", "Content-Type: application/x-www-form-urlencoded"),
	)),
})
