#!/usr/bin/env bash
# README.md's two commands on a fresh Debian 12, as root, with the clone
# under /root: a debootstrap minbase root (cached as the image
# hrr-fresh-root:bookworm), run in a container of the host's dockerd with
# the engine matrix's settings (tests/engine-lib.sh: every capability of
# the bounding set, no seccomp or AppArmor, the host's cgroups writable,
# every device allowed), /proc unmasked (systempaths=unconfined: rootless
# Podman's runtime mounts a proc in a user namespace, which the kernel
# refuses under masked paths), its own network namespace on the default
# bridge (so its dockerd's bridge touches only that namespace), its own
# empty /var/lib/docker, /var/lib/containers, /home, /tmp and test state on
# the host's file system (overlay inside works there, as on a machine's
# disk), /dev/fuse, a 1 GB /dev/shm, a host name of its own (its Slurm's
# cgroups are slurm_<node>) and `sleep` as PID 1 (an init that reaps
# nothing, as in a CI container without --init). Inside: `apt-get install
# make git`, a clone of this checkout's HEAD (a git bundle) in /root, then
# `make demo` and `make check`. Root on the host; not in .ci/run (it
# takes most of an hour).
#
#   tests/fresh-debian.sh [STEP...]   steps: start demo check remove
#                                     (default: all four in that order)
#
# Outputs in $HRR_FRESH_DIR/out/<step>.log (default
# /var/lib/hrr-fresh-debian), each ending with its exit code and wall time.
set -euo pipefail

DIR=${HRR_FRESH_DIR:-/var/lib/hrr-fresh-debian}
MIRROR=${HRR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
TAG=${HRR_IMAGE_TAG:-dev}
NAME=hrr-fresh-$TAG
IMAGE=hrr-fresh-root:bookworm
RUNDIR=$DIR/run-$TAG
SRC=$(cd "$(dirname "$0")/.." && pwd)
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(start demo check remove)

SETUP_NAME=fresh-debian
. "$SRC/tests/setup-lib.sh"
. "$SRC/tests/engine-lib.sh"
require_root "debootstrap, image imports and the container's mounts need root"
require_cmds "debootstrap, libcap2-bin and docker.io" debootstrap capsh docker

root_image() {
	docker image inspect "$IMAGE" >/dev/null 2>&1 && return 0
	say "building $IMAGE from $MIRROR (log: $DIR/debootstrap.log)"
	rm -rf "$DIR/root"
	mkdir -p "$DIR"
	debootstrap --variant=minbase bookworm "$DIR/root" "$MIRROR" >"$DIR/debootstrap.log" 2>&1 \
		|| { tail -5 "$DIR/debootstrap.log" >&2; exit 1; }
	tar -C "$DIR/root" -c . | docker import -c 'CMD ["/bin/bash"]' - "$IMAGE" >/dev/null
	rm -rf "$DIR/root"
}

start() {
	root_image
	docker rm -f "$NAME" >/dev/null 2>&1 || true
	rm -rf "$RUNDIR"
	mkdir -p "$RUNDIR"/{docker,containers,home,tmp,state,src} "$DIR/out"
	chmod 1777 "$RUNDIR/tmp"
	git -C "$SRC" bundle create "$RUNDIR/src/hrr-docker-replay.bundle" HEAD 2>/dev/null
	# shellcheck disable=SC2046
	docker run -d --name "$NAME" --hostname fresh-deb --cap-drop ALL $(caps) \
		--security-opt seccomp=unconfined --security-opt apparmor=unconfined \
		--cgroupns=host -v /sys/fs/cgroup:/sys/fs/cgroup:rw --device-cgroup-rule 'a *:* rwm' \
		--security-opt systempaths=unconfined --device /dev/fuse --tmpfs /run:exec,mode=755 --shm-size 1g \
		-v "$RUNDIR/docker:/var/lib/docker" -v "$RUNDIR/containers:/var/lib/containers" \
		-v "$RUNDIR/home:/home" -v "$RUNDIR/tmp:/tmp" \
		-v "$RUNDIR/state:/var/lib/hrr-docker-replay-test" -v "$RUNDIR/src:/src:ro" \
		"$IMAGE" sleep infinity >/dev/null
	# What a person has before the README: make and git, then the clone.
	WD=/root step start bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make git >/dev/null &&
		git -c advice.detachedHead=false clone -q /src/hrr-docker-replay.bundle /root/hrr-docker-replay &&
		git -C /root/hrr-docker-replay log --oneline -1'
}

# step NAME COMMAND...: COMMAND in the container, its output and rc in out/NAME.log.
step() {
	local name=$1 t0=$SECONDS rc=0
	shift
	say "$name: running (output: $DIR/out/$name.log)"
	docker exec -w "${WD:-/root/hrr-docker-replay}" "$NAME" nice -n 10 "$@" >"$DIR/out/$name.log" 2>&1 || rc=$?
	echo "fresh-debian: $name: rc=$rc, $((SECONDS - t0)) s" | tee -a "$DIR/out/$name.log" >&2
	return $rc
}

rc=0
for s in "${STEPS[@]}"; do
	case $s in
	start) start ;;
	demo) step demo make demo || rc=1 ;;
	check) step check make check || rc=1 ;;
	remove) docker rm -f "$NAME" >/dev/null 2>&1 || true; rm -rf "$RUNDIR" ;;
	*) say "unknown step $s (start demo check remove)"; exit 2 ;;
	esac
done
exit $rc
