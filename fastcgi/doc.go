// Package fastcgi is edge's FastCGI wire client (FastCGI Specification
// 1.0): records and their encoding (record.go), the reading side of a
// request (response.go), and the Client with its wait queue (queue.go),
// kept idle connections (idle.go), connections (conn.go) and sending half
// (send.go). It knows FastCGI, not php-fpm: supervising, reading and
// tuning php-fpm pools is package edge/fastcgi/fpm.
package fastcgi
