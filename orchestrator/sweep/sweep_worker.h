/* One case attempt in its own process (docs/sweep.md "What a sweep does"): the parent forks a worker per running case; the worker opens its
 * own engine connection, calls the replay unit once on the GPUs the parent
 * leased, and reports one results line back through a pipe. The parent is
 * the only writer of the results file. */
#ifndef HRR_SWEEP_SWEEP_WORKER_H
#define HRR_SWEEP_SWEEP_WORKER_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/error.h"
#include "orchestrator/perf/perf_adaptive.h"
#include "orchestrator/replay/replay_unit.h"
#include "orchestrator/sweep/sweep_image.h"
#include "orchestrator/sweep/sweep_plan.h"
#include "orchestrator/sweep/case_result.h"

#define SWEEP_RUNS_DIR "runs"

struct sweep_job {
	const struct sweep_case *c;
	int attempt;
	const int *gpus;
	size_t n_gpus;
	const struct sweep_image_env *img;
	const char *pin;           /* the image's pin, for its result (sweep_pin_name) */
	const struct sweep_shared *sh;
	/* What every case shares: limits, what goes inside, preflight and
	 * confirmation policy, verbosity (the command layer's options). */
	const struct replay_desc *policy;
	const char *folder;        /* the sweep folder */
	const char *sysfs_root, *device_root;
	enum device_mode devices;  /* --devices */
	/* Where it runs, for its result (case_result_locate). */
	const struct gpu_topology *topo;
	const char *host;
	/* The baseline saw this case fail: it is expected still-failing and
	 * is not diagnosed again (docs/gpu-debug-tools.md). */
	bool known_failure;
	/* --perf N, --perf-warmup K (docs/perf.md): 0 no samples. */
	int perf_runs, perf_warmup;
	/* --perf-adaptive MAX (0 off), the rule its looks use and the case's
	 * baseline (NULL: none known, no look). */
	int perf_adaptive;
	const struct perf_rule *perf_rule;
	const struct perf_adaptive_base *perf_base;
};

/* Fork a worker for j. *fd: the read end of its result pipe. */
int sweep_worker_spawn(const struct sweep_job *j, pid_t *pid, int *fd, struct error *err)
	__attribute__((warn_unused_result));

/* The parent's side: the worker's line (NULL when it died without one:
 * interrupted or crashed) into a result. false: no result to record. */
bool sweep_worker_result(const char *line, struct case_result *r);

/* A result the parent records without a worker (image missing, blocked
 * by the pool size, GPU wait exhausted). */
void case_result_fill(struct case_result *r, const struct sweep_case *c, int attempt,
		       enum result_state state, const char *image_id, const char *message);

#endif
