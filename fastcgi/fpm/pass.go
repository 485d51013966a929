// pass.go reads the status page of a pool edge knows only from a
// fastcgi_pass (conf's PassPools: a configuration without fpm_pool, such
// as php-fpm in its own container). nginx syntax has no place for
// pm.status_path, so the page is found the way a user would look for it:
// php-fpm's own configuration when its master runs on this machine (its
// pm.status_path and pm.status_listen, DiscoverPool), else the paths
// php-fpm's www.conf and edge's own pools use, asked over FastCGI at the
// address fastcgi_pass names. A path given by the user ("edge fpm status
// --status-path") is the only one asked.
package fpm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"edge/conf"
)

// DefaultStatusPaths are asked in turn on a pool behind a fastcgi_pass
// whose configuration edge cannot read: php-fpm's example in its
// www.conf (";pm.status_path = /status"), then edge's default for the
// pools it runs.
var DefaultStatusPaths = []string{"/status", "/fpm-status"}

// statusAnswerError is php-fpm answering, but not with its status page
// (403 "Access denied." when the path is no status_path and not a
// script php-fpm may run).
type statusAnswerError struct {
	code int
	msg  string
}

func (e *statusAnswerError) Error() string { return e.msg }

// readPassStatus finds and reads the status page of a pool behind a
// fastcgi_pass, filling what it learns into r: the status address, and
// from php-fpm's configuration when it is on this machine the pool's
// pm settings and master.
func readPassStatus(ctx context.Context, p *conf.FPMPool, statusPath string, r *Report) (*Status, error) {
	network, address := p.Network, p.Address
	where := conf.FormatAddress(network, address)
	paths := DefaultStatusPaths
	if found, ok := DiscoverPool(network, address); ok {
		r.Settings.PM, r.Settings.MaxChildren, r.MasterPID = found.PM, found.MaxChildren, found.MasterPID
		if found.StatusListen != "" {
			network, address = listenAddress(found.StatusListen)
		}
		switch {
		case statusPath != "":
		case found.StatusPath == "":
			return nil, fmt.Errorf("php-fpm pool %s (%s) at %s has no pm.status_path: set one there to see its status", found.Name, found.ConfigFile, where)
		default:
			paths = []string{found.StatusPath}
		}
	}
	if statusPath != "" {
		paths = []string{statusPath}
	}
	var refused *statusAnswerError
	for _, path := range paths {
		r.Status = network + ":" + address + path
		st, err := ReadStatus(ctx, network, address, path)
		if err == nil || !errors.As(err, &refused) {
			return st, err
		}
	}
	if len(paths) == 1 {
		return nil, fmt.Errorf("php-fpm at %s has no status page at %s (it answered %d): set pm.status_path %s in its pool, or name its path with \"edge fpm status --status-path PATH\"",
			where, paths[0], refused.code, paths[0])
	}
	return nil, fmt.Errorf("php-fpm at %s has no status page at %s (it answered %d): set pm.status_path in its pool, or name its path with \"edge fpm status --status-path PATH\"",
		where, strings.Join(paths, " or "), refused.code)
}

// listenAddress turns a php-fpm listen value of this machine ("9001",
// "127.0.0.1:9001", "[::]:9001", "/run/x.sock") into an address to dial.
func listenAddress(listen string) (network, address string) {
	if strings.HasPrefix(listen, "/") {
		return "unix", listen
	}
	host, port := "", listen
	if i := strings.LastIndex(listen, ":"); i >= 0 {
		host, port = strings.Trim(listen[:i], "[]"), listen[i+1:]
	}
	switch host {
	case "", "*", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "tcp", net.JoinHostPort(host, port)
}
