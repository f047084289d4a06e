/* orchestrator/perf/perf_adaptive: the looks of --perf-adaptive
 * (docs/perf.md "More samples when unclear"). The simulations are seeded:
 * the tests never flake. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "orchestrator/perf/perf_adaptive.h"
#include "orchestrator/perf/perf_stats.h"
#include "tests/support/seeded_times.h"

static uint64_t rng_state;

static void samples(double *x, size_t n, double mean, double cv)
{
	seeded_times(&rng_state, x, n, mean, cv);
}

static const struct perf_rule defaults = { PERF_THRESHOLD_DEFAULT, PERF_ALPHA_DEFAULT,
					   PERF_MAX_CV_DEFAULT };
static const struct perf_adaptive_plan five_to_15 = { 5, 15 };

#define NIGHTS 20

/* A case's nights: NIGHTS medians of 5 samples each (within-night CV
 * `within`), each night's level moving by `between` around 40 ms; the
 * newest night's CV as the report reads it. */
static struct perf_adaptive_base nights(double *medians, double within, double between)
{
	struct perf_adaptive_base b = { .medians = medians, .n = NIGHTS, .window = 1,
					.noise = NIGHTS };
	double x[5], level[1];

	for (size_t i = 0; i < NIGHTS; i++) {
		seeded_times(&rng_state, level, 1, 40.0, between);
		samples(x, 5, level[0], within);
		medians[i] = perf_median(x, 5);
		if (!i) {
			b.within_cv = perf_cv(x, 5);
			b.within_n = 5;
		}
	}
	return b;
}

/* A quiet case: every night's median 40 ms but for a 0.5% wobble, and
 * its samples 0.5% apart. */
static struct perf_adaptive_base quiet(double *medians)
{
	static const double wobble[] = { 1.0, 1.005, 0.995, 1.0, 1.004, 0.996 };

	for (size_t i = 0; i < NIGHTS; i++)
		medians[i] = 40.0 * wobble[i % 6];
	return (struct perf_adaptive_base){ .medians = medians, .n = NIGHTS, .window = 1,
					    .noise = NIGHTS, .within_cv = 0.005, .within_n = 5 };
}

static struct perf_adaptive_look look(const struct perf_adaptive_plan *p,
				      const struct perf_adaptive_base *b, const double *cand,
				      size_t n, const struct perf_rule *rule)
{
	struct perf_adaptive_look l;
	struct error err = { 0 };

	cr_assert_eq(perf_adaptive_look(p, b, cand, n, rule, &l, &err), 0, "%s", err.msg);
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
	double m[NIGHTS], b[] = { 40.1, 39.9, 40.0, 40.2, 40.1 };
	struct perf_adaptive_base base = quiet(m);
	struct perf_adaptive_look l = look(&five_to_15, &base, b, 5, &defaults);

	cr_assert_eq(l.step, PERF_ADAPTIVE_DECIDE);
	cr_assert_eq(l.why, PERF_ADAPTIVE_WITHIN);
	cr_assert_eq(l.cmp.status, PERF_UNCHANGED);
}

/* Samples 3% apart, nights whose medians move no more than that makes
 * them: more samples sharpen tonight's median, so a change is confirmed
 * at MAX, however clear at the first look. */
Test(perf_adaptive, a_change_is_confirmed_at_max_when_samples_help)
{
	double m[NIGHTS], b[15];
	struct perf_adaptive_base base = quiet(m);
	struct perf_adaptive_look l;

	base.within_cv = 0.03;
	for (size_t i = 0; i < 15; i++)
		b[i] = 48.0 + 0.1 * (double)(i % 3);
	l = look(&five_to_15, &base, b, 5, &defaults);
	cr_assert_eq(l.cmp.status, PERF_SLOWER);
	cr_assert_eq(l.why, PERF_ADAPTIVE_CANDIDATE);
	cr_assert_eq(l.step, PERF_ADAPTIVE_MORE);
	cr_assert_eq(l.more, 5);
	l = look(&five_to_15, &base, b, 10, &defaults);
	cr_assert_eq(l.why, PERF_ADAPTIVE_CANDIDATE);
	cr_assert_eq(l.more, 5);
	l = look(&five_to_15, &base, b, 15, &defaults);
	cr_assert_eq(l.step, PERF_ADAPTIVE_DECIDE);
	cr_assert_eq(l.why, PERF_ADAPTIVE_AT_MAX);
	cr_assert_eq(l.cmp.status, PERF_SLOWER);
}

