/* A family's night-to-night spreads moderated (perf_nights.h): Smyth's
 * empirical Bayes ("Linear models and empirical Bayes methods for
 * assessing differential expression in microarray experiments", 2004),
 * the moderated t of limma. Each case's spread s with d degrees of
 * freedom becomes (d0 s0^2 + d s^2) / (d0 + d) with d0 + d degrees of
 * freedom, where s0 and d0 are fitted to the family's spreads: cases
 * that all move alike lend each other their nights; cases that differ
 * keep their own, and a case whose spread is far above the family's (an
 * outlier of the F distribution, as limma's robust fit sets apart) is
 * left alone. */
#include "orchestrator/perf/perf_nights.h"

#include <math.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/perf/perf_dist.h"

/* A spread below this (nights identical to the printed 0.1 ms) counts as
 * this, so its logarithm is finite. */
#define SPREAD_FLOOR 1e-4
/* A spread this unlikely above the family's (the upper tail of its F
 * distribution) is the case's own: not moderated. A case that truly moves
 * 6% among cases that move 1% must not borrow their 1%; a typical case
 * that drew a wide spread by chance keeps it, which only costs power. */
#define OWN_SPREAD_TAIL 0.001
/* The prior's degrees of freedom at most this in the F tail (an infinite
 * d0 is the chi-square's limit, close enough here). */
#define F_D2_MAX 1e4

static bool learned(const struct perf_comparison *c)
{
	return c->nights >= PERF_NOISE_NIGHTS_MIN && isfinite(c->spread) && isfinite(c->ratio) && c->ratio > 0 &&
	       c->df > 0 && isfinite(c->df);
}

/* s0^2 and d0 from the spreads (limma's fitFDist without covariates):
 * the mean and the variance of log s^2 beyond what d explains. */
static void fit_prior(struct perf_comparison *const *v, size_t n, double *s0sq, double *d0)
{
	cleanup_free double *e = xcalloc(n + 1, sizeof(*e));
	double mean = 0, var = 0, tri = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		double s;

		if (!learned(v[i]))
			continue;
		s = fmax(v[i]->spread, SPREAD_FLOOR);
		/* The MAD's square, unlike a variance, is about as often above
		 * the true value as below: its logarithm is centred without
		 * the chi-square's digamma correction. */
		e[m] = log(s * s);
		tri += perf_trigamma(v[i]->df / 2);
		mean += e[m++];
	}
	mean /= (double)m;
	for (size_t i = 0; i < m; i++)
		var += (e[i] - mean) * (e[i] - mean);
	var = var / (double)(m - 1) - tri / (double)m;
	if (var <= 0) {
		*d0 = INFINITY;
		*s0sq = exp(mean);
		return;
	}
	*d0 = 2 * perf_trigamma_inverse(var);
	*s0sq = exp(mean + perf_digamma(*d0 / 2) - log(*d0 / 2));
}

void perf_nights_moderate(struct perf_comparison *const *v, size_t n,
			  const struct perf_rule *rule)
{
	size_t m = 0;
	double s0sq, d0;

	for (size_t i = 0; i < n; i++)
		m += learned(v[i]);
	if (m < 3)
		return;
	fit_prior(v, n, &s0sq, &d0);
	for (size_t i = 0; i < n; i++) {
		struct perf_comparison *c = v[i];
		double s = fmax(c->spread, SPREAD_FLOOR), post;

		if (!learned(c) ||
		    perf_f_upper(s * s / s0sq, c->df, fmin(d0, F_D2_MAX)) < OWN_SPREAD_TAIL)
			continue;
		post = isinf(d0) ? s0sq : (d0 * s0sq + c->df * s * s) / (d0 + c->df);
		c->df = isinf(d0) ? INFINITY : d0 + c->df;
		/* The test takes the moderated spread; the case's own stays
		 * what the reports say it moves. */
		perf_night_test(c, sqrt(post), c->df, rule);
	}
}
