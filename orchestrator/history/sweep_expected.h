/* How long the history expects each planned case to run, before a sweep
 * starts (docs/sweep.md "What a sweep does"): the longest cases start
 * first and cluster shards are balanced by it. */
#ifndef HRR_HISTORY_SWEEP_EXPECTED_H
#define HRR_HISTORY_SWEEP_EXPECTED_H

#include "common/error.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/sweep/sweep_plan.h"

/* Each case's expected_s: the duration of the latest recorded attempt of
 * the same case name and image (any label) that replayed (state done,
 * duration > 0); left unknown (< 0) when there is none. */
int sweep_expected_load(struct history_db *db, struct sweep_plan *plan, struct error *err)
	__attribute__((warn_unused_result));

#endif
