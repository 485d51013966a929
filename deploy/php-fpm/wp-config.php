<?php
// WordPress's configuration in the development stack: every setting comes
// from the environment compose.yaml passes (see deploy/.env), the keys and
// salts from wp-salts.php, which entrypoint.sh writes once per volume.

function edge_env($name, $default) {
	$v = getenv($name);
	return ($v === false || $v === '') ? $default : $v;
}

define('DB_NAME', edge_env('WORDPRESS_DB_NAME', 'wordpress'));
define('DB_USER', edge_env('WORDPRESS_DB_USER', 'wordpress'));
define('DB_PASSWORD', edge_env('WORDPRESS_DB_PASSWORD', ''));
define('DB_HOST', edge_env('WORDPRESS_DB_HOST', 'mariadb'));
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
$table_prefix = edge_env('WORDPRESS_TABLE_PREFIX', 'wp_');

require __DIR__ . '/wp-salts.php';

// WORDPRESS_OFFLINE=1: no requests to wordpress.org (updates, news,
// translations), for machines without the internet.
if (edge_env('WORDPRESS_OFFLINE', '0') === '1') {
	define('WP_HTTP_BLOCK_EXTERNAL', true);
	define('AUTOMATIC_UPDATER_DISABLED', true);
	define('WP_AUTO_UPDATE_CORE', false);
}
define('WP_DEBUG', edge_env('WORDPRESS_DEBUG', '0') === '1');
define('FS_METHOD', 'direct');

if (!defined('ABSPATH')) {
	define('ABSPATH', __DIR__ . '/');
}
require_once ABSPATH . 'wp-settings.php';
