// This file holds the regexp scenarios (issue 14): the regex locations,
// rewrites and ifs that PHP projects publish in their nginx configurations
// (WordPress, Laravel, Symfony, Drupal, Magento 2, Nextcloud, Kirby, h5bp,
// Matomo, Moodle, PrestaShop, MediaWiki, Joomla, Shopware), each pattern
// as published with its block's body replaced by a return that names the
// block and prints its captures; then PCRE's corners (lookbehind, back
// references, atomic groups, possessive quantifiers, named groups in their
// three spellings, inline options, "$" before a final newline, bytes
// above 0x7f); then every context nginx takes a regexp in, each also with
// a pattern that runs out of PCRE2's match limit.

package difftest

import "strings"

// The subject that makes "(a+)+(?!x)$" backtrack past PCRE2's match limit.
var regexEvil = strings.Repeat("a", 36) + "b"

// wordpressRegexHTTP: wordpress.org's nginx page and the hardening rules
// that are copied with it.
const wordpressRegexHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    location ~* /(?:uploads|files)/.*\.php$ { return 200 "wp:uploads-php|$1\n"; }
    location ~* ^/wp-includes/.*(?<!(js/tinymce/wp-tinymce))\.php$ { return 200 "wp:includes-php|$1\n"; }
    location ~* ^/wp-content/.*\.(txt|md|exe|sh|bak|inc|pot|po|mo|log|sql)$ { return 200 "wp:content-file|$1\n"; }
    location ~ /\.(?!well-known).* { return 200 "wp:dotfile\n"; }
    location ~* \.(js|css|png|jpg|jpeg|gif|ico)$ { return 200 "wp:asset|$1\n"; }
    location ~ \.php$ { return 200 "wp:php\n"; }
    location / { return 200 "wp:front|$uri\n"; }
}
`

var _ = addScenario(scenario{
	name: "regex-wordpress",
	http: wordpressRegexHTTP,
	cases: []reqCase{
		get("uploads_php", "/wp-content/uploads/2024/evil.php"),
		get("uploads_php_caseless", "/wp-content/UPLOADS/x.PHP"),
		get("files_php", "/files/a.php"),
		get("includes_php", "/wp-includes/version.php"),
		get("includes_tinymce_allowed", "/wp-includes/js/tinymce/wp-tinymce.php"),
		get("includes_tinymce_other", "/wp-includes/js/tinymce/other.php"),
		get("content_log", "/wp-content/debug.log"),
		get("content_sql_caseless", "/wp-content/dump.SQL"),
		get("dotfile_git", "/.git/config"),
		get("dotfile_env", "/.env"),
		get("dotfile_nested", "/app/.htaccess"),
		get("well_known", "/.well-known/acme-challenge/token"),
		get("asset", "/wp-includes/js/jquery/jquery.min.js"),
		get("asset_upper", "/IMG/LOGO.PNG"),
		get("php", "/wp-login.php"),
		get("php_newline", "/index.php%0A"),
		get("php_two_newlines", "/index.php%0A%0A"),
		get("front", "/2024/01/hello-world/"),
	},
})

// laravelSymfonyRegexHTTP: Laravel's deployment page and Symfony's
// nginx recipe, one server each.
const laravelSymfonyRegexHTTP = `
server {
    listen {{LISTEN}};
    server_name laravel;
    location = /favicon.ico { return 200 "laravel:favicon\n"; }
    location ~ \.php$ { return 200 "laravel:php|$uri\n"; }
    location ~ /\.(?!well-known).* { return 200 "laravel:deny\n"; }
    location / { return 200 "laravel:front|$uri\n"; }
}
server {
    listen {{LISTEN}};
    server_name symfony;
    location ~ ^/index\.php(/|$) {
        fastcgi_split_path_info ^(.+\.php)(/.*)$;
        return 200 "symfony:front-controller|$1|$fastcgi_script_name|$fastcgi_path_info\n";
    }
    location ~ \.php$ { return 404; }
    location / { return 200 "symfony:front|$uri\n"; }
}
`

var _ = addScenario(scenario{
	name: "regex-laravel-symfony",
	http: laravelSymfonyRegexHTTP,
	cases: []reqCase{
		get("laravel_php", "/index.php", "Host: laravel"),
		get("laravel_env", "/.env", "Host: laravel"),
		get("laravel_git", "/.git/HEAD", "Host: laravel"),
		get("laravel_well_known", "/.well-known/security.txt", "Host: laravel"),
		get("laravel_well_known_prefix_only", "/.well-knownx", "Host: laravel"),
		get("laravel_front", "/users/1", "Host: laravel"),
		get("symfony_controller", "/index.php", "Host: symfony"),
		get("symfony_controller_path", "/index.php/blog/post", "Host: symfony"),
		get("symfony_controller_newline", "/index.php/a%0A", "Host: symfony"),
		get("symfony_other_php", "/config.php", "Host: symfony"),
		get("symfony_front", "/blog", "Host: symfony"),
	},
})

// drupalRegexHTTP: nginx.org's Drupal recipe.
const drupalRegexHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    if ($request_uri ~* "^(.*/)index\.php/(.*)") { return 307 $1$2; }
    location ~* \.(txt|log)$ { return 200 "drupal:txt-log|$1\n"; }
    location ~ \..*/.*\.php$ { return 403; }
    location ~ ^/sites/.*/private/ { return 200 "drupal:private\n"; }
    location ~ ^/sites/[^/]+/files/.*\.php$ { return 200 "drupal:files-php\n"; }
    location ~* ^/.well-known/ { return 200 "drupal:well-known\n"; }
    location ~ (^|/)\. { return 200 "drupal:hidden|$1\n"; }
    location ~ /vendor/.*\.php$ { return 404; }
    location ~ ^/sites/.*/files/styles/ { return 200 "drupal:styles\n"; }
    location ~ ^(/[a-z\-]+)?/system/files/ { return 200 "drupal:system-files|$1\n"; }
    location ~* \.(js|css|png|jpg|jpeg|gif|ico|svg)$ { return 200 "drupal:asset|$1\n"; }
    location ~ '\.php$|^/update.php' {
        fastcgi_split_path_info ^(.+?\.php)(|/.*)$;
        return 200 "drupal:php|$fastcgi_script_name|$fastcgi_path_info\n";
    }
    location / { return 200 "drupal:front|$uri\n"; }
}
`

