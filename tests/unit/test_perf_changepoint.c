/* orchestrator/perf/perf_changepoint: change points in a series of nightly
 * medians (docs/perf.md "Change points"). The series are seeded: the
 * tests never flake. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "orchestrator/perf/perf_changepoint.h"
#include "orchestrator/perf/perf_stats.h"

static uint64_t rng_state;

static double uniform01(void)
{
	return ((double)(perf_random(&rng_state) >> 11) + 0.5) / 9007199254740992.0;
}

/* n nightly medians around 40 ms moving cv night to night, times step
 * from night `at` on (at >= n: no step). */
static void series(double *x, size_t n, double cv, size_t at, double step)
{
	for (size_t i = 0; i < n; i++) {
		double z = sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01());

		x[i] = 40.0 * (1 + cv * z) * (i >= at ? step : 1);
	}
}

static size_t find(const double *x, size_t n, struct perf_changepoint *cp)
{
	struct error err = { 0 };
	size_t k;

	cr_assert_eq(perf_changepoints(x, n, NULL, cp, &k, &err), 0, "%s", err.msg);
	return k;
}

/* The rule: a 5% step on a case whose medians move 1% is found
 * within 3 nights of it, here with only 3 nights of the new level. */
Test(perf_changepoint, five_percent_step_found_within_three_nights)
{
	int found = 0, exact = 0;

	rng_state = 42;
	for (int trial = 0; trial < 100; trial++) {
		double x[30];
		struct perf_changepoint cp[30];
		size_t k;
		bool hit = false;

		series(x, 30, 0.01, 27, 1.05);
		k = find(x, 30, cp);
		for (size_t i = 0; i < k; i++)
			if (cp[i].index >= 24 && cp[i].index <= 30) {
				hit = true;
				exact += cp[i].index == 27;
				cr_expect_gt(cp[i].ratio, 1.03);
				cr_expect_leq(cp[i].p, PERF_CP_ALPHA);
			}
		found += hit;
	}
	cr_expect_geq(found, 95, "found in %d of 100", found);
	cr_expect_geq(exact, 90, "on its night in %d of 100", exact);
}

Test(perf_changepoint, a_step_in_the_middle_is_found_on_its_night)
{
	int exact = 0;

	rng_state = 7;
	for (int trial = 0; trial < 100; trial++) {
		double x[40];
		struct perf_changepoint cp[40];
		size_t k;

		series(x, 40, 0.01, 20, 0.95);
		k = find(x, 40, cp);
		exact += k == 1 && cp[0].index == 20 && cp[0].ratio < 0.97;
	}
	cr_expect_geq(exact, 95, "%d of 100", exact);
}

/* Of `trials` unchanged series of n nights moving 1%, how many have a
 * change point; with `outlier`, one night of each (a different one each
 * trial) is 10% or 50% slower. */
static int false_alarms(uint64_t seed, size_t n, int trials, bool outlier)
{
	int alarms = 0;

	rng_state = seed;
	for (int trial = 0; trial < trials; trial++) {
		double x[PERF_CP_NIGHTS];
		struct perf_changepoint cp[PERF_CP_NIGHTS];

		series(x, n, 0.01, n, 1);
		if (outlier)
			x[(size_t)trial % n] *= trial % 2 ? 1.5 : 1.1;
		alarms += find(x, n, cp) > 0;
	}
	return alarms;
}

/* One slow night, anywhere, however slow, is no change point. */
Test(perf_changepoint, a_single_outlier_night_is_not_a_change_point)
{
	int n = false_alarms(99, 30, 200, true);

	cr_expect_eq(n, 0, "%d of 200", n);
}

Test(perf_changepoint, unchanged_series_have_almost_no_change_points)
{
	int n = false_alarms(5, PERF_CP_NIGHTS, 200, false);

	cr_expect_leq(n, 2, "%d of 200", n);
}

Test(perf_changepoint, two_steps_are_two_change_points)
{
	double x[45];
	struct perf_changepoint cp[45];
	size_t k;

	rng_state = 11;
	series(x, 45, 0.01, 15, 1.10);
	for (size_t i = 30; i < 45; i++)
		x[i] *= 0.9;
	k = find(x, 45, cp);
	cr_assert_eq(k, 2);
	cr_expect_eq(cp[0].index, 15);
	cr_expect_eq(cp[1].index, 30);
	cr_expect_gt(cp[0].ratio, 1.05);
	cr_expect_lt(cp[1].ratio, 0.95);
}

Test(perf_changepoint, the_same_series_gives_the_same_answer)
{
	double x[50];
	struct perf_changepoint a[50], b[50];
	size_t ka, kb;

	rng_state = 3;
	series(x, 50, 0.02, 25, 1.04);
	ka = find(x, 50, a);
	kb = find(x, 50, b);
	cr_assert_eq(ka, kb);
	for (size_t i = 0; i < ka; i++) {
		cr_expect_eq(a[i].index, b[i].index);
		cr_expect_eq(a[i].p, b[i].p);
		cr_expect_eq(a[i].ratio, b[i].ratio);
	}
}

Test(perf_changepoint, bad_values_and_sizes_are_refused)
{
	double x[PERF_CP_MAX + 1];
	struct perf_changepoint cp[PERF_CP_MAX + 1];
	struct error err = { 0 };
	size_t k;

	for (size_t i = 0; i <= PERF_CP_MAX; i++)
		x[i] = 40;
	cr_expect_eq(perf_changepoints(x, PERF_CP_MAX + 1, NULL, cp, &k, &err), -1);
	cr_expect_eq(err.kind, ERR_LIMIT);
	x[3] = NAN;
	cr_expect_eq(perf_changepoints(x, 10, NULL, cp, &k, &err), -1);
	cr_expect_eq(err.kind, ERR_DATA);
	x[3] = 0;
	cr_expect_eq(perf_changepoints(x, 10, NULL, cp, &k, &err), -1);
	x[3] = 40;
	cr_expect_eq(perf_changepoints(x, 2, NULL, cp, &k, &err), 0);
	cr_expect_eq(k, 0);
}
