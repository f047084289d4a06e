#!/usr/bin/env bash
# bench-stream: N MiB (BENCH_LOG_MB, default 256) of replay output into
# replay.log.
#
# The simulator's flood scenario prints realistic hrr-playback lines (event
# lines with real kernel names, a progress heartbeat every 64 launches) in
# 64 KiB bursts alternating between stdout and stderr, until
# HRR_SIM_FLOOD_BYTES bytes are out, then its summary and "[HRR] PASS".
# Measured side by side:
#   * the tool at N and N/4: wall time, throughput, peak RSS and CPU (wait4
#     rusage through build/bench/timeit), and whether replay.log holds it all;
#   * `docker run -d` + `docker logs -f > file` of the same container (spec
#     mirrored from the tool's run.json): the CLI doing what the tool does,
#     through the engine's json-file copy;
#   * `docker run` attached (> file): the engine's direct path, not through
#     the json-file copy; the reference for "all N MiB arrive";
#   * tool vs docker logs -f at S MiB (BENCH_STREAM_SMALL_MB, default 16:
#     under the json-file rotation point), BENCH_STREAM_REPS times each,
#     alternating: the streaming ratio on transfers that both complete.
# Targets: throughput >= 0.9x docker logs -f; peak RSS <= 16 MiB and flat
# from N/4 to N. Exit 0 whatever the figures.
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

bench_init bench-stream
N=${BENCH_LOG_MB:-256}
S=${BENCH_STREAM_SMALL_MB:-16}
REPS=${BENCH_STREAM_REPS:-3}
[[ $N =~ ^[0-9]+$ ]] && [ "$N" -ge 4 ] || bench_die "BENCH_LOG_MB must be an integer >= 4"
[[ $S =~ ^[0-9]+$ ]] && [ "$S" -ge 1 ] || bench_die "BENCH_STREAM_SMALL_MB must be an integer >= 1"
[[ $REPS =~ ^[0-9]+$ ]] || bench_die "BENCH_STREAM_REPS must be an integer"
bench_banner "$N MiB of flood output into replay.log vs docker logs -f"

# Per side, up to four copies can be on disk at once: the engine's two
# json-file logs (JSON about doubles these short lines) and our file.
need_kib=$((4 * N * 1024))
docker_root=$(docker info --format '{{.DockerRootDir}}' 2>/dev/null || true)
for d in "$docker_root" "$BENCH_TMP"; do
	[ -n "$d" ] && [ -d "$d" ] || continue
	avail=$(df -Pk "$d" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge "$need_kib" ] ||
		bench_skip "$d has $((avail / 1024)) MiB free, the benchmark needs 4 x $N MiB"
done

WD=$BENCH_TMP/wd
hrr preflight --archive "$FLOOD_ARCHIVE" --workdir "$WD" >/dev/null 2>&1 ||
	bench_say "bench: WARNING: preflight of the flood archive did not exit 0"

declare -A WALL RSS CPU BYTES COMPLETE NOTE MIB

# check_log FILE MiB -> "bytes events progress other pass markers complete"
# complete: at least MiB MiB arrived, and the summary's PASS line with it.
check_log() {
	local file=$1 mib=$2 bytes

	bytes=$(stat -c %s "$file")
	awk -v bytes="$bytes" -v want=$((mib * 1048576)) '
		/^\[HRR\] Event [0-9]+: / { ev++; next }
		/^\[HRR progress\] / { pr++; next }
		/^\[HRR\] PASS$/ { pass = 1; next }
		/^\[HRR\]/ || /^$/ { next }
		/^\[hrr-docker-replay\] / { mk++; next }
		{ other++ }
		END { printf "%d %d %d %d %d %d %d\n", bytes, ev, pr, other, pass, mk,
			  (bytes >= want && pass) }' "$file"
}

report_loss() {
	local what=$1 mib=$2 bytes=$3 pass=$4

	printf '\n!!!!!!!! DATA LOSS (%s): the file holds %s bytes of the >= %s the replay printed (%s%% missing); the summary/PASS line is %s.\n' \
		"$what" "$bytes" $((mib * 1048576)) \
		"$(awk -v b="$bytes" -v w=$((mib * 1048576)) 'BEGIN { printf "%.1f", (b < w ? 100 * (w - b) / w : 0) }')" \
		"$([ "$pass" = 1 ] && echo present || echo MISSING)" >&2
}

# record LABEL MiB TIMEIT-RESULT [WALL]: wall (unless given), RSS, CPU.
record() {
	local label=$1 wall rss usr sys

	read -r wall rss _ usr sys <"$3"
	MIB[$label]=$2
	WALL[$label]=${4:-$wall}
	RSS[$label]=$rss
	CPU[$label]=$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}

# The same container at another size: only the simulator's byte count moves.
cli_args_for() {
	jq --arg v "HRR_SIM_FLOOD_BYTES=$(($1 * 1048576))" \
		'.Env |= map(if startswith("HRR_SIM_FLOOD_BYTES=") then $v else . end)' \
		"$BENCH_TMP/spec.json" >"$BENCH_TMP/spec.$1.json"
	mapfile -d '' CLI_ARGS < <(spec_to_cli "$BENCH_TMP/spec.$1.json")
}

