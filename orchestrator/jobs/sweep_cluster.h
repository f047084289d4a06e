/* A sweep's cluster side (docs/slurm.md): its cases handed to a backend,
 * and the job of one of its tasks (its GPUs, its time, its end). */
#ifndef HRR_JOBS_SWEEP_CLUSTER_H
#define HRR_JOBS_SWEEP_CLUSTER_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/jobs/sweep_state.h"
#include "orchestrator/sweep/sweep_run.h"

/* The cases handed to the backend: nothing runs here. With wait, the
 * sweep's summary is shown as its merge job wrote it. */
enum sweep_end sweep_cluster_submit(struct sweep_work *j, const size_t *cases, size_t n);
/* The pool of a task: exactly the GPUs its backend allocated to it. */
int sweep_cluster_task_pool(struct sweep_work *j, struct error *err)
	__attribute__((warn_unused_result));
/* A task stops starting cases once its backend says the time left is
 * shorter than the next case's timeout (a sweep_run_input.may_start over
 * the job). */
bool sweep_cluster_task_may_start(void *ctx, const struct sweep_case *sc);
/* A task ends with its results file: the merge job alone writes the
 * database and the reports. */
enum sweep_end sweep_cluster_task_end(const struct sweep_work *j,
				      const struct sweep_run_outcome *out);

#endif
