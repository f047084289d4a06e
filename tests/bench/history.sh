#!/usr/bin/env bash
# bench-history: the history at the scale of a capture library, without an
# engine: bench_history writes each night's sweep folder (plan.json and
# results.jsonl, as a sweep leaves them) and imports it as a sweep's end
# does. Prints each figure next to its target (docs/sweep.md "The history
# site"):
#   * importing one night of CASES results: <= 5 s;
#   * `history` for one case and for one label: <= 100 ms each, with the
#     query plan (indexes, no full scan of results);
#   * `history site` whole: <= 30 s; after one more night: <= 10 s; the
#     site's bytes per case;
#   * the sweep parent's peak RSS at 64 and CASES planned cases whose
#     replays are no-ops (`sweep --merge` of a folder whose results are
#     all written): flat, at most 500 bytes per planned case;
#   * `history perf` for one case: <= 100 ms; what a sweep's report reads
#     of the nights before it (--perf-window 1 and 7), every case's samples;
#   * the database's size per result;
#   * the same on PostgreSQL as ratios to SQLite's (tests/bench/history-pg.sh).
# Measures, does not gate: exit 0 whatever the figures. Wall times on a
# loaded machine include waiting for a core: the CPU time is printed too.
# Environment: BENCH_HISTORY_CASES (default 10000), BENCH_HISTORY_NIGHTS
# (default 60), BENCH_HISTORY_PERF (GPU-time samples per passing case,
# default 5; 0: none).
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

BENCH_NAME=bench-history
CASES=${BENCH_HISTORY_CASES:-10000}
NIGHTS=${BENCH_HISTORY_NIGHTS:-60}
HELPER=${BENCH_HISTORY:-$BENCH_ROOT/build/bench/bench_history}
[ -x "$BIN" ] || bench_skip "$BIN not built (make all)"
[ -x "$TIMEIT" ] || bench_skip "$TIMEIT not built"
[ -x "$HELPER" ] || bench_skip "$HELPER not built (make $HELPER)"
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hrr-bench-history.XXXXXX")
trap 'rm -rf "$BENCH_TMP"' EXIT
trap 'exit 130' INT TERM
DB=$BENCH_TMP/history.sqlite
WD=$BENCH_TMP/wd
SITE=$BENCH_TMP/site
LABEL=nightly
# The workdirs exist, as the CLI makes them: a sweep folder goes in <workdir>/sweeps.
mkdir -p "$WD" "$BENCH_TMP/wd-mem"
printf '== %s: %d cases x %d nightly sweeps, no engine\n' "$BENCH_NAME" "$CASES" "$NIGHTS"
printf 'machine: %s cores, load %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"

# timed NAME CMD...: run under timeit; prints "wall rss status cpu".
timed() {
	local name=$1

	shift
	"$TIMEIT" -o "$BENCH_TMP/$name.time" -- "$@" >"$BENCH_TMP/$name.out" 2>"$BENCH_TMP/$name.err" || true
	awk '{ printf "%s %s %s %.3f\n", $1, $2, $3, $4 + $5 }' "$BENCH_TMP/$name.time"
}

# 1. sixty nights, each imported
for ((n = 0; n < NIGHTS; n++)); do
	"$HELPER" night "$DB" "$WD" "$LABEL" "$n" "$CASES" >>"$BENCH_TMP/import.times" ||
		bench_die "night $n failed"
done
read -r MED MIN MAX < <(awk '{ print $1 }' "$BENCH_TMP/import.times" | stats)
RESULTS=$(awk '{ s += $2 } END { print s }' "$BENCH_TMP/import.times")
printf 'import: one night of %d cases (~%d results lines): median %.3f s, worst %.3f s (target <= 5 s)\n' \
	"$CASES" "$((RESULTS / NIGHTS))" "$MED" "$MAX"

