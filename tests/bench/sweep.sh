#!/usr/bin/env bash
# bench-sweep: a sweep on 4 fake GPUs, side by side in one run:
#   * makespan: 64 replays of about 2 s each (the simulator sleeps) against
#     the ideal 64 x one replay's time / 4. Target <= 1.1.
#   * throughput: 64 short PASS replays as one sweep against the way users
#     do it today, `xargs -P4` over single runs. Target <= 0.8.
#   * memory: the sweep process's peak RSS at 64 and 256 cases (flat).
#   * longest first: 200 cases whose replay lengths follow a heavy tail
#     (the simulator's slow scenario, its length in the archive), a 30 s
#     one planned last, swept twice on 4 GPUs with one history: each
#     night's makespan against its lower bound max(total duration / 4,
#     longest case), from the durations it recorded. The first night knows
#     nothing and runs in plan order (today's order); the second starts the
#     longest first. Target <= 1.10 for the second.
# Measures, does not gate: exit 0 whatever the figures.
# Environment: BENCH_SWEEP_LONG (cases of the makespan run, default 64),
# BENCH_SWEEP_BIG (cases of the second RSS point, default 256),
# BENCH_SWEEP_TAIL (cases of the heavy-tailed nights, default 200).
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

bench_init bench-sweep
LONG=${BENCH_SWEEP_LONG:-64}
BIG=${BENCH_SWEEP_BIG:-256}
TAIL=${BENCH_SWEEP_TAIL:-200}
bench_banner "sweeps on 4 fake GPUs: makespan, sweep vs xargs -P4, peak RSS"
for m in 129 130 131; do # tests/fixtures/sysfs/mi300x-4: render minors 128..131
	mknod "$DEV/dri/renderD$m" c 226 "$m" 2>/dev/null || bench_skip "cannot mknod fake GPU nodes"
done
SYSFS4=$BENCH_ROOT/tests/fixtures/sysfs/mi300x-4
export HRR_LOCK_DIR=$BENCH_TMP/locks

# library DIR N [SCENARIO]: N copies of the pass capture.
library() {
	local dir=$1 n=$2 scenario=${3:-} i

	for ((i = 0; i < n; i++)); do
		mkdir -p "$dir/c$i"
		cp -r "$PASS_ARCHIVE" "$dir/c$i/"
		[ -z "$scenario" ] || printf '%b' "$scenario" >"$dir/c$i/capture.hrr/pid-4242/sim-scenario"
	done
}

# sweep NAME LIBRARY: one timed sweep; prints "wall rss status".
sweep() {
	local name=$1 lib=$2

	"$TIMEIT" -o "$BENCH_TMP/$name.time" -- "$BIN" sweep --image "$IMAGE" --archive "$lib" \
		--label "bench-$name" --workdir "$BENCH_TMP/wd-$name" --db "$BENCH_TMP/h.sqlite" \
		--sysfs-root "$SYSFS4" --device-root "$DEV" -q >"$BENCH_TMP/$name.out" 2>"$BENCH_TMP/$name.err" || true
	awk '{ print $1, $2, $3 }' "$BENCH_TMP/$name.time"
}

one_run() {
	local lib=$1 s

	s=$(now)
	"$BIN" run --image "$IMAGE" --archive "$lib/c0/capture.hrr" --workdir "$BENCH_TMP/wd-one" \
		--sysfs-root "$SYSFS4" --device-root "$DEV" -q >/dev/null 2>&1 || bench_die "a single run failed"
	elapsed "$s" "$(now)"
}

# 1. makespan of long replays
library "$BENCH_TMP/long" "$LONG" 'scenario=slow\nseconds=2\ninterval=0.5\n'
one_run "$BENCH_TMP/long" >/dev/null # warm the preflight cache
ONE_LONG=$(one_run "$BENCH_TMP/long")
read -r W_LONG RSS_LONG ST_LONG < <(sweep long "$BENCH_TMP/long")
IDEAL=$(awk -v n="$LONG" -v t="$ONE_LONG" 'BEGIN { printf "%.3f", n * t / 4 }')
printf 'makespan: %d replays of %.2f s on 4 GPUs: %.2f s, ideal %.2f s: ratio %s (target <= 1.1; exit %s)\n' \
	"$LONG" "$ONE_LONG" "$W_LONG" "$IDEAL" "$(ratio "$W_LONG" "$IDEAL")" "$ST_LONG"