var _ = addScenario(scenario{
	name: "regex-drupal",
	http: drupalRegexHTTP,
	cases: []reqCase{
		get("index_php_path", "/node/index.php/edit"),
		get("txt", "/robots.txt"),
		get("log_upper", "/error.LOG"),
		get("php_under_dot_dir", "/.hidden/x/y.php"),
		get("private", "/sites/default/private/secret"),
		get("files_php", "/sites/default/files/shell.php"),
		get("well_known", "/.well-known/change-password"),
		get("hidden_root", "/.htaccess"),
		get("hidden_nested", "/core/.eslintrc"),
		get("vendor_php", "/vendor/autoload.php"),
		get("styles", "/sites/default/files/styles/thumb/a.webp"),
		get("system_files_lang", "/fr/system/files/doc.pdf"),
		get("system_files", "/system/files/doc.pdf"),
		get("asset", "/core/misc/drupal.js"),
		get("php", "/index.php"),
		get("php_path_info", "/core/install.php/step"),
		get("update_php", "/update.php/selection"),
		get("front", "/node/1"),
	},
})

// magentoRegexHTTP: Magento 2's nginx.conf.sample (its setup, update,
// pub, static, media and errors blocks, and its PHP entry points).
const magentoRegexHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    location ~* ^/setup($|/) {
        location ~ ^/setup/index.php { return 200 "magento:setup-index\n"; }
        location ~ ^/setup/(?!pub/). { return 200 "magento:setup-deny\n"; }
        location ~ ^/setup/pub/ { return 200 "magento:setup-pub\n"; }
        return 200 "magento:setup|$1\n";
    }
    location ~* ^/update($|/) {
        location ~ ^/update/index.php {
            fastcgi_split_path_info ^(/update/index.php)(/.+)$;
            return 200 "magento:update-index|$fastcgi_script_name|$fastcgi_path_info\n";
        }
        location ~ ^/update/(?!pub/). { return 200 "magento:update-deny\n"; }
        location ~ ^/update/pub/ { return 200 "magento:update-pub\n"; }
        return 200 "magento:update\n";
    }
    location /pub/ {
        location ~ ^/pub/media/(downloadable|customer|import|custom_options|theme_customization/.*\.xml) { return 200 "magento:pub-media-deny|$1\n"; }
        return 200 "magento:pub\n";
    }
    location /static/ {
        location ~ ^/static/version\d*/ {
            rewrite ^/static/version\d*/(.*)$ /static/$1 last;
        }
        location ~* \.(ico|jpg|jpeg|png|gif|svg|svgz|webp|avif|avifs|js|css|eot|ttf|otf|woff|woff2|html|json|webmanifest)$ { return 200 "magento:static-asset|$1|$uri\n"; }
        location ~* \.(zip|gz|gzip|bz2|csv|xml)$ { return 200 "magento:static-archive|$1\n"; }
        return 200 "magento:static|$uri\n";
    }
    location /media/ {
        location ~ ^/media/theme_customization/.*\.xml { return 200 "magento:media-xml\n"; }
        return 200 "magento:media\n";
    }
    location /errors/ {
        location ~* \.xml$ { return 200 "magento:errors-xml\n"; }
        return 200 "magento:errors\n";
    }
    location ~ ^/(index|get|static|errors/report|errors/404|errors/503|health_check)\.php$ { return 200 "magento:php|$1\n"; }
    location ~* (\.php$|\.phtml$|\.htaccess$|\.htpasswd$|\.git) { return 200 "magento:deny|$1\n"; }
    location / { return 200 "magento:front|$uri\n"; }
}
`

var _ = addScenario(scenario{
	name: "regex-magento",
	http: magentoRegexHTTP,
	cases: []reqCase{
		get("setup_root", "/setup"),
		get("setup_index", "/setup/index.php"),
		get("setup_deny", "/setup/src/Magento/file.php"),
		get("setup_pub", "/setup/pub/styles.css"),
		get("setup_slash", "/setup/"),
		get("setup_caseless", "/SETUP/x"),
		get("update_index", "/update/index.php/step/1"),
		get("update_deny", "/update/app/x"),
		get("update_pub", "/update/pub/x.js"),
		get("pub_media_deny", "/pub/media/customer/a.jpg"),
		get("pub_media_theme_xml", "/pub/media/theme_customization/a/b.xml"),
		get("pub_other", "/pub/media/catalog/a.jpg"),
		get("static_versioned", "/static/version1700000000/frontend/Magento/luma/en_US/requirejs/require.js"),
		get("static_version_nodigits", "/static/version/frontend/a.css"),
		get("static_asset", "/static/frontend/x.WOFF2"),
		get("static_archive", "/static/x.csv"),
		get("media_xml", "/media/theme_customization/x.xml"),
		get("errors_xml", "/errors/local.xml"),
		get("php_entry", "/index.php"),
		get("php_health", "/health_check.php"),
		get("php_other_denied", "/cron.php"),
		get("git_denied", "/.git/config"),
		get("htaccess_denied", "/app/.htaccess"),
		get("front", "/catalog/product/view/id/1"),
	},
})

// nextcloudRegexHTTP: Nextcloud's admin manual (the web root install), its
// .well-known block, its blocked paths, the rewrite of PHP files that are
// not entry points, and its static files.
const nextcloudRegexHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    location ^~ /.well-known {
        location = /.well-known/carddav { return 301 /remote.php/dav/; }
        location = /.well-known/caldav  { return 301 /remote.php/dav/; }
        location /.well-known/acme-challenge { return 200 "nextcloud:acme\n"; }
        location /.well-known/pki-validation { return 200 "nextcloud:pki\n"; }
        return 301 /index.php$request_uri;
    }
    location ~ ^/(?:build|tests|config|lib|3rdparty|templates|data)(?:$|/) { return 404; }
    location ~ ^/(?:\.(?!well-known)|autotest|occ|issue|indie|db_|console) { return 404; }
    location ~ \.php(?:$|/) {
        rewrite ^/(?!index|remote|public|cron|core\/ajax\/update|status|ocs\/v[12]|updater\/.+|ocs-provider\/.+|.+\/richdocumentscode(_arm64)?\/proxy) /index.php$request_uri;
        fastcgi_split_path_info ^(.+?\.php)(/.*)$;
        return 200 "nextcloud:php|$uri|$fastcgi_script_name|$fastcgi_path_info\n";
    }
    location ~ \.(?:css|js|mjs|svg|gif|ico|jpg|png|webp|wasm|tflite|map|ogg|flac)$ { return 200 "nextcloud:static\n"; }
    location ~ \.(otf|woff2?)$ { return 200 "nextcloud:font|$1\n"; }
    location /remote { return 301 /remote.php$request_uri; }
    location / { return 200 "nextcloud:front|$uri\n"; }
}
`

