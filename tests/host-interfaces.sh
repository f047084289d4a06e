#!/usr/bin/env bash
# The host's network interfaces before and after the test suites: a suite
# that deletes one (a second dockerd in the host's namespace deletes
# docker0) breaks the host's engine for everyone until it restarts.
#
#   tests/host-interfaces.sh save FILE      record the interfaces there now
#   tests/host-interfaces.sh compare FILE   fail naming each one gone since
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 save|compare FILE" >&2; exit 64; }
case $1 in
save) mkdir -p "$(dirname "$2")"; ls /sys/class/net >"$2" ;;
compare)
	gone=$(ls /sys/class/net | comm -23 "$2" - | tr '\n' ' ')
	if [ -n "$gone" ]; then
		echo "host-interfaces: FAIL: gone since the suites started: $gone(restart the engine that owned them, e.g. dockerd for docker0)" >&2
		exit 1
	fi
	echo "host-interfaces: all $(wc -l <"$2") host network interfaces still there"
	;;
*) echo "usage: $0 save|compare FILE" >&2; exit 64 ;;
esac
