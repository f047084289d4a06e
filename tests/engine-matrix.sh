#!/usr/bin/env bash
# The engine-facing suites (tests/engine-suites.sh, plus cdi/*) against the
# newer engines of the matrix (docs/engines.md), each started inside a
# container of the host's dockerd from a Debian root that
# tests/setup-engines.sh builds once and caches (hrr-engine-root:<suite>):
#
#   docker@trixie  docker@sid  podman@trixie  podman@sid      (the default)
#
#   tests/engine-matrix.sh [ENGINE@SUITE...]
#
# The engine container, as these hosts allow it: no --privileged (their
# bounding set lacks CAP_SYS_RESOURCE), every other capability, unconfined
# seccomp and AppArmor, the host's cgroup namespace with /sys/fs/cgroup
# writable, every device allowed; /tmp and the test state (fake GPU nodes,
# the engine's storage and its CDI spec dir, its /etc/cdi, where the cdi
# suite writes its spec) and the home directories
# (read-only) bind-mounted at the same paths so
# archive and device paths resolve alike; and --network none: a second
# dockerd in the host's network namespace deletes the host's docker0. So
# the pull suites (PULL_FILTERS) do not run here: SKIPPED, said below.
# The engine's socket is $RUN/<name>/<engine>.sock under /tmp.
#
# Two engines run at a time (HRR_ENGINE_JOBS, default 2). Each is left
# without a container of the tests; a suite whose root could not be built
# is SKIPPED with the reason. HRR_BIN, INTEGRATION and HRR_IMAGE_TAG as for
# tests/podman-check.sh; HRR_ENGINE_FILTERS replaces the suites.
set -euo pipefail

cd "$(dirname "$0")/.."
SRC=$PWD
STATE=${HRR_TEST_STATE:-/var/lib/hrr-docker-replay-test}
TAG=${HRR_IMAGE_TAG:-dev}
BIN=$(realpath "${HRR_BIN:-build/hrr-docker-replay}")
INTEGRATION=$(realpath "${INTEGRATION:-build/tests/integration}")
RUN=/tmp/hrr-engines-$TAG
JOBS=${HRR_ENGINE_JOBS:-2}
ENGINES=("$@")
[ ${#ENGINES[@]} -gt 0 ] || ENGINES=(docker@trixie docker@sid podman@trixie podman@sid)

. tests/engine-suites.sh
. tests/engine-lib.sh
FILTERS=("${ENGINE_FILTERS[@]}" 'cdi/*')
[ -n "${HRR_ENGINE_FILTERS:-}" ] && read -r -a FILTERS <<<"$HRR_ENGINE_FILTERS"

say() { printf 'engine-matrix: %s\n' "$*" >&2; }
[ "$(id -u)" = 0 ] || { say "run as root (engines are started in containers)"; exit 1; }

answers /var/run/docker.sock || { say "no dockerd on /var/run/docker.sock: run tests/setup.sh"; exit 1; }

suites=()
for e in "${ENGINES[@]}"; do suites+=("${e#*@}"); done
bash tests/setup-engines.sh $(printf '%s\n' "${suites[@]}" | sort -u)
bash tests/setup-fake-gpus.sh >/dev/null
mkdir -p "$RUN"

version_of() {
	curl -s --unix-socket "$1" http://d/version | sed -n 's/^.*"Version":"\([^"]*\)","ApiVersion":"\([^"]*\)".*$/\1 (API \2)/p;' | head -1
}

# check ENGINE@SUITE: one engine from start to removal; its summary lines
# on stdout, its full log in $RUN/<engine>-<suite>/suites.log.
check_one() {
	local engine=${1%@*} suite=${1#*@} sock rc=0 f log t0=$SECONDS
	local name=hrr-engine-$TAG-$engine-$suite dir=$RUN/$engine-$suite
	if [ -s "$STATE/engines/$suite.skipped" ]; then
		echo "[$1] SKIPPED: $(cat "$STATE/engines/$suite.skipped")"
		return 0
	fi
	sock=$(start_engine "$engine" "$suite") || { echo "[$1] FAILED: engine did not start"; return 1; }
	load_images "$sock" || { echo "[$1] FAILED: test images not loaded"; docker rm -f "$name" >/dev/null; return 1; }
	echo "[$1] $engine $(version_of "$sock") on hrr-engine-root:$suite"
	log=$dir/suites.log
	: >"$log"
	for f in "${FILTERS[@]}"; do
		local frc=0 verbose=()
		# the cdi suite logs the container's devices: shown below
		[ "$f" = 'cdi/*' ] && verbose=(--verbose)
		env DOCKER_HOST="unix://$sock" HRR_BIN="$BIN" HRR_IMAGE_TAG="$TAG" HRR_CDI_TEST_DIR="$STATE/engines/$engine-$suite.cdi" \
			"$INTEGRATION" --jobs 1 --filter "$f" "${verbose[@]}" >>"$log" 2>&1 || frc=$?
		[ $frc = 0 ] || { echo "[FAIL] $f: the test binary exited $frc" >>"$log"; rc=1; }
	done
	if [ "$(leftovers "$sock")" != 0 ]; then
		echo "[$1] $(leftovers "$sock") test container(s) left behind"
		rc=1
	fi
	grep -E '^\[(FAIL|----)\]' "$log" | grep -v '^\[----\] *$' | sed "s/^/[$1] /" || true
	awk -v n="$1" '/Synthesis/ { t += $4; p += $6; f += $8; c += $10 }
		END { printf "[%s] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: %d\n", n, t, p, f, c }' \
		FS='[ |]+' "$log"
	echo "[$1] SKIPPED here: ${PULL_FILTERS[*]} (no registry reachable from --network none); $((SECONDS - t0))s"
	docker rm -f "$name" >/dev/null
	return $rc
}

t0=$SECONDS
rc=0
running=()
for e in "${ENGINES[@]}"; do
	check_one "$e" &
	running+=($!)
	if [ ${#running[@]} -ge "$JOBS" ]; then
		wait "${running[0]}" || rc=1
		running=("${running[@]:1}")
	fi
done
for p in "${running[@]}"; do wait "$p" || rc=1; done
ip link show docker0 >/dev/null 2>&1 || { say "the host's docker0 is gone"; rc=1; }
say "done in $((SECONDS - t0))s"
exit $rc