/* Samples 0.5% apart, nights that move 3%: tonight's median is already
 * as sharp as samples make it, and the test's yardstick is the nights':
 * no replay can move the answer, so the first look stops, whatever p. */
Test(perf_adaptive, a_case_whose_nights_move_more_than_its_samples_stops_at_once)
{
	static const double wobble[] = { 1.0, 1.03, 0.97, 1.0, 1.025, 0.975 };
	double m[NIGHTS], b[] = { 42.0, 42.1, 41.9, 42.0, 42.2 };
	struct perf_adaptive_base base = quiet(m);
	struct perf_adaptive_look l;

	for (size_t i = 0; i < NIGHTS; i++)
		m[i] = 40.0 * wobble[i % 6];
	l = look(&five_to_15, &base, b, 5, &defaults);
	cr_assert_eq(l.why, PERF_ADAPTIVE_NIGHTS);
	cr_assert_eq(l.step, PERF_ADAPTIVE_DECIDE);
	cr_assert_eq(l.cmp.status, PERF_NOISY); /* 5% against nights moving ~4% */
	cr_assert(!perf_adaptive_samples_help(0.04, 0.005, 5, 5));
	cr_assert(perf_adaptive_samples_help(0.012, 0.03, 5, 10));
}

Test(perf_adaptive, insufficient_gets_more_unless_no_spread_can_come)
{
	double m[NIGHTS], one[] = { 40.0 }, b[] = { 44.0, 44.2, 43.9, 44.1, 44.0 };
	struct perf_adaptive_base base = quiet(m);
	struct perf_adaptive_plan two_to_6 = { 2, 6 };
	struct perf_adaptive_look l;

	/* One sample (the sampling began short): a median, not yet two. */
	l = look(&two_to_6, &base, one, 1, &defaults);
	cr_assert_eq(l.cmp.status, PERF_INSUFFICIENT);
	cr_assert_eq(l.why, PERF_ADAPTIVE_INSUFFICIENT);
	cr_assert_eq(l.more, 1);
	/* Two nights and no within-night CV: no spread, whatever tonight. */
	base.n = 2;
	base.within_n = 0;
	l = look(&five_to_15, &base, b, 5, &defaults);
	cr_assert_eq(l.why, PERF_ADAPTIVE_UNREACHABLE);
	cr_assert_eq(l.step, PERF_ADAPTIVE_DECIDE);
}

/* Fewer than 5 nights: the yardstick is the samples' own CV (the newest
 * night's, pooled with tonight's), and tonight's samples add degrees of
 * freedom to it: a change gets them, up to MAX. */
Test(perf_adaptive, with_too_few_nights_a_change_gets_more_samples)
{
	double m[NIGHTS], b[] = { 44.0, 44.2, 43.9, 44.1, 44.0 };
	struct perf_adaptive_base base = quiet(m);
	struct perf_adaptive_look l;

	base.n = 1;
	l = look(&five_to_15, &base, b, 5, &defaults);
	cr_assert_eq(l.why, PERF_ADAPTIVE_CANDIDATE);
	cr_assert_eq(l.more, 5);
}

Test(perf_adaptive, unmeasurable_is_settled)
{
	double m[NIGHTS], zeros[] = { 0, 0, 0, 40, 40 };
	struct perf_adaptive_base base = quiet(m);

	cr_assert_eq(look(&five_to_15, &base, zeros, 5, &defaults).why, PERF_ADAPTIVE_SETTLED);
}

Test(perf_adaptive, a_sample_that_is_no_time_is_refused)
{
	double m[NIGHTS], b[] = { 40.0, NAN, 40.1 };
	struct perf_adaptive_base base = quiet(m);
	struct perf_adaptive_look l;
	struct error err = { 0 };

	cr_assert_lt(perf_adaptive_look(&five_to_15, &base, b, 3, &defaults, &l, &err), 0);
}

/* The noise of a simulated case: within a night (a sample's CV) and
 * between nights (the CV of a night's level). */
struct regime {
	const char *name;
	double within, between;
};

static const struct regime regimes[] = {
	{ "within-night dominant", 0.03, 0.005 },
	{ "both 2%", 0.02, 0.02 },
	{ "night-to-night dominant", 0.005, 0.02 },
};

/* One case's night: NIGHTS nights before, then tonight's samples taken
 * as the plan's looks say (adaptive), or decided at the first look where
 * the comparison says a change (naive), or at first only (fixed). Whether
 * the case ends slower or faster; *taken: the samples it took. */
