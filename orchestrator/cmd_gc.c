/* `gc`: remove replay containers whose orchestrator died (SIGKILL, node
 * reboot). Only this tool's containers (by label), only this host's, and
 * only when the owning process is gone: a live run is never touched. */
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "containers/ours.h"
#include "orchestrator/commands.h"
#include "orchestrator/say.h"

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

static const char *label_of(const cJSON *c, const char *key)
{
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(c, "Labels");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Pure enough to reason about: is this container's owner dead here? */
static bool owner_is_dead_here(const char *owner, const char *this_host)
{
	char host[256];
	pid_t pid;
	unsigned long long start;

	if (!owner || owner_label_parse(owner, host, sizeof(host), &pid, &start, NULL) < 0)
		return false;
	if (strcmp(host, this_host))
		return false;
	/* A recycled pid runs another process: its start time differs. */
	return process_start_ticks(pid) != start;
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
 * live well under a second; one older than this was left by a run that
 * died mid-probe, whoever owned it. */
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

static int gc_probes(struct engine *e, const struct options *o)
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

		if (!cJSON_IsString(id) || !cJSON_IsNumber(created) ||
		    (long long)created->valuedouble > cutoff)
			continue;
		/* A probe is never started: anything else under this label is not ours to judge. */
		if (cJSON_IsString(state) && strcmp(state->valuestring, "created"))
			continue;
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
	struct error err;
	int removed = 0, kept = 0, live = 0;

	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (engine_open(&e, NULL, &err) < 0 ||
	    engine_container_list(e, LABEL_OWNER, &list, &err) < 0) {
		struct replay_failure f;

		if (e)
			engine_close(e);
		return replay_fail(&f, REPLAY_STAGE_ENGINE, EXIT_NO_VERDICT, "%s", err.msg);
	}
	cJSON_ArrayForEach(c, list) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "Id");
		const char *owner = label_of(c, LABEL_OWNER);
		char *why;

		if (!cJSON_IsString(id))
			continue;
		if (!owner_is_dead_here(owner, host)) {
			live++;
			continue;
		}
		if (label_of(c, LABEL_KEEP) && !o->gc_all) {
			kept++;
			continue;
		}
		why = xasprintf("run %s, owner %s",
				label_of(c, LABEL_RUN) ? label_of(c, LABEL_RUN) : "?", owner);
		removed += gc_remove(e, o, id->valuestring, why);
		free(why);
	}
	removed += gc_probes(e, o);
	if (o->verbosity >= 0)
		fprintf(stderr, "gc: removed %d, left %d of live or other hosts' runs, %d kept (--all removes them)\n",
			removed, live, kept);
	engine_close(e);
	return 0;
}
