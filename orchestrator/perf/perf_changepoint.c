/* Change points in a series of nightly medians (docs/perf.md "Change
 * points"). */
#include "orchestrator/perf/perf_changepoint.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/perf/perf_stats.h"

/* The split of y[0..n) that maximizes E-Divisive's statistic
 *   Q(t) = m k / n * (2/(m k) B - W_L / C(m,2) - W_R / C(k,2)),
 * m = t and k = n - t the sides' sizes, B the sum of |y_i - y_j| across
 * the split, W_L and W_R within each side (alpha = 1). The sums of every
 * split come from two passes over the pairs: O(n^2). The first best t
 * wins a tie. */
static double best_split(const double *y, size_t n, size_t min_seg, size_t *tau)
{
	double left[PERF_CP_MAX] = { 0 }, right[PERF_CP_MAX] = { 0 };
	double wl[PERF_CP_MAX + 1], wr[PERF_CP_MAX + 1], best = -INFINITY;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double d = fabs(y[i] - y[j]);

			left[j] += d;  /* pairs (i, j) with j the later */
			right[i] += d; /* the same pairs, by the earlier */
		}
	wl[0] = 0;
	for (size_t t = 0; t < n; t++)
		wl[t + 1] = wl[t] + left[t];
	wr[n] = 0;
	for (size_t t = n; t-- > 0;)
		wr[t] = wr[t + 1] + right[t];
	*tau = 0;
	for (size_t t = min_seg; t + min_seg <= n; t++) {
		double m = (double)t, k = (double)(n - t);
		double between = wl[n] - wl[t] - wr[t];
		double e = 2 * between / (m * k) - wl[t] / (m * (m - 1) / 2) -
			   wr[t] / (k * (k - 1) / 2);
		double q = m * k / (double)n * e;

		if (q > best) {
			best = q;
			*tau = t;
		}
	}
	return best;
}

/* FNV-1a over the values' bits: the permutations' seed, so the same
 * series always gives the same p. */
static uint64_t seed_of(const double *y, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		uint64_t bits;

		memcpy(&bits, &y[i], sizeof(bits));
		for (int b = 0; b < 64; b += 8) {
			h ^= (bits >> b) & 0xff;
			h *= 0x100000001b3ULL;
		}
	}
	return h ^ n;
}

/* The share of permutations of y whose best split is at least as strong
 * as the observed one: (hits + 1) / (permutations + 1), or hits /
 * permutations once PERF_CP_STOP_HITS are reached (Besag and Clifford,
 * 1991): a series without a change costs a few dozen permutations. */
static double permutation_p(const double *y, size_t n, size_t min_seg, double observed)
{
	double buf[PERF_CP_MAX];
	uint64_t state = seed_of(y, n);
	size_t hits = 0, tau;

	memcpy(buf, y, n * sizeof(*buf));
	for (size_t r = 1; r <= PERF_CP_PERMUTATIONS; r++) {
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)(perf_random(&state) % (i + 1));
			double t = buf[i];

			buf[i] = buf[j];
			buf[j] = t;
		}
		/* A relative margin: the same split permuted can differ in
		 * the last bits by the order of its sums. */
		if (best_split(buf, n, min_seg, &tau) >= observed * (1 - 1e-12) &&
		    ++hits >= PERF_CP_STOP_HITS)
			return (double)hits / (double)r;
	}
	return (double)(hits + 1) / (PERF_CP_PERMUTATIONS + 1);
}

struct cp_search {
	const double *x, *y; /* the medians and their logarithms */
	const struct perf_cp_rule *rule;
	struct perf_changepoint *out;
	size_t n_out;
};

/* Bisect x[a..b): the best split, kept when it is significant and large
 * enough, then each side in turn; a side too short for two segments, or
 * whose best split is not kept, has no further change point. */
static void search(struct cp_search *s, size_t a, size_t b)
{
	size_t n = b - a, min_seg = s->rule->min_segment, tau;
	double q, p, ratio;

	if (n < 2 * min_seg)
		return;
	q = best_split(s->y + a, n, min_seg, &tau);
	ratio = perf_median(s->x + a + tau, n - tau) / perf_median(s->x + a, tau);
	if (!(q > 0) || fabs(ratio - 1) < s->rule->min_change)
		return;
	p = permutation_p(s->y + a, n, min_seg, q);
	if (p > s->rule->alpha)
		return;
	s->out[s->n_out++] = (struct perf_changepoint){ a + tau, ratio, p };
	search(s, a, a + tau);
	search(s, a + tau, b);
}

static int by_index(const void *pa, const void *pb)
{
	const struct perf_changepoint *a = pa, *b = pb;

	return (a->index > b->index) - (a->index < b->index);
}

int perf_changepoints(const double *x, size_t n, const struct perf_cp_rule *rule,
		      struct perf_changepoint *out, size_t *n_out, struct error *err)
{
	static const struct perf_cp_rule defaults = { PERF_CP_ALPHA, PERF_CP_MIN_CHANGE,
						      PERF_CP_MIN_SEGMENT };
	double y[PERF_CP_MAX];
	struct cp_search s = { x, y, rule ? rule : &defaults, out, 0 };

	*n_out = 0;
	if (n > PERF_CP_MAX)
		return error_set(err, ERR_LIMIT, 0, "a series of %zu nights: at most %d are searched",
				 n, PERF_CP_MAX);
	if (s.rule->min_segment < 2)
		return error_set(err, ERR_USAGE, 0, "a change point's segments need 2 nights or more");
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || x[i] <= 0)
			return error_set(err, ERR_DATA, 0, "night %zu's median (%g) is not a time above 0",
					 i + 1, x[i]);
		y[i] = log(x[i]);
	}
	search(&s, 0, n);
	qsort(out, s.n_out, sizeof(*out), by_index);
	/* Each size between its final neighbours: a later split may have
	 * cut the sides it was first measured on. */
	for (size_t i = 0; i < s.n_out; i++) {
		size_t from = i ? out[i - 1].index : 0;
		size_t to = i + 1 < s.n_out ? out[i + 1].index : n;

		out[i].ratio = perf_median(x + out[i].index, to - out[i].index) /
			       perf_median(x + from, out[i].index - from);
	}
	*n_out = s.n_out;
	return 0;
}
