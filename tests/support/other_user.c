#include "tests/support/other_user.h"

#include <criterion/criterion.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/strbuf.h"

const char *other_user_name(void)
{
	const char *u = getenv("HRR_TEST_USER2");

	return u && *u ? u : "hrrtest2";
}

uid_t other_user_uid(void)
{
	const struct passwd *pw = getpwnam(other_user_name());

	cr_assert_not_null(pw, "user %s is missing: run tests/setup-users.sh", other_user_name());
	return pw->pw_uid;
}

void other_user_sh(const char *fmt, ...)
{
	const struct passwd *pw = getpwnam(other_user_name());
	struct strbuf cmd = STRBUF_INIT;
	char uid[32], gid[32];
	va_list ap;
	pid_t pid;
	int status = -1;

	cr_assert_not_null(pw, "user %s is missing: run tests/setup-users.sh", other_user_name());
	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	snprintf(uid, sizeof(uid), "%u", (unsigned)pw->pw_uid);
	snprintf(gid, sizeof(gid), "%u", (unsigned)pw->pw_gid);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execlp("setpriv", "setpriv", "--reuid", uid, "--regid", gid, "--clear-groups", "sh",
		       "-c", cmd.buf, (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "as %s: `%s` failed (status %d)",
		  other_user_name(), cmd.buf, status);
	strbuf_release(&cmd);
}
