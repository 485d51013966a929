// Package tlstest is edge's end-to-end TLS suite (the project's issue 5),
// run against real processes on loopback ports, never mocks:
//
//   - testssl.sh (Debian's package) against edge's defaults: no weak
//     protocol or cipher offered, no vulnerability, forward secrecy for
//     every suite; any new finding fails the test;
//   - h2spec (github.com/summerwind/h2spec) against edge's TLS listener,
//     with the known failures of Go's HTTP/2 server listed and explained;
//   - openssl s_client -sess_out/-sess_in: session resumption, also across
//     two edge processes sharing an ssl_session_ticket_key file;
//   - a certificate obtained from pebble (github.com/letsencrypt/pebble, a
//     local ACME CA) through acme_issuer/acme_certificate, with the http-01
//     challenge answered by edge's port 80 server, then served;
//   - seed 002's nginx.conf (Kalasearch's TLS tuning) passing "edge -t"
//     and serving HTTP/2, and seed 000's cipher string getting its message.
//
// The tools come from ./scripts/deps.sh test (testssl.sh and openssl from
// Debian; h2spec and pebble with "go install"); a missing one fails the
// test. BenchmarkHandshakeRate compares new-connection handshakes per
// second of edge and nginx (ECDSA and RSA certificates) with h2load.
package tlstest