var _ = addScenario(scenario{
	name: "regex-nextcloud",
	http: nextcloudRegexHTTP,
	cases: []reqCase{
		get("carddav", "/.well-known/carddav"),
		get("acme", "/.well-known/acme-challenge/t"),
		get("well_known_other", "/.well-known/webfinger?resource=x"),
		get("blocked_config", "/config/config.php"),
		get("blocked_data_exact", "/data"),
		get("blocked_datax_not", "/datax"),
		get("blocked_dotfile", "/.htaccess"),
		get("blocked_occ", "/occ"),
		get("blocked_console", "/console.php"),
		get("entry_index", "/index.php/apps/files"),
		get("entry_remote", "/remote.php/dav/files/u/"),
		get("entry_ocs_v2", "/ocs/v2.php/cloud/capabilities"),
		get("entry_ocs_v3_rewritten", "/ocs/v3.php/x"),
		get("entry_updater", "/updater/index.php"),
		get("entry_richdocuments", "/apps/richdocumentscode_arm64/proxy.php?req=/hosting"),
		get("other_php_rewritten", "/apps/x/lib/file.php"),
		get("static", "/core/js/main.mjs"),
		get("font", "/fonts/a.woff2"),
		get("remote", "/remote/webdav"),
		get("front", "/apps/files/"),
	},
})

