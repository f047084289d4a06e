/* orchestrator/replay_user: the caller's uid:gid and the device groups. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "orchestrator/replay_user.h"
#include "tests/support/scratch.h"

static void node(const char *dir, const char *name, gid_t group, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", dir, name);
	cr_assert_eq(mknod(out, S_IFCHR | 0660, makedev(1, 3)), 0, "mknod %s (root only)", out);
	cr_assert_eq(chown(out, 0, group), 0);
}

Test(replay_user, the_caller_and_each_device_group_once)
{
	char *dir = scratch_dir("user");
	char kfd[512], r128[512], r136[512], mine[512];
	const char *devices[] = { kfd, r128, r136, mine };
	struct replay_user u;
	struct error err = { 0 };

	node(dir, "kfd", 4343, kfd, sizeof(kfd));
	node(dir, "renderD128", 4444, r128, sizeof(r128));
	node(dir, "renderD136", 4444, r136, sizeof(r136));
	node(dir, "owned-by-primary", 1001, mine, sizeof(mine));
	cr_assert_eq(replay_user_for(1000, 1001, devices, 4, &u, &err), 0, "%s", err.msg);
	cr_assert_str_eq(u.user, "1000:1001");
	cr_assert_eq(u.groups.n, 2);
	cr_assert_str_eq(u.groups.v[0], "4343");
	cr_assert_str_eq(u.groups.v[1], "4444");
	replay_user_release(&u);
	scratch_remove(dir);
	free(dir);
}

Test(replay_user, a_missing_device_is_an_error_naming_it)
{
	const char *devices[] = { "/nonexistent/kfd" };
	struct replay_user u;
	struct error err = { 0 };

	cr_assert_lt(replay_user_for(1000, 1000, devices, 1, &u, &err), 0);
	cr_assert(strstr(err.msg, "/nonexistent/kfd"), "%s", err.msg);
}
