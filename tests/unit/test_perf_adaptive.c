/* orchestrator/perf/perf_adaptive: the looks of --perf-adaptive
 * (docs/perf.md "More samples when unclear"). The simulations are seeded:
 * the tests never flake. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "orchestrator/perf/perf_adaptive.h"
#include "tests/support/seeded_times.h"

static uint64_t rng_state;

static void samples(double *x, size_t n, double mean, double cv)
{
	seeded_times(&rng_state, x, n, mean, cv);
}

static const struct perf_rule defaults = { PERF_THRESHOLD_DEFAULT, PERF_ALPHA_DEFAULT,
					   PERF_MAX_CV_DEFAULT };
static const struct perf_adaptive_plan five_to_15 = { 5, 15 };

static struct perf_adaptive_look look(const struct perf_adaptive_plan *p, const double *base,
				      size_t nb, const double *cand, size_t n,
				      const struct perf_rule *rule)
{
	struct perf_adaptive_look l;
	struct error err = { 0 };

	cr_assert_eq(perf_adaptive_look(p, base, nb, cand, n, rule, &l, &err), 0, "%s", err.msg);
	return l;
}

Test(perf_adaptive, looks_at_multiples_of_the_first_count_up_to_max)
{
	struct perf_adaptive_plan odd = { 5, 12 };

	cr_assert_eq(perf_adaptive_next(&five_to_15, 5), 10);
	cr_assert_eq(perf_adaptive_next(&five_to_15, 10), 15);
	cr_assert_eq(perf_adaptive_next(&five_to_15, 15), 15);
	cr_assert_eq(perf_adaptive_next(&five_to_15, 7), 10); /* sampling began short */
	cr_assert_eq(perf_adaptive_next(&odd, 10), 12);
}

Test(perf_adaptive, an_unchanged_case_is_decided_at_the_first_look)
{
	double a[] = { 40.0, 40.2, 39.9, 40.1, 40.0 }, b[] = { 40.1, 39.9, 40.0, 40.2, 40.1 };
	struct perf_adaptive_look l = look(&five_to_15, a, 5, b, 5, &defaults);

	cr_assert_eq(l.step, PERF_ADAPTIVE_DECIDE);
	cr_assert_eq(l.why, PERF_ADAPTIVE_WITHIN);
	cr_assert_eq(l.cmp.status, PERF_UNCHANGED);
}

Test(perf_adaptive, a_change_is_confirmed_at_max_however_clear)
{
	double a[] = { 40.0, 40.2, 39.9, 40.1, 40.0 }, b[15];
	struct perf_adaptive_look l;

	for (size_t i = 0; i < 15; i++)
		b[i] = 48.0 + 0.1 * (double)(i % 3);
	l = look(&five_to_15, a, 5, b, 5, &defaults);
	cr_assert_eq(l.cmp.status, PERF_SLOWER); /* every new sample above: p = 2/252 */
	cr_assert_eq(l.why, PERF_ADAPTIVE_CANDIDATE);
	cr_assert_eq(l.step, PERF_ADAPTIVE_MORE);
	cr_assert_eq(l.more, 5);
	l = look(&five_to_15, a, 5, b, 10, &defaults);
	cr_assert_eq(l.cmp.status, PERF_SLOWER);
	cr_assert_eq(l.why, PERF_ADAPTIVE_CANDIDATE);
	cr_assert_eq(l.more, 5);
	l = look(&five_to_15, a, 5, b, 15, &defaults);
	cr_assert_eq(l.step, PERF_ADAPTIVE_DECIDE);
	cr_assert_eq(l.why, PERF_ADAPTIVE_AT_MAX);
	cr_assert_eq(l.cmp.status, PERF_SLOWER);
}

Test(perf_adaptive, insufficient_gets_more_unless_max_cannot_help)
{
	double a[] = { 40.0, 40.2, 39.9, 40.1, 40.0 }, b[] = { 44.0, 44.2, 43.9, 44.1, 44.0 };
	struct perf_adaptive_plan four_to_12 = { 4, 12 }, to6 = { 4, 6 };
	struct perf_adaptive_look l;

	/* 4 against 4: p >= 2/70, never below 0.01. */
	l = look(&four_to_12, a, 4, b, 4, &defaults);
	cr_assert_eq(l.cmp.status, PERF_INSUFFICIENT);
	cr_assert_eq(l.why, PERF_ADAPTIVE_INSUFFICIENT);
	cr_assert_eq(l.step, PERF_ADAPTIVE_MORE);
	cr_assert_eq(l.more, 4);
	/* 4 against 6 can reach 2/210 < 0.01 (more), 4 against 5 not. */
	cr_assert_eq(look(&to6, a, 4, b, 4, &defaults).step, PERF_ADAPTIVE_MORE);
	to6.max = 5;
	l = look(&to6, a, 4, b, 4, &defaults);
	cr_assert_eq(l.why, PERF_ADAPTIVE_UNREACHABLE);
	cr_assert_eq(l.step, PERF_ADAPTIVE_DECIDE);
	l = look(&five_to_15, a, 1, b, 5, &defaults); /* one baseline sample: never */
	cr_assert_eq(l.why, PERF_ADAPTIVE_UNREACHABLE);
}

