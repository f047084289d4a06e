/* Change points in a case's series of nightly medians, pure (docs/perf.md
 * "Change points"): E-Divisive (Matteson and James, 2014), as Apache Otava
 * (formerly DataStax Hunter) finds them, on the logarithms of the medians,
 * with a seeded permutation test for each split and a floor on its size. */
#ifndef HRR_PERF_PERF_CHANGEPOINT_H
#define HRR_PERF_PERF_CHANGEPOINT_H

#include <stddef.h>

#include "common/error.h"

/* The nights a series may have at most (the cost is quadratic in them;
 * the history reads the last PERF_CP_NIGHTS). */
#define PERF_CP_MAX 256
#define PERF_CP_NIGHTS 60
/* The defaults: a split is a change point when its permutation p is at
 * most PERF_CP_ALPHA and the medians on its two sides differ by at least
 * PERF_CP_MIN_CHANGE; each side has at least PERF_CP_MIN_SEGMENT nights
 * (one outlier night never makes a side of its own, nor moves a side's
 * median). */
#define PERF_CP_ALPHA 0.01
#define PERF_CP_MIN_CHANGE 0.03
#define PERF_CP_MIN_SEGMENT 3
/* Permutations of a test at most, and the hits after which it stops (the
 * p is then clearly above alpha: Besag and Clifford's sequential test). */
#define PERF_CP_PERMUTATIONS 199
#define PERF_CP_STOP_HITS 10

struct perf_cp_rule {
	double alpha, min_change;
	size_t min_segment; /* >= 2 */
};

struct perf_changepoint {
	size_t index;  /* the first night of the new level */
	double ratio;  /* median of the segment it starts / median of the one before */
	double p;      /* the permutation p of the split when it was found */
};

/* The change points of x[0..n) (nightly medians, each finite and > 0;
 * n <= PERF_CP_MAX, else ERR_LIMIT; a bad value is ERR_DATA), oldest
 * night first, into out (room for n / min_segment), by index. rule NULL:
 * the defaults. The same x always gives the same answer: the
 * permutations are seeded from the values. */
int perf_changepoints(const double *x, size_t n, const struct perf_cp_rule *rule,
		      struct perf_changepoint *out, size_t *n_out, struct error *err)
	__attribute__((warn_unused_result));

#endif
