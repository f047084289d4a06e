/* orchestrator/perf/perf_nights: nights as units, the spread learned per
 * case, the distributions it needs (against published values), and the
 * small form of the seeded simulation of docs/perf.md "What the
 * statistics promise" (the full one is `make bench-perf-stats`). */
#include <criterion/criterion.h>
#include <math.h>

#include "orchestrator/perf/perf_dist.h"
#include "orchestrator/perf/perf_nights.h"
#include "tests/support/perf_sim.h"

static const struct perf_rule rule = { PERF_THRESHOLD_DEFAULT, PERF_ALPHA_DEFAULT,
				       PERF_MAX_CV_DEFAULT };

/* 2 * pt(-2, 5) and 2 * pt(-3, 10) in R (the closed forms of odd and
 * even degrees of freedom); the normal at 1.96. */
Test(perf_nights, student_t_tail)
{
	cr_expect(fabs(perf_t_two_sided(2, 5) - 0.1019394788) < 1e-9);
	cr_expect(fabs(perf_t_two_sided(-3, 10) - 0.0133436550) < 1e-9);
	cr_expect(fabs(perf_t_two_sided(1.959963985, INFINITY) - 0.05) < 1e-9);
	/* F with 2 and d2 degrees of freedom: P(F >= f) = (1 + 2f/d2)^(-d2/2). */
	cr_expect(fabs(perf_f_upper(3, 2, 10) - pow(1.6, -5)) < 1e-12);
}

/* digamma(1) = -Euler's gamma, trigamma(1) = pi^2 / 6, trigamma(1/2) =
 * pi^2 / 2; the inverse finds them back. */
Test(perf_nights, digamma_and_trigamma)
{
	cr_expect(fabs(perf_digamma(1) + 0.5772156649) < 1e-9);
	cr_expect(fabs(perf_trigamma(1) - M_PI * M_PI / 6) < 1e-9);
	cr_expect(fabs(perf_trigamma(0.5) - M_PI * M_PI / 2) < 1e-9);
	cr_expect(fabs(perf_trigamma_inverse(M_PI * M_PI / 6) - 1) < 1e-6);
}

/* Medians 40 e^x, x = 0, +-0.01, +-0.02: the log deviations' median is
 * 0.01, the spread 1.4826 x 0.01. One wild night barely moves it. */
Test(perf_nights, spread_is_the_mad_of_the_log_medians)
{
	double m[6];
	static const double x[] = { 0, 0.02, -0.02, 0.01, -0.01, 1.0 };

	for (size_t i = 0; i < 6; i++)
		m[i] = 40 * exp(x[i]);
	cr_expect(fabs(perf_night_spread(m, 5) - 0.014826) < 1e-9);
	cr_expect(fabs(perf_night_spread(m, 6) - 0.014826 * 1.5) < 1e-9);
	cr_expect(isnan(perf_night_spread(m, 4)));
}

/* A case that moves 6% night to night: a 10% change is within it (noisy);
 * one that moves 0.5% is slower by the same 10%. */
Test(perf_nights, a_change_within_the_case_spread_is_noisy)
{
	double wide[20], narrow[20], tonight[5] = { 44, 44.1, 43.9, 44, 44.2 };
	struct perf_comparison c;
	struct error err = { 0 };

	for (size_t i = 0; i < 20; i++) {
		wide[i] = 40 * exp(0.06 * (i % 2 ? 1 : -1) * (double)(i % 5) / 2.5);
		narrow[i] = 40 * exp(0.005 * (i % 2 ? 1 : -1) * (double)(i % 5) / 2.5);
	}
	struct perf_night_series w = { wide, 20, 20, 20, 0, 0 }, n = { narrow, 20, 20, 20, 0, 0 };

	cr_assert_eq(perf_compare_nights(&w, tonight, 5, &rule, false, &c, &err), 0);
	cr_expect_eq(c.status, PERF_NOISY, "%s p %g spread %g", perf_status_name(c.status), c.p,
		     c.spread);
	cr_expect_eq(c.nights, 20);
	cr_assert_eq(perf_compare_nights(&n, tonight, 5, &rule, false, &c, &err), 0);
	cr_expect_eq(c.status, PERF_SLOWER, "%s p %g", perf_status_name(c.status), c.p);
	cr_expect(c.ci_lo > 1.05 && c.ci_hi < 1.15, "[%g, %g]", c.ci_lo, c.ci_hi);
}

/* The family lends its spreads, a case keeps its own: 40 cases that move
 * 1% night to night and one that moves 6%, each 10% slower tonight. The
 * wide one is noisy and its note says 6%; the narrow ones are slower. */
Test(perf_nights, moderation_keeps_a_wide_case_wide)
{
	static double series[41][20];
	static struct perf_comparison c[41];
	struct perf_comparison *v[41];
	double tonight[5] = { 44, 44.1, 43.9, 44, 44.2 };
	struct error err = { 0 };

	for (size_t k = 0; k < 41; k++) {
		double cv = k ? 0.01 : 0.06;

		for (size_t i = 0; i < 20; i++)
			series[k][i] = 40 * exp(cv * (i % 2 ? 1 : -1) *
						(double)((i + k) % 5) / 2.5);
		struct perf_night_series s = { series[k], 20, 20, 20, 0, 0 };

		cr_assert_eq(perf_compare_nights(&s, tonight, 5, &rule, false, &c[k], &err), 0);
		v[k] = &c[k];
	}
	perf_nights_moderate(v, 41, &rule);
	perf_change_fdr(v, 41, 0.05);
	cr_expect_eq(c[0].status, PERF_NOISY, "%s p %g adj %g", perf_status_name(c[0].status),
		     c[0].p, c[0].p_adj);
	cr_expect(c[0].spread > 0.05, "%g", c[0].spread);
	for (size_t k = 1; k < 41; k++)
		cr_expect_eq(c[k].status, PERF_SLOWER, "case %zu: %s", k,
			     perf_status_name(c[k].status));
}

