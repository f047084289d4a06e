#!/usr/bin/env bash
# Builds the root file systems of the engine matrix (docs/engines.md) and
# caches each as an image of the host's dockerd, hrr-engine-root:<suite>:
# Debian <suite> from the configured mirror by debootstrap, with docker.io
# and podman from that suite. A cached image is reused; a fresh machine
# builds it (a few minutes each, both suites at once). A suite whose root
# cannot be built (unstable moves) is reported SKIPPED with the reason in
# $STATE/engines/<suite>.skipped, and the others go on.
#
#   tests/setup-engines.sh [SUITE...]        (default: trixie sid)
#
# The package list below is the cache's key.
# HRR_DEBIAN_MIRROR (default http://deb.debian.org/debian) names the mirror;
# HRR_ENGINE_REBUILD=1 builds again over a cached image.
set -euo pipefail

STATE=${HRR_TEST_STATE:-/var/lib/hrr-docker-replay-test}
MIRROR=${HRR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
WORK=$STATE/engines
SUITES=("$@")
[ ${#SUITES[@]} -gt 0 ] || SUITES=(trixie sid)
# The engines and what they need at run time in a container with no
# systemd: iptables for dockerd's own bridge (inside --network none),
# crun and conmon for Podman, curl for the probes of the matrix script.
PACKAGES=docker.io,podman,crun,conmon,catatonit,iptables,curl,ca-certificates,procps

SETUP_NAME=setup-engines
. "$(dirname "$0")/setup-lib.sh"

require_root "debootstrap and image imports need root"
if ! command -v debootstrap >/dev/null || ! command -v capsh >/dev/null; then
	say "installing debootstrap and libcap2-bin"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap libcap2-bin >/dev/null
fi
require_cmds "docker.io" docker
mkdir -p "$WORK"

# build SUITE: the root in $WORK/<suite>.root, imported, then removed.
build() {
	local suite=$1 dir=$WORK/$1.root log=$WORK/$1.log image=hrr-engine-root:$1
	rm -f "$WORK/$suite.skipped"
	# The package list is the cache key: a changed list builds again.
	if [ "${HRR_ENGINE_REBUILD:-0}" != 1 ] &&
		[ "$(docker image inspect -f '{{index .Config.Labels "hrr.packages"}}' "$image" 2>/dev/null)" = "$PACKAGES" ]; then
		say "$image cached"
		return 0
	fi
	rm -rf "$dir"
	say "building $image from $MIRROR (log: $log)"
	# minbase, then apt inside: debootstrap's own resolver does not follow
	# alternatives and virtual packages, which docker.io and podman need.
	if ! { debootstrap --variant=minbase "$suite" "$dir" "$MIRROR" &&
		printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d" &&
		chmod 755 "$dir/usr/sbin/policy-rc.d" &&
		chroot "$dir" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
			--no-install-recommends ${PACKAGES//,/ } &&
		chroot "$dir" apt-get clean &&
		chroot "$dir" sh -c 'apt-cache policy docker.io podman' >"$WORK/$suite.policy"; } >"$log" 2>&1; then
		local why
		why=$(grep -E '^(E:|W: Failure|E: )|Unable|Depends' "$log" | tail -3 | tr '\n' ' ')
		echo "root of $suite not built: ${why:-see $log}" >"$WORK/$suite.skipped"
		say "SKIPPED $suite: $(cat "$WORK/$suite.skipped")"
		rm -rf "$dir"
		return 0
	fi
	rm -f "$dir/usr/sbin/policy-rc.d"
	tar -C "$dir" -c . | docker import -c 'CMD ["/bin/bash"]' -c "LABEL hrr.packages=$PACKAGES" - "$image" >/dev/null
	rm -rf "$dir"
	say "$image built: $(grep -A1 -E '^(docker.io|podman):' "$WORK/$suite.policy" | grep Installed | tr -s ' ' | tr '\n' ' ')"
}

pids=()
for s in "${SUITES[@]}"; do
	build "$s" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit $rc
