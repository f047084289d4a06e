/* A side's summary (orchestrator/perf/perf_change.h, perf_summarize) and
 * the status it gives (perf_compare_summary): the history site compares
 * nights by their stored summaries, so each must answer exactly what the
 * samples answer, or say that it needs them. Seeded: never flakes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "orchestrator/perf/perf_change.h"
#include "orchestrator/perf/perf_stats.h"
#include "tests/support/seeded_times.h"

static const struct perf_rule defaults = { PERF_THRESHOLD_DEFAULT, PERF_ALPHA_DEFAULT,
					   PERF_MAX_CV_DEFAULT };

Test(perf_summary, the_median_interval_is_the_order_statistics_binomial_tails_allow)
{
	const double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	double lo, hi;

	/* n <= 5: no pair reaches 95%, the range (93.75% at 5) */
	perf_median_interval(x, 5, &lo, &hi);
	cr_expect(lo == 1 && hi == 5, "%g %g", lo, hi);
	perf_median_interval(x, 1, &lo, &hi);
	cr_expect(lo == 1 && hi == 1);
	/* n = 10: 2 P(B <= 1) = 22/1024 <= 5%, 2 P(B <= 2) = 112/1024 > 5%: x(2), x(9) */
	perf_median_interval(x, 10, &lo, &hi);
	cr_expect(lo == 2 && hi == 9, "%g %g", lo, hi);
	perf_median_interval(x, 0, &lo, &hi);
	cr_expect(isnan(lo) && isnan(hi));
}

Test(perf_summary, counts_zeros_and_summarizes_the_measured_ones_apart)
{
	const double x[] = { 42, 0, 40, 41, 0 };
	struct perf_summary s;

	perf_summarize(x, 5, &s);
	cr_expect_eq(s.n, 5);
	cr_expect_eq(s.zeros, 2);
	cr_expect(s.median == 40, "%g", s.median);
	cr_expect(s.lo == 0 && s.hi == 42, "%g %g", s.lo, s.hi);
	cr_expect(s.measured_median == 41, "%g", s.measured_median);
	cr_expect(fabs(s.measured_cv - perf_cv((const double[]){ 40, 41, 42 }, 3)) == 0);
	perf_summarize(x, 0, &s);
	cr_expect(s.n == 0 && isnan(s.median) && isnan(s.measured_median));
	perf_summarize((const double[]){ 0, 0 }, 2, &s);
	cr_expect(s.zeros == 2 && s.median == 0 && isnan(s.measured_median) && s.measured_cv == 0);
}

static void shuffle(uint64_t *st, double *x, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(seeded_uniform01(st) * (double)i);
		double t = x[i - 1];

		x[i - 1] = x[j];
		x[j] = t;
	}
}

/* Bitwise, NaN equal to NaN. */
static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

/* Random pairs of sides (0 to 12 samples, some times of 0 ms, 0.5% to 8%
 * spread, up to 15% slower), in random order: where the summaries answer,
 * every field is the samples' answer; where they do not, the samples'
 * answer made the U test. Both answers come up often. */
Test(perf_summary, the_summaries_give_the_samples_status_or_ask_for_them)
{
	uint64_t st = 2026;
	size_t answered = 0, asked = 0, changes = 0;

	for (int trial = 0; trial < 20000; trial++) {
		double a[12], b[12];
		size_t na = (size_t)(seeded_uniform01(&st) * 13), nb = (size_t)(seeded_uniform01(&st) * 13);
		double cv = 0.005 + 0.075 * seeded_uniform01(&st);
		double slow = 1 + 0.15 * seeded_uniform01(&st);
		struct perf_summary sa, sb, sorted;
		struct perf_comparison want, got;
		struct error err;
		int rc;

		seeded_times(&st, a, na, 40, cv);
		seeded_times(&st, b, nb, 40 * slow, cv);
		for (size_t i = 0; i < na; i++)
			if (seeded_uniform01(&st) < 0.08)
				a[i] = 0;
		for (size_t i = 0; i < nb; i++)
			if (seeded_uniform01(&st) < 0.04)
				b[i] = 0;
		perf_summarize(a, na, &sa);
		perf_summarize(b, nb, &sb);
		/* the same samples in another order: the same summary, bit for bit */
		shuffle(&st, b, nb);
		perf_summarize(b, nb, &sorted);
		cr_assert(!memcmp(&sorted, &sb, sizeof(sb)), "trial %d", trial);
		bool same_build = trial % 7 == 0;

		cr_assert_eq(perf_compare_status(a, na, b, nb, &defaults, same_build, &want, &err), 0,
			     "%s", err.msg);
		rc = perf_compare_summary(&sa, &sb, &defaults, same_build, &got);
		cr_assert(rc == 0 || rc == 1, "trial %d: %d", trial, rc);
		changes += want.status == PERF_SLOWER || want.status == PERF_SAME_BUILD;
		if (rc == 1) {
			asked++;
			cr_assert(!isnan(want.p), "trial %d: asked for the samples, no U test made", trial);
			continue;
		}
		answered++;
		cr_assert_eq(got.status, want.status, "trial %d: %s, the samples say %s", trial,
			     perf_status_name(got.status), perf_status_name(want.status));
		cr_assert(isnan(want.p), "trial %d: the samples made a U test", trial);
		cr_assert(got.n_base == want.n_base && got.n_new == want.n_new &&
				  got.zeros_base == want.zeros_base && got.zeros_new == want.zeros_new,
			  "trial %d", trial);
		cr_assert(same_double(got.median_base, want.median_base) &&
				  same_double(got.median_new, want.median_new) &&
				  same_double(got.ratio, want.ratio) &&
				  same_double(got.cv_base, want.cv_base) &&
				  same_double(got.cv_new, want.cv_new),
			  "trial %d: %g/%g %g/%g %g/%g", trial, got.median_base, want.median_base,
			  got.ratio, want.ratio, got.cv_new, want.cv_new);
	}
	cr_expect_gt(answered, 5000, "%zu", answered);
	cr_expect_gt(asked, 2000, "%zu", asked);
	cr_expect_gt(changes, 500, "%zu", changes);
}
