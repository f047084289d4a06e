#!/usr/bin/env bash
# Makes the fake GPU device root the cluster and engine tests share:
#   <root>/kfd                  char 1,3 (a stand-in: no KFD driver here)
#   <root>/dri/renderD128..131  char 226,128..131
# matching the KFD topology fixture tests/fixtures/sysfs/mi300x-4 (node i+1
# has drm_render_minor 128+i). The nodes belong to group hrr-render, mode
# 0660, standing for a site's render/video group: a rootless engine user in
# that group can pass them to containers. Prints the root. Idempotent.
set -euo pipefail

STATE=${HRR_TEST_STATE:-/var/lib/hrr-docker-replay-test}
ROOT=${HRR_FAKE_GPU_ROOT:-$STATE/fake-gpu/dev}
GROUP=hrr-render

getent group "$GROUP" >/dev/null || groupadd --system "$GROUP"
mkdir -p "$ROOT/dri"
[ -c "$ROOT/kfd" ] || mknod "$ROOT/kfd" c 1 3
for i in 0 1 2 3; do
	[ -c "$ROOT/dri/renderD$((128 + i))" ] || mknod "$ROOT/dri/renderD$((128 + i))" c 226 $((128 + i))
done
chgrp "$GROUP" "$ROOT/kfd" "$ROOT"/dri/renderD*
chmod 0660 "$ROOT/kfd" "$ROOT"/dri/renderD*
# every directory on the way must be searchable by the rootless user
d=$ROOT
while [ "$d" != / ]; do
	chmod o+x "$d"
	d=$(dirname "$d")
done
printf '%s\n' "$ROOT"
