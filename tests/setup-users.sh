#!/usr/bin/env bash
# The second, unprivileged user the tests run `gc` (and other commands) as,
# to prove one user's replays are safe from another's: hrrtest2, a system
# account without a home or a login shell, in the docker group so that it
# can talk to the engine as such users do. Idempotent; tests/setup.sh runs
# it. HRR_TEST_USER2 names another account.
set -euo pipefail

user=${HRR_TEST_USER2:-hrrtest2}
say() { printf 'setup-users: %s\n' "$*" >&2; }

if ! id -u "$user" >/dev/null 2>&1; then
	if [ "$(id -u)" != 0 ]; then
		say "must run as root to create the test user $user"
		exit 1
	fi
	say "creating test user $user"
	useradd --system --no-create-home --shell /usr/sbin/nologin --user-group "$user"
fi
if getent group docker >/dev/null && ! id -nG "$user" | tr ' ' '\n' | grep -qx docker; then
	[ "$(id -u)" = 0 ] || { say "must run as root to add $user to the docker group"; exit 1; }
	usermod -aG docker "$user"
fi
