#!/bin/sh
# Fills the "wordpress" volume from the image at the first start, writes
# the keys and salts once, then runs php-fpm. A volume that already holds
# WordPress (or the user's own application) is left as it is.
set -eu
docroot=/var/www/html
if [ ! -e "$docroot/wp-settings.php" ] && [ ! -e "$docroot/index.php" ]; then
	echo "entrypoint: copying WordPress into $docroot" >&2
	cp -a /usr/src/wordpress/. "$docroot/"
	mkdir -p "$docroot/wp-content/uploads"
	chown -R www-data:www-data "$docroot/wp-content"
fi
if [ -e "$docroot/wp-config.php" ] && [ ! -e "$docroot/wp-salts.php" ]; then
	php8.2 -r '
		echo "<?php\n// Written once by the php-fpm container (deploy/php-fpm/entrypoint.sh).\n";
		foreach (["AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY",
			"AUTH_SALT", "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT"] as $k) {
			printf("define(%s, %s);\n", var_export($k, true), var_export(bin2hex(random_bytes(32)), true));
		}' > "$docroot/wp-salts.php"
	chmod 640 "$docroot/wp-salts.php"
	chgrp www-data "$docroot/wp-salts.php"
fi
exec "$@"
