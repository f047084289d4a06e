#!/usr/bin/env bash
# Replays the bundled example capture in the simulator image and prints the
# finding (the image of `make images`: hrr-sim:$HRR_IMAGE_TAG, default dev).
# On a machine without an AMD GPU (like CI) it runs on the fake
# host of examples/try.sh (two MI300X from the test fixtures).
# Usage: examples/demo.sh [path/to/hrr-docker-replay] [extra options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
bin=${1:-$top/build/hrr-docker-replay}
[ $# -gt 0 ] && shift

if [ ! -d "${HRR_SYSFS_ROOT:-/sys}/class/kfd/kfd/topology/nodes" ]; then
	echo "demo: no AMD GPU on this host: using the fake host of examples/try.sh" >&2
	HRR_BIN=$bin exec bash "$here/try.sh" --image "hrr-sim:${HRR_IMAGE_TAG:-dev}" --archive "$here/capture.hrr" "$@"
fi
# HRR_DEMO_WRAPPER runs the binary under a tool (valgrind in CI).
${HRR_DEMO_WRAPPER:-} "$bin" --image "hrr-sim:${HRR_IMAGE_TAG:-dev}" --archive "$here/capture.hrr" "$@"