// kirbyH5bpRegexHTTP: Kirby's nginx rewrites and h5bp's
// security_file_access rules.
const kirbyH5bpRegexHTTP = `
server {
    listen {{LISTEN}};
    server_name kirby;
    location / {
        rewrite ^/(content|site|kirby)/(.*)$ /error?dir=$1&rest=$2 last;
        rewrite ^/\.(?!well-known/) /error last;
        rewrite ^/(?!app\.webmanifest)[^/]+$ /index.php last;
        return 200 "kirby:none|$uri\n";
    }
    location = /error { return 200 "kirby:error|$args\n"; }
    location = /index.php { return 200 "kirby:index|$request_uri\n"; }
}
server {
    listen {{LISTEN}};
    server_name h5bp;
    location ~* /\.(?!well-known\/) { return 200 "h5bp:dotfile\n"; }
    location ~* (?:#.*#|\.(?:bak|conf|dist|fla|in[ci]|log|orig|psd|sh|sql|sw[op])|~)$ { return 200 "h5bp:backup\n"; }
    location / { return 200 "h5bp:front|$uri\n"; }
}
`

var _ = addScenario(scenario{
	name: "regex-kirby-h5bp",
	http: kirbyH5bpRegexHTTP,
	cases: []reqCase{
		get("kirby_content", "/content/1_home/home.txt", "Host: kirby"),
		get("kirby_site", "/site/config/config.php", "Host: kirby"),
		get("kirby_dotfile", "/.git/config", "Host: kirby"),
		get("kirby_well_known", "/.well-known/x", "Host: kirby"),
		get("kirby_page", "/about", "Host: kirby"),
		get("kirby_manifest", "/app.webmanifest", "Host: kirby"),
		get("kirby_manifest_longer", "/app.webmanifest2", "Host: kirby"),
		get("kirby_nested", "/blog/post", "Host: kirby"),
		get("h5bp_dotfile", "/.env", "Host: h5bp"),
		get("h5bp_dotfile_caseless", "/.WELL-KNOWN/x", "Host: h5bp"),
		get("h5bp_well_known", "/.well-known/x", "Host: h5bp"),
		get("h5bp_well_known_no_slash", "/.well-known", "Host: h5bp"),
		get("h5bp_backup", "/index.php.bak", "Host: h5bp"),
		get("h5bp_swp", "/a.SWP", "Host: h5bp"),
		get("h5bp_tilde", "/config.php~", "Host: h5bp"),
		get("h5bp_emacs", "/%23notes%23", "Host: h5bp"),
		get("h5bp_ini", "/php.ini", "Host: h5bp"),
		get("h5bp_front", "/index.html", "Host: h5bp"),
	},
})

