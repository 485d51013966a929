#!/usr/bin/env bash
# Builds edge's Debian package: a static edge (CGO off), packed by nfpm
# (github.com/goreleaser/nfpm/v2, run from the Go module proxy) with the
# files in deploy/debian, then checked by lintian when it is installed.
#
#   scripts/package.sh [OUTDIR]      (default: bin/; prints the .deb's path)
#
# Reproducible: file dates come from SOURCE_DATE_EPOCH, by default the last
# commit's time.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/deps.sh
deps_go

nfpm=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
out=${1:-bin}
mkdir -p "$out"
# nfpm.yaml takes the binary and the changelog from here.
work=bin/package
rm -rf "$work"
mkdir -p "$work"

if [[ -z ${SOURCE_DATE_EPOCH:-} ]]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

# PIE: position-independent, as Debian builds its binaries (and lintian
# then sees a dynamically loaded executable, not a static one).
CGO_ENABLED=0 go build -trimpath -buildmode=pie -ldflags "-s -w" -o "$work/edge" ./cmd/edge
version=$("$work/edge" -v 2>&1 | sed -n 's|.*(edge/\([^)]*\)).*|\1|p')
[[ -n $version ]] || deps_die "cannot read edge's version from edge -v"

# Debian wants a changelog; this one says which commit the package is.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "edge ($version-1) unstable; urgency=medium"
	echo
	echo "  * Built from commit $commit."
	echo
	echo " -- edge developers <edge@example.org>  $(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$work/changelog.Debian.gz"
touch -d "@$SOURCE_DATE_EPOCH" "$work/changelog.Debian.gz"

arch=$(go env GOARCH)
deb="$out/edge_${version}-1_${arch}.deb"
EDGE_DEB_ARCH=$arch EDGE_DEB_VERSION=$version \
	go run "$nfpm" package --config deploy/debian/nfpm.yaml --packager deb --target "$deb" >&2
if command -v lintian >/dev/null 2>&1; then
	lintian --fail-on error "$deb" >&2
fi
echo "$deb"
