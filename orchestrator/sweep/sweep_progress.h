/* A sweep's progress (docs/sweep.md "What a sweep does"), the model: one
 * line per finished case and a status line ("[37/128] 8 running · 2
 * regressed · 1 flaky · eta 14m"), counted against the baseline's verdicts
 * loaded before the sweep started (orchestrator/history/sweep_baseline.h),
 * handed to the events' progress; the terminal's sink prints the lines and
 * redraws the status line in place on a terminal. The formatting is pure
 * (sweep_progress_line). */
#ifndef HRR_SWEEP_SWEEP_PROGRESS_H
#define HRR_SWEEP_SWEEP_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/events.h"
#include "common/strbuf.h"
#include "orchestrator/sweep/case_result.h"
#include "orchestrator/sweep/sweep_status.h"

struct sweep_sched;

struct sweep_progress {
	size_t total, finished, running, regressed, flaky, errors;
	double started_at, last_draw;
	const struct job_events *events; /* NULL: counted, not said */
};

void sweep_progress_init(struct sweep_progress *p, size_t total, const struct job_events *ev);
void sweep_progress_started(struct sweep_progress *p);
void sweep_progress_ended(struct sweep_progress *p);
/* Count a recorded result and say its line. base: the baseline's verdict
 * on its case; retry: a rerun (--retry-failed) of a case this sweep already
 * counted. */
void sweep_progress_finished(struct sweep_progress *p, const struct case_result *r,
			     enum sweep_base base, bool retry);
/* Say the status line (at most twice a second). */
void sweep_progress_tick(struct sweep_progress *p, const struct sweep_sched *s);
void sweep_progress_done(struct sweep_progress *p);

/* Pure: the status line for elapsed seconds. */
void sweep_progress_line(const struct sweep_progress *p, double elapsed, struct strbuf *out);
/* Pure: the line of one finished case. */
void sweep_progress_case_line(const struct sweep_progress *p, const struct case_result *r,
			      struct strbuf *out);

#endif