// moreProjectsRegexHTTP: Matomo, Moodle, PrestaShop, MediaWiki, Joomla and
// Shopware, one server each.
const moreProjectsRegexHTTP = `
server {
    listen {{LISTEN}};
    server_name matomo;
    location ~ ^/(index|matomo|piwik|js/index|plugins/HeatmapSessionRecording/configs)\.php$ { return 200 "matomo:entry|$1\n"; }
    location ~* ^.+\.php$ { return 403; }
    location ~ ^/(config|tmp|core|lang) { return 403; }
    location ~ /\.ht { return 403; }
    location ~ js/container_.*_preview\.js$ { return 200 "matomo:preview\n"; }
    location ~ \.(gif|ico|jpg|png|svg|js|css|htm|html|mp3|mp4|wav|ogg|avi|ttf|eot|woff|woff2)$ { return 200 "matomo:static|$1\n"; }
    location ~ ^/(libs|vendor|plugins|misc|node_modules) { return 403; }
    location ~/(.*\.md|LEGALNOTICE|LICENSE) { return 200 "matomo:text|$1\n"; }
    location / { return 200 "matomo:front\n"; }
}
server {
    listen {{LISTEN}};
    server_name moodle;
    location ~ [^/]\.php(/|$) {
        fastcgi_split_path_info ^(.+\.php)(/.+)$;
        return 200 "moodle:php|$1|$fastcgi_script_name|$fastcgi_path_info\n";
    }
    location ~ (/vendor/|/node_modules/|composer\.json|/readme|/README|readme\.txt|/upgrade\.txt|/UPGRADING\.md|db/install\.xml|/fixtures/|/behat/|phpunit\.xml|\.lock|environment\.xml) { return 404; }
    location / { return 200 "moodle:front\n"; }
}
server {
    listen {{LISTEN}};
    server_name prestashop;
    rewrite ^/(\d)(-[\w-]+)?/.+\.jpg$ /img/p/$1/$1$2.jpg last;
    rewrite ^/(\d)(\d)(-[\w-]+)?/.+\.jpg$ /img/p/$1/$2/$1$2$3.jpg last;
    location /img/ { return 200 "prestashop:img|$uri\n"; }
    location ~ /\. { return 403; }
    location ~ ^/(app|bin|cache|classes|config|controllers|docs|localization|override|src|tests|tools|translations|var|vendor)/ { return 403; }
    location ~ \.(log|tpl|twig|sass|yml)$ { return 403; }
    location ~* \.(?:css|eot|gif|ico|jpe?g|otf|png|ttf|woff2?)$ { return 200 "prestashop:static\n"; }
    location ~ [^/]\.php(/|$) {
        fastcgi_split_path_info ^(.+\.php)(/.+)$;
        return 200 "prestashop:php|$fastcgi_script_name|$fastcgi_path_info\n";
    }
    location / { return 200 "prestashop:front\n"; }
}
server {
    listen {{LISTEN}};
    server_name mediawiki;
    location ~ ^/w/(index|load|api|thumb|opensearch_desc|rest|img_auth)\.php$ { return 200 "mediawiki:entry|$1\n"; }
    location ~ ^/w/images/deleted { return 403; }
    location ~ ^/w/images/.*\.(html|htm|shtml|php)$ { return 200 "mediawiki:image-script|$1\n"; }
    location ~ ^/w/(skins|extensions)/.+\.(css|js|gif|jpg|jpeg|png|svg|wasm|ttf|woff|woff2)$ { return 200 "mediawiki:asset|$1|$2\n"; }
    location ~ ^/w/(cache|includes|maintenance|languages|serialized|tests|images/deleted)/ { return 403; }
    location ~ ^/w/rest\.php/ { return 200 "mediawiki:rest|$uri\n"; }
    location /wiki/ { rewrite ^/wiki/(?<pagename>.*)$ /w/index.php?title=$pagename last; }
    location / { return 200 "mediawiki:front|$uri\n"; }
}
server {
    listen {{LISTEN}};
    server_name joomla;
    location ~* /(images|cache|media|logs|tmp)/.*\.(php|pl|py|jsp|asp|sh|cgi)$ { return 403; }
    location ~* \.(ico|pdf|flv|jpg|jpeg|png|gif|js|css|swf|xml|txt)$ { return 200 "joomla:static|$1\n"; }
    location / { return 200 "joomla:front\n"; }
}
server {
    listen {{LISTEN}};
    server_name shopware;
    location ~* ^.+\.svg$ { return 200 "shopware:svg\n"; }
    location ~* ^.+\.(?:css|cur|js|jpe?g|gif|ico|png|svg|webp|avif|html|woff|woff2|xml)$ { return 200 "shopware:static\n"; }
    location ~ \.php$ { return 200 "shopware:php\n"; }
    location / { return 200 "shopware:front\n"; }
}
`

