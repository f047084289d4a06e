#!/usr/bin/env bash
# Runs hrr-docker-replay on a fake GPU host, for a machine without an AMD
# GPU: the KFD topology of two MI300X from tests/fixtures/sysfs/mi300x-2 and
# device nodes made in a temporary directory (removed at exit). The
# simulator image (hrr-sim:dev, `make images`) needs nothing more.
#
#   examples/try.sh [run|preflight|sweep] [options...]
#   examples/try.sh --image hrr-sim:dev --archive examples/capture.hrr --gpu 1
#   examples/try.sh preflight --image hrr-sim:dev --archive examples/capture.hrr
#   examples/try.sh sweep --label try --image hrr-sim:dev --archive examples/capture.hrr \
#       --archive tests/fixtures/archives/maf/capture.hrr
#
# Every argument goes to hrr-docker-replay (HRR_BIN, default
# build/hrr-docker-replay); --sysfs-root and --device-root point at the fake
# host. Making device nodes needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
bin=${HRR_BIN:-$top/build/hrr-docker-replay}

# shellcheck source=tests/fake-host.sh
. "$top/tests/fake-host.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fake_host_devices "$tmp/dev"
fake=(--sysfs-root "$FAKE_HOST_SYSFS" --device-root "$tmp/dev")

cmd=()
case ${1:-} in
run | preflight | sweep) cmd=("$1"); shift ;;
esac
# HRR_DEMO_WRAPPER runs the binary under a tool (valgrind in CI).
${HRR_DEMO_WRAPPER:-} "$bin" ${cmd[@]+"${cmd[@]}"} "${fake[@]}" "$@"
