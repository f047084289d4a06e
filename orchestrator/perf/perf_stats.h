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
/* Up to this many values on each side the test uses the exact permutation
 * distribution; above it, the normal approximation. */
#define PERF_EXACT_MAX_PER_SIDE 25
/* Samples per side accepted at all (the exact table's size is bounded). */
#define PERF_SAMPLES_MAX 1000

/* Median of n values (n >= 1); x is not modified. NaN when n == 0. */
double perf_median(const double *x, size_t n);

/* Sample standard deviation over the mean (n - 1 in the denominator);
 * 0 for n < 2 or a zero mean. */
double perf_cv(const double *x, size_t n);

struct perf_mwu {
	double u;      /* U of the second sample: pairs (a, b) with b > a, ties count 1/2 */
	double p;      /* two-sided p-value */
	bool exact;    /* the exact permutation distribution (else normal approximation) */
	bool ties;     /* some value occurs on both sides or twice */
};

/* The Mann-Whitney U test of a (the baseline, n_a values) against b (n_b
 * values). Both sides need >= 1 value and at most PERF_SAMPLES_MAX. */
int perf_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b,
		      struct perf_mwu *out, struct error *err);

/* The smallest two-sided p-value any two samples of these sizes can give
 * (no ties: both orders completely separated): 2 / C(n_a + n_b, n_a),
 * capped at 1. 5 against 5: 2/252; 5 against 4: 2/126. */
double perf_min_p(size_t n_a, size_t n_b);

/* The ratio median(b) / median(a) and its bootstrap interval [lo, hi]
 * (seeded with seed; resamples as above). Both medians must be > 0. */
int perf_ratio_interval(const double *a, size_t n_a, const double *b, size_t n_b,
			uint64_t seed, double *ratio, double *lo, double *hi,
			struct error *err);

#endif
