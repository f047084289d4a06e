/* The cases one invocation of a sweep runs, and where it records them. */
#ifndef HRR_JOBS_SWEEP_CASES_H
#define HRR_JOBS_SWEEP_CASES_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/jobs/sweep_state.h"

/* Single host: results.jsonl. A cluster task (a shard under a backend)
 * writes its own file, so tasks never append to one file over the
 * network. Caller frees. */
char *sweep_cases_results_path(const struct sweep_work *j);
/* A cluster task's tag in its results file's name ("<job>_<task>" of
 * results.<job>_<task>.jsonl), naming its other files of its own (caller
 * frees); NULL for results.jsonl. */
char *sweep_cases_task_tag(const char *results_path);
/* The cases not done yet (errors are retried), in this shard when the
 * request names one, and each case's next attempt. */
int sweep_cases_select(struct sweep_work *j, size_t **cases, size_t *n, int **next_attempt,
		       struct error *err) __attribute__((warn_unused_result));

#endif
