/* The GPU leases of a plain `run` (docs/sweep.md "GPU leases"): --gpu's
 * ordinals, else the lowest free ones the capture needs; a wait that says
 * once which GPU and who holds it; --gpu-wait bounds it (exit 75). */
#ifndef HRR_ORCHESTRATOR_RUN_LEASE_H
#define HRR_ORCHESTRATOR_RUN_LEASE_H

#include <stddef.h>

#include "cli/cmd_setup.h"
#include "lease/gpu_lease.h"
#include "preflight/topology.h"
#include "replay/replay_unit.h" /* EXIT_GPU_BUSY */

struct run_lease {
	struct gpu_lease lease;
	int gpus[GPU_MAX];
	size_t n;
};

/* Take the GPUs pid i replays on. 0, or the exit code (75: busy past
 * --gpu-wait; 5: the lock directory is unusable or interrupted), the
 * message printed. */
int run_lease_take(const struct cmd_env *env, size_t i, struct run_lease *l)
	__attribute__((warn_unused_result));
void run_lease_release(struct run_lease *l);

#endif
