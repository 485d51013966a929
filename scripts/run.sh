#!/usr/bin/env bash
# Builds edge and runs it. With no arguments edge serves its embedded
# default configuration: ./public over HTTP and HTTPS on localhost, with PHP.
# Arguments go to edge unchanged (./scripts/run.sh -t -c site.conf).

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/deps.sh
deps_main run

go build -o bin/edge ./cmd/edge
exec bin/edge "$@"
