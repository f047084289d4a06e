/* `gc`: remove replay containers whose orchestrator died (SIGKILL, node
 * reboot). Only this tool's containers (by label), only this host's, only
 * the caller's (root may ask for everyone's), and only when the owning
 * process is known to be gone: a live run is never touched, and an owner
 * that cannot be seen is not dead (orchestrator/containers/gc_policy.h). */
#include "common/cleanup.h"
#include "orchestrator/cli/term_events.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "orchestrator/containers/ours.h"
#include "orchestrator/containers/gc_policy.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "common/say.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

const char cmd_gc_usage[] =
	"Usage: hrr-docker-replay gc [--all]\n\n"
	"Removes replay containers left by runs that died: those whose owner label\n"
	"names this host and a process that no longer runs. Containers of runs on\n"
	"other hosts or still running are never touched; --keep containers only\n"
	"with --all. Also removes image probe containers (never started) older than\n"
	"HRR_GC_PROBE_AGE seconds (default 600).\n"
	"Exit: 0, or 5 when the engine does not answer.\n";

static struct gc_caller caller_of(const struct options *o, const char *host)
{
	struct gc_caller c = { .host = host, .uid = getuid(), .all = o->gc_all,
			       .all_users = o->gc_all_users };

	return c;
}

/* 1 when the container is gone (removed now, or already), else 0. */
static int gc_remove(struct engine *e, const struct options *o, const char *id,
		     const char *why)
{
	struct error err;

	if (engine_container_remove(e, id, true, &err) < 0 && err.kind != ERR_NOT_FOUND) {
		say_error("cannot remove %.12s: %s", id, err.msg);
		return 0;
	}
	if (o->verbosity >= 0)
		printf("removed %.12s (%s)\n", id, why);
	return 1;
}

/* Probe containers (never started, made to read files out of an image)
 * live well under a second: one whose run died, or older than this, was
 * left behind. Only the caller's (owner label), as for runs. */
#define PROBE_MAX_AGE_S 600

static long probe_max_age(void)
{
	const char *v = getenv("HRR_GC_PROBE_AGE");
	char *end;
	long n;

	if (!v || !*v)
		return PROBE_MAX_AGE_S;
	n = strtol(v, &end, 10);
	return *end || n < 0 ? PROBE_MAX_AGE_S : n;
}

static int gc_probes(struct engine *e, const struct options *o, const struct gc_caller *me,
		     int *left)
{
	cleanup_cjson cJSON *list = NULL;
	const cJSON *c;
	struct error err;
	long long cutoff = (long long)time(NULL) - probe_max_age();
	int removed = 0;

	if (engine_container_list(e, LABEL_PROBE, &list, &err) < 0) {
		say_error("%s", err.msg);
		return 0;
	}
	cJSON_ArrayForEach(c, list) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "Id");
		const cJSON *created = cJSON_GetObjectItemCaseSensitive(c, "Created");
		const cJSON *state = cJSON_GetObjectItemCaseSensitive(c, "State");
		char host[256];
		struct gc_owner owner;

		/* A probe is never started: anything else under this label is not ours to judge. */
		if (!cJSON_IsString(id) || !cJSON_IsNumber(created) ||
		    (cJSON_IsString(state) && strcmp(state->valuestring, "created")))
			continue;
		gc_owner_of(ours_label(c, LABEL_OWNER), host, sizeof(host), &owner);
		/* Stale is as good as dead: a probe outliving its age was abandoned. */
		if (owner.state != OWNER_DEAD && (long long)created->valuedouble <= cutoff)
			owner.state = OWNER_DEAD;
		if (gc_decide(&owner, false, me) != GC_REMOVE) {
			(*left)++;
			continue;
		}
		removed += gc_remove(e, o, id->valuestring, "image probe left by a run that died");
	}
	return removed;
}

int gc_command(struct options *o)
{
	struct engine *e = NULL;
	cleanup_cjson cJSON *list = NULL;
	const cJSON *c;
	char host[256];
	struct gc_caller me;
	struct error err;
	int removed = 0, kept = 0, left = 0;

	if (o->gc_all_users && getuid() != 0) {
		struct replay_failure f;

		return replay_fail(&f, term_events(), REPLAY_STAGE_USAGE, EXIT_USAGE,
				   "--all-users is for root; without it gc removes only your runs");
	}
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	me = caller_of(o, host);
	if (engine_open(&e, NULL, &err) < 0 ||
	    engine_container_list(e, LABEL_OWNER, &list, &err) < 0) {
		struct replay_failure f;

		if (e)
			engine_close(e);
		return replay_fail(&f, term_events(), REPLAY_STAGE_ENGINE, EXIT_NO_VERDICT, "%s", err.msg);
	}
	cJSON_ArrayForEach(c, list) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "Id");
		const char *label = ours_label(c, LABEL_OWNER);
		char owner_host[256];
		struct gc_owner owner;
		enum gc_decision d;
		char *why;

		/* Probes carry an owner too; gc_probes judges them. */
		if (!cJSON_IsString(id) || ours_label(c, LABEL_PROBE))
			continue;
		gc_owner_of(label, owner_host, sizeof(owner_host), &owner);
		d = gc_decide(&owner, ours_label(c, LABEL_KEEP) != NULL, &me);
		if (d == GC_KEEP_KEPT)
			kept++;
		if (d != GC_REMOVE) {
			left += d != GC_KEEP_KEPT;
			if (o->verbosity > 0)
				fprintf(stderr, "gc: left %.12s (%s)\n", id->valuestring,
					gc_decision_name(d));
			continue;
		}
		why = xasprintf("run %s, owner %s",
				ours_label(c, LABEL_RUN) ? ours_label(c, LABEL_RUN) : "?", label);
		removed += gc_remove(e, o, id->valuestring, why);
		free(why);
	}
	removed += gc_probes(e, o, &me, &left);
	if (o->verbosity >= 0)
		fprintf(stderr, "gc: removed %d, left %d (live, another user's or another host's), "
			"%d kept (--all removes them)\n", removed, left, kept);
	engine_close(e);
	return 0;
}
