# Shared by the tests/bench/*.sh scripts (sourced, not run). Every benchmark
# measures the orchestrator and its docker-CLI / raw-API counterparts side
# by side, interleaved, in one run on one machine: only the ratios are
# meant to be compared across machines.
#
# Environment: BENCH_RUNS (K, default 10), BENCH_LOG_MB (default 256),
# BENCH_IMAGE (default hrr-sim:dev), HRR_BIN, BENCH_TIMEIT, TMPDIR,
# DOCKER_HOST (unix:// only for the raw-API floor).

# shellcheck disable=SC2034 # the variables below are the scripts' API
set -euo pipefail

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${HRR_BIN:-$BENCH_ROOT/build/hrr-docker-replay}
TIMEIT=${BENCH_TIMEIT:-$BENCH_ROOT/build/bench/timeit}
IMAGE=${BENCH_IMAGE:-hrr-sim:${HRR_IMAGE_TAG:-dev}}
RUNS=${BENCH_RUNS:-10}
# shellcheck source=tests/fake-host.sh
. "$BENCH_ROOT/tests/fake-host.sh"
SYSFS=$FAKE_HOST_SYSFS
PASS_ARCHIVE=$BENCH_ROOT/tests/fixtures/archives/pass/capture.hrr
FLOOD_ARCHIVE=$BENCH_ROOT/tests/fixtures/archives/flood/capture.hrr
BENCH_OWNER="bench:$$"

case "${DOCKER_HOST:-unix:///var/run/docker.sock}" in
unix://*) SOCK=${DOCKER_HOST:-unix:///var/run/docker.sock}; SOCK=${SOCK#unix://} ;;
*) SOCK= ;;
esac

bench_say() { printf '%s\n' "$*" >&2; }
bench_die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# A benchmark that cannot run says why and still exits 0: `make bench`
# measures, it does not gate.
bench_skip() {
	printf '%s: SKIPPED: %s\n' "$BENCH_NAME" "$*"
	exit 0
}

# Debian package for a missing tool, as tests/setup.sh does for its own.
bench_need() {
	local cmd=$1 pkg=$2

	command -v "$cmd" >/dev/null 2>&1 && return 0
	bench_say "bench: $cmd missing, installing Debian package $pkg"
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null 2>&1; } || true
	fi
	command -v "$cmd" >/dev/null 2>&1 || bench_skip "$cmd is missing (Debian package $pkg)"
}

bench_cleanup() {
	local ids

	ids=$(docker ps -aq --filter "label=hrr-bench.owner=$BENCH_OWNER" 2>/dev/null || true)
	if [ -n "$ids" ]; then
		# shellcheck disable=SC2086 # one container id per word
		docker rm -f $ids >/dev/null 2>&1 || true
	fi
	[ -n "${BENCH_TMP:-}" ] && rm -rf "$BENCH_TMP"
	return 0
}

