#!/usr/bin/env bash
# bench-perf: what `--perf 5` costs over the replays it is made of
# (docs/perf.md "Samples"), then what `--perf-adaptive 15` adds to it in a
# sweep (docs/perf.md "More samples when unclear"; tests/bench/perf_sweep.sh).
# One `run --perf 5` of the pass scenario (a
# replay with --sync-after-launch, then 5 timing replays) against 6 plain
# `run`s of it one after the other, median of K rounds, the two in
# alternating order. The only extra work --perf should do is the samples'
# bookkeeping: target <= 1.05x. The wall time is mostly the engine's
# (create, start, exit, remove: 6 containers either way) and moves with
# the machine's load, so the tool's own CPU time (user + system, from
# timeit) is printed beside it: that ratio is the bookkeeping's, whatever
# else the machine is doing. Exit 0 whatever the figures.
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

bench_init bench-perf
bench_banner "run --perf 5 vs 6 plain replays of the pass scenario, median of $RUNS"
WD=$BENCH_TMP/wd
declare -a T_PERF=() T_PLAIN=() C_PERF=() C_PLAIN=()
FAIL_PERF=0 FAIL_PLAIN=0

# cpu_of FILE: the user + system seconds of the timeit lines in FILE.
cpu_of() { awk '{ s += $4 + $5 } END { printf "%.3f\n", s }' "$1"; }

perf_once() {
	: >"$BENCH_TMP/cpu"
	"$TIMEIT" -o "$BENCH_TMP/cpu" -- "$BIN" run --image "$IMAGE" --sysfs-root "$SYSFS" \
		--device-root "$DEV" -q --archive "$PASS_ARCHIVE" --workdir "$WD" --format json --perf 5 \
		>"$BENCH_TMP/perf.out" 2>"$BENCH_TMP/perf.err" &&
		[ "$(jq '.perf.samples | length' "$BENCH_TMP/perf.out")" = 5 ]
}
plain_once() {
	local i

	: >"$BENCH_TMP/cpu"
	for i in 1 2 3 4 5 6; do
		"$TIMEIT" -o "$BENCH_TMP/cpu" -- "$BIN" run --image "$IMAGE" --sysfs-root "$SYSFS" \
			--device-root "$DEV" -q --archive "$PASS_ARCHIVE" --workdir "$WD" --format json \
			>"$BENCH_TMP/plain.out" 2>"$BENCH_TMP/plain.err" || return 1
	done
}

# Warm: the preflight cache, the image.
perf_once || bench_die "run --perf 5 failed: $(tail -3 "$BENCH_TMP/perf.err")"
plain_once || bench_die "the plain replay failed: $(tail -3 "$BENCH_TMP/plain.err")"

for ((i = 0; i < RUNS; i++)); do
	if ((i % 2)); then order="plain perf"; else order="perf plain"; fi
	for w in $order; do
		s=$(now)
		if "${w}_once"; then
			t=$(elapsed "$s" "$(now)")
			c=$(cpu_of "$BENCH_TMP/cpu")
			if [ "$w" = perf ]; then
				T_PERF+=("$t") C_PERF+=("$c")
			else
				T_PLAIN+=("$t") C_PLAIN+=("$c")
			fi
			printf '  run %d/%d: %s %s s (tool CPU %s s)\n' $((i + 1)) "$RUNS" "$w" "$t" "$c" >&2
		elif [ "$w" = perf ]; then
			FAIL_PERF=$((FAIL_PERF + 1))
		else
			FAIL_PLAIN=$((FAIL_PLAIN + 1))
		fi
	done
done

read -r PM PMIN PMAX < <(printf '%s\n' "${T_PERF[@]}" | stats)
read -r LM LMIN LMAX < <(printf '%s\n' "${T_PLAIN[@]}" | stats)
read -r PC _ _ < <(printf '%s\n' "${C_PERF[@]}" | stats)
read -r LC _ _ < <(printf '%s\n' "${C_PLAIN[@]}" | stats)
R=$(ratio "$PM" "$LM")
RC=$(ratio "$PC" "$LC")
if le "$R" 1.05; then VERDICT="met"; else VERDICT="MISSED"; fi
if le "$RC" 1.05; then VERDICT_CPU="met"; else VERDICT_CPU="MISSED"; fi
printf '\n%-34s %9s %9s %9s %10s %6s\n' "bench-perf (K=$RUNS)" "median s" "min s" "max s" "tool CPU s" "fails"
printf '%-34s %9s %9s %9s %10s %6s\n' "run --perf 5 (1 + 5 replays)" "$PM" "$PMIN" "$PMAX" "$PC" "$FAIL_PERF"
printf '%-34s %9s %9s %9s %10s %6s\n' "6 x run (plain)" "$LM" "$LMIN" "$LMAX" "$LC" "$FAIL_PLAIN"
printf 'target --perf 5 <= 1.05x 6 plain replays: wall %s (%sx), tool CPU %s (%sx)\n' \
	"$VERDICT" "$R" "$VERDICT_CPU" "$RC"
# shellcheck source=tests/bench/perf_sweep.sh
source "$(dirname "$0")/perf_sweep.sh"
exit 0
