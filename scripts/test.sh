#!/usr/bin/env bash
# Runs every check CI runs: gofmt, go vet, the tests (with real nginx and
# php-fpm, installed from Debian's packages when missing), then a short run
# of every fuzz target. Each step runs even when an earlier one failed, so
# one run shows every problem; the exit status is non-zero if any failed.
#
# FUZZTIME (default 50000x) sets how much each fuzz target runs. It is a
# count of inputs rather than a duration: with a duration, Go 1.26's fuzz
# coordinator can report "context deadline exceeded" as a failure when
# the time runs out (golang/go#75804, fixed in Go 1.27), which failed a CI
# run here with no failing input.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/deps.sh
deps_main test

fuzztime=${FUZZTIME:-50000x}
results=()
failed=0

# step NAME CMD...: runs CMD, records its outcome for the summary.
step() {
	local name=$1
	shift
	echo "==> $name"
	local start=$SECONDS rc=0
	"$@" || rc=$?
	local took=$((SECONDS - start))
	if [[ $rc -eq 0 ]]; then
		results+=("ok    $name (${took}s)")
	else
		results+=("FAIL  $name (exit $rc, ${took}s)")
		failed=1
	fi
}

# go_files lists the Go files in the repository: tracked ones, plus new ones
# not yet added (but not ignored), so a local run checks what will be
# committed. Outside a git checkout it falls back to find.
go_files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard -- '*.go'
	else
		find . -name '*.go' -not -path './.git/*'
	fi
}

check_gofmt() {
	local files unformatted
	files=$(go_files)
	[[ -n $files ]] || return 0
	# shellcheck disable=SC2086 # one file per word; Go file names hold no spaces
	unformatted=$(gofmt -l $files)
	if [[ -n $unformatted ]]; then
		echo "gofmt: these files need gofmt -w:" >&2
		echo "$unformatted" >&2
		return 1
	fi
}

# fuzz_targets prints "dir FuzzName" for every fuzz target in the module.
fuzz_targets() {
	local file
	grep -rl --include='*_test.go' --exclude-dir=testdata --exclude-dir=.git \
		'^func Fuzz' . | sort | while read -r file; do
		sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file" |
			while read -r name; do
				echo "$(dirname "$file") $name"
			done
	done
}

echo "fuzz inputs per target: $fuzztime"
step "gofmt" check_gofmt
step "go vet" go vet ./...
step "go test" go test -count=1 -timeout 25m ./...
# The engine adapters, the listener and the pipeline run a connection's
# work on several goroutines (streamed bodies, the client-abort watch,
# parked connections, HTTP/2 streams): their tests run again under the
# race detector.
step "go test -race" go test -race -count=1 -timeout 15m ./proxy/... ./internal/... ./cache/...

# go test -fuzz takes one package and one target per run.
mapfile -t targets < <(fuzz_targets)
for target in "${targets[@]}"; do
	read -r dir name <<<"$target"
	step "fuzz $dir $name" \
		go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -timeout 10m "$dir"
done

echo
echo "==> summary"
printf '%s\n' "${results[@]}"
if [[ $failed -ne 0 ]]; then
	echo "FAILED"
	exit 1
fi
echo "all passed"
