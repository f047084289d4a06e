#!/usr/bin/env bash
# Brings up Podman's Docker-compatible API twice, for the engine tests that
# run against Podman as well as dockerd:
#   root      unix:///run/podman/podman.sock
#   rootless  unix:///run/user/<uid>/podman/podman.sock, served for the
#             test user $HRR_PODMAN_USER (default hrrpod), who has subuid/
#             subgid ranges and belongs to hrr-render, the group of the fake
#             GPU nodes (tests/setup-fake-gpus.sh)
# and loads the test images (hrr-*:$HRR_IMAGE_TAG, from dockerd) into both.
# No systemd or logind: the services are started directly, and the user's
# runtime directory is made here. Settings that work on a cgroup v1 host
# without systemd (cgroupfs, file events, crun, native overlay storage when
# the kernel allows it rootless, else vfs) are written to the configuration
# files each service reads (HRR_PODMAN_RUNTIME=runc picks runc over crun;
# HRR_PODMAN_KEEP_GROUPS=1, the default, makes the rootless service keep
# the user's groups in every container, as docs/engines.md tells a site to;
# 0 leaves it out). Idempotent: services that answer are left alone, but
# one this script started (its hrr-service.pid) is restarted when it does
# not run from / (an older set-up started it in the checkout; once that is
# removed, conmon cannot start a container) or cannot run a container of
# the test images; the test user's storage is reset when a failed start
# left it half-initialised (only that user's, and only with the
# storage.conf written here).
set -euo pipefail

STATE=${HRR_TEST_STATE:-/var/lib/hrr-docker-replay-test}
DIR=$STATE/podman
LOGS=$STATE/logs
USER_NAME=${HRR_PODMAN_USER:-hrrpod}
TAG=${HRR_IMAGE_TAG:-dev}
ROOT_SOCK=/run/podman/podman.sock
REGISTRIES=(127.0.0.1:5000 127.0.0.1:5001)

SETUP_NAME=setup-podman
. "$(dirname "$0")/setup-lib.sh"

require_root "a test user and two services are set up here"
require_cmds "podman, uidmap, catatonit and crun" podman newuidmap catatonit crun
mkdir -p "$DIR" "$LOGS" /run/podman

answers() { curl -sf --max-time 2 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1; }

# write_conf DIR: containers.conf and registries.conf for one service;
# CONF_CHANGED=1 when either changed (the service must restart to read it).
# The loopback test registries speak plain HTTP, which dockerd allows for
# 127.0.0.0/8 by itself and Podman only when told.
write_conf() {
	local d=$1 r f
	mkdir -p "$d"
	{
		echo "# Written by tests/setup-podman.sh."
		echo "[engine]"
		echo 'cgroup_manager = "cgroupfs"'
		echo 'events_logger = "file"'
		echo "runtime = \"$RUNTIME_OCI\""
		if [ "${2:-}" = root ] && ! has_cap_sys_resource; then
			# Root Podman gives containers nofile and nproc limits
			# of 1048576 unless told; without CAP_SYS_RESOURCE (a
			# container host) the runtime cannot set them.
			# The bounds are the service's own hard limits (Podman
			# lowers its nproc at start), read once it runs.
			local nofile nproc
			read -r nofile nproc 2>/dev/null <"$DIR/root/limits" \
				|| { nofile=$(ulimit -Hn); nproc=$(ulimit -Hu); }
			echo "[containers]"
			echo "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
		fi
		if [ "${2:-}" = keep-groups ]; then
			# what a rootless user sets so that containers keep the
			# user's groups, e.g. render (crun only)
			echo "[containers]"
			echo 'annotations = ["run.oci.keep_original_groups=1"]'
		fi
	} >"$d/containers.conf.new"
	{
		echo "# Written by tests/setup-podman.sh."
		for r in "${REGISTRIES[@]}"; do
			printf '[[registry]]\nlocation = "%s"\ninsecure = true\n' "$r"
		done
	} >"$d/registries.conf.new"
	CONF_CHANGED=0
	for f in containers.conf registries.conf; do
		if cmp -s "$d/$f.new" "$d/$f"; then
			rm "$d/$f.new"
		else
			mv "$d/$f.new" "$d/$f"
			CONF_CHANGED=1
		fi
	done
}

