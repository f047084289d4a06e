#!/usr/bin/env bash
# Builds every images/<name>/Dockerfile as hrr-<name>:dev (FROM scratch, no
# registry needed). `make images` runs it.
#
#   bash images/build.sh <path-to-built-simulator> [name...]
#
# Each image gets a staged build context under <build>/images/<name>/ (the
# build dir is the simulator's grandparent: build/sim/hrr-playback ->
# build/images/), holding:
#   - a copy of images/<name>/ (symlinks kept),
#   - hrr-playback: the static simulator,
#   - bin/: a static busybox with a symlink per applet (sh, ls, cat, ...),
#   - sim-tools/: the simulator's debug tools, when the Dockerfile COPYs them,
# so a Dockerfile can `COPY bin/ /bin/` and `COPY hrr-playback ...`. Images
# built FROM another of ours are built after it.
#
# Optional images/<name>/build.env (shell, sourced) may set:
#   IMAGE=ref            tag to build (default hrr-<name>:$HRR_IMAGE_TAG,
#                        and HRR_IMAGE_TAG defaults to dev)
#   BUILD_ARGS="K=V ..." passed as --build-arg K=V each
#
# An image whose staged context is unchanged since its last build (same
# content hash, kept as a label on the image) is not rebuilt; HRR_IMAGES_FORCE=1
# rebuilds anyway. DOCKER picks the client (default: docker on PATH); the
# classic builder is used (DOCKER_BUILDKIT=0): nothing here needs BuildKit.
set -euo pipefail

say() { printf 'images: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[ $# -ge 1 ] || die "usage: $0 <path-to-built-simulator> [name...]"
SIM=$1
shift
[ -x "$SIM" ] || die "simulator $SIM not found (run make first)"
SIM=$(cd "$(dirname "$SIM")" && pwd)/$(basename "$SIM")

HERE=$(cd "$(dirname "$0")" && pwd)
STAGE_ROOT=${HRR_IMAGES_STAGE:-$(dirname "$(dirname "$SIM")")/images}
BUSYBOX=${BUSYBOX:-/bin/busybox}
DOCKER=${DOCKER:-docker}
LABEL=org.hrr-docker-replay.context-hash
export DOCKER_BUILDKIT=0

[ -x "$BUSYBOX" ] || die "no static busybox at $BUSYBOX (apt-get install busybox-static)"
"$DOCKER" version >/dev/null 2>&1 || die "'$DOCKER version' fails: is the engine running? (bash tests/setup.sh)"

if [ $# -eq 0 ]; then
	# Images built FROM another of ours (FROM hrr-...) come after the rest.
	for pass in base derived; do
		for d in "$HERE"/*/Dockerfile; do
			[ -e "$d" ] || continue
			if grep -q '^FROM hrr-' "$d"; then
				[ "$pass" = derived ] || continue
			else
				[ "$pass" = base ] || continue
			fi
			set -- "$@" "$(basename "$(dirname "$d")")"
		done
	done
fi
[ $# -gt 0 ] || die "no images/<name>/Dockerfile found"

# Content hash of a staged context: paths, types, modes, link targets and
# file contents; timestamps do not matter.
context_hash() {
	(
		cd "$1"
		find . -printf '%y %m %p %l\n' | sort
		find . -type f -print0 | sort -z | xargs -0 -r sha256sum
	) | sha256sum | cut -c1-64
}

# The applet links are made once per busybox (a few hundred ln calls take
# seconds here) and copied into each context.
stage_busybox() { # DIR
	local sum cache applet
	sum=$(sha256sum "$BUSYBOX" | cut -c1-16)
	cache=$STAGE_ROOT/.busybox-$sum
	if [ ! -d "$cache" ]; then
		rm -rf "$cache.tmp"
		mkdir -p "$cache.tmp"
		cp "$BUSYBOX" "$cache.tmp/busybox"
		for applet in $("$BUSYBOX" --list); do
			[ "$applet" = busybox ] || ln -s busybox "$cache.tmp/$applet"
		done
		mv "$cache.tmp" "$cache"
	fi
	cp -a "$cache" "$1/bin"
}

build_one() { # NAME
	local name=$1 src=$HERE/$1 stage=$STAGE_ROOT/$1 image hash have start
	local IMAGE='' BUILD_ARGS='' args=()

	[ -f "$src/Dockerfile" ] || die "$src/Dockerfile does not exist"
	if [ -f "$src/build.env" ]; then
		# shellcheck disable=SC1091
		. "$src/build.env"
	fi
	image=${IMAGE:-hrr-$name:${HRR_IMAGE_TAG:-dev}}
	for a in $BUILD_ARGS; do args+=(--build-arg "$a"); done

	rm -rf "$stage"
	mkdir -p "$stage"
	cp -a "$src/." "$stage/"
	rm -f "$stage/build.env"
	cp "$SIM" "$stage/hrr-playback"
	stage_busybox "$stage"
	# The simulator's debug tools (images/sim-tools), for the images that
	# COPY them: beside the simulator in the build dir.
	if grep -q 'sim-tools/' "$src/Dockerfile"; then
		[ -d "$(dirname "$(dirname "$SIM")")/sim-tools" ] ||
			die "$name needs the simulator's debug tools: make $(dirname "$(dirname "$SIM")")/sim-tools/rocgdb"
		cp -a "$(dirname "$(dirname "$SIM")")/sim-tools" "$stage/sim-tools"
	fi
	hash=$(context_hash "$stage")

	have=$("$DOCKER" image inspect -f "{{ index .Config.Labels \"$LABEL\" }}" "$image" 2>/dev/null || true)
	if [ "$have" = "$hash" ] && [ "${HRR_IMAGES_FORCE:-0}" != 1 ]; then
		say "$image is up to date"
		return 0
	fi
	say "building $image from $stage"
	start=$SECONDS
	# The output (and the newer CLI's legacy-builder notice) only matters
	# when the build fails.
	if ! "$DOCKER" build -q --label "$LABEL=$hash" "${args[@]}" -t "$image" "$stage" \
		>"$stage.log" 2>&1; then
		cat "$stage.log" >&2
		die "docker build of $image failed (context: $stage)"
	fi
	rm -f "$stage.log"
	say "built $image in $((SECONDS - start))s ($("$DOCKER" image inspect -f '{{.Size}}' "$image") bytes)"
}

for name in "$@"; do
	build_one "$name"
done
