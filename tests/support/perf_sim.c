/* A seeded simulation of nightly GPU-time comparisons (perf_sim.h). */
#include "tests/support/perf_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "orchestrator/perf/perf_fdr.h"
#include "orchestrator/perf/perf_nights.h"
#include "orchestrator/perf/perf_stats.h"

#define SIM_BASE_MS 40.0

struct sim {
	const struct perf_sim_config *cfg;
	uint64_t rng;
	double *ms;      /* [case][night][sample] */
	double *median;  /* [case][night] */
	struct perf_comparison *cmp;  /* [case], tonight's */
	struct perf_comparison **family;
};

static double uniform01(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double normal01(uint64_t *state)
{
	return sqrt(-2 * log(uniform01(state))) * cos(2 * M_PI * uniform01(state));
}

struct perf_sim_config perf_sim_defaults(size_t cases, size_t nights)
{
	return (struct perf_sim_config){
		.cases = cases, .nights = nights, .samples = 5, .cv_within = 0.02,
		.cv_night = 0.02, .step = 0.10, .step_night = nights - 1,
		.window = 1, .noise_nights = PERF_NOISE_NIGHTS_DEFAULT, .fdr = PERF_FDR_DEFAULT,
		.rule = { PERF_THRESHOLD_DEFAULT, PERF_ALPHA_DEFAULT, PERF_MAX_CV_DEFAULT },
		.seed = 42, .moderate = true,
	};
}

static void sim_init(struct sim *s, const struct perf_sim_config *cfg, uint64_t seed)
{
	size_t cn = cfg->cases * cfg->nights;

	*s = (struct sim){ .cfg = cfg, .rng = seed };
	s->ms = xcalloc(cn * cfg->samples + 1, sizeof(*s->ms));
	s->median = xcalloc(cn + 1, sizeof(*s->median));
	s->cmp = xcalloc(cfg->cases + 1, sizeof(*s->cmp));
	s->family = xcalloc(cfg->cases + 1, sizeof(*s->family));
}

static void sim_release(struct sim *s)
{
	free(s->ms);
	free(s->median);
	free(s->cmp);
	free(s->family);
}

/* Night t's samples of every case, printed to 0.1 ms as hrr-playback
 * prints them, and their medians. */
static void draw_night(struct sim *s, size_t t)
{
	const struct perf_sim_config *c = s->cfg;

	for (size_t k = 0; k < c->cases; k++) {
		double mean = SIM_BASE_MS * (k < c->stepped && t >= c->step_night ? 1 + c->step : 1);
		double night = mean * (1 + c->cv_night * normal01(&s->rng));
		double *x = &s->ms[(k * c->nights + t) * c->samples];

		for (size_t i = 0; i < c->samples; i++)
			x[i] = round(night * (1 + c->cv_within * normal01(&s->rng)) * 10) / 10;
		s->median[k * c->nights + t] = perf_median(x, c->samples);
	}
}

/* The comparison before nights were units: tonight's samples against the
 * last `window` nights' pooled, as independent samples. */
static void compare_pooled(struct sim *s, size_t k, size_t t)
{
	const struct perf_sim_config *c = s->cfg;
	const double *tonight = &s->ms[(k * c->nights + t) * c->samples];
	size_t w = c->window < t ? c->window : t;
	double *pooled = &s->ms[(k * c->nights + t - w) * c->samples];
	struct error err = { 0 };

	/* The nights before are contiguous in ms, oldest first. */
	(void)perf_compare_status(pooled, w * c->samples, tonight, c->samples, &c->rule, false,
				  &s->cmp[k], &err);
}

/* Case k on night t against its nights before, as a sweep compares it:
 * nights as units, the spread learned once PERF_NOISE_NIGHTS_MIN nights
 * exist, else the newest night's within-night CV. */
static void compare_case(struct sim *s, size_t k, size_t t)
{
	const struct perf_sim_config *c = s->cfg;
	size_t keep = c->window > c->noise_nights ? c->window : c->noise_nights;
	size_t n = t < keep ? t : keep;
	const double *tonight = &s->ms[(k * c->nights + t) * c->samples];
	double series[256];
	struct error err = { 0 };

	if (n > 256)
		n = 256;
	for (size_t i = 0; i < n; i++)
		series[i] = s->median[k * c->nights + t - 1 - i];
	const double *last = &s->ms[(k * c->nights + t - 1) * c->samples];

	if (c->pooled) {
		compare_pooled(s, k, t);
		return;
	}
	struct perf_night_series ser = { series, n, c->window, c->noise_nights,
					 perf_cv(last, c->samples), c->samples };

	(void)perf_compare_nights(&ser, tonight, c->samples, &c->rule, false, &s->cmp[k], &err);
}

/* Night t compared: every case, then the night's family under the FDR. */
static void compare_night(struct sim *s, size_t t)
{
	for (size_t k = 0; k < s->cfg->cases; k++) {
		compare_case(s, k, t);
		s->family[k] = &s->cmp[k];
	}
	if (s->cfg->pooled)
		return;
	if (s->cfg->moderate)
		perf_nights_moderate(s->family, s->cfg->cases, &s->cfg->rule);
	perf_change_fdr(s->family, s->cfg->cases, s->cfg->fdr);
}

void perf_sim_false_alarms(const struct perf_sim_config *cfg, size_t *nights_alarmed,
			   size_t *nights_compared)
{
	struct sim s;

	sim_init(&s, cfg, cfg->seed);
	*nights_alarmed = *nights_compared = 0;
	for (size_t t = 0; t < cfg->nights; t++) {
		bool alarm = false;

		draw_night(&s, t);
		if (!t)
			continue;
		compare_night(&s, t);
		for (size_t k = cfg->stepped; k < cfg->cases; k++)
			alarm |= s.cmp[k].status == PERF_SLOWER;
		*nights_alarmed += alarm;
		++*nights_compared;
	}
	sim_release(&s);
}

/* Case k's two sides of one night: its baseline image's and the new
 * image's samples, the same night's machine state for both. */
static void compare_within(struct sim *s, size_t k)
{
	const struct perf_sim_config *c = s->cfg;
	double a[128], b[128], night = SIM_BASE_MS * (1 + c->cv_night * normal01(&s->rng));
	double slow = k < c->stepped ? 1 + c->step : 1;
	struct perf_mwu t;
	struct error err = { 0 };

	for (size_t i = 0; i < c->samples && i < 128; i++) {
		a[i] = round(night * (1 + c->cv_within * normal01(&s->rng)) * 10) / 10;
		b[i] = round(night * slow * (1 + c->cv_within * normal01(&s->rng)) * 10) / 10;
	}
	(void)perf_compare_status(a, c->samples, b, c->samples, &c->rule, false, &s->cmp[k], &err);
	/* Every comparison's test is in the family, as perf_compare makes it. */
	if (isnan(s->cmp[k].p) && s->cmp[k].status != PERF_INSUFFICIENT &&
	    perf_mann_whitney(a, c->samples, b, c->samples, &t, &err) == 0)
		s->cmp[k].p = t.p;
	s->family[k] = &s->cmp[k];
}

void perf_sim_within(const struct perf_sim_config *cfg, size_t trials, size_t *found,
		     size_t *alarmed_trials)
{
	*found = *alarmed_trials = 0;
	for (size_t trial = 0; trial < trials; trial++) {
		struct sim s;
		bool alarm = false;

		sim_init(&s, cfg, cfg->seed + trial * 0x1000193ULL);
		for (size_t k = 0; k < cfg->cases; k++)
			compare_within(&s, k);
		perf_change_fdr(s.family, cfg->cases, cfg->fdr);
		for (size_t k = 0; k < cfg->cases; k++) {
			if (k < cfg->stepped)
				*found += s.cmp[k].status == PERF_SLOWER;
			else
				alarm |= s.cmp[k].status == PERF_SLOWER;
		}
		*alarmed_trials += alarm;
		sim_release(&s);
	}
}

/* The median of n standard normal values, n = 2k + 1, is their
 * (k + 1)th order statistic, of density (2k + 1)!/(k!)^2 F^k (1 - F)^k f
 * and mean 0: its second moment by Simpson's rule over [-10, 10]. */
double perf_sim_median_variance(size_t n)
{
	const size_t steps = 4000, k = n / 2;
	const double h = 20.0 / (double)steps;
	double c = (double)n, sum = 0;

	if (!(n % 2))
		return NAN;
	for (size_t i = 1; i <= k; i++)
		c = c * (double)(k + i) / (double)i;
	for (size_t i = 0; i <= steps; i++) {
		double x = -10 + h * (double)i, f = 0.5 * erfc(-x / M_SQRT2);
		double w = i == 0 || i == steps ? 1 : i % 2 ? 4 : 2;

		sum += w * x * x * c * pow(f * (1 - f), (double)k) * exp(-x * x / 2);
	}
	return sum * h / 3 / sqrt(2 * M_PI);
}

/* An oracle on night t: each case's tonight (the median of its samples,
 * or their mean) over its true level before any step, less 1, is
 * (1 + night)(1 + sample) - 1 with night ~ cv_night Z and sample ~
 * cv_within times the median (or mean) of `samples` normal values: its
 * variance is known exactly, so z and a two-sided normal p, then the FDR
 * over the night's family. (Printing to 0.1 ms adds 0.1% to the variance:
 * left out.) slower[k]: case k found `slower`. */
static void oracle_night(const struct sim *s, size_t t, bool mean, bool *slower)
{
	const struct perf_sim_config *c = s->cfg;
	double v = mean ? 1.0 / (double)c->samples : perf_sim_median_variance(c->samples);
	double n2 = c->cv_night * c->cv_night, w2 = c->cv_within * c->cv_within;
	double sd = sqrt(n2 + w2 * v + n2 * w2 * v);
	double *z = xcalloc(c->cases + 1, sizeof(*z)), *p = xcalloc(c->cases + 1, sizeof(*p));

	for (size_t k = 0; k < c->cases; k++) {
		const double *x = &s->ms[(k * c->nights + t) * c->samples];
		double level = s->median[k * c->nights + t];

		if (mean) {
			level = 0;
			for (size_t i = 0; i < c->samples; i++)
				level += x[i] / (double)c->samples;
		}
		z[k] = (level / SIM_BASE_MS - 1) / sd;
		p[k] = erfc(fabs(z[k]) / M_SQRT2);
	}
	perf_fdr_adjust(p, c->cases, p);
	for (size_t k = 0; k < c->cases; k++)
		slower[k] = p[k] <= c->fdr && z[k] > 0;
	free(z);
	free(p);
}

/* One trial's findings (slower[k]: case k found `slower`) added to out. */
static void tally(const struct perf_sim_config *c, const bool *slower, struct perf_sim_found *out)
{
	size_t hits = 0;

	for (size_t k = 0; k < c->cases; k++) {
		if (k < c->stepped)
			hits += slower[k];
		else
			out->false_cases += slower[k];
	}
	out->cases += hits;
	out->any_trials += hits > 0;
	out->most_trials += hits * 10 >= 9 * c->stepped;
	out->all_trials += hits == c->stepped;
}

void perf_sim_step(const struct perf_sim_config *cfg, size_t trials,
		   struct perf_sim_found out[PERF_SIM_DETECTORS])
{
	struct perf_sim_config c = *cfg;
	bool *slower = xcalloc(cfg->cases + 1, sizeof(*slower));

	c.nights = cfg->step_night + 1;
	for (size_t d = 0; d < PERF_SIM_DETECTORS; d++)
		out[d] = (struct perf_sim_found){ 0 };
	for (size_t trial = 0; trial < trials; trial++) {
		struct sim s;

		sim_init(&s, &c, cfg->seed + trial * 0x1000193ULL);
		for (size_t t = 0; t < c.nights; t++)
			draw_night(&s, t);
		compare_night(&s, c.step_night);
		for (size_t k = 0; k < c.cases; k++)
			slower[k] = s.cmp[k].status == PERF_SLOWER;
		tally(&c, slower, &out[PERF_SIM_METHOD]);
		oracle_night(&s, c.step_night, false, slower);
		tally(&c, slower, &out[PERF_SIM_ORACLE_MEDIAN]);
		oracle_night(&s, c.step_night, true, slower);
		tally(&c, slower, &out[PERF_SIM_ORACLE_MEAN]);
		sim_release(&s);
	}
	free(slower);
}
