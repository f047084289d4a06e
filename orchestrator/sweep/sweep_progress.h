/* A sweep's progress on stderr (docs/sweep.md "What a sweep does"):
 * one line per finished case; on a terminal also a status line redrawn in
 * place ("[37/128] 8 running · 2 regressed · 1 flaky · eta 14m"), counted
 * against the baseline's verdicts loaded before the sweep started
 * (orchestrator/history/sweep_baseline.h). The formatting is pure (sweep_progress_line). */
#ifndef HRR_SWEEP_SWEEP_PROGRESS_H
#define HRR_SWEEP_SWEEP_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"
#include "orchestrator/sweep/sweep_result.h"
#include "orchestrator/sweep/sweep_status.h"

struct sweep_sched;

struct sweep_progress {
	size_t total, finished, running, regressed, flaky, errors;
	double started_at, last_draw;
	bool tty, drawn;
};

void sweep_progress_init(struct sweep_progress *p, size_t total, bool tty);
void sweep_progress_started(struct sweep_progress *p);
void sweep_progress_ended(struct sweep_progress *p);
/* Count a recorded result and print its line. base: the baseline's verdict
 * on its case; retry: a rerun (--retry-failed) of a case this sweep already
 * counted. */
void sweep_progress_finished(struct sweep_progress *p, const struct sweep_result *r,
			     enum sweep_base base, bool retry);
/* Redraw the status line (a terminal only, at most twice a second). */
void sweep_progress_tick(struct sweep_progress *p, const struct sweep_sched *s);
void sweep_progress_done(struct sweep_progress *p);

/* Pure: the status line for elapsed seconds. */
void sweep_progress_line(const struct sweep_progress *p, double elapsed, struct strbuf *out);
/* Pure: the line of one finished case. */
void sweep_progress_case_line(const struct sweep_progress *p, const struct sweep_result *r,
			      struct strbuf *out);

#endif
