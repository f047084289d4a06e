#!/usr/bin/env bash
# bench-sweep: a sweep on 4 fake GPUs, side by side in one run:
#   * makespan: 64 replays of about 2 s each (the simulator sleeps) against
#     the ideal 64 x one replay's time / 4. Target <= 1.1.
#   * throughput: 64 short PASS replays as one sweep against the way users
#     do it today, `xargs -P4` over single runs. Target <= 0.8.
#   * memory: the sweep process's peak RSS at 64 and 256 cases (flat).
# Measures, does not gate: exit 0 whatever the figures.
# Environment: BENCH_SWEEP_LONG (cases of the makespan run, default 64),
# BENCH_SWEEP_BIG (cases of the second RSS point, default 256).
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

bench_init bench-sweep
LONG=${BENCH_SWEEP_LONG:-64}
BIG=${BENCH_SWEEP_BIG:-256}
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
