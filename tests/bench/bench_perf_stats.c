/* The GPU-time statistics at a nightly scale, no engine (docs/perf.md
 * "What the statistics promise"): the seeded simulation's full form and
 * the table of --perf N for a CV and an effect. `make bench-perf-stats`;
 * fails when a promise does not hold. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/perf_sim.h"

/* The step's night as each detector saw it (perf_sim.h). */
static void found_row(const char *who, const struct perf_sim_found *f, size_t trials,
		      size_t stepped)
{
	printf("  %-34s %9.1f%% %11zu %9zu %9zu %13zu\n", who,
	       100.0 * (double)f->cases / (double)(trials * stepped), f->any_trials,
	       f->most_trials, f->all_trials, f->false_cases);
}

/* 1,000 unchanged cases x 100 nights, then a 10% step on 20 of them in
 * 200 trials, at 2% within-night and 2% night-to-night CV, `samples` a
 * night (--perf N); beside our method, the oracles that know the spreads
 * exactly, on the same nights. per_case: the promise that each stepped
 * case is found on its night in 90% of the trials (at --perf 5 no
 * two-sided test reaches it, the oracles show; at 15 the method does). */
static int promise(size_t window, size_t samples, bool per_case)
{
	static const char *const who[PERF_SIM_DETECTORS] = {
		[PERF_SIM_METHOD] = "the method (a sweep's comparison)",
		[PERF_SIM_ORACLE_MEDIAN] = "oracle: tonight's median",
		[PERF_SIM_ORACLE_MEAN] = "oracle: tonight's mean",
	};
	struct perf_sim_config cfg = perf_sim_defaults(1000, 100);
	size_t alarmed, compared;
	struct perf_sim_found f[PERF_SIM_DETECTORS];
	int rc = 0;

	cfg.window = window;
	cfg.samples = samples;
	perf_sim_false_alarms(&cfg, &alarmed, &compared);
	printf("--perf %zu --perf-window %zu: 1000 unchanged cases x 100 nights: %zu of %zu nights "
	       "with a false slower (promise: at most 8)\n", samples, window, alarmed, compared);
	rc |= alarmed > 8;
	cfg.stepped = 20;
	cfg.step_night = 30;
	perf_sim_step(&cfg, 200, f);
	printf("--perf %zu --perf-window %zu: a 10%% step on 20 of 1000 cases, 200 trials, on the "
	       "step's night (promise: the step found in 180 trials%s):\n"
	       "  %-34s %10s %11s %9s %9s %13s\n", samples, window,
	       per_case ? ", each stepped case in 90% of them" : "", "", "found/case", "trials >=1",
	       ">=18", "all 20", "false slower");
	for (size_t d = 0; d < PERF_SIM_DETECTORS; d++)
		found_row(who[d], &f[d], 200, 20);
	rc |= per_case && f[PERF_SIM_METHOD].cases * 10 < 9 * 200 * 20;
	return rc | (f[PERF_SIM_METHOD].any_trials < 180);
}

/* The smallest --perf N of these that finds `effect` in at least 90% of
 * the (case, trial)s within one sweep (--perf-baseline), 1,000 cases of
 * which 20 change, the FDR at 0.05. */
static void table_row(double cv, double effect)
{
	static const size_t ns[] = { 3, 5, 7, 10, 15, 20, 30, 50 };

	printf("| %.0f%% | %.0f%% |", 100 * cv, 100 * effect);
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct perf_sim_config cfg = perf_sim_defaults(1000, 1);
		size_t found, alarmed;

		cfg.cv_within = cv;
		cfg.cv_night = 0;
		cfg.samples = ns[i];
		cfg.stepped = 20;
		cfg.step = effect;
		perf_sim_within(&cfg, 10, &found, &alarmed);
		if (found * 10 >= 9 * 200) {
			printf(" %zu | %.0f%% |\n", ns[i], (double)found / 2.0);
			return;
		}
	}
	printf(" more than 50 | - |\n");
}

/* The same nights compared as before nights were units: samples pooled,
 * each case alone. */
static void before(size_t window)
{
	struct perf_sim_config cfg = perf_sim_defaults(1000, 100);
	size_t alarmed, compared;

	cfg.window = window;
	cfg.pooled = true;
	perf_sim_false_alarms(&cfg, &alarmed, &compared);
	printf("before, samples pooled, --perf-window %zu: %zu of %zu nights with a false slower\n",
	       window, alarmed, compared);
}

int main(void)
{
	/* At 5% CV the samples' own CV is above --perf-max-cv about half the
	 * time (noisy), whatever N. */
	static const double cvs[] = { 0.01, 0.02, 0.03 }, effects[] = { 0.05, 0.10, 0.20 };
	int rc = promise(20, 5, false) | promise(1, 5, false) | promise(20, 15, true);

	before(1);
	before(10);

	printf("\n| CV | effect | --perf N | found |\n| --- | --- | --- | --- |\n");
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 3; j++)
			table_row(cvs[i], effects[j]);
	return rc;
}
