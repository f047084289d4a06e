/* The statistics of GPU-time samples (docs/perf.md "The statistics"). */
#include "orchestrator/perf/perf_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* Median of values already sorted. */
static double sorted_median(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

double perf_median(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	cleanup_free double *s = xmalloc(n * sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return sorted_median(s, n);
}

double perf_cv(const double *x, size_t n)
{
	double sum = 0, ss = 0, mean;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	mean = sum / (double)n;
	if (mean == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(n - 1)) / fabs(mean);
}

double perf_min_p(size_t n_a, size_t n_b)
{
	/* C(N, k) in floating point: exact for every size the exact test takes. */
	double c = 1;
	size_t k = n_a < n_b ? n_a : n_b, n = n_a + n_b;

	for (size_t i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c > 2 ? 2 / c : 1;
}

struct pooled {
	double v;
	int side; /* 0: a, 1: b */
};

static int cmp_pooled(const void *pa, const void *pb)
{
	return cmp_double(&((const struct pooled *)pa)->v, &((const struct pooled *)pb)->v);
}

/* Twice the mid-ranks of the pooled values (integers: a tie group covering
 * ranks i+1..j has mid-rank (i+j+1)/2), their sum over side b, and the
 * tie correction sum of t^3 - t over tie groups. */
static void mid_ranks(const struct pooled *p, size_t n, long *r2, long *w2_b, double *tie_sum)
{
	*w2_b = 0;
	*tie_sum = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && p[j].v == p[i].v)
			j++;
		for (size_t k = i; k < j; k++) {
			r2[k] = (long)(i + j + 1); /* 2 * (i+1 + j) / 2 */
			if (p[k].side)
				*w2_b += r2[k];
		}
		double t = (double)(j - i);
		*tie_sum += t * t * t - t;
		i = j;
	}
}

/* The exact two-sided p: the permutation distribution of side b's rank sum
 * over every way to choose n_b of the N pooled (mid-)ranks, all equally
 * likely under the null hypothesis; p sums the ways at least as far from
 * the mean as the observed sum. With ties this is the conditional exact
 * test (the distribution of the mid-rank sum given the tie pattern). */
static double exact_p(const long *r2, size_t n, size_t n_b, long w2_obs)
{
	long total = 0;

	for (size_t i = 0; i < n; i++)
		total += r2[i];
	size_t width = (size_t)total + 1;
	cleanup_free double *ways = xcalloc((n_b + 1) * width, sizeof(*ways));

	ways[0] = 1; /* choose 0 values: sum 0, one way */
	for (size_t i = 0; i < n; i++) {
		size_t top = i + 1 < n_b ? i + 1 : n_b;

		for (size_t k = top; k >= 1; k--) {
			double *to = ways + k * width, *from = ways + (k - 1) * width;

			for (long s = total - r2[i]; s >= 0; s--)
				if (from[s] != 0)
					to[s + r2[i]] += from[s];
		}
	}
	/* mean of 2W: n_b * (N + 1); compare twice the distances, integers. */
	long mean2 = (long)n_b * (long)(n + 1);
	long d_obs = labs(w2_obs - mean2);
	double hit = 0, all = 0;
	const double *row = ways + n_b * width;

	for (long s = 0; s <= total; s++) {
		all += row[s];
		if (labs(s - mean2) >= d_obs)
			hit += row[s];
	}
	return all > 0 ? fmin(1.0, hit / all) : 1.0;
}

int perf_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b,
		      struct perf_mwu *out, struct error *err)
{
	size_t n = n_a + n_b;

	if (n_a == 0 || n_b == 0)
		return error_set(err, ERR_USAGE, 0, "the U test needs at least one sample per side");
	if (n_a > PERF_SAMPLES_MAX || n_b > PERF_SAMPLES_MAX)
		return error_set(err, ERR_LIMIT, 0, "more than %d samples on one side",
				 PERF_SAMPLES_MAX);
	cleanup_free struct pooled *p = xmalloc(n * sizeof(*p));
	cleanup_free long *r2 = xmalloc(n * sizeof(*r2));

	for (size_t i = 0; i < n_a; i++)
		p[i] = (struct pooled){ a[i], 0 };
	for (size_t i = 0; i < n_b; i++)
		p[n_a + i] = (struct pooled){ b[i], 1 };
	qsort(p, n, sizeof(*p), cmp_pooled);

	long w2;
	double tie_sum;

	mid_ranks(p, n, r2, &w2, &tie_sum);
	*out = (struct perf_mwu){
		.u = (double)w2 / 2.0 - (double)n_b * (double)(n_b + 1) / 2.0,
		.ties = tie_sum > 0,
	};
	if (n_a <= PERF_EXACT_MAX_PER_SIDE && n_b <= PERF_EXACT_MAX_PER_SIDE) {
		out->exact = true;
		out->p = exact_p(r2, n, n_b, w2);
		return 0;
	}
	/* Normal approximation, tie-corrected variance, continuity correction. */
	double na = (double)n_a, nb = (double)n_b, nn = (double)n;
	double var = na * nb / 12.0 * ((nn + 1) - tie_sum / (nn * (nn - 1)));
	double dev = fabs(out->u - na * nb / 2.0) - 0.5;

	if (var <= 0) {
		out->p = 1;
		return 0;
	}
	out->p = fmin(1.0, erfc((dev > 0 ? dev : 0) / sqrt(var) / sqrt(2.0)));
	return 0;
}

/* splitmix64: a small, well-mixed generator, enough for resampling. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double resampled_median(const double *x, size_t n, double *buf, uint64_t *state)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = x[splitmix64(state) % n];
	qsort(buf, n, sizeof(*buf), cmp_double);
	return sorted_median(buf, n);
}

int perf_ratio_interval(const double *a, size_t n_a, const double *b, size_t n_b,
			uint64_t seed, double *ratio, double *lo, double *hi,
			struct error *err)
{
	if (n_a == 0 || n_b == 0)
		return error_set(err, ERR_USAGE, 0, "a ratio needs at least one sample per side");
	double ma = perf_median(a, n_a), mb = perf_median(b, n_b);

	if (!(ma > 0) || !(mb > 0))
		return error_set(err, ERR_DATA, 0, "a median GPU time is not positive");
	*ratio = mb / ma;

	size_t big = n_a > n_b ? n_a : n_b;
	cleanup_free double *buf = xmalloc(big * sizeof(*buf));
	cleanup_free double *r = xmalloc(PERF_BOOTSTRAP_RESAMPLES * sizeof(*r));
	uint64_t state = seed;

	for (size_t i = 0; i < PERF_BOOTSTRAP_RESAMPLES; i++) {
		double ra = resampled_median(a, n_a, buf, &state);
		double rb = resampled_median(b, n_b, buf, &state);

		r[i] = rb / ra;
	}
	qsort(r, PERF_BOOTSTRAP_RESAMPLES, sizeof(*r), cmp_double);
	/* 2.5th and 97.5th percentiles: with 2000 resamples, the 51st and 1950th. */
	*lo = r[(size_t)(0.025 * PERF_BOOTSTRAP_RESAMPLES)];
	*hi = r[(size_t)(0.975 * PERF_BOOTSTRAP_RESAMPLES) - 1];
	return 0;
}
