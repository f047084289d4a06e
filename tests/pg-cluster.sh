#!/usr/bin/env bash
# A private PostgreSQL cluster for the history suites on PostgreSQL
# (docs/sweep.md "History on PostgreSQL"): initdb and pg_ctl as the test
# user HRR_PG_USER (initdb refuses root), listening only on a unix socket
# in DIR (no TCP port); trust for that user, a password for the role
# hrr_pw (scram-sha-256).
#
#   tests/pg-cluster.sh user        creates the test user (tests/setup.sh)
#   tests/pg-cluster.sh start DIR   prints the admin connection URI
#   tests/pg-cluster.sh stop DIR    stops it and removes DIR
#
# The password role's password is HRR_PG_PASSWORD (default below); the
# suites that use it read it from the same variable.
set -euo pipefail

SETUP_NAME=pg-cluster
here=$(cd "$(dirname "$0")" && pwd)
. "$here/setup-lib.sh"

user=${HRR_PG_USER:-hrrpg}
password=${HRR_PG_PASSWORD:-hrr-pw-7f3c9e1a}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$pgbin" ] || pgbin=$(dirname "$(command -v initdb)")

as_user() {
	if [ "$(id -u)" = 0 ]; then runuser -u "$user" -- "$@"; else "$@"; fi
}

make_user() {
	if [ "$(id -u)" = 0 ] && ! id -u "$user" >/dev/null 2>&1; then
		say "creating test user $user"
		useradd --system --no-create-home --shell /usr/sbin/nologin --user-group "$user"
	fi
}

start() {
	local dir=$1
	make_user
	[ "$(id -u)" = 0 ] || user=$(id -un)
	mkdir -p "$dir"
	as_user test -x "$(dirname "$dir")" ||
		{ say "$user cannot enter $(dirname "$dir"): give the cluster a directory it can reach"; exit 1; }
	chown "$user" "$dir"
	chmod 0755 "$dir"
	as_user "$pgbin/initdb" -D "$dir/data" -U "$user" --auth=trust --no-sync \
		>"$dir/initdb.log" 2>&1 || { tail -20 "$dir/initdb.log" >&2; exit 1; }
	printf 'local all hrr_pw scram-sha-256\nlocal all all trust\n' | as_user tee "$dir/data/pg_hba.conf" >/dev/null
	as_user "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -s \
		-o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off" start \
		|| { tail -20 "$dir/server.log" >&2; exit 1; }
	as_user "$pgbin/psql" -q -h "$dir" -U "$user" -d postgres -v ON_ERROR_STOP=1 \
		-c "CREATE ROLE hrr_pw LOGIN PASSWORD '$password'" \
		-c "CREATE DATABASE hrr_pw OWNER hrr_pw" >/dev/null
	printf 'postgresql:///postgres?host=%s&user=%s\n' "$dir" "$user"
}

stop() {
	local dir=$1
	[ -d "$dir/data" ] && as_user "$pgbin/pg_ctl" -D "$dir/data" -m fast -w -s stop || true
	rm -rf "$dir"
}

case ${1:-} in
user) make_user ;;
start | stop) "$1" "${2:?DIR}" ;;
*) echo "usage: $0 user|start DIR|stop DIR" >&2; exit 64 ;;
esac
