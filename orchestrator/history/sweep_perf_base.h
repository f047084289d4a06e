/* Each planned case's GPU-time baseline before the sweep runs, for
 * --perf-adaptive's looks (docs/perf.md "More samples when unclear"): the
 * nights its comparison across nights will use, read as the report reads
 * them ("Nights as units": each night's median, the label's finished
 * sweeps before this one up to the baseline with --perf-window 1, as many
 * as the level and the spread take, from the case's restart on; one GPU
 * product: the newest's). */
#ifndef HRR_HISTORY_SWEEP_PERF_BASE_H
#define HRR_HISTORY_SWEEP_PERF_BASE_H

#include "common/error.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/perf/perf_adaptive.h"
#include "orchestrator/sweep/sweep_folder.h"

/* An array of meta->plan.n bases (empty where no samples are known), or
 * NULL with err when the history could not be read. Cases of another
 * image than --perf-baseline's are compared within the sweep: none. */
struct perf_adaptive_base *sweep_perf_base_load(struct history_db *db,
						const struct sweep_meta *meta,
						struct error *err);
void sweep_perf_base_free(struct perf_adaptive_base *v, size_t n);

#endif
