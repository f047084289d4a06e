#!/usr/bin/env bash
# bench-preflight: `hrr-docker-replay preflight` with a cold image cache
# (a fresh workdir every time) and a warm one (the same workdir again),
# against what the shell workflow does to learn the image's ROCm: start a
# probe container that cats the version file,
#   docker run --rm --entrypoint /bin/cat IMAGE /opt/rocm/.info/version
# (the workflow also passes the GPU devices; the probe here does not, which
# only makes it cheaper). Median of K runs (BENCH_RUNS), the three kinds
# alternating in rotating order. Exit 0 whatever the figures.
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

bench_init bench-preflight
bench_banner "preflight cold / warm cache vs a docker CLI probe container, median of $RUNS"

declare -a T_COLD=() T_WARM=() T_PROBE=()
declare -A LAST=()
FAILS=0
WARM_WD=$BENCH_TMP/warm

pf() {
	hrr preflight --archive "$PASS_ARCHIVE" --workdir "$1" >"$BENCH_TMP/pf.out" 2>&1
}
probe() {
	docker run --rm --entrypoint /bin/cat "$IMAGE" /opt/rocm/.info/version >"$BENCH_TMP/probe.out" 2>&1 &&
		[ -s "$BENCH_TMP/probe.out" ]
}

pf "$WARM_WD" || bench_die "preflight failed (exit $?): $(tail -3 "$BENCH_TMP/pf.out")"
ls "$WARM_WD"/cache/* >/dev/null 2>&1 || bench_say "bench: WARNING: preflight left no image cache in $WARM_WD/cache"
probe || bench_die "the probe container failed: $(tail -3 "$BENCH_TMP/probe.out")"
printf 'probe prints: %s\n' "$(head -1 "$BENCH_TMP/probe.out")"

measure() {
	local which=$1 s wd

	LAST[$which]=fail
	case $which in
	cold)
		wd=$BENCH_TMP/cold.$RANDOM$RANDOM
		s=$(now)
		if pf "$wd"; then LAST[cold]=$(elapsed "$s" "$(now)"); T_COLD+=("${LAST[cold]}"); fi
		rm -rf "$wd" ;;
	warm)
		s=$(now)
		if pf "$WARM_WD"; then LAST[warm]=$(elapsed "$s" "$(now)"); T_WARM+=("${LAST[warm]}"); fi ;;
	probe)
		s=$(now)
		if probe; then LAST[probe]=$(elapsed "$s" "$(now)"); T_PROBE+=("${LAST[probe]}"); fi ;;
	esac
	[ "${LAST[$which]}" != fail ] || FAILS=$((FAILS + 1))
}

bench_rounds cold warm probe

read -r CM CMIN CMAX < <(printf '%s\n' "${T_COLD[@]}" | stats)
read -r WM WMIN WMAX < <(printf '%s\n' "${T_WARM[@]}" | stats)
read -r PM PMIN PMAX < <(printf '%s\n' "${T_PROBE[@]}" | stats)

printf '\n%-40s %9s %9s %9s %9s\n' "bench-preflight (K=$RUNS, $FAILS failed)" "median s" "min s" "max s" "x / probe"
printf '%-40s %9s %9s %9s %9s\n' "preflight, cold cache (fresh workdir)" "$CM" "$CMIN" "$CMAX" "$(ratio "$CM" "$PM")"
printf '%-40s %9s %9s %9s %9s\n' "preflight, warm cache" "$WM" "$WMIN" "$WMAX" "$(ratio "$WM" "$PM")"
printf '%-40s %9s %9s %9s %9s\n' "docker run --rm cat version (CLI $DOCKER_CLI_VERSION)" "$PM" "$PMIN" "$PMAX" "1.00"
printf 'preflight is %sx faster cold and %sx faster warm than the probe container\n' \
	"$(ratio "$PM" "$CM")" "$(ratio "$PM" "$WM")"
exit 0
