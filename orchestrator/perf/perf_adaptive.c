/* The looks of --perf-adaptive (see perf_adaptive.h; docs/perf.md "More
 * samples when unclear"). */
#include "orchestrator/perf/perf_adaptive.h"

#include <math.h>

#include "orchestrator/perf/perf_stats.h"

const char *perf_adaptive_why_text(enum perf_adaptive_why why)
{
	switch (why) {
	case PERF_ADAPTIVE_AT_MAX: return "the most samples taken";
	case PERF_ADAPTIVE_WITHIN: return "within the threshold";
	case PERF_ADAPTIVE_SETTLED: return "noisy or unmeasurable";
	case PERF_ADAPTIVE_UNREACHABLE: return "insufficient whatever the samples";
	case PERF_ADAPTIVE_INSUFFICIENT: return "insufficient";
	case PERF_ADAPTIVE_CANDIDATE: return "a change to confirm";
	}
	return "";
}

size_t perf_adaptive_next(const struct perf_adaptive_plan *p, size_t n)
{
	size_t step = p->first ? p->first : 1;
	size_t next = (n / step + 1) * step;

	if (n >= p->max)
		return p->max > n ? p->max : n;
	return next < p->max ? next : p->max;
}

/* Why the comparison c of n_new samples is settled at this look, or is
 * worth more samples (PERF_ADAPTIVE_INSUFFICIENT, _CANDIDATE). */
static enum perf_adaptive_why why_of(const struct perf_adaptive_plan *p,
				     const struct perf_comparison *c, const struct perf_rule *rule)
{
	size_t measured_base = c->n_base - c->zeros_base;

	switch (c->status) {
	case PERF_INSUFFICIENT:
		/* The baseline does not grow: when MAX new samples against it
		 * still cannot reach alpha, taking them is wasted. */
		if (measured_base < 2 || perf_min_p(measured_base, p->max) >= rule->alpha)
			return PERF_ADAPTIVE_UNREACHABLE;
		return PERF_ADAPTIVE_INSUFFICIENT;
	case PERF_UNCHANGED:
	case PERF_SLOWER:
	case PERF_FASTER:
	case PERF_SAME_BUILD:
		/* A ratio beyond the threshold, significant or not, is only
		 * decided at MAX: deciding it at an earlier look would be a
		 * second chance at a false alarm. */
		return fabs(c->ratio - 1.0) > rule->threshold ? PERF_ADAPTIVE_CANDIDATE
							     : PERF_ADAPTIVE_WITHIN;
	default:
		return PERF_ADAPTIVE_SETTLED;
	}
}

int perf_adaptive_look(const struct perf_adaptive_plan *p, const double *base, size_t n_base,
		       const double *cand, size_t n_new, const struct perf_rule *rule,
		       struct perf_adaptive_look *out, struct error *err)
{
	*out = (struct perf_adaptive_look){ .step = PERF_ADAPTIVE_DECIDE };
	if (perf_compare_status(base, n_base, cand, n_new, rule, false, &out->cmp, err) < 0)
		return -1;
	if (n_new >= p->max) {
		out->why = PERF_ADAPTIVE_AT_MAX;
		return 0;
	}
	out->why = why_of(p, &out->cmp, rule);
	if (out->why == PERF_ADAPTIVE_INSUFFICIENT || out->why == PERF_ADAPTIVE_CANDIDATE) {
		out->step = PERF_ADAPTIVE_MORE;
		out->more = perf_adaptive_next(p, n_new) - n_new;
	}
	return 0;
}
