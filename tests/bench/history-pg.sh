# bench-history's PostgreSQL part (sourced by tests/bench/history.sh after
# its SQLite figures): the same nights imported into a fresh database of a
# private PostgreSQL cluster (tests/pg-cluster.sh, in a temporary
# directory, removed at the end; or the cluster whose socket directory
# BENCH_HISTORY_PG names), the same queries timed, each figure as a ratio
# to SQLite's in this run (targets: every query within 2x, the site within
# 1.5x: its runs in turn with SQLite's on the same nights, pair), then 8 importers of 1,000-case sweeps at once against one
# importer's time x 8 / cores (target: within 2x). Skipped when neither a
# cluster is named nor initdb can be run.

pg_bench() {
	local sock=${BENCH_HISTORY_PG:-} own="" pgdb
	if [ -z "$sock" ]; then
		[ "$(id -u)" = 0 ] || { echo "postgresql: skipped (BENCH_HISTORY_PG unset, not root)"; return 0; }
		# where the cluster's user can enter (BENCH_TMP is 0700)
		own=$(mktemp -d "${TMPDIR:-/tmp}/hrr-bench-pg.XXXXXX")
		chmod 0755 "$own"
		sock=$own/c
		bash "$BENCH_ROOT/tests/pg-cluster.sh" start "$sock" >/dev/null ||
			{ echo "postgresql: skipped (no private cluster could start)"; return 0; }
		trap 'bash "$BENCH_ROOT/tests/pg-cluster.sh" stop "'"$sock"'"; rm -rf "$BENCH_TMP" "'"$own"'"' EXIT
	fi
	psql -q -h "$sock" -U "${HRR_PG_USER:-hrrpg}" -d postgres -c 'CREATE DATABASE hrr_bench' >/dev/null ||
		bench_die "cannot create the bench database"
	pgdb="postgresql:///hrr_bench?host=$sock&user=${HRR_PG_USER:-hrrpg}"
	mkdir -p "$BENCH_TMP/wd-pg"
	for ((n = 0; n < NIGHTS; n++)); do
		"$HELPER" night "$pgdb" "$BENCH_TMP/wd-pg" "$LABEL" "$n" "$CASES" >>"$BENCH_TMP/pg-import.times" ||
			bench_die "postgresql: night $n failed"
	done
	read -r P_MED _ _ < <(awk '{ print $1 }' "$BENCH_TMP/pg-import.times" | stats)
	P_SETTLE=$(pg_settle "$sock")
	read -r P_CASE _ _ _ < <(best pgcase "$BIN" history --db "$pgdb" --label "$LABEL" --case "$CASE")
	read -r P_LABEL _ _ _ < <(best pglabel "$BIN" history --db "$pgdb" --label "$LABEL")
	read -r S_SITE P_SITE P_RSS < <(pair pairsite "$BENCH_TMP/history-$NIGHTS.sqlite" "$pgdb" "" "")
	"$HELPER" night "$pgdb" "$BENCH_TMP/wd-pg" "$LABEL" "$NIGHTS" "$CASES" >/dev/null ||
		bench_die "postgresql: one more night failed"
	P_SETTLE2=$(pg_settle "$sock")
	read -r S_INC P_INC _ < <(pair pairinc "$DB" "$pgdb" "$SITE.before" "$BENCH_TMP/pairsite-pg")
	printf 'postgresql: import %.3f s (ratio to SQLite %s), history --case %.0f ms (%s), --label %.0f ms (%s) (target <= 2x)\n' \
		"$P_MED" "$(ratio "$P_MED" "$MED")" "$(awk -v w="$P_CASE" 'BEGIN { print w * 1000 }')" \
		"$(ratio "$P_CASE" "$W_CASE")" "$(awk -v w="$P_LABEL" 'BEGIN { print w * 1000 }')" \
		"$(ratio "$P_LABEL" "$W_LABEL")"
	printf 'postgresql: site whole %.2f s against SQLite %.2f s in turn (ratio %s), after one more night %.2f s against %.2f s (ratio %s) (target <= 1.5x); peak RSS %s KiB (ratio %s)\n' \
		"$P_SITE" "$S_SITE" "$(ratio "$P_SITE" "$S_SITE")" "$P_INC" "$S_INC" \
		"$(ratio "$P_INC" "$S_INC")" "$P_RSS" "$(ratio "$P_RSS" "$RSS_SITE")"
	cat "$BENCH_TMP/pair.lines"
	printf 'postgresql: settled before the timings (VACUUM ANALYZE) in %s s after %d nights, %s s after one more\n' \
		"$P_SETTLE" "$NIGHTS" "$P_SETTLE2"
	pg_concurrent "$pgdb"
	[ -z "$own" ] || { bash "$BENCH_ROOT/tests/pg-cluster.sh" stop "$sock"; rmdir "$own"; trap 'rm -rf "$BENCH_TMP"' EXIT; }
}

