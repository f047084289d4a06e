/* The GPU-time options' slice of the option table (docs/perf.md): `run`
 * and `sweep` take --perf and --perf-warmup, a sweep the comparison's
 * (and `bisect --metric gpu-time` its rule). */
#include "orchestrator/cli/sweep_options.h"
#include "orchestrator/cli/options_table.h"
#include "orchestrator/cli/option_values.h"
#include "orchestrator/perf/perf_change.h"
#include "orchestrator/perf/perf_fdr.h"
#include "orchestrator/perf/perf_nights.h"
#include "orchestrator/perf/perf_samples.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct option_def perf_rows[] = {
	{ OPT_PERF, "perf", 0, "N", "HRR_PERF", FOR_RUN | FOR_SWEEP,
	  "after a replay passes, N more (2 to 100) with hrr-playback --timing and\n"
	  "                                   without --sync-after-launch: GPU-time samples (docs/perf.md)" },
	{ OPT_PERF_WARMUP, "perf-warmup", 0, "K", NULL, FOR_RUN | FOR_SWEEP,
	  "timing replays run and discarded before the N samples (default 0)" },
	{ OPT_PERF_BASELINE, "perf-baseline", 0, "IMAGE", NULL, FOR_SWEEP,
	  "compare every other image's samples with this image's, per case and GPU product" },
	{ OPT_PERF_WINDOW, "perf-window", 0, "K", NULL, FOR_SWEEP,
	  "across nights: compare with the baseline sweep's samples (K = 1, the default) or\n"
	  "                                   the label's last K finished sweeps', pooled" },
	{ OPT_PERF_THRESHOLD, "perf-threshold", 0, "P%", NULL, FOR_SWEEP | FOR_BISECT,
	  "a change is a ratio of medians beyond P percent (above 0, at most 100; default 3%)" },
	{ OPT_PERF_ALPHA, "perf-alpha", 0, "A", NULL, FOR_SWEEP | FOR_BISECT,
	  "... and a Mann-Whitney p-value below A (above 0, below 1; default 0.01)" },
	{ OPT_PERF_MAX_CV, "perf-max-cv", 0, "P%", NULL, FOR_SWEEP | FOR_BISECT,
	  "a side whose coefficient of variation is above P percent is noisy (default 5%)" },
	{ OPT_PERF_ADAPTIVE, "perf-adaptive", 0, "MAX", "HRR_PERF_ADAPTIVE", FOR_SWEEP,
	  "a case whose comparison with the nights before is unclear gets more samples on\n"
	  "                                   the same GPUs, up to MAX (above N, at most 100; default off)" },
	{ OPT_PERF_FDR, "perf-fdr", 0, "Q", "HRR_PERF_FDR", FOR_SWEEP,
	  "the false discovery rate over a sweep's comparisons (Benjamini-Hochberg;\n"
	  "                                   above 0, below 1; default 0.05)" },
	{ OPT_PERF_NOISE_NIGHTS, "perf-noise-nights", 0, "N", "HRR_PERF_NOISE_NIGHTS", FOR_SWEEP,
	  "across nights: a case's night-to-night spread is learned from its last N\n"
	  "                                   nightly medians (5 to 1000; default 20)" },
};

void perf_options_init(struct sweep_options *s)
{
	s->perf_window = 1;
	s->perf.threshold = PERF_THRESHOLD_DEFAULT;
	s->perf.alpha = PERF_ALPHA_DEFAULT;
	s->perf.max_cv = PERF_MAX_CV_DEFAULT;
	s->perf_family.fdr = PERF_FDR_DEFAULT;
	s->perf_family.noise_nights = PERF_NOISE_NIGHTS_DEFAULT;
}

/* A level above 0 and below 1: --perf-alpha, --perf-fdr. */
static int parse_level(const char *from, const char *v, double *out, struct error *err)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno || end == v || *end || !(*out > 0) || !(*out < 1))
		return error_set(err, ERR_USAGE, 0,
				 "%s: '%s' is not a level above 0 and below 1 (e.g. 0.01)", from, v);
	return 0;
}