# Temp dir, fake GPU device nodes, engine and tool checks, machine facts.
bench_init() {
	BENCH_NAME=$1
	bench_need jq jq
	bench_need curl curl
	bench_need docker docker.io
	[ -x "$BIN" ] || bench_skip "$BIN not built (make all)"
	[ -x "$TIMEIT" ] || bench_skip "$TIMEIT not built (make $TIMEIT)"
	docker version >/dev/null 2>&1 || bench_skip "no Docker engine answers (bash tests/setup.sh starts one)"
	docker image inspect "$IMAGE" >/dev/null 2>&1 || bench_skip "image $IMAGE missing (make images)"

	BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hrr-bench.XXXXXX")
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
	DEV=$BENCH_TMP/dev
	if ! fake_host_devices "$DEV" 2>/dev/null; then
		bench_skip "cannot mknod fake GPU nodes (needs root)"
	fi

	API=$(curl -sS --unix-socket "$SOCK" http://localhost/version 2>/dev/null | jq -r '.ApiVersion // empty' || true)
	[ -n "$SOCK" ] && [ -n "$API" ] || API=
	DOCKER_CLI=$(command -v docker)
	DOCKER_CLI_VERSION=$(docker version --format '{{.Client.Version}}' 2>/dev/null || echo '?')
	ENGINE_VERSION=$(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?')
}

bench_banner() {
	local other

	printf '== %s: %s\n' "$BENCH_NAME" "$1"
	printf 'machine: %s cores, load %s; engine %s (API %s)\n' "$(nproc)" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" "$ENGINE_VERSION" "${API:-?}"
	printf 'docker CLI: %s, version %s' "$DOCKER_CLI" "$DOCKER_CLI_VERSION"
	other=$(type -ap docker | while read -r p; do readlink -f "$p"; done | sort -u |
		grep -vxF "$(readlink -f "$DOCKER_CLI")" |
		while read -r p; do
			printf '%s %s, ' "$p" "$("$p" version --format '{{.Client.Version}}' 2>/dev/null || echo '?')"
		done || true)
	[ -n "$other" ] && printf ' (also on PATH, not used: %s)' "${other%, }"
	printf '\n'
}

# hrr [run|preflight] ARGS: the tool, quiet, against the fake GPUs.
hrr() {
	local cmd=run

	case ${1:-} in run | preflight) cmd=$1; shift ;; esac
	"$BIN" "$cmd" --image "$IMAGE" --sysfs-root "$SYSFS" --device-root "$DEV" -q "$@"
}

newest_run_dir() {
	ls -1td "$1"/pid-* 2>/dev/null | head -1
}

now() { printf '%s' "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }

# stats < numbers: "median min max"
stats() {
	sort -g | awk '{ a[NR] = $1 }
		END {
			if (!NR) { print "nan nan nan"; exit }
			m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			printf "%.4f %.4f %.4f\n", m, a[1], a[NR]
		}'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# le A B: exit 0 when A <= B (floats)
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# The tool's container spec (run.json container.spec) with the tool's labels
# renamed: the same number of labels, but `hrr-docker-replay gc` of a
# concurrent run never mistakes a benchmark container for its own leftover,
# and bench_cleanup finds ours.
bench_spec() {
	jq -c --arg owner "$BENCH_OWNER" '.container.spec
		| .Labels |= (with_entries(.key |= sub("^hrr-docker-replay\\."; "hrr-bench."))
			      | .["hrr-bench.owner"] = $owner)' "$1"
}

# The docker CLI arguments (after `docker run`) that create exactly that
# container; NUL-separated. Keys the mapping does not know are reported so
# a future spec field cannot silently make the comparison unfair.
spec_to_cli() {
	local spec=$1 unknown

	unknown=$(jq -r '
		([keys[] | select(IN("Image", "Entrypoint", "Cmd", "Env", "Labels", "StopTimeout",
			"Tty", "OpenStdin", "AttachStdin", "AttachStdout", "AttachStderr",
			"HostConfig", "WorkingDir", "User") | not)] +
		[.HostConfig | keys[] | select(IN("Devices", "Mounts", "Ulimits", "CapDrop",
			"CapAdd", "SecurityOpt", "NetworkMode", "Init", "ReadonlyRootfs", "AutoRemove",
			"PidsLimit", "LogConfig", "GroupAdd", "Memory", "ShmSize") | not)
			| "HostConfig." + .]) | join(" ")' "$spec")
	[ -n "$unknown" ] && bench_say "bench: WARNING: spec keys not mirrored on the CLI: $unknown"
	jq -j '. as $s | .HostConfig as $h | [
		(if $h.Init then "--init" else empty end),
		(if $h.NetworkMode then "--network", $h.NetworkMode else empty end),
		($h.CapDrop // [] | .[] | "--cap-drop", .),
		($h.CapAdd // [] | .[] | "--cap-add", .),
		($h.SecurityOpt // [] | .[] | "--security-opt", .),
		($h.Ulimits // [] | .[] | "--ulimit", "\(.Name)=\(.Soft):\(.Hard)"),
		(if $h.PidsLimit then "--pids-limit", ($h.PidsLimit | tostring) else empty end),
		(if $h.LogConfig.Type then "--log-driver", $h.LogConfig.Type else empty end),
		($h.LogConfig.Config // {} | to_entries[] | "--log-opt", "\(.key)=\(.value)"),
		($h.Devices // [] | .[] | "--device", "\(.PathOnHost):\(.PathInContainer):\(.CgroupPermissions // "rwm")"),
		($h.Mounts // [] | .[] | "--mount",
			"type=\(.Type),source=\(.Source),target=\(.Target)\(if .ReadOnly then ",readonly" else "" end)"),
		($h.GroupAdd // [] | .[] | "--group-add", tostring),
		(if $h.ReadonlyRootfs then "--read-only" else empty end),
		(if $h.Memory then "--memory", ($h.Memory | tostring) else empty end),
		(if $h.ShmSize then "--shm-size", ($h.ShmSize | tostring) else empty end),
		($s.Env // [] | .[] | "-e", .),
		($s.Labels // {} | to_entries[] | "--label", "\(.key)=\(.value)"),
		(if $s.StopTimeout then "--stop-timeout", ($s.StopTimeout | tostring) else empty end),
		(if ($s.WorkingDir // "") != "" then "-w", $s.WorkingDir else empty end),
		(if ($s.User // "") != "" then "-u", $s.User else empty end),
		"--entrypoint", $s.Entrypoint[0],
		$s.Image,
		($s.Entrypoint[1:][]),
		($s.Cmd // [] | .[])
	] | .[] | ., "\u0000"' "$spec"
}

# The raw API floor: create, start, wait, delete in ONE curl process (one
# connection, no per-call process start), addressing the container by name.
# Succeeds only when every call answered as expected and the exit status
# was 0, so the floor ran the same successful workload.
raw_run() {
	local body=$1 name=$2 base out

	base="http://localhost/v$API/containers"
	out=$(curl -sS --unix-socket "$SOCK" -w ' %{http_code}\n' \
		-H 'Content-Type: application/json' --data-binary "@$body" \
		"$base/create?name=$name" \
		--next --unix-socket "$SOCK" -w ' %{http_code}\n' -X POST "$base/$name/start" \
		--next --unix-socket "$SOCK" -w ' %{http_code}\n' -X POST "$base/$name/wait?condition=not-running" \
		--next --unix-socket "$SOCK" -w ' %{http_code}\n' -X DELETE "$base/$name?force=1&v=1") || return 1
	[[ $out == *' 201'*' 204'*'"StatusCode":0'*' 200'*' 204'* ]] ||
		{ bench_say "bench: raw API run failed: $out"; return 1; }
}

# RUNS rounds of the script's measure() for each of three ways, their order
# rotated every round so that none always runs first (caches, a busy
# neighbour); each round's times (LAST) said on stderr.
bench_rounds() {
	local i w order
	for ((i = 0; i < RUNS; i++)); do
		case $((i % 3)) in
		0) order="$1 $2 $3" ;;
		1) order="$2 $3 $1" ;;
		*) order="$3 $1 $2" ;;
		esac
		for w in $order; do measure "$w"; done
		printf '  run %d/%d: %s %s  %s %s  %s %s\n' $((i + 1)) "$RUNS" \
			"$1" "${LAST[$1]}" "$2" "${LAST[$2]}" "$3" "${LAST[$3]}" >&2
	done
}