# A run whose container was SIGKILLed by someone else (on a shared engine,
# e.g. a test suite's cleanup that force-removes every container labelled
# hrr-docker-replay.run) measures nothing: retry it, and say so.
killed_from_outside() {
	jq -e '.exit.container_status == 137 and .exit.ended_by == "signal"' "$1" >/dev/null 2>&1
}

tool_run() {
	local label=$1 mib=$2 res=$BENCH_TMP/timeit.$1 dir rc b ev pr other pass mk complete

	for _ in 1 2 3; do
		bench_say "  tool: flood $mib MiB"
		rc=0
		: >"$res"
		"$TIMEIT" -o "$res" "$BIN" run --image "$IMAGE" --sysfs-root "$SYSFS" --device-root "$DEV" -q \
			--archive "$FLOOD_ARCHIVE" --workdir "$WD" --format json \
			-e "HRR_SIM_FLOOD_BYTES=$((mib * 1048576))" >"$BENCH_TMP/tool.out" 2>"$BENCH_TMP/tool.err" || rc=$?
		dir=$(newest_run_dir "$WD")
		killed_from_outside "$dir/run.json" || break
		bench_say "  bench: WARNING: the replay container was SIGKILLed from outside (another job on this engine?); retrying"
		rm -f "$dir/replay.log"
	done
	record "$label" "$mib" "$res"
	read -r b ev pr other pass mk complete < <(check_log "$dir/replay.log" "$mib")
	BYTES[$label]=$b
	COMPLETE[$label]=$complete
	NOTE[$label]="exit $rc, outcome $(jq -r .outcome "$dir/finding.json" 2>/dev/null || echo none)"
	[ "$other" = 0 ] || NOTE[$label]+=", $other unexpected lines"
	[ "$mk" = 0 ] || NOTE[$label]+=", marker: $(grep -m1 '^\[hrr-docker-replay\]' "$dir/replay.log")"
	[ "$complete" = 1 ] || report_loss "replay.log, flood $mib MiB" "$mib" "$b" "$pass"
	[ -s "$BENCH_TMP/spec.json" ] || bench_spec "$dir/run.json" >"$BENCH_TMP/spec.json"
	jq -c '.timings | {start_s, exit_s, remove_s, wall_s}' "$dir/run.json" >"$BENCH_TMP/timings.$label"
	rm -f "$dir/replay.log"
}

cli_logs_run() {
	local label=$1 mib=$2 name="hrr-bench-$$-logs" res=$BENCH_TMP/timeit.$1 s e rc b ev pr other pass mk complete

	bench_say "  docker run -d + docker logs -f: flood $mib MiB"
	cli_args_for "$mib"
	s=$(now)
	docker run -d --name "$name" "${CLI_ARGS[@]}" >/dev/null
	"$TIMEIT" -o "$res" docker logs -f "$name" >"$BENCH_TMP/logs.out" 2>&1 || true
	e=$(now)
	rc=$(docker inspect -f '{{.State.ExitCode}}' "$name" 2>/dev/null || echo '?')
	docker rm -f "$name" >/dev/null 2>&1 || true
	record "$label" "$mib" "$res" "$(elapsed "$s" "$e")"
	read -r b ev pr other pass mk complete < <(check_log "$BENCH_TMP/logs.out" "$mib")
	BYTES[$label]=$b
	COMPLETE[$label]=$complete
	NOTE[$label]="container exit $rc; RSS/CPU of docker logs"
	[ "$complete" = 1 ] || report_loss "docker logs -f > file, flood $mib MiB" "$mib" "$b" "$pass"
	rm -f "$BENCH_TMP/logs.out"
}

cli_attach_run() {
	local label=$1 mib=$2 name="hrr-bench-$$-attach" res=$BENCH_TMP/timeit.$1 rc=0 b ev pr other pass mk complete

	bench_say "  docker run (attached): flood $mib MiB"
	cli_args_for "$mib"
	"$TIMEIT" -o "$res" docker run --rm --name "$name" "${CLI_ARGS[@]}" >"$BENCH_TMP/attach.out" 2>&1 || rc=$?
	record "$label" "$mib" "$res"
	read -r b ev pr other pass mk complete < <(check_log "$BENCH_TMP/attach.out" "$mib")
	BYTES[$label]=$b
	COMPLETE[$label]=$complete
	# Both streams meet in one file: a line can be cut by a burst of the
	# other stream, hence a few cut lines; the bytes are all there.
	NOTE[$label]="exit $rc; $ev event + $pr progress lines, $other cut; RSS/CPU of docker run"
	[ "$complete" = 1 ] || report_loss "docker run attached > file, flood $mib MiB" "$mib" "$b" "$pass"
	rm -f "$BENCH_TMP/attach.out"
}

