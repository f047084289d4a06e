#!/usr/bin/env bash
# The outputs of two builds on the same nights, compared byte for byte: a
# refactor that says it changes no output shows it here. bench_history
# writes NIGHTS sweep folders of CASES cases (plan.json and results.jsonl,
# as a sweep leaves them; no engine); each build merges them in turn into
# a history of its own, with a known-issues file, and writes the reports
# (summary.md/json, report.html, junit.xml), `history` (per label, per
# case, signatures, known, gpus, perf; markdown and JSON) and the site.
# The scratch paths are masked; everything else must match.
#
#   bash tests/bench/outputs.sh OLD_BIN NEW_BIN [BENCH_HISTORY]
#
# With OUTPUTS_FRESH=1 (an engine and `make images` needed), each build
# also runs one fresh sweep of seven fixture captures (a PASS, a MAF, a
# D2H failure, a HIP 700, a queue abort, a fatal, a hang) on one fake GPU,
# one case at a time: its reports, results, run folders' findings and the
# history of it compare the same way, with what a real run cannot repeat
# masked (sweep and run ids, durations, container ids, and the runtime
# libraries a crashing simulator lists before it dies, which it does not
# always finish). The site is left out here: it charts wall times.
#
# Environment: OUTPUTS_CASES (default 300), OUTPUTS_NIGHTS (default 12),
# OUTPUTS_FRESH=1, OUTPUTS_KEEP=1 keeps the scratch directory. Exit 0 when every output is
# the same, 1 (with the diff's first lines) when one differs, 2 on misuse.
set -uo pipefail
old=${1:-} new=${2:-}
helper=${3:-$(dirname "$0")/../../build/bench/bench_history}
if ! [ -x "$old" ] || ! [ -x "$new" ] || ! [ -x "$helper" ]; then
	echo "usage: tests/bench/outputs.sh OLD_BIN NEW_BIN [BENCH_HISTORY] (executables)" >&2
	exit 2
fi
cases=${OUTPUTS_CASES:-300}
nights=${OUTPUTS_NIGHTS:-12}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hrr-outputs.XXXXXX")
if [ "${OUTPUTS_KEEP:-0}" = 1 ]; then
	echo "outputs: keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi

mkdir -p "$tmp/wd"
for ((n = 0; n < nights; n++)); do
	"$helper" folder "$tmp/wd" nightly "$cases" "$n" >/dev/null || { echo "outputs: bench_history failed" >&2; exit 2; }
done
cat >"$tmp/known.yaml" <<'YAML'
issues:
  - id: BUG-1
    link: https://bugs.example/1
    owner: gemm-team
    match:
      kernel_family: 'rocblas_gemm_kernel*'
  - id: BUG-2
    link: https://bugs.example/2
    owner: conv-team
    match:
      outcome: HANG
YAML
one_case=lib/fam-07/case-00047/capture.hrr/pid-4242

