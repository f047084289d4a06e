# Shell functions of the set-up scripts (sourced). The sourcing script sets
# SETUP_NAME for its messages.

say() { printf '%s: %s\n' "${SETUP_NAME:-setup}" "$*" >&2; }

# wait_for SECONDS WHAT COMMAND...: poll COMMAND every 0.2 s.
wait_for() {
	local polls=$(($1 * 5)) what=$2
	shift 2
	while ! "$@"; do
		polls=$((polls - 1))
		[ $polls -gt 0 ] || { say "$what did not come up in time"; return 1; }
		sleep 0.2
	done
}

# alive PIDFILE: the process it names runs: kill -0 answers and it is no
# zombie (an init that does not reap, as in a CI container without
# --init, leaves a stopped service in the table as state Z).
alive() {
	local pid state
	[ -s "$1" ] && pid=$(cat "$1") && kill -0 "$pid" 2>/dev/null || return 1
	state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
	[ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# stop_pidfile PIDFILE: SIGTERM and wait for the end.
stop_pidfile() {
	alive "$1" || return 0
	kill "$(cat "$1")" 2>/dev/null || true
	wait_for 20 "the stop of $(basename "$1" .pid)" eval "! alive $1"
}

# require_root WHY / require_cmds PACKAGES CMD...: stop with a message when
# the script cannot do its work here.
require_root() { [ "$(id -u)" = 0 ] || { say "must run as root ($1)"; exit 1; }; }
require_cmds() {
	local hint=$1 b
	shift
	for b; do
		command -v "$b" >/dev/null || { say "$b missing: install $hint"; exit 1; }
	done
}

# start_daemon LOG COMMAND...: COMMAND in the background from /, its output
# in LOG; $! is its pid. A service keeping the checkout it was started from
# as its working directory breaks once that checkout is removed (Podman's
# conmon then cannot start a container), and a test user who cannot enter
# the checkout cannot start one there at all.
start_daemon() {
	local log=$1
	shift
	(cd / && exec nohup "$@" >"$log" 2>&1 </dev/null) &
}
