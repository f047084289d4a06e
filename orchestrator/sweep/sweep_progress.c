#include "orchestrator/sweep/sweep_progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/text.h"

void sweep_progress_init(struct sweep_progress *p, size_t total, const struct job_events *ev)
{
	memset(p, 0, sizeof(*p));
	p->total = total;
	p->events = ev;
	p->started_at = monotonic_now();
}

void sweep_progress_started(struct sweep_progress *p)
{
	p->running++;
}

void sweep_progress_ended(struct sweep_progress *p)
{
	if (p->running)
		p->running--;
}

static void add_duration(struct strbuf *out, double s)
{
	if (s < 90)
		strbuf_addf(out, "%.0fs", s);
	else if (s < 5400)
		strbuf_addf(out, "%.0fm", s / 60);
	else
		strbuf_addf(out, "%.1fh", s / 3600);
}

void sweep_progress_line(const struct sweep_progress *p, double elapsed, struct strbuf *out)
{
	strbuf_addf(out, "[%zu/%zu] %zu running", p->finished, p->total, p->running);
	if (p->regressed)
		strbuf_addf(out, " · %zu regressed", p->regressed);
	if (p->flaky)
		strbuf_addf(out, " · %zu flaky", p->flaky);
	if (p->errors)
		strbuf_addf(out, " · %zu error", p->errors);
	if (p->finished && p->finished < p->total) {
		strbuf_addstr(out, " · eta ");
		add_duration(out, elapsed / (double)p->finished * (double)(p->total - p->finished));
	}
}

void sweep_progress_case_line(const struct sweep_progress *p, const struct case_result *r,
			      struct strbuf *out)
{
	const char *what = r->has_outcome ? case_result_outcome_name(r)
					  : case_result_state_name(r->state);

	strbuf_addf(out, "[%zu/%zu] %s @ %s: %s", p->finished, p->total, r->case_name, r->image,
		    what);
	if (r->kernel)
		strbuf_addf(out, " %s", r->kernel);
	if (r->attempt > 1)
		strbuf_addf(out, " (attempt %d)", r->attempt);
	if (r->message && !r->has_outcome)
		strbuf_addf(out, ": %s", r->message);
	if (r->duration_s > 0)
		strbuf_addf(out, " %.1fs", r->duration_s);
}

void sweep_progress_finished(struct sweep_progress *p, const struct case_result *r,
			     enum sweep_base base, bool retry)
{
	cleanup_strbuf struct strbuf line = STRBUF_INIT, clean = STRBUF_INIT;
	bool pass = case_result_passed(r);

	/* A retried case counts once: its earlier failure leaves the count
	 * (only a non-PASS that ran is retried, so it counted as regressed
	 * exactly when the baseline passed). */
	if (!retry)
		p->finished++;
	else if (base == BASE_PASS && p->regressed)
		p->regressed--;
	if (r->state == RESULT_ERROR)
		p->errors++;
	else if (!pass && r->has_outcome && base == BASE_PASS)
		p->regressed++;
	else if (pass && retry)
		p->flaky++;
	sweep_progress_case_line(p, r, &line);
	text_sanitize(&clean, line.buf, line.len, TEXT_STRIP_ANSI);
	events_progress(p->events, EVENTS_PROGRESS_CASE, clean.buf);
	p->last_draw = 0;
}

void sweep_progress_tick(struct sweep_progress *p, const struct sweep_sched *s)
{
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	double t = monotonic_now();

	(void)s;
	if (!p->events || !p->events->progress || t - p->last_draw < 0.5)
		return;
	sweep_progress_line(p, t - p->started_at, &line);
	events_progress(p->events, EVENTS_PROGRESS_STATUS, line.buf);
	p->last_draw = t;
}

void sweep_progress_done(struct sweep_progress *p)
{
	events_progress(p->events, EVENTS_PROGRESS_DONE, NULL);
}
