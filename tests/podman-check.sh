#!/usr/bin/env bash
# The engine-facing integration suites again, against Podman's Docker-
# compatible API instead of dockerd (docs/engines.md):
#   root      DOCKER_HOST=unix:///run/podman/podman.sock, as root
#   rootless  DOCKER_HOST=unix:///run/user/<uid>/podman/podman.sock, the test
#             binary run as the test user $HRR_PODMAN_USER (default hrrpod),
#             its scratch dirs its own, its device nodes links to the shared
#             fake GPU nodes (tests/setup-fake-gpus.sh) of a group it is in;
#             it runs a copy of the binaries and of the files the tests read
#             (tests/, examples/, docs/) in a directory it can read, since the
#             checkout may be one it cannot enter (a clone under /root, or in
#             a `mktemp -d`); the copy is removed at the end
# Both run at once (separate engines, separate state). The subset: replays
# with every finding and exit code, interrupts, gc, pulls with credentials,
# preflight probes, a sweep holding its --image-budget, and the Podman-only
# suite. Each engine must be left
# without a container of the tests.
#
#   tests/podman-check.sh [root|rootless|both]     (default both)
#
# HRR_BIN and INTEGRATION name the binaries (default build/...),
# HRR_IMAGE_TAG the test images (copied into the engines here when they
# differ), HRR_PODMAN_FILTERS a space-separated list of Criterion filters
# replacing the subset. HRR_SETUP_NO_PODMAN=1 (no Podman set up): SKIPPED.
set -euo pipefail

cd "$(dirname "$0")/.."
USER_NAME=${HRR_PODMAN_USER:-hrrpod}
BIN=$(realpath "${HRR_BIN:-build/hrr-docker-replay}")
INTEGRATION=$(realpath "${INTEGRATION:-build/tests/integration}")
TAG=${HRR_IMAGE_TAG:-dev}
ROOT_SOCK=/run/podman/podman.sock
WHICH=${1:-both}

. "$(dirname "$0")/engine-suites.sh"
FILTERS=("${ENGINE_FILTERS[@]}" "${PULL_FILTERS[@]}")
[ -n "${HRR_PODMAN_FILTERS:-}" ] && read -r -a FILTERS <<<"$HRR_PODMAN_FILTERS"

say() { printf 'podman-check: %s\n' "$*" >&2; }

if [ "${HRR_SETUP_NO_PODMAN:-0}" = 1 ]; then
	say "SKIPPED: HRR_SETUP_NO_PODMAN=1 (no Podman services set up)"
	exit 0
fi
[ "$(id -u)" = 0 ] || { say "run as root (it runs the rootless half as $USER_NAME)"; exit 1; }
answers() { curl -sf --max-time 5 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1; }

UID_=$(id -u "$USER_NAME")
HOME_=$(getent passwd "$USER_NAME" | cut -d: -f6)
USER_SOCK=/run/user/$UID_/podman/podman.sock
for s in "$ROOT_SOCK" "$USER_SOCK"; do
	answers "$s" || { say "no Podman service on $s: run tests/setup-podman.sh"; exit 1; }
done
HRR_IMAGE_TAG=$TAG bash tests/setup-podman.sh --images-only

# One engine: every filter in turn; the Synthesis lines summed up.
run_suites() {
	local name=$1 f rc=0
	shift
	for f in "${FILTERS[@]}"; do
		local frc=0
		"$@" "$INTEGRATION" --jobs 1 --filter "$f" 2>&1 || frc=$?
		# A run that ends without its closing line leaves no [FAIL] to show.
		[ $frc = 0 ] || { echo "[FAIL] $f: the test binary exited $frc"; rc=1; }
	done
	return $rc
}

# The tree the test user runs from: the build's binaries and what the
# tests read, world-readable, under a directory every user can enter.
copy_tree() {
	TREE=$(mktemp -d /tmp/hrr-podman-tree-XXXXXX)
	trap 'rm -rf "$TREE"' EXIT
	mkdir -p "$TREE/build/tests"
	cp "$BIN" "$TREE/build/hrr-docker-replay"
	cp "$INTEGRATION" "$TREE/build/tests/integration"
	[ -d "$(dirname "$BIN")/sim" ] && cp -r "$(dirname "$BIN")/sim" "$TREE/build/"
	cp -r tests examples docs README.md "$TREE/"
	chmod -R a+rX "$TREE"
	runuser -u "$USER_NAME" -- test -x "$TREE/build/tests/integration" -a -r "$TREE/tests/fixtures" \
		|| { say "$USER_NAME cannot read $TREE, the copy of the tests it runs (is /tmp mounted noexec or private?)"; exit 1; }
}

as_root() {
	env DOCKER_HOST=unix://$ROOT_SOCK HRR_BIN="$BIN" HRR_IMAGE_TAG="$TAG" "$@"
}

# The user's runtime dir and socket as logind would set them; a TMPDIR of
# its own so scratch directories are its own too.
# Its first argument, the test binary, is replaced by the copy in $TREE.
as_user() {
	shift
	(cd "$TREE" && exec runuser -u "$USER_NAME" -- env -i PATH="$PATH" HOME="$HOME_" USER="$USER_NAME" \
		XDG_RUNTIME_DIR=/run/user/$UID_ DOCKER_HOST=unix://$USER_SOCK \
		HRR_BIN="$TREE/build/hrr-docker-replay" HRR_SRCDIR="$TREE" HRR_IMAGE_TAG="$TAG" TMPDIR=/tmp \
		"$TREE/build/tests/integration" "$@")
}

check_one() {
	local name=$1 sock=$2 runner=$3 log rc=0 before after
	log=$(mktemp)
	chmod 644 "$log"
	before=$(leftovers "$sock")
	run_suites "$name" "$runner" >"$log" 2>&1 || rc=1
	after=$(leftovers "$sock")
	grep -E '^\[(FAIL|----)\]' "$log" | grep -v '^\[----\] *$' | sed "s/^/[$name] /" || true
	awk -v n="$name" '/Synthesis/ { t += $4; p += $6; f += $8; c += $10 }
		END { printf "[%s] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: %d\n", n, t, p, f, c }' \
		FS='[ |]+' "$log"
	rm -f "$log"
	if [ "$after" -gt "$before" ]; then
		say "$name: $((after - before)) test container(s) left behind"
		rc=1
	fi
	return $rc
}

case $WHICH in rootless | both) copy_tree ;; esac
pids=()
names=()
case $WHICH in root | both) check_one root "$ROOT_SOCK" as_root & pids+=($!); names+=(root) ;; esac
case $WHICH in rootless | both) check_one rootless "$USER_SOCK" as_user & pids+=($!); names+=(rootless) ;; esac
[ ${#pids[@]} -gt 0 ] || { say "usage: $0 [root|rootless|both]"; exit 64; }
rc=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { say "${names[$i]} Podman: failures above"; rc=1; }
done
exit $rc