var _ = addScenario(scenario{
	name: "regex-more-projects",
	http: moreProjectsRegexHTTP,
	cases: []reqCase{
		get("matomo_entry", "/matomo.php", "Host: matomo"),
		get("matomo_other_php", "/core/Twig.php", "Host: matomo"),
		get("matomo_config", "/config/config.ini.php", "Host: matomo"),
		get("matomo_htaccess", "/x/.htaccess", "Host: matomo"),
		get("matomo_preview", "/js/container_abc_preview.js", "Host: matomo"),
		get("matomo_static", "/plugins/Morpheus/images/logo.svg", "Host: matomo"),
		get("matomo_vendor", "/vendor/autoload", "Host: matomo"),
		get("matomo_md", "/CHANGELOG.md", "Host: matomo"),
		get("moodle_php", "/course/view.php?id=2", "Host: moodle"),
		get("moodle_php_path", "/pluginfile.php/1/mod_page/content/img.png", "Host: moodle"),
		get("moodle_dir_php", "/.php/x", "Host: moodle"),
		get("moodle_vendor", "/lib/vendor/x", "Host: moodle"),
		get("moodle_composer", "/composer.json", "Host: moodle"),
		get("moodle_lock", "/composer.lock", "Host: moodle"),
		get("prestashop_img_one", "/1-large_default/product.jpg", "Host: prestashop"),
		get("prestashop_img_two", "/12-home/product.jpg", "Host: prestashop"),
		get("prestashop_img_plain", "/3/x.jpg", "Host: prestashop"),
		get("prestashop_dotfile", "/.git/HEAD", "Host: prestashop"),
		get("prestashop_app", "/app/config/parameters.php", "Host: prestashop"),
		get("prestashop_tpl", "/themes/a.tpl", "Host: prestashop"),
		get("prestashop_static", "/themes/a.JPEG", "Host: prestashop"),
		get("prestashop_php", "/index.php/module/x", "Host: prestashop"),
		get("mediawiki_entry", "/w/load.php?modules=startup", "Host: mediawiki"),
		get("mediawiki_deleted", "/w/images/deleted/a.png", "Host: mediawiki"),
		get("mediawiki_image_script", "/w/images/a/ab/x.php", "Host: mediawiki"),
		get("mediawiki_asset", "/w/skins/Vector/x.css", "Host: mediawiki"),
		get("mediawiki_includes", "/w/includes/Setup.php", "Host: mediawiki"),
		get("mediawiki_rest", "/w/rest.php/v1/page/Main", "Host: mediawiki"),
		get("mediawiki_pretty", "/wiki/Main_Page", "Host: mediawiki"),
		get("joomla_script_in_images", "/images/shell.PHP", "Host: joomla"),
		get("joomla_static", "/media/a.css", "Host: joomla"),
		get("shopware_svg", "/media/logo.svg", "Host: shopware"),
		get("shopware_static", "/theme/app.JS", "Host: shopware"),
		get("shopware_php", "/index.php", "Host: shopware"),
	},
})