# pair NAME SQLITE_DB PG_DB SQLITE_FROM PG_FROM: the site of each store
# built 3 times in turn (SQLite, PostgreSQL, SQLite, ...), each run into a
# copy of its *_FROM (empty: an empty folder) after a sync; prints the best
# wall time of each and PostgreSQL's peak RSS in its best run. This
# machine's speed moves for minutes at a time (a single run of the same
# site varies by a third): runs in turn compare the two stores on the same
# minutes, not one's quiet spell against the other's busy one.
pair() {
	local name=$1 i s db from dir

	for i in 1 2 3; do
		for s in sq pg; do
			dir=$BENCH_TMP/$name-$s
			if [ "$s" = sq ]; then db=$2 from=$4; else db=$3 from=$5; fi
			rm -rf "$dir"
			[ -z "$from" ] || cp -a "$from" "$dir"
			sync
			timed "$name-$s" "$BIN" history site "$dir" --db "$db" | tail -1 >>"$BENCH_TMP/$name-$s.runs"
		done
	done
	printf 'postgresql: %s runs in turn, wall s: SQLite %s, PostgreSQL %s\n' "$name" \
		"$(cut -d' ' -f1 "$BENCH_TMP/$name-sq.runs" | paste -sd' ')" \
		"$(cut -d' ' -f1 "$BENCH_TMP/$name-pg.runs" | paste -sd' ')" >>"$BENCH_TMP/pair.lines"
	read -r S_BEST _ _ _ < <(sort -g "$BENCH_TMP/$name-sq.runs" | head -1)
	read -r P_BEST P_BEST_RSS _ _ < <(sort -g "$BENCH_TMP/$name-pg.runs" | head -1)
	echo "$S_BEST $P_BEST $P_BEST_RSS"
}

# The server settled, as after a bulk load (PostgreSQL's "Populating a
# Database": VACUUM ANALYZE): sixty nights imported in minutes leave
# autovacuum a backlog it would work off during the timings, on the same
# two cores (a fleet imports a night a day per host, and autovacuum keeps
# up). Prints the seconds it took.
pg_settle() {
	local wall status

	read -r wall _ status _ < <(timed pgsettle psql -q -h "$1" -U "${HRR_PG_USER:-hrrpg}" \
		-d hrr_bench -c 'VACUUM (ANALYZE)')
	[ "$status" = 0 ] || bench_die "postgresql: VACUUM failed (exit $status)"
	printf '%.2f' "$wall"
}

# 8 hosts importing a 1,000-case sweep each at once, against one importer.
pg_concurrent() {
	local pgdb=$1 one t0 t1 all cores
	cores=$(nproc)
	one=$("$HELPER" night "$pgdb" "$BENCH_TMP/wd-pg" conc-one 0 1000 | cut -d' ' -f1)
	t0=$(date +%s.%N)
	for i in 1 2 3 4 5 6 7 8; do
		mkdir -p "$BENCH_TMP/wd-pg-$i"
		"$HELPER" night "$pgdb" "$BENCH_TMP/wd-pg-$i" "conc-$i" 0 1000 >/dev/null &
	done
	wait
	t1=$(date +%s.%N)
	all=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	printf 'postgresql: 8 importers of 1,000-case sweeps at once %.3f s, one %.3f s: ratio to one x 8 / %d cores %s (target <= 2x)\n' \
		"$all" "$one" "$cores" "$(ratio "$all" "$(awk -v o="$one" -v c="$cores" 'BEGIN { print o * 8 / c }')")"
}

pg_bench
