/* The host GPUs one replay gets. Whoever runs the replay chooses them once
 * (a run's lease, a sweep's scheduler, the preflight command), checks them
 * against the host once, here, and hands the choice down; the replay and
 * its preflight only read it (docs/design.md "Who chooses the GPUs"). */
#ifndef HRR_PREFLIGHT_GPU_CHOICE_H
#define HRR_PREFLIGHT_GPU_CHOICE_H

#include <stddef.h>

#include "common/error.h"
#include "preflight/topology.h"

struct gpu_choice {
	int gpus[GPU_MAX];           /* host ordinals; index i is device i inside */
	size_t n;
	char error[ERROR_MSG_MAX];   /* non-empty: a named GPU the host lacks; the replay is blocked */
};

/* The GPUs the user or a sweep named, each checked against host. One the
 * host lacks fills c->error with the message exit 4 prints and returns -1;
 * from_env names the variable that gave them ("GPU"), NULL for --gpu or a
 * sweep. An unknown host (NULL: no KFD topology) gets no GPUs, no error. */
int gpu_choice_named(struct gpu_choice *c, const struct gpu_topology *host, const int *gpus,
		     size_t n, const char *from_env);
/* How many GPUs a capture that saw device_count (-1: unknown) needs here:
 * at least one, at most what the host has (preflight reports a shortfall). */
size_t gpu_choice_need(int device_count, const struct gpu_topology *host);
/* The lowest `need` ordinals (no lease: the preflight command). */
void gpu_choice_lowest(struct gpu_choice *c, size_t need);
/* GPUs their chooser already checked against this host: a sweep's
 * scheduler picks from the pool the sweep checked when it started. */
void gpu_choice_given(struct gpu_choice *c, const int *gpus, size_t n);

#endif
