// Package fpmtest holds the end-to-end tests of edge's php-fpm pools: the
// edge binary with fpm_pool blocks, supervising real php-fpm 8.2, checked
// the way a user would (HTTP requests, "edge fpm status|tune", signals,
// the Prometheus endpoint read by a real parser). They are the checks
// issue 4 asks for: seed 000's settings reach php-fpm exactly and a broken
// combination is refused by "edge -t"; a saturated pool of two workers
// completes every request and the report shows the queue, the waits and
// a "max children reached" episode; a killed worker and a killed master
// are replaced; "edge fpm tune --apply" under wrk load changes the pool
// with no failed request; an external pool is reported on and tuned.
//
// Run it with `go test ./testenv/fpmtest`. The tune-under-load test runs
// wrk for 8s; FPMTEST_LOAD=20s runs it for the 20s.
package fpmtest
