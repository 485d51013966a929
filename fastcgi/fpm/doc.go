// Package fpm is edge's side of php-fpm itself, apart from the FastCGI
// wire client in package fastcgi that talks to it: supervising the
// masters of fpm_pool blocks (supervisor.go), finding the pool behind a
// bare fastcgi_pass address (discover.go), reading a pool's status page
// and memory (status.go), and turning those figures into pm.* settings
// (tune.go).
//
// It is a package of its own because none of the request path needs it:
// the wire client knows FastCGI records and connections, not php-fpm's
// INI files, process titles or signals, and this package uses the client
// only as any other caller does (to read the status page).
package fpm
