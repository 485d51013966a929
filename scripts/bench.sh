#!/usr/bin/env bash
# Measures edge's performance in one run (the README's "make bench"):
#
#   1. a short A/B against nginx with "edge ab" on the built-in site: every
#      scenario (seed 003's matrix and connections per second, HTTP/2, seed
#      004's ab runs, PHP, a short version of seed 000's ramp), 3 rounds of
#      2 s per server, under 5 minutes;
#   2. the Go benchmarks of the hot paths (config load, location match,
#      static 1 KiB, FastCGI round trip against gofast, access-log line,
#      limit_req check, gzip vs brotli on a 10 KiB page,
#      TLS handshake), in benchstat's format.
#
#   scripts/bench.sh [OUT]        (default OUT: bench-results/DATE-TIME)
#
# OUT receives ab/ (report.html, summary.csv, rounds.csv, ramp.csv,
# summary.txt) and go-bench.txt. Environment:
#   AB_ARGS    extra "edge ab" flags, e.g. "--server-cpus 0/0-1" or
#              "-c site.conf" (they come last, so they override the above)
#   BENCHTIME  go test -benchtime (default 300ms)
#   BENCHCOUNT go test -count (default 1; use 6 or more for benchstat)
#
# The figures only mean something on an otherwise idle machine with at
# least two CPUs: the servers get the first half, the load generator the
# rest. docs/performance.md holds the latest figures and how to read them.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/deps.sh
deps_main bench

out=${1:-bench-results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
benchtime=${BENCHTIME:-300ms}
benchcount=${BENCHCOUNT:-1}

go build -o bin/edge ./cmd/edge

echo "==> edge ab (short A/B against nginx)"
ab_status=0
# shellcheck disable=SC2086 # AB_ARGS is a list of flags
bin/edge ab --out "$out/ab" --rounds 3 --duration 2s --warmup 0 --ramp-duration 10s ${AB_ARGS:-} ||
	ab_status=$?

echo "==> go benchmarks (benchtime $benchtime, count $benchcount)"
go test -run '^$' -bench . -benchmem -benchtime "$benchtime" -count "$benchcount" \
	./conf ./proxy ./proxy/limit ./fastcgi | tee "$out/go-bench.txt"

echo
echo "A/B report: $out/ab/report.html"
echo "Go benchmarks: $out/go-bench.txt (compare runs with: benchstat old.txt new.txt)"
exit "$ab_status"
