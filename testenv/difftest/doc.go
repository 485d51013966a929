// Package difftest is edge's differential test suite against nginx: each
// scenario runs one configuration under Debian's nginx and under edge, both
// serving the same docroot, sends the same raw requests to both and
// compares the status, the body and the headers that matter. A difference
// edge keeps on purpose is listed in docs/nginx-differences.md and encoded
// in the case that meets it; every other difference fails the test.
//
// Run it with `go test -v ./testenv/difftest`; the line starting with
// "DIFFTEST:" counts the requests answered identically, and a "PROJECT"
// line for each PHP project's published configuration
// (corpus_projects_test.go) says whether `edge -t` accepts it and how many
// of its requests edge answers as nginx does.
package difftest
