#!/usr/bin/env bash
# Replays the bundled example capture in the simulator image and prints the
# finding. On a machine without an AMD GPU (like CI), a fixture KFD topology
# and fake device nodes stand in for the GPU; the simulator needs no more.
# Usage: examples/demo.sh [path/to/hrr-docker-replay] [extra options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
bin=${1:-$top/build/hrr-docker-replay}
[ $# -gt 0 ] && shift

args=()
if [ ! -d "${HRR_SYSFS_ROOT:-/sys}/class/kfd/kfd/topology/nodes" ]; then
	echo "demo: no AMD GPU on this host: using tests/fixtures/sysfs/mi300x-2 and fake device nodes" >&2
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/dev/dri"
	mknod "$tmp/dev/kfd" c 1 3
	mknod "$tmp/dev/dri/renderD128" c 226 128
	mknod "$tmp/dev/dri/renderD136" c 226 136
	args+=(--sysfs-root "$top/tests/fixtures/sysfs/mi300x-2" --device-root "$tmp/dev")
fi
# HRR_DEMO_WRAPPER runs the binary under a tool (valgrind in CI).
${HRR_DEMO_WRAPPER:-} "$bin" --image hrr-sim:dev --archive "$here/capture.hrr" \
	${args[@]+"${args[@]}"} "$@"
