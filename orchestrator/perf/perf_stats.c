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

void perf_summarize(const double *x, size_t n, struct perf_summary *out)
{
	cleanup_free double *s = xmalloc((n + 1) * sizeof(*s));
	size_t m;

	*out = (struct perf_summary){ .n = n, .median = NAN, .lo = NAN, .hi = NAN,
				      .measured_median = NAN };
	if (!n)
		return;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	out->median = sorted_median(s, n);
	perf_median_interval(s, n, &out->lo, &out->hi);
	/* Sorted, the times of 0 ms come first: the measured ones are the rest. */
	for (m = 0; m < n && s[m] <= 0; m++)
		;
	out->zeros = m;
	if (m < n) {
		out->measured_median = sorted_median(s + m, n - m);
		out->measured_cv = perf_cv(s + m, n - m);
	}
}

/* P(Bin(n, 1/2) <= k) */
static double binom_half_cdf(size_t n, size_t k)
{
	double term = ldexp(1.0, -(int)n), sum = 0;

	for (size_t i = 0; i <= k && i <= n; i++) {
		sum += term;
		term = term * (double)(n - i) / (double)(i + 1);
	}
	return sum;
}

void perf_median_interval(const double *sorted, size_t n, double *lo, double *hi)
{
	size_t k = 1;

	if (!n) {
		*lo = *hi = NAN;
		return;
	}
	/* Counts beyond a thousand are cut at import; the loop is short. */
	while (k + 1 <= (n + 1) / 2 && 2 * binom_half_cdf(n, k) <= 0.05)
		k++;
	*lo = sorted[k - 1];
	*hi = sorted[n - k];
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

/* C(n, k) in floating point: exact for every size the exact test takes. */
static double choose(size_t n, size_t k)
{
	double c = 1;

	k = k < n - k ? k : n - k;
	for (size_t i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

static size_t min_side(size_t n_a, size_t n_b)
{
	return n_a < n_b ? n_a : n_b;
}

/* Which distribution the test uses for these sizes (docs/perf.md): the
 * exact one counted over the smaller side when that side is small (at
 * most PERF_EXACT_SMALL_SIDE values, whatever the other's size) or both
 * sides are (at most PERF_EXACT_MAX_PER_SIDE), as long as counting stays
 * within PERF_EXACT_BUDGET steps; past that budget a seeded permutation
 * test of the same statistic; the normal approximation only when both
 * sides are large, where it is exact enough. By sizes alone, so the
 * smallest reachable p is known before any sample is. */
static enum perf_mwu_method method_for(size_t n_a, size_t n_b)
{
	size_t k = min_side(n_a, n_b), n = n_a + n_b, big = n - k;
	/* The count's steps with no ties: N values, k rows, sums up to
	 * twice the k largest ranks. */
	double steps = (double)n * (double)k * (double)k * (double)(2 * n - k + 1);

	if (k > PERF_EXACT_SMALL_SIDE && big > PERF_EXACT_MAX_PER_SIDE)
		return PERF_MWU_NORMAL;
	return steps <= PERF_EXACT_BUDGET ? PERF_MWU_EXACT : PERF_MWU_PERMUTATION;
}

double perf_min_p(size_t n_a, size_t n_b)
{
	double na = (double)n_a, nb = (double)n_b, p;

	if (!n_a || !n_b)
		return 1;
	switch (method_for(n_a, n_b)) {
	case PERF_MWU_NORMAL:
		/* Completely separated: |U - n_a n_b / 2| = n_a n_b / 2, no ties. */
		p = erfc((na * nb / 2 - 0.5) / sqrt(na * nb * (na + nb + 1) / 12) / sqrt(2.0));
		break;
	case PERF_MWU_PERMUTATION:
		p = fmax(2 / choose(n_a + n_b, min_side(n_a, n_b)), 1.0 / (PERF_PERMUTATIONS + 1));
		break;
	default:
		p = 2 / choose(n_a + n_b, min_side(n_a, n_b));
		break;
	}
	return fmin(1.0, p);
}

int perf_check_samples(const double *x, size_t n, const char *side, struct error *err)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || x[i] < 0)
			return error_set(err, ERR_DATA, 0,
					 "GPU time sample %zu of the %s side is not a time (%g ms)",
					 i + 1, side, x[i]);
	return 0;
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
 * tie correction sum of t^3 - t over tie groups. The values are finite
 * (perf_check_samples): a NaN never equals itself and would never end a
 * group. */
static void mid_ranks(const struct pooled *p, size_t n, long *r2, long *w2_b, double *tie_sum)
{
	*w2_b = 0;
	*tie_sum = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

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

/* The exact two-sided p: the permutation distribution of one side's rank
 * sum (that side has k values) over every way to choose k of the N pooled
 * (mid-)ranks, all equally likely under the null hypothesis; p sums the
 * ways at least as far from the mean as the observed sum. With ties this
 * is the conditional exact test (the distribution of the mid-rank sum
 * given the tie pattern). r2 is nondecreasing (the pooled values are
 * sorted), so no k of them sum past its last k. */
static double exact_p(const long *r2, size_t n, size_t k, long w2_obs)
{
	long top = 0;

	for (size_t i = n - k; i < n; i++)
		top += r2[i];
	size_t width = (size_t)top + 1;
	cleanup_free double *ways = xcalloc((k + 1) * width, sizeof(*ways));

	ways[0] = 1; /* choose 0 values: sum 0, one way */
	for (size_t i = 0; i < n; i++) {
		size_t most = i + 1 < k ? i + 1 : k;

		for (size_t kk = most; kk >= 1; kk--) {
			double *to = ways + kk * width, *from = ways + (kk - 1) * width;

			for (long s = top - r2[i]; s >= 0; s--)
				if (from[s] != 0)
					to[s + r2[i]] += from[s];
		}
	}
	/* mean of 2W: k * (N + 1); compare twice the distances, integers. */
	long mean2 = (long)k * (long)(n + 1);
	long d_obs = labs(w2_obs - mean2);
	double hit = 0, all = 0;
	const double *row = ways + k * width;

	for (long s = 0; s <= top; s++) {
		all += row[s];
		if (labs(s - mean2) >= d_obs)
			hit += row[s];
	}
	return all > 0 ? fmin(1.0, hit / all) : 1.0;
}

/* splitmix64: a small, well-mixed generator, enough for resampling. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The same p estimated from PERF_PERMUTATIONS seeded random choices of k
 * of the N mid-ranks (a partial Fisher-Yates shuffle each), counting the
 * observed arrangement as one: (hits + 1) / (draws + 1), never below
 * 1 / (draws + 1). */
static double permutation_p(const long *r2, size_t n, size_t k, long w2_obs)
{
	cleanup_free size_t *idx = xmalloc(n * sizeof(*idx));
	long mean2 = (long)k * (long)(n + 1), d_obs = labs(w2_obs - mean2);
	uint64_t state = PERF_BOOTSTRAP_SEED;
	size_t hit = 0;

	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t d = 0; d < PERF_PERMUTATIONS; d++) {
		long s = 0;

		for (size_t j = 0; j < k; j++) {
			size_t r = j + (size_t)(splitmix64(&state) % (n - j)), t = idx[j];

			idx[j] = idx[r];
			idx[r] = t;
			s += r2[idx[j]];
		}
		hit += labs(s - mean2) >= d_obs;
	}
	return ((double)hit + 1) / ((double)PERF_PERMUTATIONS + 1);
}

int perf_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b,
		      struct perf_mwu *out, struct error *err)
{
	size_t n = n_a + n_b, k = min_side(n_a, n_b);

	if (n_a == 0 || n_b == 0)
		return error_set(err, ERR_USAGE, 0, "the U test needs at least one sample per side");
	if (perf_check_samples(a, n_a, "baseline", err) < 0 ||
	    perf_check_samples(b, n_b, "new", err) < 0)
		return -1;
	cleanup_free struct pooled *p = xmalloc(n * sizeof(*p));
	cleanup_free long *r2 = xmalloc(n * sizeof(*r2));

	for (size_t i = 0; i < n_a; i++)
		p[i] = (struct pooled){ a[i], 0 };
	for (size_t i = 0; i < n_b; i++)
		p[n_a + i] = (struct pooled){ b[i], 1 };
	qsort(p, n, sizeof(*p), cmp_pooled);

	long w2, total = (long)n * (long)(n + 1);
	double tie_sum;

	mid_ranks(p, n, r2, &w2, &tie_sum);
	*out = (struct perf_mwu){
		.u = (double)w2 / 2.0 - (double)n_b * (double)(n_b + 1) / 2.0,
		.ties = tie_sum > 0,
		.method = method_for(n_a, n_b),
	};
	/* The smaller side's rank sum: b's, or the rest of the total. */
	long w2_small = k == n_b ? w2 : total - w2;

	out->exact = out->method == PERF_MWU_EXACT;
	if (out->method == PERF_MWU_EXACT) {
		out->p = exact_p(r2, n, k, w2_small);
		return 0;
	}
	if (out->method == PERF_MWU_PERMUTATION) {
		out->p = permutation_p(r2, n, k, w2_small);
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

/* The k-th smallest of v[0..n) (from 0), v reordered so that every value
 * before k is no larger: Wirth's selection, linear on average. A
 * resample's median is wanted 4,000 times an interval; sorting each made
 * 10,000 samples a side take seconds. */
static double select_kth(double *v, size_t n, size_t k)
{
	long l = 0, m = (long)n - 1, kk = (long)k;

	while (l < m) {
		double x = v[kk];
		long i = l, j = m;

		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				double t = v[i];

				v[i++] = v[j];
				v[j--] = t;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
	return v[kk];
}

static double resampled_median(const double *x, size_t n, double *buf, uint64_t *state)
{
	double hi, lo;

	for (size_t i = 0; i < n; i++)
		buf[i] = x[splitmix64(state) % n];
	hi = select_kth(buf, n, n / 2);
	if (n % 2)
		return hi;
	lo = buf[0];
	for (size_t i = 1; i < n / 2; i++)
		lo = buf[i] > lo ? buf[i] : lo;
	return (lo + hi) / 2.0;
}

int perf_ratio_interval(const double *a, size_t n_a, const double *b, size_t n_b,
			uint64_t seed, double *ratio, double *lo, double *hi,
			struct error *err)
{
	if (n_a == 0 || n_b == 0)
		return error_set(err, ERR_USAGE, 0, "a ratio needs at least one sample per side");
	if (perf_check_samples(a, n_a, "baseline", err) < 0 ||
	    perf_check_samples(b, n_b, "new", err) < 0)
		return -1;
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

uint64_t perf_random(uint64_t *state)
{
	return splitmix64(state);
}
