#!/bin/sh
# Creates the system tables, the database and its user on an empty data
# volume, then runs the server. The SQL runs through --init-file on that
# first start only, before the server accepts connections, so the health
# check never sees a server without the database.
set -eu
: "${MARIADB_DATABASE:=wordpress}" "${MARIADB_USER:=wordpress}" "${MARIADB_PASSWORD:?set MARIADB_PASSWORD}"
for v in "$MARIADB_DATABASE" "$MARIADB_USER" "$MARIADB_PASSWORD"; do
	case $v in
	*[\'\`\\]*) echo "entrypoint: quotes and backslashes are not allowed in MARIADB_*" >&2; exit 1 ;;
	esac
done
if [ ! -d /var/lib/mysql/mysql ]; then
	echo "entrypoint: creating the database in /var/lib/mysql" >&2
	mariadb-install-db --user=mysql --datadir=/var/lib/mysql --skip-test-db \
		--auth-root-authentication-method=socket >/dev/null
	init=/run/mysqld/init.sql
	cat > "$init" <<SQL
CREATE DATABASE IF NOT EXISTS \`$MARIADB_DATABASE\` CHARACTER SET utf8mb4;
CREATE USER IF NOT EXISTS '$MARIADB_USER'@'%' IDENTIFIED BY '$MARIADB_PASSWORD';
GRANT ALL ON \`$MARIADB_DATABASE\`.* TO '$MARIADB_USER'@'%';
SQL
	chown mysql "$init"
	set -- "$@" --init-file="$init"
fi
exec "$@"