has_cap_sys_resource() { (( 0x$(sed -n 's/^CapEff:\t//p' /proc/self/status) >> 24 & 1 )); }

# not_from_root PIDFILE: the service of ours it names runs elsewhere than /.
not_from_root() {
	alive "$1" || return 1
	local cwd
	cwd=$(readlink "/proc/$(cat "$1")/cwd" || true)
	[ "$cwd" = / ] && return 1
	say "restarting the podman service $(cat "$1"): it runs in ${cwd:-an unreadable directory}, not /"
}

start_root() {
	local limits
	write_conf "$DIR/root" root
	if [ $CONF_CHANGED = 1 ] || not_from_root /run/podman/hrr-service.pid; then
		stop_pidfile /run/podman/hrr-service.pid
	fi
	if ! answers "$ROOT_SOCK"; then
		say "starting root podman service on $ROOT_SOCK (log: $LOGS/podman-root.log)"
		rm -f "$ROOT_SOCK"
		CONTAINERS_CONF=$DIR/root/containers.conf \
		CONTAINERS_REGISTRIES_CONF=$DIR/root/registries.conf \
			start_daemon "$LOGS/podman-root.log" podman system service --time=0 "unix://$ROOT_SOCK"
		echo $! >/run/podman/hrr-service.pid
		wait_for 30 "root podman service" answers "$ROOT_SOCK" \
			|| { tail -20 "$LOGS/podman-root.log" >&2; exit 1; }
	fi
	alive /run/podman/hrr-service.pid || return 0 # a service of the site's own
	limits=$(awk '/^Max open files/ {f = $5} /^Max processes/ {p = $4} END {print f, p}' \
		"/proc/$(cat /run/podman/hrr-service.pid)/limits")
	if [ "$limits" != "$(cat "$DIR/root/limits" 2>/dev/null)" ]; then
		echo "$limits" >"$DIR/root/limits"
		start_root
	fi
}

# The test user: subordinate ids for the user namespace, the render group
# of the fake GPUs, a runtime directory as logind would make it.
make_user() {
	getent group hrr-render >/dev/null || groupadd --system hrr-render
	if ! id "$USER_NAME" >/dev/null 2>&1; then
		say "creating test user $USER_NAME"
		useradd -m -s /bin/bash -G hrr-render "$USER_NAME"
	fi
	id -nG "$USER_NAME" | grep -qw hrr-render || usermod -aG hrr-render "$USER_NAME"
	UID_=$(id -u "$USER_NAME")
	HOME_=$(getent passwd "$USER_NAME" | cut -d: -f6)
	RUNTIME=/run/user/$UID_
	local f
	for f in /etc/subuid /etc/subgid; do
		# useradd adds a range by itself when login.defs says so
		grep -q "^$USER_NAME:" "$f" 2>/dev/null || echo "$USER_NAME:200000:65536" >>"$f"
	done
	mkdir -p "$RUNTIME"
	chown "$USER_NAME:" "$RUNTIME"
	chmod 700 "$RUNTIME"
}

# From /: the test user may not be able to enter the current directory.
as_user() {
	(cd / && exec runuser -u "$USER_NAME" -- env HOME="$HOME_" XDG_RUNTIME_DIR="$RUNTIME" "$@")
}

