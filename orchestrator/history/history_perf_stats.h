/* Each attempt's GPU kernel times summarized in the history
 * (perf_sample_stats, docs/perf.md "In the history"): written with its
 * samples at import, filled for the samples of older histories by the
 * schema step that made the table, and read by the history site in place
 * of every sample (a night's chart point and, but for the U test, its
 * comparison). */
#ifndef HRR_HISTORY_HISTORY_PERF_STATS_H
#define HRR_HISTORY_HISTORY_PERF_STATS_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/history/history_query.h"
#include "orchestrator/perf/perf_change.h"
#include "orchestrator/sweep/case_result.h"

/* The summaries of v's results with kernel times, written in one insert
 * (the import's; v's keys differ). */
int history_perf_stats_insert(struct history_db *db, const char *sweep_id,
			      const struct case_result *v, size_t n, struct error *err)
	__attribute__((warn_unused_result));

/* Every stored attempt's summary from its samples (the schema step that
 * made the table; inside its transaction). */
int history_perf_stats_backfill(struct history_db *db, struct error *err)
	__attribute__((warn_unused_result));

/* A summary from the columns first..first+6 of st's row (n, zeros,
 * median_ms, lo_ms, hi_ms, measured_median_ms, measured_cv). */
void history_perf_stats_col(struct history_stmt *st, int first, struct perf_summary *out);

#endif
