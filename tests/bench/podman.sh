#!/usr/bin/env bash
# bench-podman: the no-op replay (the pass scenario, preflight cache warm)
# on Podman's Docker-compatible API, root and rootless, side by side with
# `podman run --rm` of the same container: the flags mirror the tool's spec
# (run.json), plus the nofile/nproc limits the tool adds on Podman
# (docs/engines.md). Alternating order, median of K runs; the rootless half
# runs both as the test user (tests/setup-podman.sh) on the shared fake GPU
# nodes. Exit 0 whatever the figures.
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

# HRR_BENCH_PODMAN_ROOT_SOCK: another root service (its pid in hrr-service.pid beside it)
ROOT_SOCK=${HRR_BENCH_PODMAN_ROOT_SOCK:-/run/podman/podman.sock}
PUSER=${HRR_PODMAN_USER:-hrrpod}
STATE=${HRR_TEST_STATE:-/var/lib/hrr-docker-replay-test}
FAKE_GPU=${HRR_FAKE_GPU_ROOT:-$STATE/fake-gpu/dev}

bench_init bench-podman
bench_need podman podman
bench_banner "no-op replay on Podman vs podman run --rm, same flags, median of $RUNS"
chmod 755 "$BENCH_TMP"
answers() { curl -sf --max-time 5 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1; }
id "$PUSER" >/dev/null 2>&1 || bench_skip "no rootless test user $PUSER (tests/setup-podman.sh)"
PUID=$(id -u "$PUSER")
USER_SOCK=/run/user/$PUID/podman/podman.sock
declare -A FAILS=()
answers "$ROOT_SOCK" || FAILS[root]=setup
answers "$USER_SOCK" || FAILS[rootless]=setup
[ "${FAILS[root]:-}${FAILS[rootless]:-}" != setupsetup ] || bench_say "bench: no Podman service on $ROOT_SOCK nor $USER_SOCK (tests/setup-podman.sh): only the engine matrix's Podmans"
PODMAN_VERSION=$(podman version --format '{{.Client.Version}}' 2>/dev/null || echo '?')

# The test set-up's root configuration, so that the CLI runs containers as
# the service does (cgroupfs, crun, file events).
ROOT_CONF=$STATE/podman/root
as_root() {
	env CONTAINERS_CONF="$ROOT_CONF/containers.conf" \
	    CONTAINERS_REGISTRIES_CONF="$ROOT_CONF/registries.conf" "$@"
}
as_user() {
	(cd / && runuser -u "$PUSER" -- env HOME="$(getent passwd "$PUSER" | cut -d: -f6)" \
		XDG_RUNTIME_DIR=/run/user/$PUID "$@")
}

# "nofile=S:H nproc=S:H" as the tool sends them: the caller's limits, at
# most the service's hard ones (the tool asks the listening process; here
# the set-up's pid file names it).
limits_sent() {
	local pidfile=$1 runner=$2 mine bn=0 bp=0
	mine=$($runner bash -c 'echo $(ulimit -Sn) $(ulimit -Hn) $(ulimit -Su) $(ulimit -Hu)')
	if [ -r "$pidfile" ] && [ -r "/proc/$(cat "$pidfile")/limits" ]; then
		bn=$(awk '/^Max open files/ {print $5}' "/proc/$(cat "$pidfile")/limits")
		bp=$(awk '/^Max processes/ {print $4}' "/proc/$(cat "$pidfile")/limits")
	fi
	awk -v m="$mine" -v bn="$bn" -v bp="$bp" 'function lim(v) { return v == "unlimited" ? 0 : v + 0 }
		function cap(soft, hard, bound,   h, s) {
			h = lim(hard); s = lim(soft)
			if (bound != "unlimited" && lim(bound) > 0 && (h == 0 || h > lim(bound))) h = lim(bound)
			if (s == 0 || s > h) s = h
			return s ":" h
		}
		BEGIN { split(m, a, " "); printf "nofile=%s nproc=%s", cap(a[1], a[2], bn), cap(a[3], a[4], bp) }'
}

declare -A MED=() RAT=()

