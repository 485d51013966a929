#!/usr/bin/env bash
# Installs what edge needs from Debian's packages, only when something is
# missing, and puts a new enough Go on PATH.
#
#   scripts/deps.sh [run|test|bench]     (default: run)
#
#   run    php-fpm and openssl: what ./scripts/run.sh needs
#   test   + nginx, PHP extensions for WordPress, load tools (wrk, h2load, ab),
#          curl, MariaDB, WordPress, testssl.sh: what ./scripts/test.sh needs;
#          and, with "go install" into $(go env GOPATH)/bin, h2spec and pebble
#          (Let's Encrypt's test ACME CA) for the TLS tests (testenv/tlstest);
#          chromium, which renders edge ab's HTML report in a test (package ab);
#          pcre2test, nginx's PCRE2 library on the command line, which conf's
#          TestAgainstPCRE2 checks edge's regexps against; and Docker for
#          the compose stack's test (deps_docker below)
#   bench  the same as test: what ./scripts/bench.sh needs
#
# Other scripts source this file and call deps_main, so that the PATH change
# for Go reaches them.
#
# Services: installing nginx, php8.2-fpm or mariadb-server on a machine
# without a policy-rc.d would start their system services (nginx on port
# 80, php-fpm on its /run socket, MariaDB on 3306). The tests never use
# those: they start their own processes on free loopback ports. So while
# installing, this script puts a policy-rc.d in place that forbids starting
# services, unless one already exists, and removes it afterwards. It never
# stops or kills a service that is already running.

set -euo pipefail

DEPS_GO_MIN_MINOR=26 # Go 1.26 or newer

deps_pkgs_run=(php8.2-fpm php8.2-cli openssl ca-certificates)
deps_pkgs_test=("${deps_pkgs_run[@]}" nginx php8.2-mysql php8.2-curl php8.2-gd
	php8.2-xml php8.2-mbstring wrk nghttp2-client apache2-utils curl
	mariadb-server wordpress wordpress-theme-twentytwentythree testssl.sh chromium
	# conf's TestAgainstPCRE2
	pcre2-utils
	# go test -race (test.sh's race step) needs cgo, so a C compiler
	gcc libc6-dev
	# nginx's own test suite (testenv/nginxtests): its Perl modules, and the
	# dynamic modules Debian's nginx is built with, which the suite loads
	perl libfcgi-perl libio-socket-ssl-perl libnet-ssleay-perl libprotocol-websocket-perl
	libnginx-mod-http-geoip libnginx-mod-http-image-filter libnginx-mod-http-perl
	libnginx-mod-http-xslt-filter libnginx-mod-mail libnginx-mod-stream
	libnginx-mod-stream-geoip
	# headers-more, which the differential suite (testenv/difftest) loads
	# into nginx to compare edge's built-in more_set_headers & co. with it
	libnginx-mod-http-headers-more-filter)
deps_pkgs_bench=("${deps_pkgs_test[@]}")

# Commands each set must provide once its packages are in; checked after
# installing, and the only check on a system without dpkg.
deps_cmds_run=(php-fpm8.2 php8.2 openssl)
deps_cmds_test=("${deps_cmds_run[@]}" nginx wrk h2load ab curl testssl chromium pcre2test gcc)
deps_cmds_bench=("${deps_cmds_test[@]}")

deps_die() {
	echo "deps: $*" >&2
	exit 1
}

# deps_have_cmd finds a command in PATH or in the sbin directories, which a
# non-root PATH often lacks (php-fpm8.2 and nginx live there).
deps_have_cmd() {
	command -v "$1" >/dev/null 2>&1 || [[ -x /usr/sbin/$1 || -x /sbin/$1 ]]
}