enum design { FIXED, ADAPTIVE, NAIVE };

static bool one_case(const struct perf_adaptive_plan *p, const struct perf_rule *rule,
		     const struct regime *r, double slowdown, enum design d, size_t *taken)
{
	double m[NIGHTS], cand[100], level[1];
	struct perf_adaptive_base base = nights(m, r->within, r->between);
	size_t n = p->first;
	struct perf_adaptive_look l;

	seeded_times(&rng_state, level, 1, 40.0 * (1 + slowdown), r->between);
	samples(cand, p->max, level[0], r->within);
	for (;;) {
		l = look(p, &base, cand, n, rule);
		bool change = l.cmp.status == PERF_SLOWER || l.cmp.status == PERF_FASTER;

		if (d == FIXED || (d == NAIVE && (change || n >= p->max)) ||
		    (d == ADAPTIVE && l.step == PERF_ADAPTIVE_DECIDE))
			break;
		n = perf_adaptive_next(p, n);
	}
	*taken = n;
	return l.cmp.status == PERF_SLOWER || l.cmp.status == PERF_FASTER;
}

#define TRIALS 4000

static double false_alarms(const struct perf_rule *rule, const struct regime *r, enum design d,
			   size_t *added)
{
	int hits = 0;

	rng_state = 42;
	*added = 0;
	for (int t = 0; t < TRIALS; t++) {
		size_t taken;

		hits += one_case(&five_to_15, rule, r, 0, d, &taken);
		*added += taken - five_to_15.first;
	}
	return (double)hits / TRIALS;
}

/* Unchanged cases in three regimes of noise, with a rule whose threshold
 * leaves the test alone deciding (so the looks' effect on it shows): the
 * share of false alarms across the looks stays at or below alpha, and at
 * or below the fixed design's at --perf 5; naive looks that stop at the
 * first significant-looking change go above it where samples help. Where
 * the nights dominate, the looks add no sample. */
Test(perf_adaptive, the_looks_hold_the_false_alarm_rate_across_nights)
{
	struct perf_rule loose = { .threshold = 0.001, .alpha = 0.05, .max_cv = 1.0 };

	for (size_t i = 0; i < sizeof(regimes) / sizeof(*regimes); i++) {
		const struct regime *r = &regimes[i];
		size_t add_fixed, add_ours, add_naive;
		double fixed = false_alarms(&loose, r, FIXED, &add_fixed);
		double ours = false_alarms(&loose, r, ADAPTIVE, &add_ours);
		double naive = false_alarms(&loose, r, NAIVE, &add_naive);

		cr_log_info("%s: false alarms at alpha 0.05: fixed %.4f, looks %.4f (%zu added), "
			    "naive %.4f",
			    r->name, fixed, ours, add_ours, naive);
		cr_assert_leq(ours, loose.alpha, "%s, the looks: %.4f", r->name, ours);
		cr_assert_leq(ours, fixed + 0.005, "%s: looks %.4f, fixed %.4f", r->name, ours,
			      fixed);
		if (r->within > r->between)
			cr_assert_gt(naive, ours, "%s: naive %.4f", r->name, naive);
		else if (r->within < r->between)
			cr_assert_eq(add_ours, 0, "%s: %zu added", r->name, add_ours);
	}
}

/* With the default rule, samples 3% apart and nights 0.5%: unchanged
 * cases stay unflagged at or below alpha, most stop at the first look,
 * and a 20% slowdown is found (across nights the 20 nights' spread, not
 * the samples, bounds a smaller one: docs/perf.md "What the statistics
 * promise"). */
Test(perf_adaptive, the_default_rule_finds_a_twenty_percent_slowdown_and_stops_early)
{
	size_t added;
	double fa = false_alarms(&defaults, &regimes[0], ADAPTIVE, &added);
	int found = 0;

	cr_log_info("default rule: false alarms %.4f, %zu samples added", fa, added);
	cr_assert_leq(fa, defaults.alpha);
	cr_assert_lt(added, TRIALS * 10 / 4, "most unchanged cases stop at 5: %zu added", added);
	rng_state = 7;
	for (int t = 0; t < 200; t++) {
		size_t taken;

		found += one_case(&five_to_15, &defaults, &regimes[0], 0.20, ADAPTIVE, &taken);
	}
	cr_log_info("a 20%% slowdown found in %d of 200", found);
	cr_assert_geq(found, 190, "%d of 200", found);
}
