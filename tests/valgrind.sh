#!/usr/bin/env bash
# The integration path under valgrind: a replay with a cold cache (image
# probes, pull-free), a replay stopped by the watchdog, and analyze. Any
# leak or invalid access fails.
set -euo pipefail
bin=${1:?usage: tests/valgrind.sh path/to/hrr-docker-replay}
top=$(cd "$(dirname "$0")/.." && pwd)
vg=(valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --error-exitcode=99)
# shellcheck source=tests/fake-host.sh
. "$top/tests/fake-host.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fake_host_devices "$tmp/dev"
common=(--image hrr-sim:${HRR_IMAGE_TAG:-dev} --sysfs-root "$FAKE_HOST_SYSFS"
	--device-root "$tmp/dev" --workdir "$tmp/work" -q)

expect() { # code what command...
	local want=$1 what=$2 got=0
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" || got=$?
	if [ "$got" != "$want" ]; then
		echo "valgrind: $what: exit $got, want $want" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	echo "valgrind: $what: clean (exit $got)"
}

expect 0 "replay, cold cache" "${vg[@]}" "$bin" "${common[@]}" \
	--archive "$top/examples/capture.hrr"
expect 1 "replay stopped by --timeout" "${vg[@]}" "$bin" "${common[@]}" \
	--archive "$top/tests/fixtures/archives/hang/capture.hrr" --timeout 3 --stop-grace 1
expect 0 "analyze" "${vg[@]}" "$bin" analyze --log "$top/examples/sample-replay.log" \
	--archive "$top/tests/fixtures/archives/maf-read-only/capture.hrr"
