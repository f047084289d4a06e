#!/usr/bin/env bash
# bench-image-budget: `sweep --image-budget` at the size of real layers
# (docs/sweep.md "--image-budget"), against the engine and the loopback
# registry of tests/setup.sh (127.0.0.1:5000):
#   * 6 images, each the simulator image plus a layer of its own of about
#     40 MB of random bytes (incompressible: the registry's compressed sizes
#     are the real ones), pushed under tags of this run; the first pulled
#     again beforehand, so it is the user's;
#   * one sweep over 3 passing cases of each, on 4 fake GPUs, under a budget
#     of about 2.3 images (each image's full size, the base in it);
#   * the engine's images of this run's repository polled every 0.2 s:
#     the most this tool pulled at once and their disk, each layer once.
# Unlike the other benchmarks this one gates: it exits 1 when a promise of
# the budget breaks (a case not run exactly once, the pulled images over the
# budget or more than 2 at once, the user's image gone after the sweep or
# after `gc --pulled-images`, what stays at the end over the budget). It
# removes what it made: its images, its tags' manifests and layer links in
# the registry (the registry's own garbage collection, not run here, frees
# their blobs), its temp dir, whose lock directory holds its record.
# Environment: BENCH_IMAGE_MB (each image's own layer, default 40),
# BENCH_IMAGE_REGISTRY (default 127.0.0.1:5000).
# shellcheck source=tests/bench/lib.sh
source "$(dirname "$0")/lib.sh"

bench_init bench-image-budget
MB=${BENCH_IMAGE_MB:-40}
REGISTRY=${BENCH_IMAGE_REGISTRY:-127.0.0.1:5000}
N_IMAGES=6
N_CASES=3
REPO=$REGISTRY/hrr-bench-budget-$$
TAG_STEM=r$(date +%s)
bench_banner "sweep --image-budget over $N_IMAGES images of ${MB} MB layers each"
curl -s --max-time 2 -o /dev/null "http://$REGISTRY/v2/" || bench_skip "no registry answers at $REGISTRY (bash tests/setup.sh starts one)"
[ -n "$SOCK" ] || bench_skip "DOCKER_HOST is not a unix socket: the poll reads the engine's API"
for m in 129 130 131; do # tests/fixtures/sysfs/mi300x-4: render minors 128..131
	mknod "$DEV/dri/renderD$m" c 226 "$m" 2>/dev/null || bench_skip "cannot mknod fake GPU nodes"
done
SYSFS4=$BENCH_ROOT/tests/fixtures/sysfs/mi300x-4
# A lock directory of its own: the record of pulled images and the holds are
# this run's only, so `gc --pulled-images` touches nothing else of the host.
export HRR_LOCK_DIR=$BENCH_TMP/locks
WATCH_PID=
T0=$(now)

