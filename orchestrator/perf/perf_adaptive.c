/* The looks of --perf-adaptive (see perf_adaptive.h; docs/perf.md "More
 * samples when unclear"). */
#include "orchestrator/perf/perf_adaptive.h"

#include <math.h>

#include "orchestrator/perf/perf_nights.h"

const char *perf_adaptive_why_text(enum perf_adaptive_why why)
{
	switch (why) {
	case PERF_ADAPTIVE_AT_MAX: return "the most samples taken";
	case PERF_ADAPTIVE_WITHIN: return "within the threshold";
	case PERF_ADAPTIVE_SETTLED: return "noisy or unmeasurable";
	case PERF_ADAPTIVE_UNREACHABLE: return "insufficient whatever the samples";
	case PERF_ADAPTIVE_INSUFFICIENT: return "insufficient";
	case PERF_ADAPTIVE_CANDIDATE: return "a change to confirm";
	case PERF_ADAPTIVE_NIGHTS: return "its nights move more than its samples";
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

bool perf_adaptive_samples_help(double spread, double within_cv, size_t within_n,
				size_t n_new)
{
	/* The variance of a median of n samples of CV c: (pi/2) c^2 / n. */
	double w_nights = within_n ? M_PI / 2 * within_cv * within_cv / (double)within_n : 0;
	double w_now = n_new ? M_PI / 2 * within_cv * within_cv / (double)n_new : INFINITY;
	double between = spread * spread - w_nights;

	return w_now >= (between > 0 ? between : 0);
}

/* Why the comparison c of n_new samples across the nights b is settled
 * at this look, or is worth more samples (PERF_ADAPTIVE_INSUFFICIENT,
 * _CANDIDATE). */
static enum perf_adaptive_why why_of(const struct perf_adaptive_base *b,
				     const struct perf_comparison *c, size_t n_new,
				     const struct perf_rule *rule)
{
	double cv = b->within_n >= 2 ? b->within_cv : c->cv_new;

	switch (c->status) {
	case PERF_UNMEASURABLE:
		return PERF_ADAPTIVE_SETTLED;
	case PERF_INSUFFICIENT:
		/* No spread (too few nights and no within-night CV) does not
		 * come of tonight's samples; fewer than 2 measured does. */
		return isfinite(c->spread) ? PERF_ADAPTIVE_INSUFFICIENT : PERF_ADAPTIVE_UNREACHABLE;
	default:
		break;
	}
	if (!(fabs(c->ratio - 1.0) > rule->threshold))
		return PERF_ADAPTIVE_WITHIN;
	/* A ratio beyond the threshold, significant or not, is only decided
	 * at MAX, unless more samples cannot move tonight's median against
	 * the spread: a choice made from the noise alone, not from p. With
	 * too few nights the spread is the samples' own CV, which tonight's
	 * samples lend degrees of freedom to: they help. */
	if (c->nights < PERF_NOISE_NIGHTS_MIN)
		return PERF_ADAPTIVE_CANDIDATE;
	if (!isfinite(cv) || !perf_adaptive_samples_help(c->spread, cv, b->within_n, n_new))
		return PERF_ADAPTIVE_NIGHTS;
	return PERF_ADAPTIVE_CANDIDATE;
}

int perf_adaptive_look(const struct perf_adaptive_plan *p, const struct perf_adaptive_base *base,
		       const double *cand, size_t n_new, const struct perf_rule *rule,
		       struct perf_adaptive_look *out, struct error *err)
{
	struct perf_night_series s = { base->medians, base->n,  base->window,
				       base->noise,   base->within_cv, base->within_n };

	*out = (struct perf_adaptive_look){ .step = PERF_ADAPTIVE_DECIDE };
	if (perf_compare_nights(&s, cand, n_new, rule, false, &out->cmp, err) < 0)
		return -1;
	if (n_new >= p->max) {
		out->why = PERF_ADAPTIVE_AT_MAX;
		return 0;
	}
	out->why = why_of(base, &out->cmp, n_new, rule);
	if (out->why == PERF_ADAPTIVE_INSUFFICIENT || out->why == PERF_ADAPTIVE_CANDIDATE) {
		out->step = PERF_ADAPTIVE_MORE;
		out->more = perf_adaptive_next(p, n_new) - n_new;
	}
	return 0;
}
