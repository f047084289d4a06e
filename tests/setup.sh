#!/usr/bin/env bash
# Brings up what the build and the tests need, leaving running services
# alone: Debian packages, a Docker engine, and two loopback registries
# (plain on 127.0.0.1:5000, htpasswd-protected on 127.0.0.1:5001).
# Idempotent; safe to run before every `make check`.
#
#   tests/setup.sh        everything `make check` needs
#   tests/setup.sh demo   what `make demo` needs: build packages and the
#                         engine only (no registries, no test or fuzz tools)
#
# HRR_TEST_STATE (default /var/lib/hrr-docker-replay-test) holds the logs and
# the registries' data; HRR_SETUP_NO_REGISTRY=1 skips the registries.
# Every service starts with / as its working directory and a log of its
# own, so removing the checkout it was started from harms nothing.
set -euo pipefail

STATE=${HRR_TEST_STATE:-/var/lib/hrr-docker-replay-test}
LOGS=$STATE/logs
PACKAGES=(build-essential pkg-config libcurl4-openssl-dev libcjson-dev
	  libcriterion-dev libseccomp-dev docker.io docker-registry apache2-utils
	  busybox-static curl jq clang valgrind
	  slurm-wlm munge podman catatonit uidmap slirp4netns fuse-overlayfs crun
	  libsqlite3-dev sqlite3 libpq-dev postgresql openssl libxml2-dev libyaml-dev libxml2-utils python3-junitparser chromium)
if [ "${1:-}" = demo ]; then
	PACKAGES=(build-essential pkg-config libcurl4-openssl-dev libcjson-dev libseccomp-dev
		  libsqlite3-dev libpq-dev libxml2-dev libyaml-dev docker.io busybox-static curl jq)
	HRR_SETUP_NO_REGISTRY=1
	HRR_SETUP_NO_SLURM=1
	HRR_SETUP_NO_PODMAN=1
fi
# Commands the tests and README.md's blocks call, checked once the
# packages are in: a tool a block needs and no package brings fails here,
# not in the middle of the suites.
TOOLS=(cc make pkg-config curl jq docker busybox)
[ "${1:-}" = demo ] || TOOLS+=(docker-registry htpasswd clang valgrind xmllint chromium
			      podman crun sbatch munged sqlite3 openssl python3)
REG_USER=hrrtest
REG_PASS=hrrtest-secret

here=$(cd "$(dirname "$0")" && pwd)
. "$here/setup-lib.sh"

need_root() {
	if [ "$(id -u)" != 0 ]; then
		say "must run as root to $1 (or install/start it yourself)"
		exit 1
	fi
}

install_packages() {
	local missing=() p
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
			|| missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	need_root "install ${missing[*]}"
	say "installing ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >"$LOGS/apt.log" 2>&1 \
		|| { say "apt-get failed, see $LOGS/apt.log"; tail -20 "$LOGS/apt.log" >&2; exit 1; }
}

engine_socket() {
	local host=${DOCKER_HOST:-unix:///var/run/docker.sock}
	case $host in
	unix://*) printf '%s' "${host#unix://}" ;;
	*) printf '' ;;
	esac
}

engine_answers() {
	local sock
	sock=$(engine_socket)
	if [ -n "$sock" ]; then
		curl -sf --max-time 2 --unix-socket "$sock" http://localhost/_ping >/dev/null 2>&1
	else
		curl -sf --max-time 2 "${DOCKER_HOST/tcp:/http:}/_ping" >/dev/null 2>&1
	fi
}

start_engine() {
	engine_answers && return 0
	if [ -z "$(engine_socket)" ]; then
		say "DOCKER_HOST=$DOCKER_HOST does not answer; start that engine yourself"
		exit 1
	fi
	need_root "start dockerd"
	say "starting dockerd (log: $LOGS/dockerd.log)"
	# containerd is started by dockerd itself when none runs.
	start_daemon "$LOGS/dockerd.log" dockerd
	wait_for 60 dockerd engine_answers || { tail -30 "$LOGS/dockerd.log" >&2; exit 1; }
}

registry_answers() { curl -s --max-time 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/v2/" | grep -qE '^(200|401)$'; }

start_registry() { # name port [auth]
	local name=$1 port=$2 auth=${3:-} dir=$STATE/registry-$1
	registry_answers "$port" && return 0
	mkdir -p "$dir/data"
	{
		echo "version: 0.1"
		echo "log: {level: warn}"
		echo "storage: {filesystem: {rootdirectory: $dir/data}, delete: {enabled: true}}"
		echo "http: {addr: 127.0.0.1:$port}"
		if [ -n "$auth" ]; then
			htpasswd -Bbn "$REG_USER" "$REG_PASS" >"$dir/htpasswd"
			echo "auth: {htpasswd: {realm: hrr-test, path: $dir/htpasswd}}"
		fi
	} >"$dir/config.yml"
	say "starting registry $name on 127.0.0.1:$port"
	start_daemon "$LOGS/registry-$name.log" docker-registry serve "$dir/config.yml"
	wait_for 30 "registry $name" registry_answers "$port" \
		|| { tail -20 "$LOGS/registry-$name.log" >&2; exit 1; }
}

check_tools() {
	local t missing=()
	for t in "${TOOLS[@]}"; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "${missing[*]} missing after the packages were installed: add the package to PACKAGES in tests/setup.sh"
	exit 1
}

mkdir -p "$LOGS"
install_packages
check_tools
# the demo needs no test user (hrrtest2 is in the docker group: root-equivalent)
[ "${1:-}" = demo ] || bash "$here/setup-users.sh"
# The PostgreSQL test user (initdb refuses root): `make check-history-pg`
# runs its private cluster as this user (tests/pg-cluster.sh).
[ "${1:-}" = demo ] || bash "$here/pg-cluster.sh" user
start_engine
if [ "${HRR_SETUP_NO_REGISTRY:-0}" != 1 ]; then
	# Debian's package starts a registry on :5000 through systemd when it
	# can; either way one answers there afterwards.
	start_registry plain 5000
	start_registry auth 5001 auth
fi
[ "${HRR_SETUP_NO_SLURM:-0}" = 1 ] || bash "$here/setup-slurm.sh"
[ "${HRR_SETUP_NO_PODMAN:-0}" = 1 ] || bash "$here/setup-podman.sh"
say "ready (engine: ${DOCKER_HOST:-unix:///var/run/docker.sock})"
