/* What the baseline said of each planned case (enum sweep_base,
 * orchestrator/sweep/sweep_status.h), known before the cases run
 * (docs/sweep.md "Statuses"): the live status line counts regressions
 * against it, and a case the baseline saw fail is expected to be
 * still-failing, so --diagnose does not rerun it under the debuggers every
 * night (docs/gpu-debug-tools.md). */
#ifndef HRR_HISTORY_SWEEP_BASELINE_H
#define HRR_HISTORY_SWEEP_BASELINE_H

#include "common/error.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/sweep/sweep_folder.h"

/* One entry per plan case of meta (out[meta->plan.n]), against
 * meta->baseline or else the label's previous finished sweep. */
int sweep_baseline_load(struct history_db *db, const struct sweep_meta *meta,
			enum sweep_base *out, struct error *err) __attribute__((warn_unused_result));

#endif
