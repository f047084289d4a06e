/* What a sweep's report takes from its results files, per case and
 * image: where and as what kind its final attempt ran, and every attempt
 * that did not PASS (JUnit's reruns, a flaky case's note). Built in one
 * sorted pass over the results, so the parsed results are released
 * before the report is built and a case is found by bsearch, not by a
 * scan of every result. */
#ifndef HRR_JOBS_SWEEP_ATTEMPTS_H
#define HRR_JOBS_SWEEP_ATTEMPTS_H

#include <stddef.h>

#include "common/strvec.h"
#include "common/intern.h"
#include "orchestrator/report/report.h"
#include "orchestrator/sweep/sweep_result.h"

struct sweep_case_attempts {
	const char *case_name, *image;
	const char *kind, *gpu_uids, *host; /* the final attempt's (highest, last written) */
	struct report_attempt *failed;      /* every attempt that did not PASS, in file order */
	size_t n_failed;
	size_t final;                       /* the final attempt's index in failed, or n_failed */
	int final_attempt;                  /* its number */
	size_t seq;                         /* the order it was added in (sweep_attempts_add) */
};

struct sweep_attempts {
	struct sweep_case_attempts *v;     /* sorted by case, then image */
	size_t n, alloc;
	struct intern strings;      /* every string the entries point at, once */
	struct intern *shared;             /* NULL, or the table strings are kept in instead */
};

/* Room for n cases and images (a sweep's planned cases), allocated once:
 * a large sweep's array is not doubled past its size. */
void sweep_attempts_reserve(struct sweep_attempts *a, size_t n);
/* From results all in memory: add, then finish. */
void sweep_attempts_build(struct sweep_attempts *a, const struct sweep_results *rs);
/* From results read in chunks (sweep_results_each): a zeroed a, each chunk
 * added in file order, then finished (sorted, a case's chunks merged). */
void sweep_attempts_add(struct sweep_attempts *a, const struct sweep_results *rs);
void sweep_attempts_finish(struct sweep_attempts *a);
/* NULL: no result names that case and image. */
const struct sweep_case_attempts *sweep_attempts_find(const struct sweep_attempts *a,
						      const char *case_name, const char *image);
void sweep_attempts_release(struct sweep_attempts *a);

#endif
