// Package difftest is edge's differential test suite against nginx: each
// scenario runs one configuration under Debian's nginx and under edge, both
// serving the same docroot, sends the same raw requests to both and
// compares the status, the body and the headers that matter. A difference
// edge keeps on purpose is listed in docs/nginx-differences.md and encoded
// in the case that meets it; every other difference fails the test.
//
// Run it with `go test -v ./testenv/difftest`; the line starting with
// "DIFFTEST:" counts the requests answered identically.
package difftest
