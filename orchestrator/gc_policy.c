/* gc's decisions: see gc_policy.h. */
#include "orchestrator/gc_policy.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "containers/ours.h"

enum owner_state owner_process_state(pid_t pid, unsigned long long start)
{
	unsigned long long now;

	if (pid <= 0)
		return OWNER_UNKNOWN;
	/* EPERM: it exists and belongs to someone else; only ESRCH is gone. */
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return OWNER_DEAD;
	now = process_start_ticks(pid);
	if (now == 0)
		return OWNER_UNKNOWN;
	return now == start ? OWNER_ALIVE : OWNER_DEAD;
}

enum gc_decision gc_decide(const struct gc_owner *o, bool kept, const struct gc_caller *c)
{
	bool everyone = c->all_users && c->uid == 0;

	if (!o->host || strcmp(o->host, c->host) != 0)
		return GC_KEEP_OTHER_HOST;
	if (!everyone && (o->uid == (uid_t)-1 || o->uid != c->uid))
		return GC_KEEP_NOT_YOURS;
	if (o->state == OWNER_ALIVE)
		return GC_KEEP_LIVE;
	if (o->state == OWNER_UNKNOWN)
		return GC_KEEP_UNKNOWN;
	if (kept && !c->all)
		return GC_KEEP_KEPT;
	return GC_REMOVE;
}

const char *gc_decision_name(enum gc_decision d)
{
	switch (d) {
	case GC_REMOVE: return "removed";
	case GC_KEEP_OTHER_HOST: return "another host's";
	case GC_KEEP_NOT_YOURS: return "not yours";
	case GC_KEEP_LIVE: return "live";
	case GC_KEEP_UNKNOWN: return "owner state unknown";
	case GC_KEEP_KEPT: return "kept";
	}
	return "?";
}
