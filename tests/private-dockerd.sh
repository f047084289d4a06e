#!/usr/bin/env bash
# A Docker engine of the tests' own, for fault tests that stop, kill or
# restart the engine: it has its own socket, data root, exec root (and so
# its own containerd, which dockerd starts under the exec root), pidfile
# and an empty daemon config, no bridge, no iptables rules, so nothing it
# does (or suffers) reaches the engine the other suites use. It runs in a
# network namespace of its own (unshare -n): a dockerd in the host's
# namespace deletes the host's docker0 bridge, even with --bridge=none,
# and every `docker run` of the host engine then fails until it restarts.
# Its socket is a file, so clients reach it from any namespace; start
# fails when a host interface went away while it came up. Root only.
#
#   tests/private-dockerd.sh start DIR       start (or find running) and wait for /_ping
#   tests/private-dockerd.sh stop DIR        SIGTERM, wait, then its containerd
#   tests/private-dockerd.sh load DIR IMAGE...   copy images from the main engine
#   tests/private-dockerd.sh remove DIR      stop, unmount what it left, delete DIR
#   tests/private-dockerd.sh host DIR        print its DOCKER_HOST
#
# DIR should be short: containerd's sockets live under it and a unix
# socket path holds at most 107 bytes. Logs: DIR/dockerd.log.
set -euo pipefail

say() { printf 'private-dockerd: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[ $# -ge 2 ] || die "usage: $0 start|stop|load|remove|host DIR [IMAGE...]"
cmd=$1
dir=$2
shift 2
sock=$dir/docker.sock
pidfile=$dir/dockerd.pid
host=unix://$sock

answers() {
	curl -sf --max-time 2 --unix-socket "$sock" http://localhost/_ping >/dev/null 2>&1
}

# A live process: kill -0 answers, and it is not a zombie (an init that
# does not reap, a CI container without --init, leaves a killed dockerd
# in the process table as state Z; it is gone all the same).
alive() { # pid
	local state
	kill -0 "$1" 2>/dev/null || return 1
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

pid_of() { # pidfile -> pid of a live process, or nothing
	local p
	[ -f "$1" ] || return 0
	p=$(cat "$1" 2>/dev/null || true)
	[ -n "$p" ] && alive "$p" && printf '%s' "$p"
	return 0
}

wait_gone() { # pid seconds
	local deadline=$((SECONDS + $2))
	while alive "$1"; do
		[ $SECONDS -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

start() {
	local deadline pid gone
	[ "$(id -u)" = 0 ] || die "must run as root"
	mkdir -p "$dir/data" "$dir/exec"
	chmod 0711 "$dir"
	pid=$(pid_of "$pidfile")
	if [ -n "$pid" ] && answers; then
		echo "$host"
		return 0
	fi
	[ -z "$pid" ] || die "dockerd $pid holds $pidfile but does not answer"
	# Its holder is gone, or a zombie no one reaped yet: dockerd refuses
	# to start while the file names a pid that kill -0 still sees.
	rm -f "$pidfile"
	# After a kill: its containerd still runs, and a new dockerd left to
	# replace it timed out doing so on a loaded host.
	stop_containerd
	echo '{}' >"$dir/daemon.json"
	ls /sys/class/net >"$dir/host-interfaces"
	# cwd /: the engine outlives the checkout the tests run from
	(cd / && exec setsid nohup unshare --net -- dockerd --config-file "$dir/daemon.json" -H "$host" \
		--data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$pidfile" \
		--bridge=none --iptables=false --ip-masq=false --log-level warn \
		>>"$dir/dockerd.log" 2>&1 </dev/null) &
	deadline=$((SECONDS + 60))
	until answers; do
		if [ $SECONDS -ge $deadline ] || ! alive $!; then
			tail -20 "$dir/dockerd.log" >&2
			die "dockerd in $dir did not come up"
		fi
		sleep 0.2
	done
	gone=$(ls /sys/class/net | comm -23 "$dir/host-interfaces" -)
	[ -z "$gone" ] || die "host network interface(s) gone since dockerd in $dir started: $gone"
	echo "$host"
}

# A dockerd killed with SIGKILL leaves the containerd it started.
stop_containerd() {
	local cpid
	cpid=$(pid_of "$dir/exec/containerd/containerd.pid")
	if [ -n "$cpid" ]; then
		kill -TERM "$cpid"
		wait_gone "$cpid" 10 || { kill -KILL "$cpid"; wait_gone "$cpid" 5 || true; }
	fi
	# Gone, or a zombie no one reaped yet: the next dockerd would take a
	# pid file naming it for a running containerd and wait on its socket.
	rm -f "$dir/exec/containerd/containerd.pid"
}

stop() {
	local pid
	pid=$(pid_of "$pidfile")
	if [ -n "$pid" ]; then
		kill -CONT "$pid" 2>/dev/null || true
		kill -TERM "$pid"
		wait_gone "$pid" 30 || { say "dockerd $pid ignored SIGTERM; killing it"; kill -KILL "$pid"; }
	fi
	stop_containerd
	rm -f "$pidfile"
}

load() {
	local image
	[ $# -gt 0 ] || die "load: no image named"
	for image in "$@"; do
		docker image save "$image" | DOCKER_HOST=$host docker image load -q >/dev/null \
			|| die "copying $image into the engine in $dir failed"
	done
}

kill_tree() { # pid: its descendants first, then itself
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		kill_tree "$c"
	done
	kill -KILL "$1" 2>/dev/null || true
}

remove() {
	local m p ids
	[ -d "$dir" ] || return 0
	if answers; then
		ids=$(DOCKER_HOST=$host docker ps -aq)
		[ -z "$ids" ] || DOCKER_HOST=$host docker rm -f $ids >/dev/null 2>&1 || true
	fi
	stop
	# A container whose engine was killed outlives its containerd: its
	# shim (the one that names this engine's containerd socket) and what
	# runs under it.
	for p in /proc/[0-9]*; do
		case $(tr '\0' ' ' 2>/dev/null <"$p/cmdline") in
		*containerd-shim*"-address $dir/"*) kill_tree "${p#/proc/}" ;;
		esac
	done
	# Overlay and shm mounts left by containers the engine did not tear down.
	for m in $(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null || true
	done
	rm -rf "$dir"
}

case $cmd in
start) start ;;
stop) stop ;;
load) load "$@" ;;
remove) remove ;;
host) echo "$host" ;;
*) die "unknown command '$cmd'" ;;
esac