# Native overlay needs a kernel that allows it in a user namespace (5.13+);
# fuse-overlayfs needs /dev/fuse open to users. Otherwise vfs (slow, works).
# A start that failed half-way leaves a storage whose database names
# another driver than storage.conf ("User-selected graph driver "vfs"
# overwritten by graph driver "overlay" from database"), which every later
# podman command prints: such a storage of the test user is reset.
pick_storage() {
	local conf=$HOME_/.config/containers/storage.conf driver info
	if [ -s "$conf" ]; then
		info=$(as_user podman info --format '{{.Store.GraphDriverName}}' 2>&1) \
			&& ! grep -q 'overwritten by graph driver' <<<"$info" && return 0
		head -1 "$conf" | grep -qx '# Written by tests/setup-podman.sh.' || {
			say "$USER_NAME's podman storage does not work and $conf is not ours: fix it by hand ($info)"
			exit 1
		}
		say "resetting $USER_NAME's half-initialised podman storage ($(grep -o 'User-selected graph driver.*from database' <<<"$info" || head -1 <<<"$info"))"
		stop_pidfile "$RUNTIME/podman/hrr-service.pid"
		rm -f "$conf"
	fi
	for driver in overlay vfs; do
		printf '# Written by tests/setup-podman.sh.\n[storage]\ndriver = "%s"\n' "$driver" >"$conf"
		chown "$USER_NAME:" "$conf"
		as_user podman system reset -f >/dev/null 2>&1 || true
		if as_user podman info --format '{{.Store.GraphDriverName}}' 2>/dev/null | grep -qx "$driver"; then
			say "rootless storage driver: $driver"
			return 0
		fi
	done
}

start_rootless() {
	local sock=$RUNTIME/podman/podman.sock cfg=$HOME_/.config/containers
	# A rootless runtime mounts a proc of its own in a user namespace,
	# which the kernel refuses where parts of /proc are masked (a Docker
	# container without --security-opt systempaths=unconfined): no
	# container could start; say so instead of "cannot run a container".
	as_user unshare --user --map-root-user --pid --fork --mount-proc true 2>/dev/null || {
		say "$USER_NAME may not mount a proc in a user namespace here (in a container: run it with --security-opt systempaths=unconfined), so rootless Podman can run no container; HRR_SETUP_NO_PODMAN=1 skips Podman"
		exit 1
	}
	mkdir -p "$cfg"
	write_conf "$cfg" "$([ "${HRR_PODMAN_KEEP_GROUPS:-1}" = 1 ] && echo keep-groups)"
	chown -R "$USER_NAME:" "$HOME_/.config"
	if [ $CONF_CHANGED = 1 ] || not_from_root "$RUNTIME/podman/hrr-service.pid"; then
		stop_pidfile "$RUNTIME/podman/hrr-service.pid"
	fi
	pick_storage
	answers "$sock" && return 0
	say "starting rootless podman service for $USER_NAME on $sock (log: $LOGS/podman-$USER_NAME.log)"
	rm -f "$sock"
	as_user mkdir -p "$RUNTIME/podman"
	# the service writes its own pid: runuser stays its parent
	start_daemon "$LOGS/podman-$USER_NAME.log" \
		runuser -u "$USER_NAME" -- env HOME="$HOME_" XDG_RUNTIME_DIR="$RUNTIME" \
		sh -c 'echo $$ >"$1"; exec podman system service --time=0 "unix://$2"' \
		sh "$RUNTIME/podman/hrr-service.pid" "$sock"
	wait_for 30 "rootless podman service" answers "$sock" \
		|| { tail -20 "$LOGS/podman-$USER_NAME.log" >&2; exit 1; }
}