# deps_installed is true when dpkg has the package fully installed; a
# removed package whose config files remain does not count.
deps_installed() {
	[[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

deps_as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		deps_die "need root (or sudo) to run: $*"
	fi
}

deps_apt_install() {
	local policy=/usr/sbin/policy-rc.d
	if [[ ! -e $policy ]]; then
		# exit 101 = "action forbidden" for invoke-rc.d (Debian policy 9.3.3.1)
		deps_as_root sh -c "printf '#!/bin/sh\\nexit 101\\n' > $policy && chmod 755 $policy"
		# Remove it even if apt-get fails or the script is interrupted.
		trap "deps_as_root rm -f $policy" EXIT
	fi
	deps_as_root apt-get update ||
		deps_die "apt-get update failed"
	deps_as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "$@" ||
		deps_die "apt-get install failed for: $*"
	if [[ $(trap -p EXIT) == *policy-rc.d* ]]; then
		deps_as_root rm -f "$policy"
		trap - EXIT
	fi
}

deps_packages() {
	local set=$1
	local -n pkgs="deps_pkgs_$set"
	local -n cmds="deps_cmds_$set"
	local missing=() p c
	if command -v dpkg-query >/dev/null 2>&1; then
		for p in "${pkgs[@]}"; do
			deps_installed "$p" || missing+=("$p")
		done
		if ((${#missing[@]} > 0)); then
			echo "deps: installing ${missing[*]}"
			deps_apt_install "${missing[@]}"
		fi
	fi
	missing=()
	for c in "${cmds[@]}"; do
		deps_have_cmd "$c" || missing+=("$c")
	done
	if ((${#missing[@]} > 0)); then
		deps_die "still missing: ${missing[*]} (on Debian: ./scripts/deps.sh $set; elsewhere install the equivalents of: ${pkgs[*]})"
	fi
}

# deps_go puts Go on PATH (the official tarball's /usr/local/go/bin when it
# is not there yet) and checks that it is 1.26 or newer.
deps_go() {
	if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
		export PATH="/usr/local/go/bin:$PATH"
	fi
	command -v go >/dev/null 2>&1 ||
		deps_die "Go not found: install Go 1.$DEPS_GO_MIN_MINOR or newer (https://go.dev/dl/) into /usr/local/go or PATH"
	local v
	v=$(go env GOVERSION) # go1.26.8, or go1.27rc1
	if [[ ! $v =~ ^go1\.([0-9]+) ]] || ((BASH_REMATCH[1] < DEPS_GO_MIN_MINOR)); then
		deps_die "$(command -v go) is $v; edge needs Go 1.$DEPS_GO_MIN_MINOR or newer"
	fi
}

# Go tools of the test set: name, then the package and version to install.
deps_go_tools_test=(
	h2spec github.com/summerwind/h2spec/cmd/h2spec@v2.2.1+incompatible
	pebble github.com/letsencrypt/pebble/v2/cmd/pebble@v2.10.3
)

# deps_go_tools installs the Go tools of a set that are neither in PATH nor
# in $(go env GOPATH)/bin, where the tests also look.
deps_go_tools() {
	[[ $1 == run ]] && return 0
	local bin i name pkg
	bin="$(go env GOPATH | cut -d: -f1)/bin"
	for ((i = 0; i < ${#deps_go_tools_test[@]}; i += 2)); do
		name=${deps_go_tools_test[i]}
		pkg=${deps_go_tools_test[i + 1]}
		if ! command -v "$name" >/dev/null 2>&1 && [[ ! -x $bin/$name ]]; then
			echo "deps: go install $pkg"
			go install "$pkg" || deps_die "go install $pkg failed"
		fi
	done
}

# deps_docker makes what testenv/compose (the docker-compose stack) and
# the package test need, each piece only when it is missing:
#   - Debian's docker.io and debootstrap packages, and lintian, logrotate
#     and systemd (for systemd-analyze) for the package test;
#   - dockerd running (started in the background, its log in
#     /var/log/edge-dockerd.log, when "docker info" cannot reach one);
#   - the Compose v2 CLI plugin, which Debian 12 does not package: built
#     from the Go module proxy and installed as
#     ~/.docker/cli-plugins/docker-compose;
#   - the images the Dockerfiles start FROM, made locally because no
#     registry is reachable: debian:bookworm-slim from debootstrap
#     (minbase, from the machine's Debian mirror), and golang:1.26-bookworm
#     from it and this machine's Go, trusting the CAs this machine trusts
#     (so that "go mod download" in a build reaches the module proxy as
#     the host does). Built once, reused by later runs.
# Anything that cannot be made fails the run.
deps_compose_version=v5.6.0
deps_base_image=debian:bookworm-slim
deps_golang_image=golang:1.26-bookworm

deps_docker() {
	local missing=() p
	for p in docker.io debootstrap lintian logrotate systemd; do
		deps_installed "$p" || missing+=("$p")
	done
	if ((${#missing[@]} > 0)); then
		echo "deps: installing ${missing[*]}"
		deps_apt_install "${missing[@]}"
	fi
	deps_have_cmd dockerd || deps_die "dockerd missing after installing docker.io"
	if ! docker info >/dev/null 2>&1; then
		echo "deps: starting dockerd (log: /var/log/edge-dockerd.log)"
		deps_as_root sh -c 'setsid dockerd >/var/log/edge-dockerd.log 2>&1 </dev/null &'
		local i
		for ((i = 0; i < 60; i++)); do
			docker info >/dev/null 2>&1 && break
			sleep 1
		done
		docker info >/dev/null 2>&1 ||
			deps_die "dockerd did not answer within 60s (see /var/log/edge-dockerd.log)"
	fi
	if ! docker compose version >/dev/null 2>&1; then
		deps_compose_plugin
	fi
	if ! docker image inspect "$deps_base_image" >/dev/null 2>&1; then
		deps_base_image_build
	fi
	if ! docker image inspect "$deps_golang_image" >/dev/null 2>&1; then
		deps_golang_image_build
	fi
}

# deps_compose_plugin builds Compose in a throwaway module: its own
# go.mod has exclude directives, which "go install pkg@version" refuses.
deps_compose_plugin() {
	local dir plugins
	plugins="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
	dir=$(mktemp -d)
	echo "deps: building docker compose $deps_compose_version from the Go module proxy"
	(
		cd "$dir" &&
			printf 'module composebuild\n\ngo 1.26\n' >go.mod &&
			go get "github.com/docker/compose/v5/cmd@$deps_compose_version" &&
			CGO_ENABLED=0 go build -trimpath \
				-ldflags "-s -w -X github.com/docker/compose/v5/internal.Version=$deps_compose_version" \
				-o docker-compose github.com/docker/compose/v5/cmd
	) || {
		rm -rf "$dir"
		deps_die "building docker compose failed"
	}
	mkdir -p "$plugins"
	install -m 755 "$dir/docker-compose" "$plugins/docker-compose"
	rm -rf "$dir"
	docker compose version >/dev/null || deps_die "docker compose does not run from $plugins"
}

deps_base_image_build() {
	local mirror dir
	mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	mirror=${mirror:-http://deb.debian.org/debian}
	dir=$(mktemp -d)
	echo "deps: making $deps_base_image with debootstrap from $mirror"
	deps_as_root debootstrap --variant=minbase bookworm "$dir/root" "$mirror" >"$dir/log" 2>&1 || {
		tail -n 20 "$dir/log" >&2
		deps_as_root rm -rf "$dir"
		deps_die "debootstrap failed"
	}
	deps_as_root tar -C "$dir/root" -c . | docker import - "$deps_base_image" >/dev/null || {
		deps_as_root rm -rf "$dir"
		deps_die "docker import of the debootstrap'd tree failed"
	}
	deps_as_root rm -rf "$dir"
}

deps_golang_image_build() {
	local dir goroot
	goroot=$(go env GOROOT)
	dir=$(mktemp -d)
	echo "deps: making $deps_golang_image from $deps_base_image and $goroot"
	cp -a "$goroot" "$dir/go"
	cat /etc/ssl/certs/ca-certificates.crt >"$dir/host-ca.crt"
	cat >"$dir/Dockerfile" <<-EOF
		FROM $deps_base_image
		RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates git \\
			&& rm -rf /var/lib/apt/lists/*
		COPY go /usr/local/go
		COPY host-ca.crt /usr/local/share/edge-host-ca.crt
		ENV SSL_CERT_FILE=/usr/local/share/edge-host-ca.crt GOTOOLCHAIN=local GOPATH=/go \\
			PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		WORKDIR /go
	EOF
	docker build -q -t "$deps_golang_image" "$dir" >/dev/null || {
		rm -rf "$dir"
		deps_die "building $deps_golang_image failed"
	}
	rm -rf "$dir"
}

deps_main() {
	local set=${1:-run}
	case $set in
	run | test | bench) ;;
	*) deps_die "unknown set '$set' (use run, test or bench)" ;;
	esac
	deps_packages "$set"
	deps_go
	deps_go_tools "$set"
	[[ $set == test ]] && deps_docker
	return 0
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	deps_main "$@"
fi