tool_run tool_n "$N"
cli_logs_run logs_n "$N"
cli_attach_run attach_n "$N"
tool_run tool_q $((N / 4))
for ((r = 1; r <= REPS; r++)); do
	if ((r % 2)); then
		tool_run "tool_s$r" "$S"; cli_logs_run "logs_s$r" "$S"
	else
		cli_logs_run "logs_s$r" "$S"; tool_run "tool_s$r" "$S"
	fi
done

mibps() { awk -v m="$1" -v w="$2" 'BEGIN { printf "%.1f", (w > 0 ? m / w : 0) }'; }
kib_mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
yn() { [ "$1" = 1 ] && echo yes || echo NO; }

row() {
	local title=$1 k=$2

	printf '%-30s %8.2f %7s %9s %11s %8s %5s MiB %6s  %s\n' "$title" "${WALL[$k]}" \
		"$(mibps "${MIB[$k]}" "${WALL[$k]}")" \
		"$(mibps "$(awk -v b="${BYTES[$k]}" 'BEGIN { print b / 1048576 }')" "${WALL[$k]}")" \
		"${BYTES[$k]}" "$(yn "${COMPLETE[$k]}")" "$(kib_mib "${RSS[$k]}")" "${CPU[$k]}" "${NOTE[$k]}"
}

# The median run of a repeated pair, by wall time (odd REPS: a real run).
median_key() {
	local prefix=$1 r

	for ((r = 1; r <= REPS; r++)); do printf '%s %s\n' "${WALL[$prefix$r]}" "$prefix$r"; done |
		sort -g | awk -v n="$REPS" 'NR == int((n + 1) / 2) { print $2 }'
}

printf '\n%-30s %8s %7s %9s %11s %8s %9s %6s  %s\n' "bench-stream (N=$N MiB)" "wall s" "MiB/s" "got MiB/s" \
	"bytes" "complete" "peak RSS" "CPU s" "notes"
row "hrr-docker-replay $((N / 4)) MiB" tool_q
row "hrr-docker-replay $N MiB" tool_n
row "docker logs -f > file $N MiB" logs_n
row "docker run > file $N MiB" attach_n
if ((REPS > 0)); then
	TS=$(median_key tool_s)
	LS=$(median_key logs_s)
	row "hrr-docker-replay $S MiB (med $REPS)" "$TS"
	row "docker logs -f $S MiB (med $REPS)" "$LS"
fi
printf 'tool run.json timings at %s MiB: %s\n' "$N" "$(cat "$BENCH_TMP/timings.tool_n")"

R_LOGS=$(ratio "${WALL[logs_n]}" "${WALL[tool_n]}")
R_ATT=$(ratio "${WALL[attach_n]}" "${WALL[tool_n]}")
RSS_N=$(kib_mib "${RSS[tool_n]}")
RSS_Q=$(kib_mib "${RSS[tool_q]}")
GROWTH=$(awk -v a="$RSS_N" -v b="$RSS_Q" 'BEGIN { printf "%.1f", a - b }')
printf 'throughput at %s MiB, tool / docker logs -f: %sx (target >= 0.9: %s)%s; tool / docker run attached: %sx\n' \
	"$N" "$R_LOGS" "$(le 0.9 "$R_LOGS" && echo met || echo MISSED)" \
	"$([ "${COMPLETE[tool_n]}" = 1 ] && [ "${COMPLETE[logs_n]}" = 1 ] || echo ' [INCOMPLETE transfers: not a valid comparison]')" \
	"$R_ATT"
if ((REPS > 0)); then
	R_S=$(ratio "${WALL[$LS]}" "${WALL[$TS]}")
	printf 'throughput at %s MiB (no rotation), tool / docker logs -f, medians of %s: %sx (target >= 0.9: %s)%s\n' \
		"$S" "$REPS" "$R_S" "$(le 0.9 "$R_S" && echo met || echo MISSED)" \
		"$([ "${COMPLETE[$TS]}" = 1 ] && [ "${COMPLETE[$LS]}" = 1 ] || echo ' [INCOMPLETE transfers]')"
fi
printf 'peak RSS: %s MiB at N/4, %s MiB at N (target <= 16: %s; flat, i.e. < 1 MiB growth: %s, %s MiB)\n' \
	"$RSS_Q" "$RSS_N" "$(le "$RSS_N" 16 && echo met || echo MISSED)" \
	"$(le "$GROWTH" 1 && echo yes || echo NO)" "$GROWTH"
if [ "${COMPLETE[tool_n]}" = 1 ] && [ "${COMPLETE[tool_q]}" = 1 ]; then
	printf 'replay.log complete at N/4 and N: yes\n'
else
	printf '!!!!!!!! replay.log LOST OUTPUT at N/4 or N (see DATA LOSS above): a finding for the lead\n'
	[ "${COMPLETE[logs_n]}" = 1 ] ||
		printf '         docker logs -f lost it too (the engine json-file follow across rotation); docker run attached: %s\n' \
			"$([ "${COMPLETE[attach_n]}" = 1 ] && echo 'got everything' || echo 'lost output as well')"
fi
exit 0