# Copy the test images from dockerd when the service's copy differs (the
# image ID is the config digest, the same in both engines).
load_images() {
	local ref want tmp
	# the images come from dockerd, whatever DOCKER_HOST says
	local -x DOCKER_HOST=unix:///var/run/docker.sock
	if ! answers /var/run/docker.sock; then
		say "no dockerd on /var/run/docker.sock: test images not loaded"
		return 0
	fi
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	for ref in $(docker images --format '{{.Repository}}:{{.Tag}}' --filter "reference=hrr-*:$TAG"); do
		want=$(docker image inspect -f '{{.Id}}' "$ref")
		want=${want#sha256:}
		[ -s "$tmp/img.tar" ] && rm -f "$tmp/img.tar"
		if [ "$(podman image inspect -f '{{.Id}}' "$ref" 2>/dev/null)" != "$want" ]; then
			docker save -o "$tmp/img.tar" "$ref"
			chmod 644 "$tmp/img.tar"
			podman load -q -i "$tmp/img.tar" >/dev/null
			say "loaded $ref into root podman"
		fi
		if [ "$(as_user podman image inspect -f '{{.Id}}' "$ref" 2>/dev/null)" != "$want" ]; then
			[ -s "$tmp/img.tar" ] || { docker save -o "$tmp/img.tar" "$ref"; chmod 644 "$tmp/img.tar"; }
			(cd "$tmp" && as_user podman load -q -i "$tmp/img.tar" >/dev/null)
			say "loaded $ref into $USER_NAME's podman"
		fi
	done
	rm -rf "$tmp"
}

# podman_of root|rootless ARGS...: the podman client of that service.
podman_of() {
	local which=$1
	shift
	if [ "$which" = root ]; then
		(cd / && exec podman --remote --url "unix://$ROOT_SOCK" "$@")
	else
		as_user podman --remote --url "unix://$RUNTIME/podman/podman.sock" "$@"
	fi
}

runs_container() { podman_of "$1" run --pull never --rm --network none --entrypoint /bin/true "$2" >/dev/null 2>&1; }

# check_runs root|rootless: the service starts a container of the test
# images (one that answers /_ping may still fail every start); one of
# ours that cannot is restarted once, anything else stops the set-up.
check_runs() {
	local which=$1 pidfile=/run/podman/hrr-service.pid log=$LOGS/podman-root.log img=hrr-sim:$TAG
	[ "$which" = root ] || { pidfile=$RUNTIME/podman/hrr-service.pid; log=$LOGS/podman-$USER_NAME.log; }
	podman_of "$which" image exists "$img" || return 0 # no test image yet: `make images` comes later
	runs_container "$which" "$img" && return 0
	alive "$pidfile" || { say "the $which podman service answers but cannot run a container, and it is not ours: fix or stop it"; exit 1; }
	say "restarting the $which podman service $(cat "$pidfile"): it answers but cannot run a container"
	stop_pidfile "$pidfile"
	if [ "$which" = root ]; then start_root; else start_rootless; fi
	runs_container "$which" "$img" || { say "the $which podman service cannot run a container (log: $log)"; tail -20 "$log" >&2; exit 1; }
}

# crun refuses a hybrid cgroup host whose cgroup2 hierarchy holds a
# controller ("cgroups in hybrid mode not supported, drop all controllers
# from cgroupv2"); mounting such a controller as a v1 hierarchy moves it
# there. crun is what keeps a rootless user's supplementary groups
# (--group-add keep-groups), i.e. access to the GPU nodes; runc drops them.
fix_hybrid_cgroups() {
	local ctl c
	# cgroupfs files have size 0: read them
	ctl=$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null || true)
	[ -n "$ctl" ] && [ -d /sys/fs/cgroup/devices ] || return 0
	[ "${HRR_PODMAN_NO_CGROUP_FIX:-0}" = 1 ] && return 0
	for c in $ctl; do
		say "moving cgroup controller $c from the cgroup2 to a v1 hierarchy (for crun)"
		mkdir -p "/sys/fs/cgroup/$c"
		mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c"
	done
}

RUNTIME_OCI=${HRR_PODMAN_RUNTIME:-crun}
[ "$RUNTIME_OCI" = crun ] && fix_hybrid_cgroups
# --images-only: copy the test images again (after `make images`), the
# services being up already.
if [ "${1:-}" = --images-only ]; then
	make_user
	load_images
	check_runs root
	check_runs rootless
	exit 0
fi
bash "$(dirname "$0")/setup-fake-gpus.sh" >/dev/null
start_root
make_user
start_rootless
load_images
check_runs root
check_runs rootless
say "ready: root $ROOT_SOCK, rootless ($USER_NAME) $RUNTIME/podman/podman.sock"
