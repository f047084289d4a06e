/* Nights as units (docs/perf.md "Nights as units"). */
#include "orchestrator/perf/perf_nights.h"

#include <math.h>
#include <stdlib.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/perf/perf_dist.h"
#include "orchestrator/perf/perf_stats.h"

/* The MAD of a normal sample times this estimates its standard deviation. */
#define MAD_TO_SD 1.4826
/* The two-sided 95% point of the normal distribution. */
#define Z95 1.959963984540054

double perf_night_spread(const double *medians, size_t n)
{
	if (n < PERF_NOISE_NIGHTS_MIN)
		return NAN;
	cleanup_free double *l = xmalloc(n * sizeof(*l));
	double mid;

	for (size_t i = 0; i < n; i++)
		l[i] = log(medians[i]);
	mid = perf_median(l, n);
	for (size_t i = 0; i < n; i++)
		l[i] = fabs(l[i] - mid);
	return MAD_TO_SD * perf_median(l, n);
}

/* The degrees of freedom of a spread learned from n nightly medians: the
 * MAD is as precise as a standard deviation of about 37% as many values
 * (its asymptotic efficiency at the normal, 0.3675), and at least 1. */
double perf_night_df(size_t n)
{
	double df = 0.3675 * (double)n;

	return df < 1 ? 1 : df;
}

/* The variance of the level (the median of k nightly medians) in units
 * of one night's: 1/k for one or two nights (a mean), the median's
 * asymptotic pi/(2k) beyond. */
double perf_level_variance(size_t k)
{
	return k <= 2 ? 1.0 / (double)k : M_PI / (2.0 * (double)k);
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The status once p and the ratio are known (docs/perf.md "Statuses"). */
static enum perf_status night_status(const struct perf_comparison *c,
				     const struct perf_rule *rule, bool same_build)
{
	bool beyond = fabs(c->ratio - 1.0) > rule->threshold;

	if (!beyond)
		return PERF_UNCHANGED;
	if (!(c->p < rule->alpha))
		return PERF_NOISY; /* within the case's own night-to-night moves */
	if (same_build)
		return PERF_SAME_BUILD;
	return c->ratio > 1.0 ? PERF_SLOWER : PERF_FASTER;
}

void perf_night_test(struct perf_comparison *c, double spread, double df,
		     const struct perf_rule *rule)
{
	double d = log(c->ratio);
	/* Tonight's median moves by the spread, the level by its share of
	 * it; a spread of 0 (identical nights) leaves only the ratio. */
	double se = spread * sqrt(1.0 + perf_level_variance(c->n_base));

	c->p = se > 0 ? perf_t_two_sided(d / se, df) : (d == 0 ? 1 : 0);
	c->ci_lo = exp(d - Z95 * se);
	c->ci_hi = exp(d + Z95 * se);
	c->status = night_status(c, rule, c->same_build);
}

int perf_compare_nights(const struct perf_night_series *s, const double *cand, size_t n_new,
			const struct perf_rule *rule, bool same_build,
			struct perf_comparison *out, struct error *err)
{
	size_t k = min_size(s->window ? s->window : 1, s->n);
	size_t noise = min_size(s->noise ? s->noise : PERF_NOISE_NIGHTS_DEFAULT, s->n);
	cleanup_free double *c = xmalloc((n_new + 1) * sizeof(*c));
	size_t mn;

	*out = (struct perf_comparison){ .n_base = k, .n_new = n_new, .p = NAN, .u = NAN,
					 .ratio = NAN, .ci_lo = NAN, .ci_hi = NAN, .p_adj = NAN,
					 .spread = NAN, .median_base = NAN, .median_new = NAN };
	if (perf_check_samples(cand, n_new, "new", err) < 0 ||
	    perf_check_samples(s->medians, s->n, "nightly median", err) < 0)
		return -1;
	mn = perf_measured(cand, n_new, c);
	out->zeros_new = n_new - mn;
	if (n_new && 2 * out->zeros_new >= n_new) {
		out->status = PERF_UNMEASURABLE;
		return 0;
	}
	out->nights = noise;
	out->spread = perf_night_spread(s->medians, noise);
	out->df = perf_night_df(noise);
	out->cv_new = perf_cv(c, mn);
	if (!isfinite(out->spread) && s->within_n >= 2 && mn >= 2) {
		/* Too few nights to learn from: the within-night CV of the
		 * newest night's and tonight's samples, pooled, stands for the
		 * spread (a sample's, not a median's: the night-to-night part
		 * is unknown), with their degrees of freedom. */
		double dfa = (double)(s->within_n - 1), dfb = (double)(mn - 1);

		out->spread = sqrt((dfa * s->within_cv * s->within_cv +
				    dfb * out->cv_new * out->cv_new) / (dfa + dfb));
		out->df = dfa + dfb;
	}
	if (mn < 2 || !k || !isfinite(out->spread)) {
		out->status = PERF_INSUFFICIENT;
		out->nights = 0;
		return 0;
	}
	out->median_base = perf_median(s->medians, k);
	out->median_new = perf_median(c, mn);
	out->ratio = out->median_new / out->median_base;
	out->same_build = same_build;
	perf_night_test(out, out->spread, out->df, rule);
	return 0;
}
