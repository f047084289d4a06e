/* The cases one invocation of a sweep runs, and where it records them. */
#ifndef HRR_JOBS_SWEEP_CASES_H
#define HRR_JOBS_SWEEP_CASES_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/jobs/sweep_state.h"

/* A cluster task's name ("<job>_<task>", a shard under a backend), which
 * names its own files in the sweep folder (caller frees); NULL on a
 * single host. */
char *sweep_cases_task_tag(const struct sweep_work *j);
/* Single host (tag NULL): results.jsonl. A cluster task writes its own
 * file, results.<tag>.jsonl, so tasks never append to one file over the
 * network. Caller frees. */
char *sweep_cases_results_path(const char *folder, const char *tag);
/* The cases not done yet (errors are retried), in this shard when the
 * request names one, and each case's next attempt. */
int sweep_cases_select(struct sweep_work *j, size_t **cases, size_t *n, int **next_attempt,
		       struct error *err) __attribute__((warn_unused_result));

#endif