// pcreCornersHTTP: what RE2 lacks or reads differently, one location
// each, printing the captures.
const pcreCornersHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    location ~ "^/lookbehind/.*(?<=/static/)(\w+)\.css$" { return 200 "lookbehind|$1\n"; }
    location ~ "^/neglookbehind/(\w+)(?<!bak)$" { return 200 "neglookbehind|$1\n"; }
    location ~ "^/lookahead/(\w+)(?=\.php$)" { return 200 "lookahead|$1\n"; }
    location ~ "^/backref/(\w+)/\1$" { return 200 "backref|$1\n"; }
    location ~* "^/cibackref/(\w+)-\1$" { return 200 "cibackref|$1\n"; }
    location ~ "^/named-backref/(?<w>\w)\k<w>\g{w}(?P=w)$" { return 200 "named-backref|$w\n"; }
    location ~ "^/atomic/(?>(a+))ab" { return 200 "atomic|$1\n"; }
    location ~ "^/atomic-loop/((?>a+))*(ab)" { return 200 "atomic-loop|$1|$2\n"; }
    location ~ "^/possessive/(a++)(b)" { return 200 "possessive|$1|$2\n"; }
    location ~ "^/named/(?<first>[^/]+)/(?'second'[^/]+)/(?P<third>[^/]+)$" { return 200 "named|$first|$second|$third|$1|$2|$3\n"; }
    location ~ "^/nine/(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)$" { return 200 "nine|$1$2$3$4$5$6$7$8$9|$10\n"; }
    location ~* "^/caseless/(abc)(é)?" { return 200 "caseless|$1|$2\n"; }
    location ~ "^/flags/(?i)(abc)(?-i)(def)(?i:(g))" { return 200 "flags|$1|$2|$3\n"; }
    location ~ "^/newline/(.*)$" { return 200 "newline|$1|\n"; }
    location ~ "^/newline-z/(.*)\z" { return 200 "newline-z|$1|\n"; }
    location ~ "^/dotall/(?s)(.*)$" { return 200 "dotall|$1|\n"; }
    location ~ "^/utf8/(.)(.)x$" { return 200 "utf8|$1|$2\n"; }
    location ~ "^/utf8-word/(\w+)$" { return 200 "utf8-word|$1\n"; }
    location ~ "^/utf8-class/([^/])" { return 200 "utf8-class|$1\n"; }
    location ~ "^/space/(\s)$" { return 200 "space\n"; }
    location ~ "^/empty-loop/(a|)*x" { return 200 "empty-loop|$1|\n"; }
    location ~ "^/empty-loop2/(a*)*x" { return 200 "empty-loop2|$1|\n"; }
    location ~ "^/quote/\Q.+*\E(\d)" { return 200 "quote|$1\n"; }
    location ~ "(?x) ^/extended/ (\d+) - (\d+) # a comment" { return 200 "extended|$1|$2\n"; }
    location ~ "^/word/.*\bfoo\b" { return 200 "word\n"; }
    location ~ "^/escapes/\x41\101\x{42}[[:digit:]]\d" { return 200 "escapes\n"; }
    location ~ "^/posix/([[:alpha:]]+)([[:^alpha:]]+)" { return 200 "posix|$1|$2\n"; }
    location ~ "^/lazy/(.+?)(\d*)$" { return 200 "lazy|$1|$2\n"; }
    location ~ "^/alt/(a|ab)(c|bcd)(d*)$" { return 200 "alt|$1|$2|$3\n"; }
    location / { return 200 "none|$uri\n"; }
}
`

var _ = addScenario(scenario{
	name: "regex-pcre-corners",
	http: pcreCornersHTTP,
	cases: []reqCase{
		get("lookbehind", "/lookbehind/a/static/site.css"),
		get("lookbehind_no", "/lookbehind/a/dynamic/site.css"),
		get("neglookbehind", "/neglookbehind/page"),
		get("neglookbehind_no", "/neglookbehind/pagebak"),
		get("lookahead", "/lookahead/index.php"),
		get("lookahead_no", "/lookahead/index.phps"),
		get("backref", "/backref/abc/abc"),
		get("backref_no", "/backref/abc/abd"),
		get("cibackref", "/cibackref/Abc-aBC"),
		get("cibackref_latin1", "/cibackref/%C3%80-%C3%A0"),
		get("named_backref", "/named-backref/zzzz"),
		get("atomic", "/atomic/aaab"),
		get("atomic_loop", "/atomic-loop/aab"),
		get("possessive", "/possessive/aab"),
		get("named", "/named/x/y/z"),
		get("nine", "/nine/abcdefghij"),
		get("caseless", "/CASELESS/ABC%C3%A9"),
		get("caseless_latin1", "/caseless/abc%C3%89"),
		get("flags", "/flags/ABCdefG"),
		get("flags_no", "/flags/ABCDEFG"),
		get("newline", "/newline/abc%0A"),
		get("newline_two", "/newline/abc%0A%0A"),
		get("newline_z", "/newline-z/abc%0A"),
		get("dotall", "/dotall/abc%0A"),
		get("utf8_bytes", "/utf8/%C3%A9x"),
		get("utf8_one_char", "/utf8/ex"),
		get("utf8_word", "/utf8-word/caf%C3%A9"),
		get("utf8_class", "/utf8-class/%E2%82%AC"),
		get("space_vt", "/space/%0B"),
		get("space_nbsp", "/space/%A0"),
		get("empty_loop", "/empty-loop/aax"),
		get("empty_loop2", "/empty-loop2/aax"),
		get("quote", "/quote/.+*7"),
		get("extended", "/extended/12-34"),
		get("word", "/word/a-foo-b"),
		get("word_no", "/word/afoob"),
		get("escapes", "/escapes/AAB12"),
		get("posix", "/posix/abc123"),
		get("lazy", "/lazy/page42"),
		get("alt", "/alt/abcd"),
	},
})

// regexContextsHTTP: a lookaround and named captures in every context
// nginx takes a regexp in, and next to each a pattern that runs out of
// PCRE2's match limit on regexEvil.
const regexContextsHTTP = `
map $arg_who $who_kind {
    "~^(?<who_name>\w+)(?<!bot)$" "person-$who_name";
    "~*bot$" "bot";
    default "nobody";
}
map $arg_evil $evil_map {
    "~^(a+)+(?!x)$" "matched";
    default "default";
}
server {
    listen {{LISTEN}};
    server_name localhost;
    location /if/ {
        if ($uri ~ "^/if/(?<ifname>\w+)(?=\.html$)") { return 200 "if|$ifname|$1\n"; }
        if ($arg_x !~ "^(n)(o)") { return 200 "if-not|$1|$2\n"; }
        return 200 "if-fallthrough|$1|$2\n";
    }
    location /if-evil/ {
        if ($arg_evil ~ "^(a+)+(?!x)$") { return 200 "if-evil matched\n"; }
        return 200 "if-evil no\n";
    }
    location /map/ { return 200 "map|$who_kind|$who_name\n"; }
    location /map-evil/ { return 200 "map-evil|$evil_map\n"; }
    location /rewrite/ {
        rewrite "^/rewrite/(?<rwname>\w+)(?<!_old)$" /rewritten/$rwname/$1 last;
        return 200 "rewrite-none|$uri\n";
    }
    location /rewrite-evil/ {
        rewrite "^/rewrite-evil/(a+)+(?!x)$" /rewritten/evil last;
        return 200 "rewrite-evil none\n";
    }
    location /rewritten/ { return 200 "rewritten|$uri\n"; }
    location /split/ {
        fastcgi_split_path_info "^(.+?\.php)((?!/hidden).*)$";
        return 200 "split|$fastcgi_script_name|$fastcgi_path_info\n";
    }
    location ~ "^/location-evil/(a+)+(?!x)$" { return 200 "location-evil matched\n"; }
    location / { return 200 "none|$uri\n"; }
}
server {
    listen {{LISTEN}};
    server_name "~^(?!www\.)(?<sub>[a-z]+)\.example\.com$";
    location / { return 200 "server-name|$sub|$1\n"; }
}
server {
    listen {{LISTEN}};
    server_name "~^(a+)+(?!x)\.evil$";
    location / { return 200 "server-name-evil\n"; }
}
`

var _ = addScenario(scenario{
	name: "regex-contexts",
	http: regexContextsHTTP,
	cases: []reqCase{
		get("if_lookahead", "/if/page.html"),
		get("if_not_match_sets_captures", "/if/page.htm?x=no"),
		get("if_not_no_match", "/if/page.htm?x=yes"),
		get("if_evil", "/if-evil/?evil="+regexEvil),
		get("map_person", "/map/?who=alice"),
		get("map_bot", "/map/?who=googlebot"),
		get("map_nobody", "/map/?who=a-b"),
		get("map_evil", "/map-evil/?evil="+regexEvil),
		get("map_evil_short", "/map-evil/?evil=aaa"),
		get("rewrite", "/rewrite/page"),
		get("rewrite_lookbehind_no", "/rewrite/page_old"),
		get("rewrite_evil", "/rewrite-evil/"+regexEvil),
		get("split", "/split/index.php/a/b"),
		get("split_lookahead_no", "/split/index.php/hidden/x"),
		get("location_evil", "/location-evil/"+regexEvil),
		get("location_evil_short", "/location-evil/aaa"),
		get("server_name", "/", "Host: blog.example.com"),
		get("server_name_www", "/", "Host: www.example.com"),
		get("server_name_evil", "/", "Host: "+regexEvil+".evil"),
	},
})
