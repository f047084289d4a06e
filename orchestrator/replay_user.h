/* Who the replay runs as inside its container: the caller's uid:gid, not
 * root. With every capability dropped root gains nothing in there, and a
 * root replay cannot write into a non-root caller's folders (the
 * debuggers' diagnostics mount) nor be told apart from another user's.
 * The GPU device nodes are reachable through their groups (render, video
 * on most hosts), which the container gets as supplementary groups by
 * number: the image's /etc/group need not know them. */
#ifndef HRR_ORCHESTRATOR_REPLAY_USER_H
#define HRR_ORCHESTRATOR_REPLAY_USER_H

#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/strvec.h"

struct replay_user {
	char user[32];        /* "uid:gid" for the container's User */
	struct strvec groups; /* numeric gids for HostConfig.GroupAdd */
};

/* Fill u for uid:gid and the host device nodes devices[0..n) (symlinks
 * followed): each node's group once, the primary gid left out. A node that
 * cannot be stat'ed: ERR_SYSTEM naming it. */
int replay_user_for(uid_t uid, gid_t gid, const char *const *devices, size_t n,
		    struct replay_user *u, struct error *err)
	__attribute__((warn_unused_result));
void replay_user_release(struct replay_user *u);

#endif