# The manifests of this run's tags and the layer links they made.
registry_forget() {
	local ref digest name=${REPO#"$REGISTRY"/} accept

	accept='application/vnd.docker.distribution.manifest.v2+json'
	for ref in "${PUSHED[@]}"; do
		digest=${ref#*@}
		curl -sf -H "Accept: $accept" "http://$REGISTRY/v2/$name/manifests/$digest" |
			jq -r '.config.digest, .layers[].digest' | while read -r blob; do
			curl -sf -o /dev/null -X DELETE "http://$REGISTRY/v2/$name/blobs/$blob" || true
		done
		curl -sf -o /dev/null -X DELETE "http://$REGISTRY/v2/$name/manifests/$digest" || true
	done
}

budget_cleanup() {
	local ids

	[ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null
	ids=$(docker image ls -q --no-trunc --filter "label=hrr-bench.owner=$BENCH_OWNER" 2>/dev/null | sort -u || true)
	if [ -n "$ids" ]; then
		# shellcheck disable=SC2086 # one image id per word
		docker rmi -f $ids >/dev/null 2>&1 || true
	fi
	registry_forget 2>/dev/null || true
	bench_cleanup
}
trap budget_cleanup EXIT
PUSHED=()

# The simulator image plus MB of random bytes, labelled as this run's.
build_image() {
	local ref=$1 ctx=$BENCH_TMP/ctx-$2

	mkdir -p "$ctx"
	head -c $((MB * 1024 * 1024)) /dev/urandom >"$ctx/blob"
	printf 'FROM %s\nLABEL hrr-bench.owner=%s\nCOPY blob /blob-%s\n' "$IMAGE" "$BENCH_OWNER" "$2" >"$ctx/Dockerfile"
	DOCKER_BUILDKIT=0 docker build -q -t "$ref" "$ctx" >/dev/null 2>"$BENCH_TMP/build.err" ||
		bench_die "building $ref: $(tail -3 "$BENCH_TMP/build.err")"
	rm -rf "$ctx"
}

REFS=()
BASE=$(docker image inspect -f '{{.Size}}' "$IMAGE")
S=$(now)
for ((i = 1; i <= N_IMAGES; i++)); do
	ref=$REPO:$TAG_STEM-i$i
	build_image "$ref" "$i"
	docker push -q "$ref" >/dev/null 2>"$BENCH_TMP/push.err" || bench_die "pushing $ref: $(tail -3 "$BENCH_TMP/push.err")"
	PUSHED+=("$(docker image inspect -f '{{index .RepoDigests 0}}' "$ref")")
	SIZE[i]=$(docker image inspect -f '{{.Size}}' "$ref")
	docker rmi "$ref" >/dev/null
	REFS+=("$ref")
done
# The user's image: on the engine before the sweep, pulled by someone else.
docker pull -q "${REFS[0]}" >/dev/null 2>&1 || bench_die "pulling ${REFS[0]}"
USER_ID=$(docker image inspect -f '{{.Id}}' "${REFS[0]}")
# About 2.3 images: two pulled images (the base once) and the next one's
# manifest fit, three do not.
BUDGET=$(awk -v s="${SIZE[2]}" 'BEGIN { printf "%d", s * 2.3 }')
printf 'setup: %d images of %s bytes (simulator base %s, own layer %d MiB, random), pushed and one pulled as the user'"'"'s: %.1f s\n' \
	"$N_IMAGES" "${SIZE[2]}" "$BASE" "$MB" "$(elapsed "$S" "$(now)")"

for ((k = 0; k < N_CASES; k++)); do
	mkdir -p "$BENCH_TMP/lib/c$k"
	cp -r "$PASS_ARCHIVE" "$BENCH_TMP/lib/c$k/"
done

# poll_once: the engine's list of this run's repository, one JSON array on
# a line; poll_pulled: one every 0.2 s, on a clock (read afterwards by
# pulled_at, so the poll stays light).
poll_once() {
	local out

	out=$(curl -sf --unix-socket "$SOCK" "http://localhost/images/json?filters=$FILTER") || out='[]'
	printf '%s\n' "$out"
}
poll_pulled() {
	local next=${EPOCHREALTIME/./} us

	while :; do
		poll_once
		next=$((next + 200000))
		us=${EPOCHREALTIME/./}
		((next > us)) || next=$us
		sleep "$(printf '0.%06d' $((next - us)))"
	done
}
FILTER=$(jq -rn --arg r "$REPO" '{reference: [$r]} | @uri')

# pulled_at < poll lines: "count bytes" a line, the images but the user's
# and their disk with the shared simulator base counted once (what the
# budget counts: each layer once).
pulled_at() {
	jq -r --arg user "$USER_ID" --argjson base "$BASE" '
		[.[] | select(.Id != $user)] as $p
		| "\($p | length) \(if ($p | length) > 0 then $base + ([$p[].Size - $base] | add) else 0 end)"'
}
ARGS=()
for ref in "${REFS[@]}"; do ARGS+=(--image "$ref"); done
poll_pulled >"$BENCH_TMP/poll" &
WATCH_PID=$!
S=$(now)
"$TIMEIT" -o "$BENCH_TMP/sweep.time" -- "$BIN" sweep "${ARGS[@]}" --archive "$BENCH_TMP/lib" \
	--image-budget "$BUDGET" --label bench-budget --workdir "$BENCH_TMP/wd" --db "$BENCH_TMP/h.sqlite" \
	--sysfs-root "$SYSFS4" --device-root "$DEV" --timeout 120 -q \
	>"$BENCH_TMP/sweep.out" 2>"$BENCH_TMP/sweep.err" || true
W_SWEEP=$(elapsed "$S" "$(now)")
sleep 0.3
kill "$WATCH_PID" 2>/dev/null
wait "$WATCH_PID" 2>/dev/null || true
WATCH_PID=
read -r _ RSS ST _ <"$BENCH_TMP/sweep.time"
[ "$ST" = 0 ] || sed 's/^/  sweep: /' "$BENCH_TMP/sweep.err" | tail -5 >&2
pulled_at <"$BENCH_TMP/poll" >"$BENCH_TMP/pulled"
read -r MOST PEAK POLLS < <(awk '{ if ($1 > m) m = $1; if ($2 > p) p = $2; n++ } END { print m + 0, p + 0, n + 0 }' "$BENCH_TMP/pulled")

FAILED=()
promise() { # promise OK TEXT
	if [ "$1" = 0 ]; then printf '  ok   %s\n' "$2"; else printf '  FAIL %s\n' "$2"; FAILED+=("$2"); fi
}
check() { "$@" >/dev/null 2>&1; echo $?; }

SUMMARY=
for f in "$BENCH_TMP"/wd/sweeps/*/summary.json; do [ -e "$f" ] && SUMMARY=$f; done
[ -n "$SUMMARY" ] || { tail -5 "$BENCH_TMP/sweep.err" >&2; bench_die "the sweep wrote no summary.json (exit $ST)"; }
read -r CASES ONCE PASSED < <(jq -r '.cases | "\(length) \([.[] | select(.attempts == 1)] | length) \([.[] | select(.outcome == "PASS")] | length)"' "$SUMMARY")
TOOL_PEAK=$(jq -r '.image_peak // 0' "$SUMMARY")
printf 'sweep: %d cases over %d images on 4 fake GPUs, budget %s bytes (%.1f MiB): %.1f s wall, peak RSS %s KiB, exit %s; %d polls, one per %.2f s\n' \
	"$CASES" "$N_IMAGES" "$BUDGET" "$(awk -v b="$BUDGET" 'BEGIN { print b / 1048576 }')" "$W_SWEEP" "$RSS" "$ST" "$POLLS" \
	"$(ratio "$W_SWEEP" "$POLLS")"
jq -r '.images[] | "  \(.ref | sub(".*:"; "")): \(if .removed then "pulled, removed" elif .pulled then "pulled, kept (\(.kept))" else "kept (\(.kept // "-"))" end)"' "$SUMMARY"
printf 'peak of pulled images: %s bytes (%.1f MiB) polled, %s bytes by the sweep'"'"'s own count, against the budget %s: %s; most at once: %d\n' \
	"$PEAK" "$(awk -v b="$PEAK" 'BEGIN { print b / 1048576 }')" "$TOOL_PEAK" "$BUDGET" "$(ratio "$PEAK" "$BUDGET")" "$MOST"
read -r END_N END_BYTES < <(poll_once | pulled_at)

promise "$(check test "$ST" = 0)" "the sweep passed (exit $ST)"
promise "$(check test "$CASES" = $((N_IMAGES * N_CASES)) -a "$ONCE" = "$CASES" -a "$PASSED" = "$CASES")" \
	"every case ran once: $CASES cases, $ONCE with one attempt, $PASSED PASS"
promise "$(check le "$(printf '%s\n' "$PEAK" "$TOOL_PEAK" | sort -g | tail -1)" "$BUDGET")" \
	"the pulled images never took more than the budget together (polled $PEAK, the sweep's count $TOOL_PEAK <= $BUDGET)"
promise "$(check test "$MOST" -le 2 -a "$MOST" -ge 1)" "at most 2 pulled images at once ($MOST)"
promise "$(check docker image inspect "$USER_ID")" "the user's image is there after the sweep"
promise "$(check le "${END_BYTES:-0}" "$BUDGET")" "what the sweep pulled at the end fits the budget (${END_N:-0} images, ${END_BYTES:-0} bytes)"
"$BIN" gc --pulled-images >"$BENCH_TMP/gc.out" 2>"$BENCH_TMP/gc.err" || bench_say "bench: gc --pulled-images: $(tail -2 "$BENCH_TMP/gc.err")"
LEFT=$(docker image ls -q --no-trunc --filter "reference=$REPO" | grep -vcxF "$USER_ID" || true)
promise "$(check test "$LEFT" = 0)" "gc --pulled-images removed what the sweep pulled ($LEFT left; $(grep -c '^removed' "$BENCH_TMP/gc.out" || true) removed)"
promise "$(check docker image inspect "$USER_ID")" "the user's image is there after gc --pulled-images"
printf 'total: %.1f s wall (setup, sweep, gc)\n' "$(elapsed "$T0" "$(now)")"
[ ${#FAILED[@]} -eq 0 ] || { printf '%s: %d promise(s) broken\n' "$BENCH_NAME" "${#FAILED[@]}"; exit 1; }