# run SIDE BIN: every output of BIN under $tmp/SIDE/out
run() {
	local side=$1 bin=$2 wd=$tmp/$1/wd db=$tmp/$1/history.sqlite out=$tmp/$1/out f n=0
	mkdir -p "$tmp/$side" "$out"
	cp -a "$tmp/wd" "$wd"
	for f in "$wd"/sweeps/*; do
		n=$((n + 1))
		"$bin" sweep --merge "$f" --workdir "$wd" --db "$db" --known-issues "$tmp/known.yaml" \
			>"$out/merge-$n.stdout" 2>"$out/merge-$n.stderr"
		echo "exit $?" >>"$out/merge-$n.stdout"
		for r in summary.md summary.json report.html junit.xml; do
			cp "$f/$r" "$out/night-$n.$r" 2>/dev/null || echo "missing" >"$out/night-$n.$r"
		done
	done
	local -a q=(
		"label:--label nightly" "label-json:--label nightly --format json"
		"case:--label nightly --case $one_case" "case-json:--label nightly --case $one_case --format json"
		"last1:--label nightly --last 1"
		"signatures:signatures --label nightly" "signatures-json:signatures --label nightly --format json"
		"known:known --label nightly --known-issues $tmp/known.yaml"
		"known-json:known --label nightly --known-issues $tmp/known.yaml --format json"
		"gpus:gpus" "perf:perf --label nightly --case $one_case"
		"perf-json:perf --label nightly --case $one_case --format json")
	local item name args
	for item in "${q[@]}"; do
		name=${item%%:*} args=${item#*:}
		# shellcheck disable=SC2086 # the arguments are words without spaces
		"$bin" history $args --db "$db" >"$out/history-$name" 2>&1
		echo "exit $?" >>"$out/history-$name"
	done
	"$bin" history site "$tmp/$side/site" --db "$db" >"$out/site.stdout" 2>&1
	echo "exit $?" >>"$out/site.stdout"
	(cd "$tmp/$side/site" && find . -type f | sort | while read -r p; do
		printf '== %s\n' "$p"; cat "$p"; done) >"$out/site.all"
	# the side's own paths: nothing else is masked (the nights' times
	# are bench_history's, and no report stamps the time it was written)
	find "$out" -type f -exec sed -i -e "s|$tmp/$side|SIDE|g" {} +
}
# fresh SIDE BIN: a real sweep of fixture captures, outputs under $tmp/SIDE/fresh
fresh() {
	local side=$1 bin=$2 top w=$tmp/$1/fresh x f
	local -a archives=()
	top=$(cd "$(dirname "$0")/../.." && pwd)
	mkdir -p "$w/out"
	for x in pass maf d2h-fail hip-700-copy queue-abort fatal hang; do
		archives+=(--archive "$top/tests/fixtures/archives/$x/capture.hrr")
	done
	HRR_BIN=$bin bash "$top/examples/try.sh" sweep --label fresh --image "hrr-sim:${HRR_IMAGE_TAG:-dev}" \
		"${archives[@]}" --workdir "$w/wd" --db "$w/h.sqlite" --known-issues "$tmp/known.yaml" \
		--timeout 20 --jobs 1 --gpus 0 >"$w/out/sweep.stdout" 2>"$w/out/sweep.stderr"
	echo "exit $?" >>"$w/out/sweep.stdout"
	f=$(echo "$w"/wd/sweeps/*)
	cp "$f"/summary.md "$f"/summary.json "$f"/report.html "$f"/junit.xml "$f"/results.jsonl "$w/out/"
	local c r # each case's findings, named by the case (its fixture's folder)
	jq -r '[.case, .run_dir] | @tsv' "$f/results.jsonl" | while IFS=$'\t' read -r c r; do
		cp "$f/$r/finding.json" "$w/out/${c%%/*}.finding.json" 2>/dev/null
		cp "$f/$r/finding.md" "$w/out/${c%%/*}.finding.md" 2>/dev/null
	done
	"$bin" history --label fresh --db "$w/h.sqlite" --format json >"$w/out/history.json" 2>&1
	"$bin" history signatures --label fresh --db "$w/h.sqlite" >"$w/out/signatures.md" 2>&1
	find "$w/out" -type f -exec sed -i -E -e "s|$w|SIDE|g" \
		-e 's/fresh-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}/SWEEP/g' -e 's/[0-9]{8}T[0-9]{6}Z-[a-z0-9]{6}/RUN/g' \
		-e 's/("duration_s"|"finished"|"started"|"wall_s"):[[:space:]]*[0-9.e+-]+/\1: N/g' \
		-e 's/time="[0-9.]+"/time="N"/g' -e 's/ [0-9]+\.[0-9]+ ?s\b/ N s/g' -e 's/[0-9a-f]{64}/HEX64/g' \
		-e '/runtime_libraries|^\|  \| `\/opt\/rocm/d' {} +
	# A results line carries the signature, not the known-issue mark (the
	# history marks it at the import): lines of builds before that had it.
	sed -i -E 's/"known":(null|\{[^}]*\})/"known":-/' "$w/out/results.jsonl"
}

run old "$old"
run new "$new"
if [ "${OUTPUTS_FRESH:-0}" = 1 ]; then
	fresh old "$old"
	fresh new "$new"
	diff -r "$tmp/old/fresh/out" "$tmp/new/fresh/out" >"$tmp/diff-fresh" || {
		echo "outputs: the fresh sweep's outputs DIFFER:" >&2
		head -60 "$tmp/diff-fresh" >&2
		exit 1
	}
	echo "outputs: fresh sweep: same: $(find "$tmp/old/fresh/out" -type f | wc -l) files"
fi
if diff -r "$tmp/old/out" "$tmp/new/out" >"$tmp/diff"; then
	echo "outputs: same: $(find "$tmp/old/out" -type f | wc -l) files over $nights nights of $cases cases"
	exit 0
fi
echo "outputs: DIFFERENT ($(grep -c '^diff' "$tmp/diff") files):" >&2
head -60 "$tmp/diff" >&2
exit 1
