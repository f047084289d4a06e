#!/usr/bin/env bash
# Runs the suites built with -fsanitize=address,undefined and fails on any
# sanitizer report. Criterion runs each test in a forked worker, and a leak
# found when a worker exits is printed without failing that test: so the
# output is searched as well as the exit codes checked.
set -uo pipefail
build=${1:-build-asan}
logs=$build/logs
mkdir -p "$logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0

"$build/tests/unit" --jobs 2 2>&1 | tee "$logs/unit.log" || status=1
HRR_BIN=$(cd "$build" && pwd)/hrr-docker-replay \
	"$build/tests/integration" --jobs 1 2>&1 | tee "$logs/integration.log" || status=1

if grep -nE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$logs"/*.log; then
	echo "sanitizers: reports above (logs in $logs)" >&2
	status=1
else
	echo "sanitizers: no AddressSanitizer, LeakSanitizer or UBSan report"
fi
exit $status
