#!/usr/bin/env bash
# Runs the suites built with -fsanitize=address,undefined and fails on any
# sanitizer report. Criterion runs each test in a forked worker, and a leak
# found when a worker exits is printed without failing that test: so the
# output is searched as well as the exit codes checked.
#
# One report is not ours: Criterion's own runner process (Debian's
# libcriterion 2.4.1) sometimes leaks one 48-byte block at exit when tests
# run with --jobs 2, with every frame above the allocator inside
# libcriterion. A leak block whose frames are all the allocator or
# libcriterion is listed but not counted; any frame of ours counts.
set -uo pipefail
build=${1:-build-asan}
logs=$build/logs
mkdir -p "$logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# A leak is judged from the reports below, not from the exit code
# LeakSanitizer would give a process (it would fail the run on Criterion's
# own leak too); test failures still fail it.
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=0}
status=0

# Reports in a log, less leak blocks that lie wholly inside Criterion.
reports() {
	awk '
	/ERROR: LeakSanitizer/ { next }
	/^(Direct|Indirect) leak of / { inblock = 1; ours = 0; head = FILENAME ":" FNR ": " $0; next }
	inblock && /^ *#[0-9]+ / {
		if ($0 !~ /asan_malloc_linux|libcriterion\.so/) ours = 1
		next
	}
	inblock {
		if (ours) print head; else print "(not counted, inside libcriterion) " head > "/dev/stderr"
		inblock = 0
	}
	/ERROR: AddressSanitizer|runtime error:/ { print FILENAME ":" FNR ": " $0 }
	END { if (inblock && ours) print head }
	' "$@"
}

"$build/tests/unit" --jobs 2 2>&1 | tee "$logs/unit.log" || status=1
HRR_BIN=$(cd "$build" && pwd)/hrr-docker-replay \
	bash "$(dirname "$0")/integration.sh" "$build/tests/integration" 2>&1 |
	tee "$logs/integration.log" || status=1

found=$(reports "$logs"/*.log)
if [ -n "$found" ]; then
	printf '%s\n' "$found"
	echo "sanitizers: reports above (logs in $logs)" >&2
	status=1
else
	echo "sanitizers: no AddressSanitizer, LeakSanitizer or UBSan report"
fi
exit $status
