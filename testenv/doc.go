// Package testenv starts the real processes that edge's tests run against:
// php-fpm, Debian's nginx and the edge binary itself, each on free loopback
// ports inside t.TempDir().
//
// The rules, taken from Tailscale's tstest/integration and nginx-tests:
//   - readiness is polled (a TCP or unix connect succeeds), never slept for;
//   - every process is stopped by its PID in t.Cleanup, and its output and
//     log files are printed when the test failed;
//   - a missing binary fails the test with the Debian package to install
//     (./scripts/deps.sh test installs them all); it is never a skip, so a
//     green run means the real parts were exercised.
package testenv
