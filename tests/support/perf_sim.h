/* A seeded simulation of nightly GPU-time comparisons, no engine
 * (docs/perf.md "What the statistics promise"): cases whose samples
 * move within a night and from night to night, compared each night as a
 * sweep compares them (nights as units, the FDR over the night's family),
 * shared by the unit test's small form and `make bench-perf-stats`. */
#ifndef HRR_TESTS_SUPPORT_PERF_SIM_H
#define HRR_TESTS_SUPPORT_PERF_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orchestrator/perf/perf_change.h"

struct perf_sim_config {
	size_t cases, nights, samples;   /* samples: --perf N */
	double cv_within, cv_night;      /* within a night, night to night */
	size_t stepped;                  /* the first `stepped` cases step ... */
	double step;                     /* ... by this much (0.10: 10% slower) ... */
	size_t step_night;               /* ... from this night on */
	size_t window, noise_nights;     /* --perf-window, --perf-noise-nights */
	double fdr;                      /* --perf-fdr */
	bool moderate;                   /* the family's spreads moderated */
	/* As before nights were units: the samples of the last `window`
	 * nights pooled against tonight's, each case alone (no FDR). */
	bool pooled;
	struct perf_rule rule;
	uint64_t seed;
};

/* The defaults of a sweep, at these sizes. */
struct perf_sim_config perf_sim_defaults(size_t cases, size_t nights);

/* Unchanged cases (stepped 0) for cfg->nights nights: the nights with at
 * least one `slower` case, of the nights compared (all but the first). */
void perf_sim_false_alarms(const struct perf_sim_config *cfg, size_t *nights_alarmed,
			   size_t *nights_compared);

/* Who looks at the step's night: the sweep's comparison (the method), and
 * the oracles that know each case's true level and both spreads exactly
 * (a z test of tonight's median, or of its mean, against the level,
 * two-sided, the FDR over the night's family): what no valid test of
 * tonight's samples can beat. Test code, not a product feature. */
enum perf_sim_detector {
	PERF_SIM_METHOD,
	PERF_SIM_ORACLE_MEDIAN,
	PERF_SIM_ORACLE_MEAN,
	PERF_SIM_DETECTORS
};

/* What a detector found on the step's night. */
struct perf_sim_found {
	size_t cases;       /* stepped cases found `slower`, of trials x stepped */
	size_t any_trials;  /* trials in which at least one was */
	size_t most_trials; /* ... at least 90% of them */
	size_t all_trials;  /* ... every one */
	size_t false_cases; /* unchanged cases found `slower`, all trials */
};

/* trials runs of cfg->step_night + 1 nights (seeds cfg->seed + trial), the
 * last the step's, each detector on the same nights. */
void perf_sim_step(const struct perf_sim_config *cfg, size_t trials,
		   struct perf_sim_found out[PERF_SIM_DETECTORS]);

/* The variance of the median of n standard normal values, n odd (NaN
 * when even): what the median oracle knows. */
double perf_sim_median_variance(size_t n);

/* Within one sweep (--perf-baseline): each case's samples on two images
 * of one night, the first `stepped` cases `step` slower on the second, for
 * trials seeded runs: the stepped cases found `slower` (of trials x
 * stepped) and the trials with any false `slower`. */
void perf_sim_within(const struct perf_sim_config *cfg, size_t trials, size_t *found,
		     size_t *alarmed_trials);

#endif
