# shellcheck shell=bash
# The fake two-GPU host, for a machine without an AMD GPU (sourced, not
# run, by examples/try.sh, tests/valgrind.sh and tests/bench/lib.sh):
#   FAKE_HOST_SYSFS         the KFD topology of two MI300X (--sysfs-root)
#   fake_host_devices DIR   makes its device nodes under DIR (--device-root):
#                           DIR/kfd and DIR/dri/renderD128, renderD136 (the
#                           topology's drm_render_minor). kfd gets /dev/null's
#                           numbers, the render nodes their own: nothing opens
#                           them but the simulator, which only checks that
#                           they are there. Needs root; fails otherwise.

# shellcheck disable=SC2034 # read by the scripts that source this
FAKE_HOST_SYSFS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/fixtures/sysfs/mi300x-2

fake_host_devices() {
	mkdir -p "$1/dri" &&
		mknod "$1/kfd" c 1 3 &&
		mknod "$1/dri/renderD128" c 226 128 &&
		mknod "$1/dri/renderD136" c 226 136
}
