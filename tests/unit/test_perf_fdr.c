/* orchestrator/perf/perf_fdr: Benjamini-Hochberg adjusted p-values
 * against values worked by hand (what R's p.adjust(p, "BH") gives), and
 * the family step that demotes a change that does not survive it. */
#include <criterion/criterion.h>
#include <math.h>

#include "orchestrator/perf/perf_change.h"
#include "orchestrator/perf/perf_fdr.h"

static void expect(const double *p, size_t n, const double *want)
{
	double adj[16];

	perf_fdr_adjust(p, n, adj);
	for (size_t i = 0; i < n; i++) {
		if (isnan(want[i]))
			cr_expect(isnan(adj[i]), "adj[%zu] = %g, not NaN", i, adj[i]);
		else
			cr_expect(fabs(adj[i] - want[i]) < 1e-12, "adj[%zu] = %.10g, want %.10g", i,
				  adj[i], want[i]);
	}
}

/* Sorted 0.005, 0.01, 0.03, 0.04, 0.5: m p / rank 0.025, 0.025, 0.05,
 * 0.05, 0.5, already monotone; back in the given order. */
Test(perf_fdr, five_p_values_in_any_order)
{
	static const double p[] = { 0.01, 0.04, 0.03, 0.005, 0.5 };
	static const double want[] = { 0.025, 0.05, 0.05, 0.025, 0.5 };

	expect(p, 5, want);
}

/* The step-up: 0.041 at rank 4 of 4 is 0.041, which caps rank 3's
 * 4 * 0.04 / 3 = 0.0533 and rank 2's 4 * 0.03 / 2 = 0.06. */
Test(perf_fdr, a_larger_p_caps_the_smaller_ones)
{
	static const double p[] = { 0.001, 0.03, 0.04, 0.041 };
	static const double want[] = { 0.004, 0.041, 0.041, 0.041 };

	expect(p, 4, want);
}

/* Ties: three 0.02 of four are each 4 * 0.02 / 3. */
Test(perf_fdr, ties_share_the_largest_rank)
{
	static const double p[] = { 0.02, 0.9, 0.02, 0.02 };
	static const double want[] = { 0.08 / 3, 0.9, 0.08 / 3, 0.08 / 3 };

	expect(p, 4, want);
}

/* One test is its own family: adjusted = raw. */
Test(perf_fdr, one_test_is_unadjusted)
{
	static const double p[] = { 0.0079 };
	static const double want[] = { 0.0079 };

	expect(p, 1, want);
}

/* A comparison that made no test (NaN) is no member: m is 2, not 3. */
Test(perf_fdr, no_test_is_no_member)
{
	static const double p[] = { NAN, 0.01, 0.04 };
	static const double want[] = { NAN, 0.02, 0.04 };

	expect(p, 3, want);
}

/* Capped at 1: 0.6 at rank 1 of 2 would be 1.2, and 0.95 caps it. */
Test(perf_fdr, capped_at_one)
{
	static const double p[] = { 0.6, 0.95 };
	static const double want[] = { 0.95, 0.95 };

	expect(p, 2, want);
}

/* 1,000 tests, one slower at p 0.004, one faster at 1e-6 and 998 at
 * 0.5: alone the slower would be a finding; in the family it is 0.004 x
 * 1000 / 2 = 2, capped by the 0.5 above it, no finding. The faster stays
 * one (1e-6 x 1000 = 1e-3). An insufficient comparison is no member. */
Test(perf_fdr, a_change_that_does_not_survive_is_unchanged)
{
	static struct perf_comparison c[1001];
	struct perf_comparison *v[1001];

	for (size_t i = 0; i < 1001; i++) {
		c[i] = (struct perf_comparison){ .status = PERF_UNCHANGED, .p = 0.5 };
		v[i] = &c[i];
	}
	c[0] = (struct perf_comparison){ .status = PERF_SLOWER, .p = 0.004, .ratio = 1.05 };
	c[1] = (struct perf_comparison){ .status = PERF_FASTER, .p = 1e-6, .ratio = 0.9 };
	c[2] = (struct perf_comparison){ .status = PERF_INSUFFICIENT, .p = 1 };
	perf_change_fdr(v, 1001, 0.05);
	cr_expect_eq(c[0].status, PERF_UNCHANGED);
	cr_expect_float_eq(c[0].p_adj, 0.5, 1e-12);
	cr_expect_eq(c[1].status, PERF_FASTER);
	cr_expect_float_eq(c[1].p_adj, 1e-3, 1e-15);
	cr_expect(isnan(c[2].p_adj));
	cr_expect_eq(c[2].status, PERF_INSUFFICIENT);
}

/* Across nights with a learned spread, a change that does not survive is
 * within the case's own moves: noisy. */
Test(perf_fdr, across_nights_a_demoted_change_is_noisy)
{
	struct perf_comparison a = { .status = PERF_SLOWER, .p = 0.004, .nights = 20 };
	struct perf_comparison b = { .status = PERF_UNCHANGED, .p = 0.9, .nights = 20 };
	struct perf_comparison *v[] = { &a, &b };

	perf_change_fdr(v, 2, 0.001);
	cr_expect_eq(a.status, PERF_NOISY);
}

/* A family of m comparisons of n against n samples, every one unchanged
 * but for its sizes. */
static void family(struct perf_comparison *c, struct perf_comparison **v, size_t m, size_t n)
{
	for (size_t i = 0; i < m; i++) {
		c[i] = (struct perf_comparison){ .status = PERF_UNCHANGED, .n_base = n, .n_new = n,
						 .p = 0.5 };
		v[i] = &c[i];
	}
}

/* --perf 5 in a sweep of 1,000 comparisons: 5 against 5 reaches 2/252 =
 * 0.0079 at best, and even 100 slower cases (a tenth) need 0.005: nothing
 * can be found, and --perf 6 (2/924 = 0.0022) could. 20 comparisons ask
 * the same of their 2 (0.005), 5 ask 0.01 of one: 0.0079 can reach it. */
Test(perf_fdr, a_family_too_large_for_its_samples_is_said)
{
	static struct perf_comparison c[1000];
	static struct perf_comparison *v[1000];
	struct perf_fdr_reach r;

	family(c, v, 1000, 5);
	cr_assert(perf_change_fdr_unreachable(v, 1000, 0.05, 0.01, &r));
	cr_expect_eq(r.m, 1000);
	cr_expect_eq(r.k, 100);
	cr_expect(fabs(r.bar - 0.005) < 1e-12, "%g", r.bar);
	cr_expect(fabs(r.min_p - 2.0 / 252) < 1e-9, "%g", r.min_p);
	cr_expect_eq(r.n_needed, 6);
	c[0].status = PERF_INSUFFICIENT; /* no member */
	cr_assert(perf_change_fdr_unreachable(v, 1000, 0.05, 0.01, &r));
	cr_expect_eq(r.m, 999);
	family(c, v, 1000, 7);
	cr_expect(!perf_change_fdr_unreachable(v, 1000, 0.05, 0.01, &r));
	family(c, v, 5, 5);
	cr_expect(!perf_change_fdr_unreachable(v, 5, 0.05, 0.01, &r));
	cr_expect(!perf_change_fdr_unreachable(v, 0, 0.05, 0.01, &r));
	family(c, v, 1000, 5);
	cr_expect(!perf_change_fdr_unreachable(v, 1000, 0, 0.01, &r), "--perf-fdr 0: no family");
}
