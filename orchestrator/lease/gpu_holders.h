/* What a lease asks the engine besides the lock files (for a sweep and
 * `run`): which GPUs running containers of this tool hold (a lease's second
 * witness, for replays orphaned by a killed orchestrator), whether a
 * finished case's container is really gone (else its GPUs are
 * quarantined), and the removal of orphans before a resume. */
#ifndef HRR_LEASE_GPU_HOLDERS_H
#define HRR_LEASE_GPU_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>

#include "docker/engine.h"
#include "orchestrator/lease/gpu_lease.h"
#include "preflight/topology.h"

#define HOLDERS_REFRESH_S 1.0

/* A gpu_lease_held_fn context: the render nodes running containers of ours
 * (any user's) were given, unless their owner is known alive here and so
 * holds its flock, refreshed at most once per HOLDERS_REFRESH_S. */
struct holders_seen {
	struct engine *engine;
	const struct gpu_topology *topo;
	const char *device_root;           /* "/dev": only its render nodes count */
	char (*names)[GPU_LEASE_NAME_MAX]; /* lease name per ordinal */
	bool held[GPU_MAX];
	char holder[GPU_MAX][GPU_LEASE_OWNER_MAX];
	double fetched;
};

/* Lease names of every host GPU (ordinal order), via gpu_lease_name. */
void holders_lease_names(const struct gpu_topology *t, const char *sysfs_root,
		       char (*names)[GPU_LEASE_NAME_MAX]);
bool holders_held_by_container(void *ctx, const char *gpu, char *holder, size_t holder_len);

/* True when a container labelled with run_id still runs. */
bool holders_run_container_alive(struct engine *e, const char *run_id);
/* Stop and remove every container labelled with run_id (force: its
 * replay's worker is gone); quietly, what fails stays for the caller's
 * next look. */
void holders_run_container_remove(struct engine *e, const char *run_id);
/* Remove the caller's own containers on this host whose orchestrator is
 * known dead, by gc's rules (gc_policy.h: never another user's, unknown
 * liveness is alive, never --keep ones), quietly; returns how many. */
int holders_remove_orphans(struct engine *e);

#endif
