#!/usr/bin/env bash
# bench-overhead: what the orchestrator costs around one short replay.
#
# The pass scenario end to end (preflight cache warm, finding written),
# median of K runs, against the same container run by
#   * the docker CLI: `docker run --rm` with the flags that mirror the tool's
#     container spec (read back from run.json), and
#   * the raw API floor: create, start, wait, delete over the unix socket in
#     one curl process.
# The three alternate in rotating order, so drift in the engine's speed
# (other jobs on the machine) falls on all of them alike.
# Target: tool <= 1.2x the raw floor. Exit 0 whatever the figures.
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

bench_init bench-overhead
bench_banner "pass scenario end to end vs docker CLI vs raw API, median of $RUNS"
[ -n "$API" ] || bench_skip "the raw-API floor needs a unix:// DOCKER_HOST"

WD=$BENCH_TMP/wd
declare -a T_TOOL=() T_CLI=() T_RAW=() PH_START=() PH_EXIT=() PH_REMOVE=() PH_WALL=()
FAIL_TOOL=0 FAIL_CLI=0 FAIL_RAW=0

tool_once() {
	hrr --archive "$PASS_ARCHIVE" --workdir "$WD" --format json >"$BENCH_TMP/tool.out" 2>"$BENCH_TMP/tool.err"
}

# First run fills the preflight cache; the second proves it is warm and
# gives the spec the comparisons mirror.
tool_once || bench_die "the pass replay failed (exit $?): $(tail -3 "$BENCH_TMP/tool.err")"
tool_once || bench_die "the warm pass replay failed (exit $?)"
[ -d "$WD/cache" ] || bench_say "bench: WARNING: no preflight cache under $WD/cache"
RUN_DIR=$(newest_run_dir "$WD")
[ -s "$RUN_DIR/finding.json" ] || bench_die "no finding.json in $RUN_DIR"
bench_spec "$RUN_DIR/run.json" >"$BENCH_TMP/spec.json"
mapfile -d '' CLI_ARGS < <(spec_to_cli "$BENCH_TMP/spec.json")

cli_once() {
	docker run --rm --name "hrr-bench-$$-cli" "${CLI_ARGS[@]}" >"$BENCH_TMP/cli.out" 2>&1
}
raw_once() {
	raw_run "$BENCH_TMP/spec.json" "hrr-bench-$$-raw"
}

printf 'docker CLI command: docker run --rm --name hrr-bench-%s-cli' "$$"
printf ' %q' "${CLI_ARGS[@]}"
printf '\n'
printf 'raw floor: curl --unix-socket %s POST /v%s/containers/create (run.json spec) --next start --next wait --next DELETE\n' "$SOCK" "$API"

cli_once || bench_die "the docker CLI run failed: $(tail -3 "$BENCH_TMP/cli.out")"
raw_once || bench_die "the raw API run failed"

declare -A LAST=()

measure() {
	local which=$1 s e rj a b c d

	LAST[$which]=fail

	s=$(now)
	case $which in
	tool)
		if tool_once; then
			e=$(now)
			LAST[tool]=$(elapsed "$s" "$e")
			T_TOOL+=("${LAST[tool]}")
			rj=$(newest_run_dir "$WD")/run.json
			if read -r a b c d < <(jq -r '.timings | "\(.start_s) \(.exit_s) \(.remove_s) \(.wall_s)"' "$rj"); then
				PH_START+=("$a"); PH_EXIT+=("$b"); PH_REMOVE+=("$c"); PH_WALL+=("$d")
			fi
		else
			FAIL_TOOL=$((FAIL_TOOL + 1))
			bench_say "  tool run failed: $(grep -v "^run folder:" "$BENCH_TMP/tool.err" | tail -1)"
		fi ;;
	cli)
		if cli_once; then
			LAST[cli]=$(elapsed "$s" "$(now)")
			T_CLI+=("${LAST[cli]}")
		else
			FAIL_CLI=$((FAIL_CLI + 1))
		fi ;;
	raw)
		if raw_once; then
			LAST[raw]=$(elapsed "$s" "$(now)")
			T_RAW+=("${LAST[raw]}")
		else
			FAIL_RAW=$((FAIL_RAW + 1))
		fi ;;
	esac
}

bench_rounds tool cli raw

read -r TM TMIN TMAX < <(printf '%s\n' "${T_TOOL[@]}" | stats)
read -r CM CMIN CMAX < <(printf '%s\n' "${T_CLI[@]}" | stats)
read -r RM RMIN RMAX < <(printf '%s\n' "${T_RAW[@]}" | stats)
read -r PS _ < <(printf '%s\n' "${PH_START[@]}" | stats)
read -r PE _ < <(printf '%s\n' "${PH_EXIT[@]}" | stats)
read -r PR _ < <(printf '%s\n' "${PH_REMOVE[@]}" | stats)
read -r PW _ < <(printf '%s\n' "${PH_WALL[@]}" | stats)
R_RAW=$(ratio "$TM" "$RM")
R_CLI=$(ratio "$TM" "$CM")
if le "$R_RAW" 1.2; then VERDICT="met"; else VERDICT="MISSED"; fi

printf '\n%-34s %9s %9s %9s %6s %9s\n' "bench-overhead (K=$RUNS)" "median s" "min s" "max s" "fails" "tool/x"
printf '%-34s %9s %9s %9s %6s %9s\n' "hrr-docker-replay (warm preflight)" "$TM" "$TMIN" "$TMAX" "$FAIL_TOOL" "1.00"
printf '%-34s %9s %9s %9s %6s %9s\n' "docker run --rm (CLI $DOCKER_CLI_VERSION)" "$CM" "$CMIN" "$CMAX" "$FAIL_CLI" "$R_CLI"
printf '%-34s %9s %9s %9s %6s %9s\n' "raw API floor (curl)" "$RM" "$RMIN" "$RMAX" "$FAIL_RAW" "$R_RAW"
printf 'tool - raw floor: %s ms; tool - CLI: %s ms\n' \
	"$(awk -v a="$TM" -v b="$RM" 'BEGIN { printf "%.0f", (a - b) * 1000 }')" \
	"$(awk -v a="$TM" -v b="$CM" 'BEGIN { printf "%.0f", (a - b) * 1000 }')"
printf 'tool phases (run.json medians): create+wait+start %ss, start->exit seen %ss, remove %ss, run.json wall %ss; outside run.json (exec, engine connect, argv, exit) %ss\n' \
	"$PS" "$PE" "$PR" "$PW" "$(awk -v a="$TM" -v b="$PW" 'BEGIN { printf "%.4f", a - b }')"
printf 'target tool <= 1.20x raw floor: %s (%sx)\n' "$VERDICT" "$R_RAW"
exit 0
