#!/usr/bin/env bash
# Runs the integration suites in parallel shards, each a process of its
# own: every test already has its own scratch workdir, lock directory and
# (for the fault suites) private engine, so shards share only dockerd and
# the registries. Suites that wait on timeouts are spread so the shards
# end together; a suite not named below runs in the last shard.
#
#   bash tests/integration.sh path/to/integration [criterion args...]
#
# HRR_BIN must name the tool. HRR_TEST_SHARDS=1 runs everything in one
# process (for a quiet machine or a debugger). Prints each shard's output
# as it finishes, then one closing line with the totals.
set -uo pipefail
integration=${1:?usage: tests/integration.sh path/to/integration [criterion args...]}
shift
: "${HRR_BIN:?HRR_BIN must name the hrr-docker-replay binary}"
export HRR_BIN

shard_a="sweep slurm_sweep slurm_cluster"
shard_b="run run_diagnose faults fault_infra harden real_logs"

suites=$("$integration" --list 2>/dev/null | sed -n 's/^\([a-z0-9_]*\): [0-9]* tests\{0,1\}$/\1/p')
[ -n "$suites" ] || { echo "integration: $integration lists no suites" >&2; exit 1; }
shard_c=""
for s in $suites; do
	case " $shard_a $shard_b " in *" $s "*) ;; *) shard_c+="$s " ;; esac
done

pattern() { # suites... -> @(a|b|c)/*
	local IFS='|'
	printf '@(%s)/*' "$*"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${HRR_TEST_SHARDS:-3}" = 1 ]; then
	groups=("$suites")
else
	groups=("$shard_a" "$shard_b" "$shard_c")
fi

pids=()
for i in "${!groups[@]}"; do
	# shellcheck disable=SC2086
	(
		start=$SECONDS
		"$integration" --jobs 1 --filter "$(pattern ${groups[$i]})" "$@" >"$tmp/$i.log" 2>&1
		rc=$?
		echo $((SECONDS - start)) >"$tmp/$i.seconds"
		exit $rc
	) &
	pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || status=1
	echo "---- integration shard $((i + 1)) of ${#pids[@]} ($(cat "$tmp/$i.seconds")s): ${groups[$i]}"
	cat "$tmp/$i.log"
done

# Criterion's closing lines, added up.
awk '/Synthesis: Tested:/ { for (i = 1; i <= NF; i++) {
	if ($i == "Passing:") p += $(i + 1); if ($i == "Failing:") f += $(i + 1)
	if ($i == "Crashing:") c += $(i + 1) } }
     END { printf "integration: %d passed, %d failed\n", p, f + c }' "$tmp"/*.log
exit $status
