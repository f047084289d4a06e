/* One pid directory of a `run` (docs/cli.md), from a typed request the
 * command layer builds from its options: its GPUs chosen and leased
 * (orchestrator/lease/run_lease.h), the replay unit run on them, and with
 * --perf N the timing replays after a passing verdict, their samples put
 * into the finding before finding.json is written. What it has to say goes
 * to the request's sink; the command layer shows the result. */
#ifndef HRR_JOBS_RUN_JOB_H
#define HRR_JOBS_RUN_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/events.h"
#include "orchestrator/perf/perf_samples.h"
#include "orchestrator/replay/replay_desc.h"
#include "orchestrator/replay/replay_host.h"

struct run_request {
	const struct replay_host *host;
	/* The pid's description as the command made it; its manifest and
	 * GPUs are set here, as read and chosen (the ones given are ignored). */
	struct replay_desc desc;
	/* Its GPUs: --gpu's ordinals (none: the lowest free), where they came
	 * from ("GPU" when the environment named them, else NULL), how long
	 * to wait for them (< 0: no bound), the host's roots. */
	const int *gpus;
	size_t n_gpus;
	const char *gpus_from_env;
	double gpu_wait;
	const char *sysfs_root, *device_root;
	/* --perf N (0: none) and its warmup replays. */
	long perf_runs, perf_warmup;
	const struct job_events *events;
};

struct run_result {
	/* The replay unit's code (orchestrator/replay/exit_codes.h), or the
	 * lease's when no replay ran. */
	int code;
	struct replay_unit_result unit;  /* when the replay ran */
	struct perf_samples perf;        /* --perf N's samples, when taken */
	bool perf_taken;
};
void run_result_release(struct run_result *res);

/* Lease the GPUs of rq's pid directory and replay it. 0 with res filled
 * (res->code its exit code), or < 0 with err filled and res->code the
 * lease's code (75: busy past --gpu-wait; 5: unusable or interrupted)
 * when it could not take the GPUs: nothing replayed. */
int run_job(const struct run_request *rq, struct run_result *res, struct error *err)
	__attribute__((warn_unused_result));

#endif