/* Fewer than 5 nights: the within-night CV stands for the spread; with
 * none the comparison is insufficient. A NaN sample is refused. */
Test(perf_nights, few_nights_take_the_within_night_cv)
{
	double m[2] = { 40, 40.2 }, tonight[5] = { 48, 48.1, 47.9, 48, 48.2 };
	struct perf_night_series s = { m, 2, 1, 20, 0.01, 5 }, none = { m, 2, 1, 20, 0, 0 };
	struct perf_comparison c;
	struct error err = { 0 };

	cr_assert_eq(perf_compare_nights(&s, tonight, 5, &rule, false, &c, &err), 0);
	cr_expect_eq(c.status, PERF_SLOWER);
	/* sqrt((4 x 0.01^2 + 4 x cv^2) / 8), tonight's cv 0.0016. */
	cr_expect(fabs(c.spread - sqrt((0.0001 + c.cv_new * c.cv_new) / 2)) < 1e-12);
	cr_assert_eq(perf_compare_nights(&none, tonight, 5, &rule, false, &c, &err), 0);
	cr_expect_eq(c.status, PERF_INSUFFICIENT);
	tonight[1] = NAN;
	cr_expect_lt(perf_compare_nights(&s, tonight, 5, &rule, false, &c, &err), 0);
}

/* The small form: 200 unchanged cases x 60 nights at 2% within-night and
 * 2% night-to-night CV (--perf 5, --perf-window 20, the FDR at 0.05):
 * at most 8% of the nights compared with any false `slower`; a 10% step
 * on 20 cases found on its night in at least 90% of the (case, trial)s. */
Test(perf_nights, simulation_small_form, .timeout = 120)
{
	struct perf_sim_config cfg = perf_sim_defaults(200, 60);
	size_t alarmed, compared;
	struct perf_sim_found f[PERF_SIM_DETECTORS];

	cfg.window = 20;
	perf_sim_false_alarms(&cfg, &alarmed, &compared);
	cr_expect_leq(alarmed * 100, 8 * compared, "%zu of %zu nights", alarmed, compared);
	cfg.stepped = 20;
	perf_sim_step(&cfg, 20, f);
	cr_expect_geq(f[PERF_SIM_METHOD].cases * 10, 9 * 20 * 20, "%zu of 400",
		      f[PERF_SIM_METHOD].cases);
	cr_expect_eq(f[PERF_SIM_METHOD].any_trials, 20);
}

/* The median of 1, 3 and 5 standard normal values: variances 1, 0.4487
 * and 0.2868 (the median's efficiency at the normal, 1/(n var): 0.743 at
 * 3, 0.697 at 5, as tabulated by Teichroew, 1956). */
Test(perf_nights, simulation_median_variance)
{
	cr_expect(fabs(perf_sim_median_variance(1) - 1) < 1e-9);
	cr_expect(fabs(perf_sim_median_variance(3) - 0.4487) < 5e-5, "%.6f",
		  perf_sim_median_variance(3));
	cr_expect(fabs(perf_sim_median_variance(5) - 0.2868) < 5e-5, "%.6f",
		  perf_sim_median_variance(5));
	cr_expect(isnan(perf_sim_median_variance(4)));
}

/* The small form's step against the oracles that know each case's spreads
 * exactly, on the same nights: our method finds each stepped case within
 * 5 points of the better oracle, and the oracles hold the FDR (no more
 * than 10% of what they find is false). */
Test(perf_nights, simulation_small_form_near_the_oracle, .timeout = 120)
{
	struct perf_sim_config cfg = perf_sim_defaults(200, 60);
	struct perf_sim_found f[PERF_SIM_DETECTORS];
	size_t best;

	cfg.window = 20;
	cfg.stepped = 20;
	perf_sim_step(&cfg, 20, f);
	best = f[PERF_SIM_ORACLE_MEDIAN].cases > f[PERF_SIM_ORACLE_MEAN].cases
		       ? f[PERF_SIM_ORACLE_MEDIAN].cases
		       : f[PERF_SIM_ORACLE_MEAN].cases;
	cr_expect_geq(f[PERF_SIM_METHOD].cases + 20, best,
		      "of 400: the method %zu, the oracles %zu (median) and %zu (mean)",
		      f[PERF_SIM_METHOD].cases, f[PERF_SIM_ORACLE_MEDIAN].cases,
		      f[PERF_SIM_ORACLE_MEAN].cases);
	for (size_t d = PERF_SIM_ORACLE_MEDIAN; d <= PERF_SIM_ORACLE_MEAN; d++)
		cr_expect_leq(f[d].false_cases * 10, f[d].cases + f[d].false_cases,
			      "oracle %zu: %zu false of %zu", d, f[d].false_cases,
			      f[d].cases + f[d].false_cases);
}
