/* A sweep's report model built from the history (the end of a sweep,
 * orchestrator/jobs/sweep_finish.h): each case's status row with its
 * attempts, trend and GPU-time comparison, in the plan's order. The
 * renderers (orchestrator/report/) are handed the model it builds. */
#ifndef HRR_JOBS_SWEEP_MODEL_H
#define HRR_JOBS_SWEEP_MODEL_H

#include <stddef.h>

#include "common/error.h"
#include "common/intern.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/report/report.h"
#include "orchestrator/sweep/sweep_folder.h"

#define SWEEP_TREND_SWEEPS 10

/* A case's GPU-time comparison, made before the report's cases are read
 * (its samples are dropped then) and found by case and image. */
struct sweep_perf_compared {
	const char *case_name, *image;
	struct report_perf p;
};

/* The report model owns copies: history rows live only during a callback. */
struct sweep_model {
	struct report r;
	size_t alloc;
	struct intern strings; /* every string the cases point at, once */
	size_t *by_name;              /* the cases' indexes by case and image (attempts, trend) */
	const char *folder;
	struct report_perf_set perf;    /* the GPU-time samples, per case and image */
	struct report_perf_set nights;  /* theirs in the label's last sweeps, side by side */
	struct sweep_perf_compared *perf_cmp; /* one per case compared, by case and image */
	size_t n_perf_cmp;
	struct perf_fdr_reach perf_reach; /* r.perf_reach's, when set */
};

/* m->perf's samples compared (with --perf-baseline's image, else the
 * nights before), then dropped: only the comparisons are kept. */
int sweep_model_perf(struct sweep_model *m, struct history_db *db, const struct sweep_meta *meta,
		     const char *baseline, struct error *err) __attribute__((warn_unused_result));
/* The cases of sweep meta->id against baseline, in the plan's order
 * (n_planned of them planned), and the label's trend of each. */
int sweep_model_cases(struct sweep_model *m, struct history_db *db, const struct sweep_meta *meta,
		      const char *baseline, size_t n_planned, struct error *err)
	__attribute__((warn_unused_result));
/* A history perf row into the report_perf_set ctx (history_perf_sides). */
int sweep_model_perf_row(void *ctx, const struct history_perf_row *row);
void sweep_model_release(struct sweep_model *m);

#endif
