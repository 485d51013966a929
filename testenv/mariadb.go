// This file starts Debian's MariaDB server as a plain process: a fresh data
// directory made by mariadb-install-db under the test's temp directory, a
// mariadbd on a unix socket there with networking off, and SQL run through
// the mariadb client. Nothing of the system's own MariaDB (/etc/mysql,
// /var/lib/mysql, port 3306) is read or touched.

package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// MariaDB is a running mariadbd whose root user has no password and can
// only be reached over the unix socket.
type MariaDB struct {
	Proc *Proc
	// Dir holds the data directory, the socket, the pid file and the log.
	Dir string
	// Socket is the unix socket clients connect to. PHP's mysqli takes it
	// as the host "localhost:" + Socket.
	Socket string
}

// DataDir returns the data directory.
func (m *MariaDB) DataDir() string { return filepath.Join(m.Dir, "data") }

// ErrorLog returns the server's error log.
func (m *MariaDB) ErrorLog() string { return filepath.Join(m.Dir, "mariadb.err") }

// StartMariaDB creates a data directory with mariadb-install-db, starts
// mariadbd on it and returns once the socket accepts connections. Both run
// with --no-defaults, so no my.cnf of the machine applies.
func StartMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	install := Binary(t, "mariadb-server", "mariadb-install-db", "mysql_install_db")
	server := Binary(t, "mariadb-server", "mariadbd", "mysqld")
	m := &MariaDB{Dir: socketDir(t, "mariadb-")}
	m.Socket = filepath.Join(m.Dir, "mariadb.sock")
	// auth normal: root@localhost gets a password (empty) rather than
	// unix_socket authentication, which would tie it to the OS user root.
	args := append([]string{"--no-defaults", "--datadir=" + m.DataDir(),
		"--auth-root-authentication-method=normal", "--skip-test-db"}, runAsArgs()...)
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		t.Fatalf("testenv: mariadb-install-db: %v\n%s", err, out)
	}
	args = append([]string{"--no-defaults",
		"--datadir=" + m.DataDir(),
		"--socket=" + m.Socket,
		"--skip-networking",
		"--pid-file=" + filepath.Join(m.Dir, "mariadb.pid"),
		"--log-error=" + m.ErrorLog(),
		// Small and quick: a test database of a few MiB.
		"--innodb-buffer-pool-size=32M",
		"--innodb-flush-log-at-trx-commit=2",
		"--skip-name-resolve",
	}, runAsArgs()...)
	cmd := exec.Command(server, args...)
	cmd.Dir = m.Dir
	m.Proc = Start(t, "mariadbd", cmd, m.ErrorLog())
	// mariadbd binds the socket only when it is ready for queries.
	waitListening(t, m.Proc, "unix", m.Socket)
	return m
}

// runAsArgs lets the server run as root, which mariadbd otherwise refuses;
// as another user the data directory is that user's already.
func runAsArgs() []string {
	if os.Geteuid() == 0 {
		return []string{"--user=root"}
	}
	return nil
}

// Exec runs SQL statements as root through the mariadb client and returns
// what it printed (tab-separated rows without column names).
func (m *MariaDB) Exec(t testing.TB, sql string) string {
	t.Helper()
	client := Binary(t, "mariadb-client", "mariadb", "mysql")
	cmd := exec.Command(client, "--no-defaults", "--socket="+m.Socket, "--user=root",
		"--batch", "--skip-column-names", "--execute="+sql)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("testenv: mariadb: %v: %s\n%s", err, sql, out)
	}
	return string(out)
}

// CreateDatabase creates a database and a user of localhost that has every
// right on it, for an application (WordPress) to connect as.
func (m *MariaDB) CreateDatabase(t testing.TB, name, user, password string) {
	t.Helper()
	m.Exec(t, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;"+
		"CREATE USER '"+user+"'@'localhost' IDENTIFIED BY '"+sqlQuote(password)+"';"+
		"GRANT ALL PRIVILEGES ON `"+name+"`.* TO '"+user+"'@'localhost';")
}

// sqlQuote escapes a string for a single-quoted SQL literal.
func sqlQuote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
}

// socketDir makes a directory under t.TempDir(), or under the system temp
// directory when a socket in it would be too long a path for a unix socket
// (sun_path holds 108 bytes; a long test name can exceed it).
func socketDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp(t.TempDir(), prefix)
	if err == nil && len(dir)+len("/mariadb.sock") > maxSocketPath {
		dir, err = os.MkdirTemp("", prefix)
		if err == nil {
			short := dir
			t.Cleanup(func() { os.RemoveAll(short) })
		}
	}
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return dir
}
