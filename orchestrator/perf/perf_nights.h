/* Nights as units, pure (docs/perf.md "Nights as units"): across nights
 * a case's observation is a night's median, and how far a night's median
 * moves from night to night is learned from the case's own series. */
#ifndef HRR_PERF_NIGHTS_H
#define HRR_PERF_NIGHTS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "orchestrator/perf/perf_change.h"

/* The default of --perf-noise-nights: the nightly medians the spread is
 * learned from (the newest ones). */
#define PERF_NOISE_NIGHTS_DEFAULT 20
/* With fewer nightly medians than this the spread is not learned: the
 * comparison takes the samples themselves, with their within-night CV. */
#define PERF_NOISE_NIGHTS_MIN 5

/* The night-to-night spread of a series of nightly medians (ms, > 0): the
 * median absolute deviation of their logarithms, times 1.4826 (the
 * standard deviation of a normal series), so 0.02 is "moves 2% night to
 * night". Robust: one outlier night barely moves it. NaN for fewer than
 * PERF_NOISE_NIGHTS_MIN medians. */
double perf_night_spread(const double *medians, size_t n);

/* A case's series of nightly medians, the newest first (ms, each > 0; a
 * night whose samples are unmeasurable has none and is left out). The
 * level tonight is compared with is the median of the first `window`;
 * the spread is learned from the first `noise`. With fewer than
 * PERF_NOISE_NIGHTS_MIN medians the spread is the within-night CV:
 * within_cv, that of within_n samples of the newest night, pooled with
 * tonight's. */
struct perf_night_series {
	const double *medians;
	size_t n, window, noise;
	double within_cv;
	size_t within_n;
};

/* Tonight's samples (cand, times in ms as perf_compare takes them)
 * against the series (at least one night): tonight's
 * median against the level, on the log scale, standardised by the spread
 * (the level's own uncertainty included), a two-sided normal p. The
 * statuses: unmeasurable and insufficient as perf_compare; a change (the
 * ratio beyond the threshold and p below alpha) is slower/faster, or
 * same-build; a ratio beyond the threshold that does not stand out
 * against the spread is noisy; else unchanged. out->spread, out->df and
 * out->nights say what was learned (nights below PERF_NOISE_NIGHTS_MIN:
 * the within-night CV); n_base counts the level's nights. */
int perf_compare_nights(const struct perf_night_series *s, const double *cand, size_t n_new,
			const struct perf_rule *rule, bool same_build,
			struct perf_comparison *out, struct error *err);

/* c's p, interval and status from its ratio and level (n_base nights)
 * against this spread with df degrees of freedom. */
void perf_night_test(struct perf_comparison *c, double spread, double df,
		     const struct perf_rule *rule);
/* The degrees of freedom of a spread learned from n nightly medians. */
double perf_night_df(size_t n);
/* The variance of the level of k nights (their median) in units of one
 * night's. */
double perf_level_variance(size_t k);

/* A family's spreads moderated (docs/perf.md "Nights as units"): each
 * comparison across nights with a learned spread gets the spread between
 * its own and the family's typical one, weighted by how much the cases'
 * spreads are seen to differ (Smyth's empirical Bayes, the moderated t of
 * limma), and its p, interval and status again by rule (its spread field
 * stays its own). Fewer than 3 such comparisons: left as they are. */
void perf_nights_moderate(struct perf_comparison *const *v, size_t n,
			  const struct perf_rule *rule);

#endif
