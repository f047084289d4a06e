/* The replay's user and groups: see replay_user.h. */
#include "orchestrator/replay_user.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool listed(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

int replay_user_for(uid_t uid, gid_t gid, const char *const *devices, size_t n,
		    struct replay_user *u, struct error *err)
{
	strvec_init(&u->groups);
	snprintf(u->user, sizeof(u->user), "%u:%u", (unsigned)uid, (unsigned)gid);
	for (size_t i = 0; i < n; i++) {
		char num[16];
		struct stat st;

		if (stat(devices[i], &st) < 0) {
			error_errno(err, "device %s", devices[i]);
			replay_user_release(u);
			return -1;
		}
		snprintf(num, sizeof(num), "%u", (unsigned)st.st_gid);
		if (st.st_gid != gid && !listed(&u->groups, num))
			strvec_push(&u->groups, num);
	}
	return 0;
}

void replay_user_release(struct replay_user *u)
{
	strvec_clear(&u->groups);
}