# 2. history for one case and one label (best of 3: the figure is the
#    query, not the machine's other load)
CASE=lib/fam-07/case-00047/capture.hrr/pid-4242
best() {
	local name=$1 i

	shift
	for i in 1 2 3; do timed "$name" "$@"; done | sort -g | head -1
}
read -r W_CASE _ ST_CASE C_CASE < <(best hcase "$BIN" history --db "$DB" --label "$LABEL" --case "$CASE")
read -r W_LABEL _ ST_LABEL C_LABEL < <(best hlabel "$BIN" history --db "$DB" --label "$LABEL")
read -r W_LAST1 _ _ _ < <(best hlast1 "$BIN" history --db "$DB" --label "$LABEL" --last 1)
printf 'history --case: %.0f ms (cpu %.0f ms; target <= 100 ms; exit %s)\n' \
	"$(awk -v w="$W_CASE" 'BEGIN { print w * 1000 }')" "$(awk -v w="$C_CASE" 'BEGIN { print w * 1000 }')" "$ST_CASE"
printf 'history --label (last 10 sweeps, %d rows): %.0f ms (cpu %.0f ms; target <= 100 ms; exit %s); --last 1: %.0f ms\n' \
	"$((CASES * 10))" "$(awk -v w="$W_LABEL" 'BEGIN { print w * 1000 }')" \
	"$(awk -v w="$C_LABEL" 'BEGIN { print w * 1000 }')" "$ST_LABEL" "$(awk -v w="$W_LAST1" 'BEGIN { print w * 1000 }')"
echo "query plan, one case:"
"$HELPER" plan "$DB" "$LABEL" "$CASE"
echo "query plan, one label:"
"$HELPER" plan "$DB" "$LABEL" -

# 2b. GPU time: one case's series, and the nights a sweep's report reads
read -r W_PERF _ ST_PERF C_PERF < <(best hperf "$BIN" history perf --db "$DB" --label "$LABEL" --case "$CASE")
printf 'history perf --case (last 10 sweeps): %.0f ms (cpu %.0f ms; target <= 100 ms; exit %s)\n' \
	"$(awk -v w="$W_PERF" 'BEGIN { print w * 1000 }')" "$(awk -v w="$C_PERF" 'BEGIN { print w * 1000 }')" "$ST_PERF"
for k in 1 7; do
	read -r T_N ROWS_N < <("$HELPER" nights "$DB" "$LABEL" "$k") || bench_die "nights $k failed"
	printf 'perf across nights, --perf-window %d: %d samples read in %.3f s (a sweep report of %d cases)\n' \
		"$k" "$ROWS_N" "$T_N" "$CASES"
done

# 3. the whole site, then after one more night, each the best of 3 runs
#    (the figure is the program, not the machine's other load: single
#    runs here vary by a third, most of it system time), each run after a
#    sync, so that the writes of the run before are not flushed during it.
# site_whole NAME DB DIR: the whole site written into an empty DIR.
site_whole() {
	local name=$1 db=$2 dir=$3 i

	for i in 1 2 3; do
		rm -rf "$dir"
		sync
		timed "$name" "$BIN" history site "$dir" --db "$db"
	done | sort -g | head -1
}
# site_again NAME DB DIR: DIR brought up to date, each run from a copy of
# DIR as it was (the copy is left in DIR.again).
site_again() {
	local name=$1 db=$2 dir=$3 i

	for i in 1 2 3; do
		rm -rf "$dir.again"
		cp -a "$dir" "$dir.again"
		sync
		timed "$name" "$BIN" history site "$dir.again" --db "$db"
	done | sort -g | head -1
}
read -r W_SITE RSS_SITE ST_SITE C_SITE < <(site_whole site "$DB" "$SITE")
printf 'site: whole, %s: %.2f s (cpu %.2f s, peak RSS %s KiB; target <= 30 s; exit %s)\n' \
	"$(sed 's/.*: //' "$BENCH_TMP/site.out")" "$W_SITE" "$C_SITE" "$RSS_SITE" "$ST_SITE"
