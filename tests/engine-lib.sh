# Starting a newer engine inside a container of the host's dockerd, from
# a root of tests/setup-engines.sh (sourced by tests/engine-matrix.sh and
# tests/bench/podman.sh; docs/engines.md says why each setting). The sourcing
# script sets STATE, SRC, TAG, RUN and say().

answers() { curl -sf --max-time 5 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1; }

# Every capability of the host's bounding set that the host's dockerd can
# name (20.10 knows neither BPF, PERFMON nor CHECKPOINT_RESTORE).
caps() {
	local bnd c
	bnd=$(awk '/^CapBnd/ { print $2 }' /proc/self/status)
	for c in $(capsh --decode="$bnd" | cut -d= -f2 | tr ',' ' '); do
		c=${c#cap_}
		case $c in bpf | perfmon | checkpoint_restore) continue ;; esac
		printf -- '--cap-add=%s ' "${c^^}"
	done
}

# The engine's command inside its container: its configuration from the
# container's own limits (no CAP_SYS_RESOURCE: Podman's default nofile of
# 1048576 cannot be set; /proc/sys is read-only, so not Podman 5.4's
# default sysctl net.ipv4.ping_group_range either), then the service on $sock, its log beside it.
engine_cmd() {
	local engine=$1 dir=$2
	case $engine in
	docker)
		echo "containerd >$dir/containerd.log 2>&1 &
			exec dockerd -H unix://$dir/docker.sock --containerd /run/containerd/containerd.sock \
				--exec-root /run/docker-nested >$dir/engine.log 2>&1"
		;;
	podman)
		echo "mkdir -p /etc/containers && cat >/etc/containers/containers.conf <<CONF
[engine]
cgroup_manager = \"cgroupfs\"
events_logger = \"file\"
runtime = \"crun\"
[containers]
default_sysctls = []
default_ulimits = [\"nofile=\$(ulimit -Hn):\$(ulimit -Hn)\", \"nproc=\$(ulimit -Hu):\$(ulimit -Hu)\"]
CONF
			PODMAN_IGNORE_CGROUPSV1_WARNING=1 exec podman system service --time=0 \
				unix://$dir/podman.sock >$dir/engine.log 2>&1"
		;;
	esac
}

# The home directories, read-only: Podman reads a seccomp profile from
# the caller's cache (~/.cache/hrr-docker-replay/seccomp) by its path.
homes() {
	local h
	for h in "$HOME" /home; do
		[ -d "$h" ] && printf -- '-v %s:%s:ro ' "$h" "$h"
	done
}

storage_of() { case $1 in docker) echo /var/lib/docker ;; podman) echo /var/lib/containers ;; esac; }

# start ENGINE SUITE: its container (a stale one of an earlier run removed
# first), then its socket answers; prints the socket.
start_engine() {
	local engine=$1 suite=$2 name; name=$(engine_container "$1" "$2")
	local dir=$RUN/$1-$2
	local store=$STATE/engines/$1-$2.storage cdi=$STATE/engines/$1-$2.cdi
	docker rm -f "$name" >/dev/null 2>&1 || true
	rm -rf "$dir" "$cdi"
	mkdir -p "$dir" "$store" "$cdi"
	# shellcheck disable=SC2046
	docker run -d --name "$name" --network none --cap-drop ALL $(caps) \
		--security-opt seccomp=unconfined --security-opt apparmor=unconfined \
		--cgroupns=host -v /sys/fs/cgroup:/sys/fs/cgroup:rw --device-cgroup-rule 'a *:* rwm' \
		-v /tmp:/tmp -v "$STATE:$STATE" -v "$SRC:$SRC:ro" $(homes) \
		-v "$store:$(storage_of "$engine")" -v "$cdi:/etc/cdi" \
		"hrr-engine-root:$suite" bash -c "$(engine_cmd "$engine" "$dir")" >/dev/null
	local polls=300
	until answers "$dir/$engine.sock"; do
		polls=$((polls - 1))
		if [ $polls = 0 ] || [ "$(docker inspect -f '{{.State.Running}}' "$name")" != true ]; then
			say "$engine@$suite did not come up; its log:"
			tail -20 "$dir/engine.log" >&2 || true
			return 1
		fi
		sleep 0.2
	done
	echo "$dir/$engine.sock"
}

# load SOCK: the test images, from the host's dockerd, unless there with
# the same ID (the storage outlives the engine's container).
load_images() {
	local sock=$1 ref want have refs=()
	for ref in $(docker images --format '{{.Repository}}:{{.Tag}}' --filter "reference=hrr-*:$TAG"); do
		want=$(docker image inspect -f '{{.Id}}' "$ref")
		have=$(curl -s --unix-socket "$sock" "http://d/images/$ref/json" | sed -n 's/^{"Id":"\([^"]*\)".*/\1/p')
		[ "${have#sha256:}" = "${want#sha256:}" ] || refs+=("$ref")
	done
	[ ${#refs[@]} = 0 ] && return 0
	docker save "${refs[@]}" | curl -sf --unix-socket "$sock" -X POST -H 'Content-Type: application/x-tar' \
		--data-binary @- http://d/images/load >/dev/null
}


# The engine's container name.
engine_container() { printf 'hrr-engine-%s-%s-%s' "$TAG" "$1" "$2"; }
