// Package fcgitest holds edge's end-to-end FastCGI tests: edge (the built
// binary) in front of a real php-fpm 8.2 pool started by testenv, and, where
// a behaviour is nginx's to define, Debian's nginx with the same
// configuration in front of the same pool. It covers forms and uploads,
// chunked bodies, large headers, streaming, cookies and redirects, the CGI
// params compared with nginx's, backend failures and saturation, the
// script-existence rules that keep non-PHP files from being executed
// (CVE-2019-11043 and the split-path cases), seed 004's PHP configuration
// as written, and WordPress end to end on Debian's wordpress and
// mariadb-server packages. bench_test.go measures hello.php through edge
// and nginx on one pool.
//
// Run it with `go test ./testenv/fcgitest`; add -v to see the params that
// differ from nginx's on purpose.
package fcgitest