# The sixty nights as they were, for the PostgreSQL part's runs in turn
# (tests/bench/history-pg.sh).
cp "$DB" "$BENCH_TMP/history-$NIGHTS.sqlite"
"$HELPER" night "$DB" "$WD" "$LABEL" "$NIGHTS" "$CASES" >/dev/null || bench_die "one more night failed"
read -r W_INC _ ST_INC C_INC < <(site_again site2 "$DB" "$SITE")
mv "$SITE" "$SITE.before"
mv "$SITE.again" "$SITE"
printf 'site: after one more night, %s: %.2f s (cpu %.2f s; target <= 10 s; exit %s)\n' \
	"$(sed 's/.*: //' "$BENCH_TMP/site2.out")" "$W_INC" "$C_INC" "$ST_INC"
SITE_BYTES=$(du -sb "$SITE" | cut -f1)
printf 'site: %s in %s files, %d bytes per case\n' "$(du -sh "$SITE" | cut -f1)" \
	"$(find "$SITE" -type f | wc -l)" "$((SITE_BYTES / CASES))"
# The night's figure in one line: wall and CPU seconds over the 10 s target
# (the CPU ratio is the machine's own share: wall also waits for a core and
# for the disk), and what the site weighs per case.
printf 'site: after one more night: %.2f s wall, %.2f s cpu, %d bytes per case: ratio to the 10 s target %s wall, %s cpu\n' \
	"$W_INC" "$C_INC" "$((SITE_BYTES / CASES))" "$(ratio "$W_INC" 10)" "$(ratio "$C_INC" 10)"

# 4. the database's size per result
ROWS=$(sqlite3 "$DB" 'SELECT COUNT(*) FROM results')
BYTES=$(($(stat -c %s "$DB") + $(stat -c %s "$DB-wal" 2>/dev/null || echo 0)))
printf 'database: %d results in %d MiB: %d bytes per result (with the planned cases and indexes)\n' \
	"$ROWS" "$((BYTES >> 20))" "$((BYTES / ROWS))"

# 5. the sweep parent's memory, 64 vs CASES planned no-op cases
for n in 64 "$CASES"; do
	F=$("$HELPER" folder "$BENCH_TMP/wd-mem" "mem$n" "$n")
	read -r W_M RSS_M ST_M _ < <(timed "merge$n" "$BIN" sweep --merge "$F" --workdir "$BENCH_TMP/wd-mem" \
		--db "$BENCH_TMP/mem.sqlite" -q)
	eval "RSS_$n=$RSS_M W_$n=$W_M ST_$n=$ST_M"
done
RSS_BIG=RSS_$CASES W_BIG=W_$CASES ST_BIG=ST_$CASES
printf 'memory: sweep parent (merge of planned cases, replays no-ops) peak RSS %s KiB at 64 cases (%.2f s, exit %s), %s KiB at %d cases (%.2f s, exit %s): ratio %s (target: flat)\n' \
	"$RSS_64" "$W_64" "$ST_64" "${!RSS_BIG}" "$CASES" "${!W_BIG}" "${!ST_BIG}" "$(ratio "${!RSS_BIG}" "$RSS_64")"
# What each planned case beyond the first 64 adds to the peak (docs/sweep.md
# "The history site": at most 500 bytes), and that figure over its target.
PER_CASE=$(awk -v a="${!RSS_BIG}" -v b="$RSS_64" -v n="$CASES" \
	'BEGIN { if (n > 64) printf "%d", (a - b) * 1024 / (n - 64); else print 0 }')
printf 'memory: %s bytes of peak RSS per planned case (target <= 500 bytes): ratio to target %s\n' \
	"$PER_CASE" "$(ratio "$PER_CASE" 500)"

# 6. the same on PostgreSQL, as ratios to the figures above
# shellcheck source=tests/bench/history-pg.sh
source "$(dirname "$0")/history-pg.sh"
