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
FILTERS=("${ENGINE_FILTERS[@]}" 'cdi/*')
[ -n "${HRR_ENGINE_FILTERS:-}" ] && read -r -a FILTERS <<<"$HRR_ENGINE_FILTERS"

say() { printf 'engine-matrix: %s\n' "$*" >&2; }
[ "$(id -u)" = 0 ] || { say "run as root (engines are started in containers)"; exit 1; }
answers() { curl -sf --max-time 5 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1; }
answers /var/run/docker.sock || { say "no dockerd on /var/run/docker.sock: run tests/setup.sh"; exit 1; }

suites=()
for e in "${ENGINES[@]}"; do suites+=("${e#*@}"); done
bash tests/setup-engines.sh $(printf '%s\n' "${suites[@]}" | sort -u)
bash tests/setup-fake-gpus.sh >/dev/null
mkdir -p "$RUN"

# Every capability of the host's bounding set that the host's dockerd can
# name (20.10 knows neither BPF, PERFMON nor CHECKPOINT_RESTORE).
caps() {
	local bnd c
	bnd=$(awk '/^CapBnd/ { print $2 }' /proc/self/status)
	for c in $(capsh --decode="$bnd" | cut -d= -f2 | tr ',' ' '); do
		c=${c#cap_}
		case $c in bpf | perfmon | checkpoint_restore) continue ;; esac
		printf -- '--cap-add=%s ' "${c^^}"
	done
}

# The engine's command inside its container: its configuration from the
# container's own limits (no CAP_SYS_RESOURCE: Podman's default nofile of
# 1048576 cannot be set; /proc/sys is read-only, so not Podman 5.4's
# default sysctl net.ipv4.ping_group_range either), then the service on $sock, its log beside it.
engine_cmd() {
	local engine=$1 dir=$2
	case $engine in
	docker)
		echo "containerd >$dir/containerd.log 2>&1 &
			exec dockerd -H unix://$dir/docker.sock --containerd /run/containerd/containerd.sock \
				--exec-root /run/docker-nested >$dir/engine.log 2>&1"
		;;
	podman)
		echo "mkdir -p /etc/containers && cat >/etc/containers/containers.conf <<CONF
[engine]
cgroup_manager = \"cgroupfs\"
events_logger = \"file\"
runtime = \"crun\"
[containers]
default_sysctls = []
default_ulimits = [\"nofile=\$(ulimit -Hn):\$(ulimit -Hn)\", \"nproc=\$(ulimit -Hu):\$(ulimit -Hu)\"]
CONF
			PODMAN_IGNORE_CGROUPSV1_WARNING=1 exec podman system service --time=0 \
				unix://$dir/podman.sock >$dir/engine.log 2>&1"
		;;
	esac
}

# The home directories, read-only: Podman reads a seccomp profile from
# the caller's cache (~/.cache/hrr-docker-replay/seccomp) by its path.
homes() {
	local h
	for h in "$HOME" /home; do
		[ -d "$h" ] && printf -- '-v %s:%s:ro ' "$h" "$h"
	done
}

storage_of() { case $1 in docker) echo /var/lib/docker ;; podman) echo /var/lib/containers ;; esac; }

# start ENGINE SUITE: its container (a stale one of an earlier run removed
# first), then its socket answers; prints the socket.
start_engine() {
	local engine=$1 suite=$2 name=hrr-engine-$TAG-$1-$2 dir=$RUN/$1-$2
	local store=$STATE/engines/$1-$2.storage cdi=$STATE/engines/$1-$2.cdi
	docker rm -f "$name" >/dev/null 2>&1 || true
	rm -rf "$dir" "$cdi"
	mkdir -p "$dir" "$store" "$cdi"
	# shellcheck disable=SC2046
	docker run -d --name "$name" --network none --cap-drop ALL $(caps) \
		--security-opt seccomp=unconfined --security-opt apparmor=unconfined \
		--cgroupns=host -v /sys/fs/cgroup:/sys/fs/cgroup:rw --device-cgroup-rule 'a *:* rwm' \
		-v /tmp:/tmp -v "$STATE:$STATE" -v "$SRC:$SRC:ro" $(homes) \
		-v "$store:$(storage_of "$engine")" -v "$cdi:/etc/cdi" \
		"hrr-engine-root:$suite" bash -c "$(engine_cmd "$engine" "$dir")" >/dev/null
	local polls=300
	until answers "$dir/$engine.sock"; do
		polls=$((polls - 1))
		if [ $polls = 0 ] || [ "$(docker inspect -f '{{.State.Running}}' "$name")" != true ]; then
			say "$engine@$suite did not come up; its log:"
			tail -20 "$dir/engine.log" >&2 || true
			return 1
		fi
		sleep 0.2
	done
	echo "$dir/$engine.sock"
}

# load SOCK: the test images, from the host's dockerd, unless there with
# the same ID (the storage outlives the engine's container).
load_images() {
	local sock=$1 ref want have refs=()
	for ref in $(docker images --format '{{.Repository}}:{{.Tag}}' --filter "reference=hrr-*:$TAG"); do
		want=$(docker image inspect -f '{{.Id}}' "$ref")
		have=$(curl -s --unix-socket "$sock" "http://d/images/$ref/json" | sed -n 's/^{"Id":"\([^"]*\)".*/\1/p')
		[ "${have#sha256:}" = "${want#sha256:}" ] || refs+=("$ref")
	done
	[ ${#refs[@]} = 0 ] && return 0
	docker save "${refs[@]}" | curl -sf --unix-socket "$sock" -X POST -H 'Content-Type: application/x-tar' \
		--data-binary @- http://d/images/load >/dev/null
}

leftovers() {
	local sock=$1 l
	for l in hrr-docker-replay.run hrr-docker-replay.test hrr-docker-replay.probe; do
		curl -s --unix-socket "$sock" -G http://localhost/v1.41/containers/json \
			--data-urlencode all=1 --data-urlencode "filters={\"label\":[\"$l\"]}"
	done | { grep -o '"Id":"[0-9a-f]*"' || true; } | sort -u | wc -l
}

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
