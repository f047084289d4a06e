/* gc's decisions: see gc_policy.h. */
#include "orchestrator/containers/gc_policy.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/containers/ours.h"

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

void gc_owner_of(const char *label, char *host, size_t hostlen, struct gc_owner *o)
{
	pid_t pid;
	unsigned long long start;

	o->host = NULL;
	o->uid = (uid_t)-1;
	o->state = OWNER_UNKNOWN;
	if (!label || owner_label_parse(label, host, hostlen, &pid, &start, &o->uid) < 0)
		return;
	o->host = host;
	/* A pid from another pid namespace cannot be looked up from here. */
	if (owner_label_pidns(label) && owner_label_pidns(label) != pid_namespace_self())
		return;
	o->state = owner_process_state(pid, start);
}

bool gc_sweep_may_remove(const char *owner_label, bool kept)
{
	char me[256], host[256];
	struct gc_owner o;
	struct gc_caller c = { .host = me, .uid = getuid() };

	if (gethostname(me, sizeof(me)) < 0)
		return false;
	me[sizeof(me) - 1] = '\0';
	gc_owner_of(owner_label, host, sizeof(host), &o);
	return gc_decide(&o, kept, &c) == GC_REMOVE;
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
