/* The GPU leases of a plain `run` (docs/sweep.md "GPU leases"): --gpu's
 * ordinals, else the lowest free ones the capture needs; a wait that says
 * once which GPU and who holds it; --gpu-wait bounds it (exit 75). */
#ifndef HRR_LEASE_RUN_LEASE_H
#define HRR_LEASE_RUN_LEASE_H

#include <stddef.h>

#include "lease/gpu_lease.h"
#include "preflight/topology.h"
#include "replay/exit_codes.h" /* EXIT_GPU_BUSY */
#include "replay/replay_host.h"

struct run_lease {
	struct gpu_lease lease;
	int gpus[GPU_MAX];
	size_t n;
};

/* What a run asks for: the GPUs of one pid directory on one host. */
struct run_lease_request {
	const struct replay_host *host;
	const char *pid_dir;             /* its manifest says how many GPUs it used */
	const int *gpus;                 /* --gpu's ordinals; n_gpus 0: the lowest free */
	size_t n_gpus;
	double gpu_wait;                 /* --gpu-wait; < 0: no bound */
	const char *sysfs_root, *device_root;
};

/* Take the GPUs rq's pid directory replays on. 0, or the exit code (75:
 * busy past --gpu-wait; 5: the lock directory is unusable or interrupted),
 * the message printed. */
int run_lease_take(const struct run_lease_request *rq, struct run_lease *l)
	__attribute__((warn_unused_result));
void run_lease_release(struct run_lease *l);

#endif
