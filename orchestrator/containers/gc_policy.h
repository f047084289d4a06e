/* Whose containers `gc` may remove (docs/cli.md, docs/security.md). Pure
 * but for owner_process_state(), which asks the kernel.
 *
 * Rules: only this host's; only the caller's own (the owner label's uid),
 * unless root asks for everyone's explicitly (--all-users); never a live
 * owner's, and an owner whose liveness cannot be established (hidepid,
 * another pid namespace, an unreadable /proc) counts as live: unknown is
 * not dead; --keep containers only with --all. */
#ifndef HRR_CONTAINERS_GC_POLICY_H
#define HRR_CONTAINERS_GC_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum owner_state {
	OWNER_DEAD = 0,   /* no such process, or the pid was recycled */
	OWNER_ALIVE,
	OWNER_UNKNOWN,    /* cannot tell: treated as alive */
};

/* Whether the process pid that started at `start` (clock ticks since boot)
 * still runs. ESRCH from kill(pid, 0) is dead; a process that exists but
 * whose start time cannot be read is unknown; a different start time is a
 * recycled pid (dead). */
enum owner_state owner_process_state(pid_t pid, unsigned long long start);

enum gc_decision {
	GC_REMOVE = 0,
	GC_KEEP_OTHER_HOST,
	GC_KEEP_NOT_YOURS,   /* another user's, or an owner label without a uid */
	GC_KEEP_LIVE,
	GC_KEEP_UNKNOWN,
	GC_KEEP_KEPT,        /* --keep, and no --all */
};

struct gc_owner {
	const char *host;
	uid_t uid;            /* (uid_t)-1: a label from before uids were recorded */
	enum owner_state state;
};

struct gc_caller {
	const char *host;
	uid_t uid;
	bool all;             /* --all: --keep containers too */
	bool all_users;       /* --all-users: every user's (root only) */
};

enum gc_decision gc_decide(const struct gc_owner *o, bool kept, const struct gc_caller *c);
/* The owner of a container as its owner label tells it, liveness asked of
 * the kernel: a label that cannot be parsed belongs to nobody (host NULL);
 * a pid from another pid namespace is unknown. host[] backs o->host. */
void gc_owner_of(const char *label, char *host, size_t hostlen, struct gc_owner *o);
/* Whether a sweep's resume may remove this orphan: gc's rules for the
 * caller (getuid() on this host), never another user's, never --keep. */
bool gc_sweep_may_remove(const char *owner_label, bool kept);
/* "live", "not yours", ... for the summary line. */
const char *gc_decision_name(enum gc_decision d);

#endif
