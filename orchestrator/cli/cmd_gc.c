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
#include "orchestrator/sweep/sweep_budget.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "common/say.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

const char cmd_gc_usage[] =
	"Usage: hrr-docker-replay gc [--all]\n"
	"       hrr-docker-replay gc --pulled-images [--older-than AGE] [--dry-run]\n\n"
	"Removes replay containers left by runs that died: those whose owner label\n"
	"names this host and a process that no longer runs. Containers of runs on\n"
	"other hosts or still running are never touched; --keep containers only\n"
	"with --all. Also removes image probe containers (never started) older than\n"
	"HRR_GC_PROBE_AGE seconds (default 600).\n"
	"--pulled-images instead removes the images this tool pulled on this host\n"
	"(its record in HRR_LOCK_DIR) that no running sweep holds; never an image\n"
	"you had, nor one a container uses.\n"
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
	struct engine_containers list;
	struct error err;
	long long cutoff = (long long)time(NULL) - probe_max_age();
	int removed = 0;

	if (engine_container_list(e, LABEL_PROBE, &list, &err) < 0) {
		say_error("%s", err.msg);
		return 0;
	}
	for (size_t i = 0; i < list.n; i++) {
		const struct engine_container *c = &list.v[i];
		char host[256];
		struct gc_owner owner;

		/* A probe is never started: anything else under this label is not ours to judge. */
		if (c->created < 0 || (c->state && strcmp(c->state, "created")))
			continue;
		gc_owner_of(engine_labels_get(&c->labels, LABEL_OWNER), host, sizeof(host), &owner);
		/* Stale is as good as dead: a probe outliving its age was abandoned. */
		if (owner.state != OWNER_DEAD && c->created <= cutoff)
			owner.state = OWNER_DEAD;
		if (gc_decide(&owner, false, me) != GC_REMOVE) {
			(*left)++;
			continue;
		}
		removed += gc_remove(e, o, c->id, "image probe left by a run that died");
	}
	engine_containers_release(&list);
	return removed;
}

/* gc --pulled-images: the record's images no one holds (docs/sweep.md
 * "--image-budget"). */
static int gc_images(struct engine *e, const struct options *o)
{
	cleanup_strvec struct strvec removed = STRVEC_INIT, kept = STRVEC_INIT;
	struct error err;

	if (sweep_budget_gc(e, o->gc_older_than_s, o->sweep.dry_run, &removed, &kept, &err) < 0) {
		struct replay_failure f;

		return replay_fail(&f, term_events(), REPLAY_STAGE_USAGE,
				   err.kind == ERR_USAGE ? EXIT_USAGE : EXIT_NO_VERDICT, "%s", err.msg);
	}
	for (size_t i = 0; o->verbosity >= 0 && i < removed.n; i++)
		printf("%s %s\n", o->sweep.dry_run ? "would remove" : "removed", removed.v[i]);
	for (size_t i = 0; o->verbosity > 0 && i < kept.n; i++)
		fprintf(stderr, "gc: left %s\n", kept.v[i]);
	if (o->verbosity >= 0)
		fprintf(stderr, "gc: %s %zu pulled image(s), left %zu\n",
			o->sweep.dry_run ? "would remove" : "removed", removed.n, kept.n);
	return 0;
}

int gc_command(struct options *o)
{
	struct engine *e = NULL;
	struct engine_containers list = { 0 };
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
	if (o->gc_pulled_images) {
		int rc;

		if (engine_open(&e, NULL, &err) < 0) {
			struct replay_failure f;

			return replay_fail(&f, term_events(), REPLAY_STAGE_ENGINE, EXIT_NO_VERDICT,
					   "%s", err.msg);
		}
		rc = gc_images(e, o);
		engine_close(e);
		return rc;
	}
	if (engine_open(&e, NULL, &err) < 0 ||
	    engine_container_list(e, LABEL_OWNER, &list, &err) < 0) {
		struct replay_failure f;

		if (e)
			engine_close(e);
		return replay_fail(&f, term_events(), REPLAY_STAGE_ENGINE, EXIT_NO_VERDICT, "%s", err.msg);
	}
	for (size_t i = 0; i < list.n; i++) {
		const char *id = list.v[i].id;
		const struct engine_labels *l = &list.v[i].labels;
		const char *label = engine_labels_get(l, LABEL_OWNER);
		const char *run = engine_labels_get(l, LABEL_RUN);
		char owner_host[256];
		struct gc_owner owner;
		enum gc_decision d;
		char *why;

		/* Probes carry an owner too; gc_probes judges them. */
		if (engine_labels_get(l, LABEL_PROBE))
			continue;
		gc_owner_of(label, owner_host, sizeof(owner_host), &owner);
		d = gc_decide(&owner, engine_labels_get(l, LABEL_KEEP) != NULL, &me);
		if (d == GC_KEEP_KEPT)
			kept++;
		if (d != GC_REMOVE) {
			left += d != GC_KEEP_KEPT;
			if (o->verbosity > 0)
				fprintf(stderr, "gc: left %.12s (%s)\n", id, gc_decision_name(d));
			continue;
		}
		why = xasprintf("run %s, owner %s", run ? run : "?", label);
		removed += gc_remove(e, o, id, why);
		free(why);
	}
	engine_containers_release(&list);
	removed += gc_probes(e, o, &me, &left);
	if (o->verbosity >= 0)
		fprintf(stderr, "gc: removed %d, left %d (live, another user's or another host's), "
			"%d kept (--all removes them)\n", removed, left, kept);
	engine_close(e);
	return 0;
}