# 2. short replays: one sweep vs xargs -P4 over single runs
library "$BENCH_TMP/short" 64
read -r W_SHORT RSS_SHORT ST_SHORT < <(sweep short "$BENCH_TMP/short")
S=$(now)
ls -d "$BENCH_TMP"/short/c*/capture.hrr | xargs -P4 -I{} "$BIN" run --image "$IMAGE" --archive {} \
	--workdir "$BENCH_TMP/wd-xargs" --sysfs-root "$SYSFS4" --device-root "$DEV" -q \
	>/dev/null 2>"$BENCH_TMP/xargs.err" || bench_say "bench: some xargs runs failed"
W_XARGS=$(elapsed "$S" "$(now)")
printf 'throughput: 64 short replays: sweep %.2f s, xargs -P4 %.2f s: ratio %s (target <= 0.8; exit %s)\n' \
	"$W_SHORT" "$W_XARGS" "$(ratio "$W_SHORT" "$W_XARGS")" "$ST_SHORT"

# 3. peak RSS at 64 and BIG cases
library "$BENCH_TMP/big" "$BIG"
read -r W_BIG RSS_BIG ST_BIG < <(sweep big "$BENCH_TMP/big")
printf 'memory: sweep peak RSS %s KiB at 64 cases, %s KiB at %d cases (%.1f s, exit %s): ratio %s (target: flat)\n' \
	"$RSS_SHORT" "$RSS_BIG" "$BIG" "$W_BIG" "$ST_BIG" "$(ratio "$RSS_BIG" "$RSS_SHORT")"

# 4. longest first: a heavy-tailed night, then the same night again.
# Pareto lengths (x_m 0.2 s, alpha 1.1) from a fixed seed, the longest
# made 30 s (the 30-minute capture of a real night, scaled) and planned
# last (names sort in plan order).
awk -v n="$TAIL" 'BEGIN {
	srand(32); m = 0
	for (i = 0; i < n; i++) { d[i] = 0.2 / (1 - rand()) ^ (1 / 1.1); if (d[i] > 30) d[i] = 30; if (d[i] > d[m]) m = i }
	t = d[m]; d[m] = d[n - 1]; d[n - 1] = 30
	for (i = 0; i < n; i++) printf "%03d %.3f\n", i, d[i]
}' >"$BENCH_TMP/tail.lengths"
while read -r i secs; do
	mkdir -p "$BENCH_TMP/tail/c$i"
	cp -r "$PASS_ARCHIVE" "$BENCH_TMP/tail/c$i/"
	printf 'scenario=slow\nseconds=%s\ninterval=0.5\n' "$secs" >"$BENCH_TMP/tail/c$i/capture.hrr/pid-4242/sim-scenario"
done <"$BENCH_TMP/tail.lengths"

# bound NAME: "bound" of the night's recorded durations (final attempts).
bound() {
	jq -rs 'group_by(.case) | map(max_by(.attempt).duration_s) | [(add / 4), max] | max' \
		"$BENCH_TMP"/wd-"$1"/sweeps/*/results.jsonl
}
read -r W_T1 _ ST_T1 < <(sweep tail1 "$BENCH_TMP/tail")
# The second night: its own folder, the first night's history.
read -r W_T2 _ ST_T2 < <(sweep tail2 "$BENCH_TMP/tail")
B1=$(bound tail1)
B2=$(bound tail2)
printf 'longest first: %d heavy-tailed cases on 4 GPUs: second night %.2f s, bound %.2f s: ratio %s (target <= 1.10; exit %s); first night (plan order) %.2f s, bound %.2f s: ratio %s (exit %s)\n' \
	"$TAIL" "$W_T2" "$B2" "$(ratio "$W_T2" "$B2")" "$ST_T2" "$W_T1" "$B1" "$(ratio "$W_T1" "$B1")" "$ST_T1"
