/* The statistics of GPU-time samples, pure (docs/perf.md "The statistics"):
 * medians, the coefficient of variation, the ratio of medians with a
 * seeded bootstrap confidence interval, and the Mann-Whitney U test with
 * its exact distribution for small samples (ties included) and the normal
 * approximation with tie correction for large ones. */
#ifndef HRR_PERF_STATS_H
#define HRR_PERF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Bootstrap resamples per interval; the interval is the 2.5th and 97.5th
 * percentiles of the resampled ratios (a 95% percentile interval). */
#define PERF_BOOTSTRAP_RESAMPLES 2000
/* The fixed seed: the same samples always give the same interval. */
#define PERF_BOOTSTRAP_SEED 0x9e3779b97f4a7c15ULL
/* The U test's exact distribution is used when the smaller side has at
 * most PERF_EXACT_SMALL_SIDE values, whatever the larger side's size, or
 * both sides at most PERF_EXACT_MAX_PER_SIDE; the normal approximation
 * only beyond both (docs/perf.md). With one small side the normal
 * approximation misstates the tail: 30 samples against 2 could never be
 * found slower. */
#define PERF_EXACT_SMALL_SIDE 10
#define PERF_EXACT_MAX_PER_SIDE 25
/* The exact count's steps at most (a few tenths of a second); above, the
 * same test by PERF_PERMUTATIONS seeded random permutations. */
#define PERF_EXACT_BUDGET 1e8
#define PERF_PERMUTATIONS 200000
/* Samples per side a report or a chart collects of a case (the newest
 * first); the statistics themselves take any size. */
#define PERF_SAMPLES_MAX 1000

/* Every sample a finite time of at least 0 ms: ERR_DATA naming the
 * sample and side ("baseline", "new") otherwise. A NaN would never end a
 * group of ties, an infinity makes every spread NaN. */
int perf_check_samples(const double *x, size_t n, const char *side, struct error *err)
	__attribute__((warn_unused_result));

/* Median of n values (n >= 1); x is not modified. NaN when n == 0. */
double perf_median(const double *x, size_t n);

/* The distribution-free interval of the median of n values sorted
 * ascending: the order statistics x(k) and x(n+1-k) for the largest k
 * whose two-sided binomial tail, 2 P(Bin(n, 1/2) <= k - 1), is at most
 * 5%; with n <= 5 no k qualifies and it is the range (93.75% at n = 5).
 * NaN for n == 0. */
void perf_median_interval(const double *sorted, size_t n, double *lo, double *hi);

/* One side's samples as a comparison's status reads them, bar the U
 * test (docs/perf.md "In the history"): stored with each night at import,
 * so the history site compares a thousand cases' nights without reading
 * their samples. Every figure is of the samples sorted ascending, so the
 * same samples give the same summary in any order. */
struct perf_summary {
	size_t n, zeros;          /* the samples, those of 0 ms among them */
	double median, lo, hi;    /* of all n, and its interval (perf_median_interval); NaN: none */
	double measured_median;   /* of those above 0 ms (NaN: none) */
	double measured_cv;       /* perf_cv of those (0 below 2) */
};

/* x's summary; x holds n finite times of at least 0 ms. */
void perf_summarize(const double *x, size_t n, struct perf_summary *out);

/* Sample standard deviation over the mean (n - 1 in the denominator);
 * 0 for n < 2 or a zero mean. */
double perf_cv(const double *x, size_t n);

enum perf_mwu_method {
	PERF_MWU_EXACT = 0,    /* the exact permutation distribution, counted */
	PERF_MWU_PERMUTATION,  /* the same, estimated from seeded permutations */
	PERF_MWU_NORMAL,       /* the normal approximation (both sides large) */
};

struct perf_mwu {
	double u;      /* U of the second sample: pairs (a, b) with b > a, ties count 1/2 */
	double p;      /* two-sided p-value */
	enum perf_mwu_method method;
	bool exact;    /* method == PERF_MWU_EXACT */
	bool ties;     /* some value occurs on both sides or twice */
};

/* The Mann-Whitney U test of a (the baseline, n_a values) against b (n_b
 * values), of any sizes. Both sides need >= 1 value, each a time
 * (perf_check_samples). */
int perf_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b,
		      struct perf_mwu *out, struct error *err);

/* The smallest two-sided p-value any two samples of these sizes can give
 * (no ties: both orders completely separated) under the method the test
 * uses for them: exact, 2 / C(n_a + n_b, n_a) (5 against 5: 2/252; 5
 * against 4: 2/126); by permutations, not below 1 / (PERF_PERMUTATIONS +
 * 1) either; normal, the approximation's own tail. Capped at 1. */
double perf_min_p(size_t n_a, size_t n_b);

/* The ratio median(b) / median(a) and its bootstrap interval [lo, hi]
 * (seeded with seed; resamples as above). Every sample a time, both
 * medians > 0. */
int perf_ratio_interval(const double *a, size_t n_a, const double *b, size_t n_b,
			uint64_t seed, double *ratio, double *lo, double *hi,
			struct error *err);

/* The next value of the seeded generator the statistics use (splitmix64):
 * for other deterministic resampling (perf_changepoint.c). */
uint64_t perf_random(uint64_t *state);

#endif
