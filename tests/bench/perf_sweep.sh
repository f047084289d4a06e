# shellcheck shell=bash
# bench-perf's second part (sourced by tests/bench/perf.sh, after its
# bench_init): the time cost of a sweep's GPU-time samples, side by side in
# one run, rounds in rotating order. A library of 6 pass cases (40 ms of GPU
# time, 2% jitter), half of them in perf group "hot"; a first night with
# `--perf 5` on a nightly tag; then the tag moves to an image whose hot
# group is 5% slower (beyond the 3% threshold: a change to confirm) and
# each round sweeps it three ways against that night (--baseline):
#   * plain: no samples (6 replays);
#   * --perf 5 (6 x (1 + 5) replays);
#   * --perf 5 --perf-adaptive 15 (the hot cases confirmed at 15 samples),
# with the replays the looks added (the results lines' perf.adaptive).
# Wall time against the plain sweep's; the tool's CPU time beside it.
# Environment: BENCH_PERF_SWEEP_RUNS (rounds, default 3).

PS_RUNS=${BENCH_PERF_SWEEP_RUNS:-3}
PS_LIB=$BENCH_TMP/perf-lib
PS_TAG="hrr-sim-bench-nightly:$$"
PS_SLOW="hrr-sim-bench-slow:$$"
export HRR_LOCK_DIR=$BENCH_TMP/locks

ps_cleanup() {
	docker rmi -f "$PS_TAG" "$PS_SLOW" >/dev/null 2>&1 || true
	bench_cleanup
}
trap ps_cleanup EXIT

for ((i = 0; i < 6; i++)); do
	mkdir -p "$PS_LIB/c$i"
	cp -r "$PASS_ARCHIVE" "$PS_LIB/c$i/"
	if ((i % 2)); then grp=cold; else grp=hot; fi
	printf 'scenario=pass\ngpu_ms=40\nperf_group=%s\n' "$grp" \
		>"$PS_LIB/c$i/capture.hrr/pid-4242/sim-scenario"
done
printf 'FROM %s\nRUN mkdir -p /etc/hrr-sim && echo "1.05 hot" >/etc/hrr-sim/slowdown\n' "$IMAGE" |
	DOCKER_BUILDKIT=0 docker build -q -t "$PS_SLOW" - >/dev/null 2>&1 ||
	bench_die "cannot build the slower image"

# ps_sweep NAME ARGS...: one sweep of the library at the nightly tag; its
# summary.json in $BENCH_TMP/NAME.json, the timeit line in $BENCH_TMP/cpu.
ps_sweep() {
	local name=$1

	shift
	: >"$BENCH_TMP/cpu"
	"$TIMEIT" -o "$BENCH_TMP/cpu" -- "$BIN" sweep --image "$PS_TAG" --archive "$PS_LIB" \
		--label bench-perf --workdir "$BENCH_TMP/wd-sweep" --db "$BENCH_TMP/h.sqlite" \
		--sysfs-root "$SYSFS" --device-root "$DEV" --env HRR_SIM_JITTER=0.02 -q \
		--format json "$@" >"$BENCH_TMP/$name.json" 2>"$BENCH_TMP/$name.err"
}

# The samples the looks added in the sweep of NAME.
ps_added() {
	local id

	id=$(jq -r .sweep "$BENCH_TMP/$1.json")
	jq -s '[.[] | .perf.adaptive // 0] | add // 0' "$BENCH_TMP/wd-sweep/sweeps/$id/results.jsonl"
}

docker tag "$IMAGE" "$PS_TAG"
ps_sweep night1 --perf 5 || bench_die "the first night failed: $(tail -3 "$BENCH_TMP/night1.err")"
PS_BASE=$(jq -r .sweep "$BENCH_TMP/night1.json")
docker tag "$PS_SLOW" "$PS_TAG"

declare -A PS_T=() PS_C=() PS_FAIL=()
PS_ADDED=()
declare -A PS_ARGS=([plain]="" [perf]="--perf 5" [adaptive]="--perf 5 --perf-adaptive 15") PS_M=()
PS_WAYS=(plain perf adaptive)
for ((i = 0; i < PS_RUNS; i++)); do
	for ((k = 0; k < 3; k++)); do
		w=${PS_WAYS[$(((i + k) % 3))]}
		s=$(now)
		# shellcheck disable=SC2086 # the ways' arguments are words
		if ps_sweep "$w" --baseline "$PS_BASE" ${PS_ARGS[$w]}; then
			t=$(elapsed "$s" "$(now)")
			c=$(cpu_of "$BENCH_TMP/cpu")
			PS_T[$w]+="$t "
			PS_C[$w]+="$c "
			[ "$w" = adaptive ] && PS_ADDED+=("$(ps_added adaptive)")
			printf '  sweep %d/%d: %s %s s (tool CPU %s s)\n' $((i + 1)) "$PS_RUNS" "$w" "$t" "$c" >&2
		else
			PS_FAIL[$w]=$((${PS_FAIL[$w]:-0} + 1))
		fi
	done
done

# A list of times, one a line.
ps_lines() { tr ' ' '\n' <<<"$1" | grep -v '^$' || true; }

read -r PS_PLAIN _ _ < <(ps_lines "${PS_T[plain]:-}" | stats)
printf '\n%-40s %9s %9s %9s %10s %7s %6s\n' "sweep of 6 cases (rounds=$PS_RUNS)" "median s" "min s" \
	"max s" "tool CPU s" "x plain" "fails"
for w in plain perf adaptive; do
	read -r m mn mx < <(ps_lines "${PS_T[$w]:-}" | stats)
	read -r c _ _ < <(ps_lines "${PS_C[$w]:-}" | stats)
	printf '%-40s %9s %9s %9s %10s %7s %6s\n' "sweep ${PS_ARGS[$w]:-(plain)}" "$m" "$mn" "$mx" \
		"$c" "$(ratio "$m" "$PS_PLAIN")" "${PS_FAIL[$w]:-0}"
	PS_M[$w]=$m
done
printf 'replays per sweep: plain 6, --perf 5 36, --perf-adaptive 15 36 + added (%s per round)\n' \
	"${PS_ADDED[*]:-none}"
printf -- '--perf 5 vs plain: %sx wall; --perf 5 --perf-adaptive 15 vs plain: %sx, vs --perf 5: %sx\n' \
	"$(ratio "${PS_M[perf]}" "$PS_PLAIN")" "$(ratio "${PS_M[adaptive]}" "$PS_PLAIN")" \
	"$(ratio "${PS_M[adaptive]}" "${PS_M[perf]}")"