Test(perf_adaptive, noisy_and_unmeasurable_are_settled)
{
	double a[] = { 40.0, 40.2, 39.9, 40.1, 40.0 }, noisy[] = { 30, 50, 40, 60, 35 };
	double zeros[] = { 0, 0, 0, 40, 40 };

	cr_assert_eq(look(&five_to_15, a, 5, noisy, 5, &defaults).why, PERF_ADAPTIVE_SETTLED);
	cr_assert_eq(look(&five_to_15, a, 5, zeros, 5, &defaults).why, PERF_ADAPTIVE_SETTLED);
}

Test(perf_adaptive, a_sample_that_is_no_time_is_refused)
{
	double a[] = { 40.0, 40.2, 39.9 }, b[] = { 40.0, NAN, 40.1 };
	struct perf_adaptive_look l;
	struct error err = { 0 };

	cr_assert_lt(perf_adaptive_look(&five_to_15, a, 3, b, 3, &defaults, &l, &err), 0);
}

/* One case's sampling: the baseline's nb samples against new samples
 * taken as the plan's looks say (adaptive) or decided at the first look
 * where the comparison says a change (naive: stop when it looks good).
 * Whether the case ends slower or faster; *taken: the samples it took. */
static bool one_case(const struct perf_adaptive_plan *p, const struct perf_rule *rule,
		     double slowdown, double cv, bool naive, size_t *taken)
{
	double base[5], cand[100];
	size_t n = p->first;
	struct perf_adaptive_look l;

	samples(base, 5, 40.0, cv);
	samples(cand, p->max, 40.0 * (1 + slowdown), cv);
	for (;;) {
		l = look(p, base, 5, cand, n, rule);
		bool change = l.cmp.status == PERF_SLOWER || l.cmp.status == PERF_FASTER;

		if (naive && (change || n >= p->max))
			break;
		if (!naive && l.step == PERF_ADAPTIVE_DECIDE)
			break;
		n = perf_adaptive_next(p, n);
	}
	*taken = n;
	return l.cmp.status == PERF_SLOWER || l.cmp.status == PERF_FASTER;
}

#define TRIALS 10000

static double false_alarms(const struct perf_rule *rule, bool naive, size_t *added)
{
	int hits = 0;

	rng_state = 42;
	*added = 0;
	for (int t = 0; t < TRIALS; t++) {
		size_t taken;

		hits += one_case(&five_to_15, rule, 0, 0.02, naive, &taken);
		*added += taken - five_to_15.first;
	}
	return (double)hits / TRIALS;
}

/* Unchanged cases (the same distribution on both sides, 2% CV), with a
 * rule whose threshold and CV limit leave the test alone deciding (so the
 * looks' effect on it shows): the share of false alarms stays at or below
 * alpha with the plan's looks, and goes above it with naive looks that
 * stop at the first significant-looking change. */
Test(perf_adaptive, the_looks_hold_the_false_alarm_rate_and_naive_looks_do_not)
{
	struct perf_rule loose = { .threshold = 0.01, .alpha = 0.05, .max_cv = 1.0 };
	size_t added_ours, added_naive;
	double ours = false_alarms(&loose, false, &added_ours);
	double naive = false_alarms(&loose, true, &added_naive);

	cr_log_info("false alarms at alpha 0.05: looks %.4f (%zu added), naive %.4f", ours,
		    added_ours, naive);
	cr_assert_leq(ours, loose.alpha, "the looks: %.4f", ours);
	cr_assert_gt(naive, 1.3 * loose.alpha, "naive looks: %.4f", naive);
}

/* With the default rule: unchanged cases stay unflagged at or below
 * alpha, most stop at the first look, and a 10% slowdown is found. */
Test(perf_adaptive, the_default_rule_finds_a_ten_percent_slowdown_and_stops_early)
{
	size_t added;
	double fa = false_alarms(&defaults, false, &added);
	int found = 0;

	cr_log_info("default rule: false alarms %.4f, %zu samples added", fa, added);
	cr_assert_leq(fa, defaults.alpha);
	cr_assert_lt(added, TRIALS * 10 / 4, "most unchanged cases stop at 5: %zu added", added);
	rng_state = 7;
	for (int t = 0; t < 200; t++) {
		size_t taken;

		found += one_case(&five_to_15, &defaults, 0.10, 0.02, false, &taken);
	}
	cr_log_info("a 10%% slowdown found in %d of 200", found);
	cr_assert_geq(found, 190, "%d of 200", found);
}
