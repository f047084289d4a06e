/* `--perf-adaptive MAX` in a sweep's worker (docs/perf.md "More samples
 * when unclear"): after a case's first samples, the looks of
 * orchestrator/perf/perf_adaptive.h against its baseline, and the timing
 * replays they ask for, on the same GPUs (the worker's lease). */
#ifndef HRR_SWEEP_SWEEP_ADAPTIVE_H
#define HRR_SWEEP_SWEEP_ADAPTIVE_H

#include "orchestrator/perf/perf_adaptive.h"
#include "orchestrator/perf/perf_samples.h"
#include "orchestrator/replay/replay_perf.h"

/* Look at ps against base and take the samples the looks ask for, up to
 * plan->max, appended to ps (ps->adaptive counts them, and its note says
 * so). Nothing when sampling already stopped (a note) or base ran on
 * another GPU product (gfx, device_id: the case's). Returns the signal
 * that interrupted a timing replay, 0 when none did. */
int sweep_adaptive_take(const struct replay_host *host, const struct replay_desc *t,
			const struct perf_adaptive_plan *plan,
			const struct perf_adaptive_base *base, const char *gfx, long device_id,
			const struct perf_rule *rule, struct perf_samples *ps);

#endif
