/* The GPU leases of a plain `run` (docs/sweep.md "GPU leases"): --gpu's
 * ordinals, else the lowest free ones the capture needs; a wait that says
 * once which GPU and who holds it; --gpu-wait bounds it (exit 75). */
#ifndef HRR_LEASE_RUN_LEASE_H
#define HRR_LEASE_RUN_LEASE_H

#include <stddef.h>

#include "orchestrator/lease/gpu_lease.h"
#include "preflight/gpu_choice.h"
#include "preflight/topology.h"
#include "orchestrator/replay/exit_codes.h" /* EXIT_GPU_BUSY */
#include "orchestrator/replay/replay_host.h"

/* A run's GPUs: chosen here, once, and held while the replay runs. */
struct run_lease {
	struct gpu_lease lease;
	struct gpu_choice choice; /* what the replay gets (replay_desc.gpus) */
};

/* What a run asks for: the GPUs of one pid directory on one host. */
struct run_lease_request {
	const struct replay_host *host;
	const char *pid_dir;             /* names the lease's owner */
	int capture_devices;             /* its manifest's device count (-1 unknown): how many
					  * GPUs without --gpu */
	const int *gpus;                 /* --gpu's ordinals; n_gpus 0: the lowest free */
	size_t n_gpus;
	const char *gpus_from_env;       /* "GPU" when the environment named them, else NULL */
	double gpu_wait;                 /* --gpu-wait; < 0: no bound */
	const char *sysfs_root, *device_root;
	/* Called once when the GPU to take turns out busy (the caller says
	 * it): its ordinal, lease name and holder. NULL: not told. */
	void (*on_wait)(void *ctx, size_t ordinal, const char *gpu, const char *holder);
	void *wait_ctx;
};

/* Choose and take the GPUs rq's pid directory replays on. 0, or the exit
 * code (75: busy past --gpu-wait; 5: the lock directory is unusable or
 * interrupted) with err filled. A named GPU the host lacks is 0 with
 * nothing held and l->choice.error set: the replay reports it (exit 4). */
int run_lease_take(const struct run_lease_request *rq, struct run_lease *l, struct error *err)
	__attribute__((warn_unused_result));
void run_lease_release(struct run_lease *l);

#endif
