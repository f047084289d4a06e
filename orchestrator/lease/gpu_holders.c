#include "orchestrator/lease/gpu_holders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/containers/ours.h"
#include "orchestrator/containers/gc_policy.h"

void holders_lease_names(const struct gpu_topology *t, const char *sysfs_root,
		       char (*names)[GPU_LEASE_NAME_MAX])
{
	for (size_t i = 0; i < t->n_gpus; i++)
		gpu_lease_name(sysfs_root ? sysfs_root : "/sys", t->gpus[i].node, t->gpus[i].gpu_id,
			       names[i], GPU_LEASE_NAME_MAX);
}

/* Whether a running container may hold a GPU without its owner's flock:
 * unless its owner is known alive on this host (and so holds the flock), it
 * witnesses the GPU as held. Unknown liveness, another host's or another
 * pid namespace's owner: held, since reading costs nothing and a wrong
 * "free" would share a GPU. Any user's container counts here. */
static bool held_without_flock(const char *owner)
{
	char me[256], host[256];
	struct gc_owner o;

	if (gethostname(me, sizeof(me)) < 0)
		return true;
	me[sizeof(me) - 1] = '\0';
	gc_owner_of(owner, host, sizeof(host), &o);
	return !o.host || strcmp(o.host, me) || o.state != OWNER_ALIVE;
}

/* The render minors one container was given (HostConfig.Devices). */
static void mark_devices(struct holders_seen *h, const struct engine_container_info *c,
			 const char *who)
{
	for (size_t i = 0; i < c->device_paths.n; i++) {
		const char *p = c->device_paths.v[i];
		const char *root = h->device_root ? h->device_root : "/dev";
		size_t rl = strlen(root);
		int minor;

		/* This host's node only: a test's fake /dev is not the GPU. */
		if (strncmp(p, root, rl) || sscanf(p + rl, "/dri/renderD%d", &minor) != 1)
			continue;
		for (size_t g = 0; g < h->topo->n_gpus && g < GPU_MAX; g++)
			if (h->topo->gpus[g].drm_render_minor == minor) {
				h->held[g] = true;
				snprintf(h->holder[g], sizeof(h->holder[g]), "container %.12s (%s)",
					 c->id, who ? who : "owner unknown");
			}
	}
}

static void refresh(struct holders_seen *h)
{
	struct engine_containers list;
	struct error err;

	memset(h->held, 0, sizeof(h->held));
	h->fetched = monotonic_now();
	if (engine_container_list(h->engine, LABEL_OWNER, &list, &err) < 0)
		return; /* the engine's silence proves nothing: the flock still rules */
	for (size_t i = 0; i < list.n; i++) {
		const struct engine_container *c = &list.v[i];
		const char *owner = engine_labels_get(&c->labels, LABEL_OWNER);
		struct engine_container_info info;

		/* A live owner holds its flock; only an orphan needs this witness. */
		if (!c->state || strcmp(c->state, "running") || !held_without_flock(owner))
			continue;
		if (engine_container_inspect(h->engine, c->id, &info, &err) == 0)
			mark_devices(h, &info, owner);
		engine_container_info_release(&info);
	}
	engine_containers_release(&list);
}

bool holders_held_by_container(void *ctx, const char *gpu, char *holder, size_t holder_len)
{
	struct holders_seen *h = ctx;

	if (!h->engine)
		return false;
	if (monotonic_now() - h->fetched > HOLDERS_REFRESH_S)
		refresh(h);
	for (size_t g = 0; g < h->topo->n_gpus && g < GPU_MAX; g++)
		if (!strcmp(h->names[g], gpu) && h->held[g]) {
			snprintf(holder, holder_len, "%s", h->holder[g]);
			return true;
		}
	return false;
}

bool holders_run_container_alive(struct engine *e, const char *run_id)
{
	cleanup_free char *filter = xasprintf("%s=%s", LABEL_RUN, run_id);
	struct engine_containers list;
	struct error err;
	bool alive = false;

	if (engine_container_list(e, filter, &list, &err) < 0)
		return false;
	for (size_t i = 0; i < list.n; i++)
		alive |= list.v[i].state && !strcmp(list.v[i].state, "running");
	engine_containers_release(&list);
	return alive;
}

void holders_run_container_remove(struct engine *e, const char *run_id)
{
	cleanup_free char *filter = xasprintf("%s=%s", LABEL_RUN, run_id);
	struct engine_containers list;
	struct error err;

	if (engine_container_list(e, filter, &list, &err) < 0)
		return;
	for (size_t i = 0; i < list.n; i++)
		engine_container_remove(e, list.v[i].id, true, &err);
	engine_containers_release(&list);
}

int holders_remove_orphans(struct engine *e)
{
	struct engine_containers list;
	struct error err;
	int removed = 0;

	if (engine_container_list(e, LABEL_OWNER, &list, &err) < 0)
		return 0;
	for (size_t i = 0; i < list.n; i++) {
		const struct engine_labels *l = &list.v[i].labels;

		/* gc's rules: the caller's own orphans only, never --keep ones. */
		if (gc_sweep_may_remove(engine_labels_get(l, LABEL_OWNER),
					engine_labels_get(l, LABEL_KEEP)) &&
		    engine_container_remove(e, list.v[i].id, true, &err) == 0)
			removed++;
	}
	engine_containers_release(&list);
	return removed;
}