/* "3", "3%", "2.5%": a percentage above 0 and at most 100, as a fraction. */
static int parse_percent(const char *from, const char *v, double *out, struct error *err)
{
	char *end;
	double p;

	errno = 0;
	p = strtod(v, &end);
	if (end != v && *end == '%')
		end++;
	if (errno || end == v || *end || !isfinite(p) || !(p > 0) || p > 100)
		return error_set(err, ERR_USAGE, 0,
				 "%s: '%s' is not a percentage above 0 and at most 100 (e.g. 3%%)",
				 from, v);
	*out = p / 100.0;
	return 0;
}

static int parse_range(const char *from, const char *v, long lo, long hi, long *out,
		       struct error *err)
{
	if (options_parse_long(from, v, lo, out, err) < 0)
		return -1;
	if (*out > hi)
		return error_set(err, ERR_USAGE, 0, "%s: %s is above %ld", from, v, hi);
	return 0;
}

static int perf_option_apply(struct sweep_options *s, enum option_id id, const char *v,
			     const char *from, bool from_env, struct error *err)
{
	(void)from_env;
	switch (id) {
	case OPT_PERF:
		/* One sample has no spread and no test: N >= 2. */
		return parse_range(from, v, 2, PERF_RUNS_MAX, &s->perf_runs, err);
	case OPT_PERF_WARMUP:
		return parse_range(from, v, 0, PERF_RUNS_MAX, &s->perf_warmup, err);
	case OPT_PERF_BASELINE:
		options_set_string(&s->perf_baseline, v);
		return 0;
	case OPT_PERF_WINDOW:
		return parse_range(from, v, 1, 100, &s->perf_window, err);
	case OPT_PERF_THRESHOLD:
		return parse_percent(from, v, &s->perf.threshold, err);
	case OPT_PERF_MAX_CV:
		return parse_percent(from, v, &s->perf.max_cv, err);
	case OPT_PERF_ADAPTIVE:
		return parse_range(from, v, 3, PERF_RUNS_MAX, &s->perf_adaptive, err);
	case OPT_PERF_ALPHA:
		return parse_level(from, v, &s->perf.alpha, err);
	case OPT_PERF_FDR:
		return parse_level(from, v, &s->perf_family.fdr, err);
	case OPT_PERF_NOISE_NIGHTS:
		return parse_range(from, v, PERF_NOISE_NIGHTS_MIN, 1000, &s->perf_family.noise_nights, err);
	default:
		return error_set(err, ERR_USAGE, 0, "internal: %s is not a perf option", from);
	}
}

const struct option_slice perf_option_slice = SWEEP_OPTION_SLICE(perf_rows, perf_option_apply);

int perf_options_validate(const struct sweep_options *s, struct error *err)
{
	if (s->perf_warmup && !s->perf_runs)
		return error_set(err, ERR_USAGE, 0, "--perf-warmup goes with --perf N");
	if (s->perf_baseline && !s->perf_runs)
		return error_set(err, ERR_USAGE, 0, "--perf-baseline goes with --perf N");
	if (s->perf_adaptive && !s->perf_runs)
		return error_set(err, ERR_USAGE, 0, "--perf-adaptive goes with --perf N");
	if (s->perf_adaptive && s->perf_adaptive <= s->perf_runs)
		return error_set(err, ERR_USAGE, 0,
				 "--perf-adaptive %ld is not above --perf %ld: no sample to add",
				 s->perf_adaptive, s->perf_runs);
	if (s->perf_baseline) {
		for (size_t i = 0; i < s->images.n; i++)
			if (!strcmp(s->images.v[i], s->perf_baseline))
				return 0;
		if (s->images.n)
			return error_set(err, ERR_USAGE, 0,
					 "--perf-baseline %s is not one of the sweep's --image "
					 "references", s->perf_baseline);
	}
	return 0;
}