# bench_mode NAME SOCK RUNNER DEVROOT SYSFS PIDFILE [CLI_RUNNER]: the tool
# as RUNNER, `podman run` as CLI_RUNNER (default RUNNER).
bench_mode() {
	local name=$1 sock=$2 runner=$3 devroot=$4 sysfs=$5 pidfile=$6 cli_runner=${7:-$3}
	local wd out i w s rd l
	local -a t_tool=() t_cli=() cli=()
	wd=$BENCH_TMP/wd-$name
	out=$BENCH_TMP/$name
	mkdir -p "$wd" "$out"
	[ "$name" = rootless ] && chown "$PUSER:" "$wd" "$out"
	tool() {
		$runner env DOCKER_HOST="unix://$sock" "$BIN" run --image "$IMAGE" --archive "$PASS_ARCHIVE" \
			--workdir "$wd" --device-root "$devroot" --sysfs-root "$sysfs" -q --format json \
			>"$out/tool.out" 2>"$out/tool.err"
	}
	podman_run() {
		$cli_runner podman run --rm --name "hrr-bench-$$-$name" "${cli[@]}" >"$out/cli.out" 2>&1
	}
	tool || { bench_say "bench: $name: the pass replay failed: $(tail -2 "$out/tool.err")"; FAILS[$name]=setup; return 0; }
	tool || { FAILS[$name]=setup; return 0; }
	rd=$(newest_run_dir "$wd")
	bench_spec "$rd/run.json" >"$out/spec.json"
	mapfile -d '' cli < <(spec_to_cli "$out/spec.json")
	# Podman 5's CLI takes a seccomp profile by path only ("file name too
	# long"): the same profile, from a file, as the tool sends it to Podman.
	for i in "${!cli[@]}"; do
		if [ "${cli[$i]#seccomp=\{}" != "${cli[$i]}" ]; then
			printf '%s' "${cli[$i]#seccomp=}" >"$out/seccomp.json"
			chmod 644 "$out/seccomp.json"
			cli[$i]=seccomp=$out/seccomp.json
		fi
	done
	for l in $(limits_sent "$pidfile" "$runner"); do cli=(--ulimit "$l" "${cli[@]}"); done
	printf '%s: podman run --rm --name hrr-bench-%s-%s' "$name" "$$" "$name"
	printf ' %q' "${cli[@]}"
	printf '\n'
	podman_run || { bench_say "bench: $name: podman run failed: $(tail -3 "$out/cli.out")"; FAILS[$name]=setup; return 0; }
	FAILS[$name]=0
	for ((i = 0; i < RUNS; i++)); do
		for w in $( ((i % 2)) && echo "cli tool" || echo "tool cli"); do
			s=$(now)
			if [ "$w" = tool ]; then
				if tool; then t_tool+=("$(elapsed "$s" "$(now)")"); else FAILS[$name]=$((FAILS[$name] + 1)); fi
			else
				if podman_run; then t_cli+=("$(elapsed "$s" "$(now)")"); else FAILS[$name]=$((FAILS[$name] + 1)); fi
			fi
		done
	done
	read -r MED[$name-tool] _ < <(printf '%s\n' "${t_tool[@]}" | stats)
	read -r MED[$name-cli] _ < <(printf '%s\n' "${t_cli[@]}" | stats)
	RAT[$name]=$(ratio "${MED[$name-tool]}" "${MED[$name-cli]}")
}

podman_cleanup() {
	local l="label=hrr-bench.owner=$BENCH_OWNER"
	as_root podman rm -f --filter "$l" >/dev/null 2>&1 || true
	as_user podman rm -f --filter "$l" >/dev/null 2>&1 || true
	bench_cleanup
}
trap podman_cleanup EXIT

[ "${FAILS[root]:-}" = setup ] || bench_mode root "$ROOT_SOCK" as_root "$DEV" "$SYSFS" "${ROOT_SOCK%/*}/hrr-service.pid"
[ "${FAILS[rootless]:-}" = setup ] || bench_mode rootless "$USER_SOCK" as_user "$FAKE_GPU" \
	"$BENCH_ROOT/tests/fixtures/sysfs/mi300x-4" "/run/user/$PUID/podman/hrr-service.pid"

# The newer Podmans of the engine matrix (tests/engine-matrix.sh), where
# their roots are cached: the service in its container, the tool on the
# host over its socket, `podman run` inside the container's namespaces
# (nsenter: no `docker exec` in the measured time).
MODES=(root rootless)
SRC=$BENCH_ROOT
TAG=${HRR_IMAGE_TAG:-dev}
RUN=/tmp/hrr-engines-bench-$$
say() { bench_say "bench: $*"; }
# shellcheck source=tests/engine-lib.sh
source "$BENCH_ROOT/tests/engine-lib.sh"
nested_cli() {
	nsenter -t "$NESTED_PID" -m -u -i -n -p -C -- \
		env PODMAN_IGNORE_CGROUPSV1_WARNING=1 PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
for suite in ${HRR_BENCH_PODMAN_SUITES:-trixie sid}; do
	docker image inspect "hrr-engine-root:$suite" >/dev/null 2>&1 || continue
	mkdir -p "$RUN"
	if ! sock=$(start_engine podman "$suite") || ! load_images "$sock"; then
		bench_say "bench: podman@$suite did not start; not measured"
		continue
	fi
	NESTED_PID=$(docker inspect -f '{{.State.Pid}}' "$(engine_container podman "$suite")")
	echo "$NESTED_PID" >"$RUN/podman-$suite.pid"
	v=$(nested_cli podman version --format '{{.Client.Version}}' 2>/dev/null || echo "$suite")
	bench_mode "podman-$v" "$sock" env "$FAKE_GPU" "$BENCH_ROOT/tests/fixtures/sysfs/mi300x-4" \
		"$RUN/podman-$suite.pid" nested_cli
	MODES+=("podman-$v")
	docker rm -f "$(engine_container podman "$suite")" >/dev/null 2>&1 || true
	rm -rf "$RUN"
done

printf '\n%-14s %14s %18s %9s %6s\n' "bench-podman" "tool median s" "podman run median s" "tool/run" "fails"
for m in "${MODES[@]}"; do
	if [ "${FAILS[$m]}" = setup ]; then
		printf '%-14s %s\n' "$m" "not measured (see above)"
		continue
	fi
	printf '%-14s %14s %18s %9s %6s\n' "$m" "${MED[$m-tool]}" "${MED[$m-cli]}" "${RAT[$m]}" "${FAILS[$m]}"
done
printf 'podman %s; the tool talks to the service, `podman run` is the CLI on its own\n' "$PODMAN_VERSION"
exit 0
